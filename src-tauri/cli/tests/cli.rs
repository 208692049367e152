//! The CLI as scripts use it: real binary, real files, exit codes and JSON output.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{repo_path, routing_names, stderr, Sandbox};

#[test]
fn list_filters_and_hides_non_callable() {
    let sandbox = Sandbox::new();
    let (code, tools) = sandbox.json(&["--json", "list"]);
    assert_eq!(code, 0);
    let names = routing_names(&tools);
    assert!(names.contains(&"calculator_evaluate".to_owned()));
    assert!(names.contains(&"workspace_delete".to_owned()));
    assert!(!names.contains(&"devtools_stats".to_owned()));
    let (_, all) = sandbox.json(&["list", "--all", "--json"]);
    assert!(routing_names(&all).contains(&"devtools_stats".to_owned()));
    let (_, filtered) = sandbox.json(&["list", "Offset SUBTRACT", "--json"]);
    assert_eq!(routing_names(&filtered), ["time_shift"]);
    let text = sandbox.run(&["list", "zzz-nothing"]);
    assert_eq!(
        String::from_utf8_lossy(&text.stdout).trim(),
        "no methods match"
    );
    assert_eq!(
        sandbox.run(&["list", "--source", "nowhere"]).status.code(),
        Some(2)
    );
}

#[test]
fn prompt_for_vcp_and_unknown_protocol() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["prompt", "--protocol", "vcp"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("<<<[TOOL_DEFINITION]>>>"));
    assert!(text.contains("tool_name:「始」calculator_evaluate「末」"));
    assert!(text.contains("command:「始」Calculate「末」"));
    assert!(!text.contains("devtools_stats"));
    let config = sandbox.write("config.json", r#"{"tool_toggles": {"calculator": false}}"#);
    let toggled = sandbox.run(&["prompt", "--config", &config]);
    assert!(!String::from_utf8_lossy(&toggled.stdout).contains("calculator_evaluate"));
    let bad = sandbox.run(&["prompt", "--protocol", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("unknown protocol 'nope'"));
    let bad_config = sandbox.write("bad.json", "{not json");
    assert_eq!(
        sandbox
            .run(&["prompt", "--config", &bad_config])
            .status
            .code(),
        Some(2)
    );
}

const REPLY: &str = "I'll compute and echo.\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」calculator_evaluate「末」\nexpression:「始」6*7「末」\n<<<[END_TOOL_REQUEST]>>>\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_echo「末」\nmessage:「始」hi「末」\nrepeat:「始」2「末」\n<<<[END_TOOL_REQUEST]>>>\n";

#[test]
fn parse_reports_requests_and_diagnostics() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("reply.txt", REPLY);
    let (code, report) = sandbox.json(&["parse", &file, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(report["format"], "vcp");
    // VCP carries text; the known method's schema types it (echo's `repeat` is an integer).
    assert_eq!(report["requests"][1]["args"]["repeat"], 2);
    assert_eq!(report["requests"][0]["span"]["start"], 23);

    let broken = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_echo「末」\nmessage:「始」oops\n<<<[END_TOOL_REQUEST]>>>";
    let output = sandbox.run_with_stdin(&["parse", "-", "--json"], Some(broken));
    assert_eq!(output.status.code(), Some(3));
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(report["diagnostics"][0]["code"], "unclosed_value");

    let text = sandbox.run_with_stdin(&["parse"], Some(broken));
    assert!(String::from_utf8_lossy(&text.stdout).contains("error[unclosed_value] at 3:1"));
    assert_eq!(
        sandbox
            .run(&["parse", "--format", "nope", &file])
            .status
            .code(),
        Some(2)
    );
    let missing = sandbox.run(&["parse", "/nonexistent/reply.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read '/nonexistent/reply.txt'"));

    // A byte order mark a Windows editor saved is the file's encoding, not the reply's text.
    let bom = "\u{feff}[{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hi\"}}]";
    let file = sandbox.write("bom.txt", bom);
    let (code, report) = sandbox.json(&["parse", &file, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(report["requests"][0]["tool_name"], "echo_echo");
    assert_eq!(report["requests"][0]["span"]["start"], 1);
}

#[test]
fn call_classifies_outcomes_with_exit_codes() {
    let sandbox = Sandbox::new();
    let (code, ok) = sandbox.json(&[
        "call",
        "calculator_evaluate",
        "--args",
        r#"{"expression": "2^10"}"#,
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(ok["status"], "success");
    let value: Value = serde_json::from_str(ok["result"].as_str().unwrap_or("")).expect("json");
    assert_eq!(value["value"], 1024.0);

    for (args, kind) in [
        (
            vec!["call", "echo_echo", "--args", r#"{"repeat": 0}"#],
            "invalid_args",
        ),
        (vec!["call", "devtools_stats"], "not_agent_callable"),
        (vec!["call", "nosuch_tool"], "tool_not_found"),
        (vec!["call", "echo"], "invalid_name"),
        (
            vec![
                "call",
                "workspace_read",
                "--args",
                r#"{"path": "../etc/passwd"}"#,
            ],
            "tool_error",
        ),
        (
            vec![
                "call",
                "devtools_sleep",
                "--args",
                r#"{"durationMs": 10000}"#,
                "--timeout-ms",
                "50",
            ],
            "timeout",
        ),
        (
            vec!["call", "workspace_delete", "--args", r#"{"path": "a"}"#],
            "denied",
        ),
    ] {
        let mut full = args.clone();
        full.push("--json");
        let (code, result) = sandbox.json(&full);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(result["error"]["kind"], kind, "{args:?}: {result}");
    }
    let (_, invalid) = sandbox.json(&["call", "echo_echo", "--args", r#"{"repeat": 0}"#, "--json"]);
    let message = invalid["result"].as_str().unwrap_or("");
    assert!(
        message.contains("- /: \"message\" is a required property"),
        "{message}"
    );
    assert!(
        message.contains("- /repeat: 0 is less than the minimum of 1"),
        "{message}"
    );

    let (code, capped) = sandbox.json(&[
        "call",
        "devtools_generate",
        "--args",
        r#"{"bytes": 5000}"#,
        "--max-output-bytes",
        "100",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(capped["truncated"]["original_bytes"], 5000);

    assert_eq!(
        sandbox
            .run(&["call", "echo_echo", "--args", "{bad"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        sandbox
            .run(&["call", "echo_echo", "--args", "[]"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn destructive_call_runs_with_yes_inside_the_workspace() {
    let sandbox = Sandbox::new();
    let (code, _) = sandbox.json(&[
        "call",
        "workspace_write",
        "--args",
        r#"{"path": "notes/a.txt", "content": "x", "createDirs": true}"#,
        "--json",
    ]);
    assert_eq!(code, 0);
    assert!(sandbox.path().join("workspace/notes/a.txt").is_file());
    let (code, deleted) = sandbox.json(&[
        "call",
        "workspace_delete",
        "--args",
        r#"{"path": "notes/a.txt"}"#,
        "--yes",
        "--json",
    ]);
    assert_eq!(code, 0, "{deleted}");
    assert!(!sandbox.path().join("workspace/notes/a.txt").exists());
}

#[test]
fn run_executes_the_cycle_and_records_history() {
    let sandbox = Sandbox::new();
    let file = sandbox.write("reply.txt", REPLY);
    let (code, outcome) = sandbox.json(&["run", &file, "--json"]);
    assert_eq!(code, 0, "{outcome}");
    assert_eq!(outcome["results"].as_array().map(Vec::len), Some(2));
    let formatted = outcome["formatted_results"].as_str().unwrap_or("");
    assert_eq!(formatted.matches("<<<[TOOL_RESULT]>>>").count(), 2);
    assert!(formatted.contains("\"value\":42"), "{formatted}");

    let text = sandbox.run(&["run", &file]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("--- results for the model (vcp) ---"));

    let history =
        std::fs::read_to_string(sandbox.path().join("history.jsonl")).expect("history written");
    let entries: Vec<Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).expect("complete json line"))
        .collect();
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[0]["parent_id"], entries[1]["parent_id"]);
    assert_ne!(entries[0]["parent_id"], entries[2]["parent_id"]);

    let none = sandbox.run_with_stdin(&["run", "--no-history"], Some("no calls here"));
    assert_eq!(none.status.code(), Some(3));
    let failing =
        "<<<[TOOL_REQUEST]>>>\ntool_name:「始」devtools_fail「末」\n<<<[END_TOOL_REQUEST]>>>";
    let failed = sandbox.run_with_stdin(&["run", "-", "--no-history"], Some(failing));
    assert_eq!(failed.status.code(), Some(1));
    let lines = std::fs::read_to_string(sandbox.path().join("history.jsonl")).expect("history");
    assert_eq!(lines.lines().count(), 4, "--no-history records nothing");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let sandbox = Sandbox::new();
    assert_eq!(sandbox.run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(sandbox.run(&["--help"]).status.code(), Some(0));
    let formats = sandbox.run(&["formats"]);
    assert!(String::from_utf8_lossy(&formats.stdout).starts_with("vcp"));
}

#[test]
fn bench_parse_checks_the_shared_inputs_and_reports_figures() {
    let sandbox = Sandbox::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/parser-inputs");
    let dir = dir.to_str().expect("utf-8 path");
    let (code, report) = sandbox.json(&[
        "bench-parse",
        dir,
        "--only",
        "small",
        "--budget-ms",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{report:#}");
    let rows = report["rows"].as_array().expect("rows");
    assert!(rows.len() >= 4, "{report:#}");
    for row in rows {
        assert_eq!(row["calls_match"], Value::Bool(true), "{row:#}");
        assert_eq!(row["got_calls"], row["expected_calls"], "{row:#}");
        assert!(
            row["parse_ms"].as_f64().is_some_and(|ms| ms > 0.0),
            "{row:#}"
        );
        assert!(
            row["best_ms"]
                .as_f64()
                .is_some_and(|best| best > 0.0 && Some(best) <= row["parse_ms"].as_f64()),
            "the best run is never slower than the median: {row:#}"
        );
    }

    // A directory that is not a benchmark set is bad input, not a crash.
    let output = sandbox.run(&["bench-parse", sandbox.path().to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("manifest.json"));
}

#[test]
fn mcp_servers_from_a_config_file_are_listed_and_called() {
    let sandbox = Sandbox::new();
    let script =
        repo_path("tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        Path::new(&script).exists(),
        "{script} is missing: run `bash scripts/setup.sh --test`"
    );
    let config = sandbox.write(
        "claude_desktop_config.json",
        &serde_json::json!({"mcpServers": {"everything": {"command": "node", "args": [script, "stdio"]}}})
            .to_string(),
    );
    let (code, tools) =
        sandbox.json(&["--mcp-config", &config, "list", "--source", "mcp", "--json"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = tools
        .as_array()
        .expect("a list")
        .iter()
        .flat_map(|t| t["methods"].as_array().into_iter().flatten())
        .filter_map(|m| m["routing_name"].as_str())
        .collect();
    assert!(names.contains(&"everything_get-sum"), "{names:?}");
    let output = sandbox.run(&[
        "--mcp-config",
        &config,
        "--no-history",
        "call",
        "everything_get-sum",
        "--args",
        r#"{"a": 2, "b": 40}"#,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("42"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("starting MCP server 'everything': node"),
        "the command line is shown: {stderr}"
    );
}

#[test]
fn http_tool_definitions_load_from_a_directory_and_problems_are_reported() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().join("http");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::copy(
        repo_path("tests/fixtures/http_tools/weather.toml"),
        dir.join("weather.toml"),
    )
    .expect("copy");
    std::fs::write(dir.join("broken.json"), "{ nope").expect("write");
    let dir = dir.to_string_lossy().into_owned();
    let output = sandbox.run(&["--http-tools", &dir, "list", "--source", "http", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let tools: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(!tools.as_array().expect("a list").is_empty(), "{tools}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("broken.json"), "{stderr}");
}

#[test]
fn wasm_tools_load_from_a_directory_and_run() {
    let sandbox = Sandbox::new();
    let out = sandbox.path().join("wasm");
    let built = Command::new("bash")
        .arg(repo_path("tests/fixtures/wasm/build.sh"))
        .arg(&out)
        .status()
        .expect("runs build.sh");
    assert!(built.success(), "building the example WASM tools failed");
    let dir = out.join("textkit").to_string_lossy().into_owned();
    let args = r#"{"pattern": "b+", "text": "abba b"}"#;
    let output = sandbox.run(&[
        "--wasm-tools",
        &dir,
        "--json",
        "call",
        "textkit_match",
        "--args",
        args,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let text = result["result"].as_str().expect("the result text");
    let matched: Value = serde_json::from_str(text).expect("the tool's JSON");
    assert_eq!(matched["count"], 2, "{matched}");

    let missing = sandbox.run(&["--wasm-tools", "/nonexistent/tools", "list"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(stderr(&missing).contains("is not a directory"));
}

/// A Hermes reply with `calls` calls, one per line, prose between them.
fn long_hermes_reply(calls: usize) -> String {
    let mut text = String::new();
    for i in 0..calls {
        text.push_str(&format!(
            "Step {i}, looking it up.\n<tool_call>{{\"name\": \"calculator_evaluate\", \"arguments\": {{\"expression\": \"{i} + 1\"}}}}</tool_call>\n"
        ));
    }
    text
}

#[test]
fn a_closed_pipe_ends_every_printing_command_quietly() {
    let sandbox = Sandbox::new();
    let reply = sandbox.write("reply.txt", &long_hermes_reply(5_000));
    for args in [
        vec!["parse", reply.as_str()],
        vec!["parse", "--json", reply.as_str()],
        vec!["list"],
        vec!["formats"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(&args)
            .env("TOOLSCOPE_HOME", sandbox.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("toolscope starts");
        // The reader goes away at once, like `| head -0`.
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("toolscope finishes");
        let stderr = stderr(&output);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            matches!(output.status.code(), Some(0 | 141)),
            "{args:?}: {:?} {stderr}",
            output.status
        );
    }
}
