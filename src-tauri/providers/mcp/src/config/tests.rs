use super::*;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../../tests/fixtures/mcp/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn stdio(command: &str, args: &[&str]) -> McpTransport {
    McpTransport::Stdio {
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    }
}

#[test]
fn imports_claude_desktop_servers_with_env_and_disabled_flag() {
    let report = import(&fixture("claude_desktop_config.json")).expect("imports");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "github", "off"]);
    assert_eq!(
        report.servers[0].transport,
        stdio(
            "npx",
            &[
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "/Users/me/Desktop"
            ]
        )
    );
    let McpTransport::Stdio { env, .. } = &report.servers[1].transport else {
        panic!("github is a command");
    };
    assert_eq!(env["GITHUB_PERSONAL_ACCESS_TOKEN"], "${GITHUB_TOKEN}");
    assert!(report.servers[0].enabled && !report.servers[2].enabled);
}

#[test]
fn imports_cursor_urls_and_reports_bad_entries_without_losing_the_rest() {
    let report = import(&fixture("cursor_mcp.json")).expect("imports");
    let names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["local-db", "remote"]);
    let McpTransport::Stdio { args, env, .. } = &report.servers[0].transport else {
        panic!("local-db is a command");
    };
    assert_eq!(
        args.last().map(String::as_str),
        Some("5432"),
        "numbers become strings"
    );
    assert_eq!(env["DEBUG"], "1");
    assert!(
        matches!(&report.servers[1].transport, McpTransport::Http { headers, .. } if headers.contains_key("Authorization"))
    );
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(report.warnings[0].contains("'broken'") && report.warnings[0].contains("\"command\""));
    assert!(report.warnings[1].contains("'legacy'") && report.warnings[1].contains("SSE"));
}

#[test]
fn imports_vscode_servers_with_comments_types_and_inputs() {
    let report = import(&fixture("vscode_mcp.json")).expect("imports");
    let names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["fetch", "api"], "file order is kept");
    assert!(
        matches!(&report.servers[1].transport, McpTransport::Http { url, .. } if url == "http://127.0.0.1:8080/mcp")
    );
    assert!(
        matches!(&report.servers[0].transport, McpTransport::Stdio { cwd: Some(cwd), .. } if cwd == "${workspaceFolder}")
    );
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains("'odd'") && w.contains("websocket")));
    assert!(report.warnings.iter().any(|w| w.contains("inputs")));
}

#[test]
fn rejects_what_holds_no_servers() {
    assert!(matches!(
        import("not json"),
        Err(ConfigError::InvalidJson(_))
    ));
    assert!(matches!(import("[1]"), Err(ConfigError::NoServers(_))));
    assert!(matches!(
        import(r#"{"mcpServers": []}"#),
        Err(ConfigError::NoServers(_))
    ));
    assert!(matches!(
        import(r#"{"other": 1}"#),
        Err(ConfigError::NoServers(_))
    ));
    let bare = import(r#"{"a": {"command": "x"}, "b": {"url": "http://127.0.0.1:1/mcp"}}"#)
        .expect("bare map");
    assert_eq!(bare.servers.len(), 2);
}

#[test]
fn export_round_trips_through_import() {
    let report = import(&fixture("cursor_mcp.json")).expect("imports");
    let mut servers = report.servers;
    servers[0].enabled = false;
    let again = import(&export(&servers).to_string()).expect("reimports");
    assert_eq!(again.servers, servers);
}

#[test]
fn expands_env_variables_and_names_the_missing_one() {
    let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
    assert_eq!(
        expand_variables("Bearer ${TOKEN}", "h", &lookup),
        Ok("Bearer s3cret".into())
    );
    assert_eq!(
        expand_variables("${env:TOKEN}/x", "h", &lookup),
        Ok("s3cret/x".into())
    );
    assert_eq!(
        expand_variables("no vars, ${ unclosed", "h", &lookup),
        Ok("no vars, ${ unclosed".into())
    );
    assert_eq!(
        expand_variables("${input:api-key}", "headers.X-Api-Key", &lookup),
        Err(ConfigError::MissingVariable {
            field: "headers.X-Api-Key".into(),
            name: "input:api-key".into()
        })
    );
    assert!(matches!(
        expand_variables("${NOPE}", "env.A", &lookup),
        Err(ConfigError::MissingVariable { .. })
    ));
}

#[test]
fn command_lines_are_shown_quoted_as_a_shell_would_need() {
    let mut env = BTreeMap::new();
    env.insert("KEY".to_owned(), "a b".to_owned());
    let line = McpTransport::Stdio {
        command: "npx".into(),
        args: vec!["-y".into(), "it's".into()],
        env,
        cwd: Some("/tmp".into()),
    }
    .command_line();
    assert_eq!(
        line.as_deref(),
        Some(r"(in /tmp) KEY='a b' npx -y 'it'\''s'")
    );
}

#[test]
fn reads_and_writes_an_http_servers_oauth_settings() {
    let text = r#"{"mcpServers": {
        "tracker": {"url": "https://mcp.example.com/mcp", "oauth": {
            "clientId": "toolscope-desktop", "clientSecret": "${TRACKER_SECRET}",
            "scopes": ["issues:read"]}},
        "docs": {"url": "https://docs.example.com/mcp",
            "oauth": {"clientMetadataUrl": "https://toolscope.example/client.json"}},
        "typo": {"url": "https://x.example/mcp", "oauth": {"clientID": "x"}}
    }}"#;
    let report = import(text).expect("imports");
    let names: Vec<&str> = report.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["tracker", "docs"]);
    let McpTransport::Http {
        oauth: Some(oauth), ..
    } = &report.servers[0].transport
    else {
        panic!("tracker has oauth settings");
    };
    assert_eq!(oauth.client_id.as_deref(), Some("toolscope-desktop"));
    assert_eq!(oauth.client_secret.as_deref(), Some("${TRACKER_SECRET}"));
    assert_eq!(oauth.scopes, ["issues:read"]);
    // A misspelt field is refused by name rather than silently ignored.
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].contains("'typo'") && report.warnings[0].contains("clientID"),
        "{:?}",
        report.warnings
    );
    // What Toolscope writes reads back the same.
    let again = import(&export(&report.servers).to_string()).expect("re-imports");
    assert_eq!(again.servers, report.servers);
}
