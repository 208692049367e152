//! `toolscope proxy mcp` between a scripted client and the MCP reference server
//! (server-everything): what the client receives is the same with and without the proxy, and
//! the record holds every message in order with what it meant. Also `--enforce`, and the MCP
//! Inspector's CLI driving the proxy as a real client.

mod proxy_support;

use std::time::Duration;

use proxy_support::*;
use serde_json::{json, Value};

fn everything() -> Option<Vec<String>> {
    Some(vec![node(), everything_script()?, "stdio".to_owned()])
}

/// One conversation touching every kind of traffic the proxy observes.
fn conversation(peer: &mut Peer) {
    peer.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "toolscope-test", "version": "1"}}),
    );
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // server-everything adds the tools the client's capabilities allow and says so.
    peer.until_within(Duration::from_secs(3), |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    peer.request(1, "tools/list", json!({}));
    peer.request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi through toolscope"}}),
    );
    peer.request(
        3,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": "one", "b": 2}}),
    );
    peer.request(
        4,
        "tools/call",
        json!({"name": "trigger-long-running-operation", "arguments": {"duration": 0.3, "steps": 3},
               "_meta": {"progressToken": "lro"}}),
    );
    peer.request(5, "no/such/method", json!({}));
    peer.send_line("this line is not JSON");
    peer.request(6, "ping", json!({}));
    peer.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "trigger-elicitation-request", "arguments": {}}}));
    let ask = peer.until(|m| m["method"] == "elicitation/create");
    peer.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    peer.until(|m| m["id"] == 7 && m.get("method").is_none());
    peer.send(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                     "params": {"name": "trigger-long-running-operation",
                                "arguments": {"duration": 0.4, "steps": 2}, "_meta": {"progressToken": "c"}}}));
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 8, "reason": "changed my mind"}}),
    );
    std::thread::sleep(Duration::from_millis(700));
    peer.request(9, "ping", json!({}));
}

fn seq_of(records: &[Value], id: i64, method: &str) -> u64 {
    records
        .iter()
        .find(|r| r["type"] == "message" && r["msg"]["id"] == id && r["msg"]["method"] == method)
        .and_then(|r| r["seq"].as_u64())
        .unwrap_or_else(|| panic!("request {id} {method} is recorded"))
}

#[test]
fn the_client_receives_the_same_through_the_proxy_and_the_record_has_it_all() {
    let Some(server) = everything() else { return };
    let mut direct = Peer::start(direct_command(&server));
    conversation(&mut direct);
    let (_, direct_received) = direct.finish();

    let home = tempfile::tempdir().expect("tempdir");
    let mut proxied = Peer::start(proxy_command(home.path(), "everything", &[], &server));
    conversation(&mut proxied);
    let sent: Vec<Value> = proxied.sent.iter().map(|l| parse(l)).collect();
    let (code, received) = proxied.finish();
    assert_eq!(code, Some(0), "the agent closed: a normal end");

    let direct_json: Vec<Value> = direct_received.iter().map(|l| parse(l)).collect();
    let proxied_json: Vec<Value> = received.iter().map(|l| parse(l)).collect();
    assert_eq!(
        direct_json, proxied_json,
        "the client sees the same messages, in the same order"
    );
    let progress = |m: &&Value| m["method"] == "notifications/progress";
    assert!(
        proxied_json.iter().filter(progress).count() >= 3,
        "{proxied_json:#?}"
    );
    assert!(proxied_json.iter().any(|m| m["error"]["code"] == -32601));

    let records = record(home.path(), "everything");
    let seqs: Vec<u64> = records.iter().filter_map(|r| r["seq"].as_u64()).collect();
    assert_eq!(seqs, (0..records.len() as u64).collect::<Vec<_>>());
    assert_eq!(records[0]["type"], "session");
    assert_eq!(records[0]["argv"], json!(server));
    assert_eq!(
        messages(&records, "server_to_agent"),
        proxied_json,
        "every answer, in order"
    );
    assert_eq!(
        messages(&records, "agent_to_server"),
        sent,
        "every request, in order"
    );
    assert_eq!(
        records
            .iter()
            .find(|r| r["msg"].is_null() && r["type"] == "message")
            .map(|r| &r["text"]),
        Some(&json!("this line is not JSON"))
    );

    let init = of_type(&records, "initialize");
    assert_eq!(init[0]["params"]["capabilities"]["elicitation"], json!({}));
    assert_eq!(
        init[0]["result"]["serverInfo"]["name"],
        "mcp-servers/everything"
    );
    let tools = of_type(&records, "tools");
    assert!(tools[0]["names"]
        .as_array()
        .expect("names")
        .contains(&json!("echo")));

    let calls = of_type(&records, "call");
    let echo = calls
        .iter()
        .find(|c| c["tool"] == "echo")
        .expect("echo call");
    assert_eq!(echo["outcome"], "result");
    assert_eq!(echo["request_seq"], seq_of(&records, 2, "tools/call"));
    assert!(
        echo["latency_ms"]
            .as_f64()
            .is_some_and(|ms| ms > 0.0 && ms < 10_000.0),
        "{echo}"
    );
    let long = calls.iter().find(|c| c["id"] == 4).expect("long call");
    assert!(
        long["latency_ms"].as_f64().is_some_and(|ms| ms >= 290.0),
        "{long}"
    );

    let invalid = of_type(&records, "invalid_call");
    assert_eq!(invalid.len(), 1, "only get-sum with a='one': {invalid:?}");
    assert_eq!(invalid[0]["call_seq"], seq_of(&records, 3, "tools/call"));
    assert_eq!(invalid[0]["tool"], "get-sum");
    assert_eq!(invalid[0]["enforced"], false);
    assert_eq!(invalid[0]["issues"][0]["path"], "/a");

    let progress = of_type(&records, "progress");
    let lro: Vec<_> = progress.iter().filter(|p| p["token"] == "lro").collect();
    assert_eq!(lro.len(), 3);
    assert!(lro
        .iter()
        .all(|p| p["request_seq"] == seq_of(&records, 4, "tools/call")));
    assert_eq!(of_type(&records, "elicitation").len(), 1);
    assert_eq!(
        of_type(&records, "elicitation_result")[0]["action"],
        "decline"
    );
    let cancelled = of_type(&records, "cancelled");
    assert_eq!(
        cancelled[0]["request_seq"],
        seq_of(&records, 8, "tools/call")
    );
    assert_eq!(cancelled[0]["reason"], "changed my mind");
    let end = records.last().expect("records");
    assert_eq!(end["type"], "end");
    assert_eq!(end["reason"], "agent_closed");
}

#[test]
fn enforce_answers_an_invalid_call_itself_and_never_forwards_it() {
    let Some(server) = everything() else { return };
    let home = tempfile::tempdir().expect("tempdir");
    let seen_by_server = home.path().join("server-stdin.txt");
    // The server's stdin is copied to a file on its way in: what it never got is not there.
    let wrapped = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "tee '{}' | '{}' '{}' stdio",
            seen_by_server.display(),
            server[0],
            server[1]
        ),
    ];
    let mut peer = Peer::start(proxy_command(
        home.path(),
        "strict",
        &["--enforce"],
        &wrapped,
    ));
    peer.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "t", "version": "1"}}),
    );
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer.request(1, "tools/list", json!({}));
    let refused = peer.request(
        2,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": "one", "b": 2}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("- /a: ")),
        "{refused}"
    );
    let sum = peer.request(
        3,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": 1, "b": 2}}),
    );
    assert!(
        sum["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains('3')),
        "{sum}"
    );
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));

    let server_got = std::fs::read_to_string(&seen_by_server).expect("the server's stdin copy");
    assert!(
        server_got.contains(r#""id":3"#),
        "the valid call went through: {server_got}"
    );
    assert!(
        !server_got.contains(r#""id":2"#),
        "the refused call never reached the server"
    );
    let records = record(home.path(), "strict");
    let invalid = of_type(&records, "invalid_call");
    assert_eq!(invalid.len(), 1);
    assert_eq!(invalid[0]["enforced"], true);
    let answer = records
        .iter()
        .find(|r| r["type"] == "message" && r["origin"] == "proxy")
        .expect("the proxy's answer is recorded");
    assert_eq!(answer["dir"], "server_to_agent");
    assert_eq!(answer["msg"], refused);
    let call = of_type(&records, "call")
        .into_iter()
        .find(|c| c["id"] == 2)
        .expect("call record");
    assert_eq!(call["outcome"], "error");
}

/// The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, tests/package.json) with the
/// proxy as its server command.
#[test]
fn mcp_inspector_cli_through_the_proxy() {
    let Some(server) = everything() else { return };
    let launcher = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
    );
    if !launcher.exists() {
        eprintln!(
            "SKIPPED: {} is missing: run `bash scripts/setup.sh --test`",
            launcher.display()
        );
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let inspect = |method_args: &[&str]| {
        let output = std::process::Command::new(node())
            .arg(&launcher)
            .arg("--cli")
            // The Inspector passes its servers a short list of variables only: name ours.
            .arg("-e")
            .arg(format!("TOOLSCOPE_HOME={}", home.path().display()))
            .args(method_args)
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_toolscope"))
            .args(["proxy", "mcp", "--name", "inspector", "--"])
            .args(&server)
            .env("TOOLSCOPE_HOME", home.path())
            // Nothing of the Inspector's own (catalog, settings) lands in the real home.
            .env("HOME", home.path())
            .env("MCP_CATALOG_PATH", home.path().join("mcp.json"))
            .output()
            .expect("the Inspector runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "inspector {method_args:?}: {}\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    let listed = inspect(&["--method", "tools/list"]);
    assert!(listed.contains("\"echo\""), "{listed}");
    let called = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "message=hi",
    ]);
    assert!(called.contains("Echo: hi"), "{called}");

    let dir = home.path().join("proxy/inspector");
    let mut sessions: Vec<_> = std::fs::read_dir(&dir)
        .expect("sessions")
        .map(|e| e.expect("entry").path())
        .collect();
    sessions.sort();
    assert_eq!(sessions.len(), 2, "one session per Inspector run");
    let text = std::fs::read_to_string(&sessions[1]).expect("record");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert!(!of_type(&records, "initialize").is_empty());
    let call = of_type(&records, "call");
    assert_eq!(call.len(), 1, "{records:#?}");
    assert_eq!(call[0]["tool"], "echo");
    assert_eq!(call[0]["outcome"], "result");
    assert!(of_type(&records, "invalid_call").is_empty());
    assert_eq!(
        records.last().map(|r| r["type"].clone()),
        Some(json!("end"))
    );
}
