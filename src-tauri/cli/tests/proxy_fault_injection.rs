//! Faults chosen per tool while `toolscope proxy mcp` runs (`toolscope proxy fault`): against
//! server-everything over stdio, a call is answered with an injected timeout or a mock result
//! without reaching the server, a delayed call arrives after its delay, clearing restores the
//! server's own answers, and the record says which fault met which call.

mod proxy_support;

use std::process::Command;
use std::time::{Duration, Instant};

use proxy_support::*;
use serde_json::{json, Value};

fn fault(home: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .env("TOOLSCOPE_HOME", home)
        .args(["proxy", "fault", "--name", "everything"])
        .args(args)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The proxy reads the plan again at most every 200 ms.
fn let_the_proxy_notice() {
    std::thread::sleep(Duration::from_millis(450));
}

#[test]
fn faults_set_while_the_proxy_runs_meet_the_next_calls_and_are_recorded() {
    let Some(script) = everything_script() else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let server = vec![node(), script, "stdio".to_owned()];
    let mut peer = Peer::start(proxy_command(home.path(), "everything", &[], &server));
    peer.initialize();
    peer.request(1, "tools/list", json!({}));
    let echo = |message: &str| json!({"name": "echo", "arguments": {"message": message}});

    let listed = fault(home.path(), &["--tool", "echo", "--error", "timeout"]);
    assert_eq!(listed.trim(), "echo: answered with timeout");
    let_the_proxy_notice();
    let timed_out = peer.request(2, "tools/call", echo("first"));
    assert_eq!(timed_out["error"]["code"], -32001, "{timed_out}");

    let mock = r#"{"content":[{"type":"text","text":"mocked sum"}]}"#;
    fault(home.path(), &["--tool", "get-sum", "--mock", mock]);
    fault(home.path(), &["--tool", "echo", "--delay-ms", "400"]);
    let_the_proxy_notice();
    let mocked = peer.request(
        3,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": 1, "b": 2}}),
    );
    assert_eq!(mocked["result"]["content"][0]["text"], "mocked sum");
    let sent = Instant::now();
    let delayed = peer.request(4, "tools/call", echo("late"));
    assert!(
        sent.elapsed() >= Duration::from_millis(400),
        "forwarded only after the delay"
    );
    assert_eq!(delayed["result"]["content"][0]["text"], "Echo: late");

    assert_eq!(
        fault(home.path(), &["--clear-all"]).trim(),
        "no faults for everything"
    );
    let_the_proxy_notice();
    let normal = peer.request(5, "tools/call", echo("again"));
    assert_eq!(normal["result"]["content"][0]["text"], "Echo: again");
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));

    let records = record(home.path(), "everything");
    let faults: Vec<(Value, Value)> = of_type(&records, "fault")
        .iter()
        .map(|f| (f["id"].clone(), f["fault"].clone()))
        .collect();
    assert_eq!(
        faults,
        [
            (json!(2), json!("error")),
            (json!(3), json!("mock")),
            (json!(4), json!("delay"))
        ]
    );
    // The injected answers never reached the server: it saw only the delayed and normal calls.
    let forwarded_calls: Vec<&Value> = records
        .iter()
        .filter(|r| {
            r["type"] == "message"
                && r["dir"] == "agent_to_server"
                && r["msg"]["method"] == "tools/call"
        })
        .map(|r| &r["msg"]["id"])
        .collect();
    assert_eq!(
        forwarded_calls.len(),
        4,
        "all calls are recorded as the agent sent them"
    );
    let from_proxy: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "message" && r["origin"] == "proxy")
        .map(|r| &r["msg"]["id"])
        .collect();
    assert_eq!(from_proxy, [&json!(2), &json!(3)]);
    let calls = of_type(&records, "call");
    let outcome_of = |id: i64| {
        calls
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["outcome"].clone())
            .unwrap_or_default()
    };
    assert_eq!(outcome_of(2), "error");
    assert_eq!(outcome_of(3), "result");
}

fn toolscope(home: &std::path::Path, args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .env("TOOLSCOPE_HOME", home)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .expect("stdin written");
    drop(input);
    let output = child.wait_with_output().expect("ends");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The issue's "mock result (the imported tools' mocks)": an imported set's template mock, with
/// its latency, answers a proxied server's calls of the tool of the same name.
#[test]
fn an_imported_tools_mock_answers_the_proxied_calls_after_its_latency() {
    let Some(script) = everything_script() else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let definitions = json!([{"type": "function", "function": {
        "name": "echo", "description": "Echoes a message",
        "parameters": {"type": "object", "properties": {"message": {"type": "string"}},
                       "required": ["message"]}}}]);
    toolscope(
        home.path(),
        &["import", "-", "--name", "Shop"],
        Some(&definitions.to_string()),
    );
    // A set without the mock is refused with what to do.
    let refused = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .env("TOOLSCOPE_HOME", home.path())
        .args(["proxy", "fault", "--name", "everything", "--tool", "echo"])
        .args(["--mock-from", "Shop"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("has no mock"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    toolscope(
        home.path(),
        &[
            "imported",
            "mock",
            "Shop",
            "echo",
            "--template",
            r#"{"said": "{{message}}"}"#,
            "--latency-ms",
            "300",
        ],
        None,
    );
    let listed = fault(home.path(), &["--tool", "echo", "--mock-from", "Shop"]);
    assert_eq!(
        listed.trim(),
        "echo: answered as Shop's mock of echo answers, after 300 ms"
    );

    let server = vec![node(), script, "stdio".to_owned()];
    let mut peer = Peer::start(proxy_command(home.path(), "everything", &[], &server));
    peer.initialize();
    let sent = Instant::now();
    let mocked = peer.request(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    assert!(
        sent.elapsed() >= Duration::from_millis(300),
        "after its latency"
    );
    assert_eq!(mocked["result"]["structuredContent"], json!({"said": "hi"}));
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));

    let records = record(home.path(), "everything");
    let fault = of_type(&records, "fault");
    assert_eq!(fault.len(), 1);
    assert_eq!(fault[0]["imported"], "Shop/echo");
    let call = of_type(&records, "call");
    let latency = call[0]["latency_ms"].as_f64().expect("latency");
    assert!(
        latency >= 300.0,
        "the recorded latency is the mock's: {latency}"
    );
}
