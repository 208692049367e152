//! `toolscope proxy mcp` when things break: the server dies mid-call (the agent gets a
//! JSON-RPC error, the record says why), and the proxy itself is killed with SIGKILL (every
//! record line is whole, every message the client got is in the record).

mod proxy_support;

use std::time::Duration;

use proxy_support::*;
use serde_json::{json, Value};

/// Checks what the agent and the record say after the server died during request `id`.
fn assert_server_death(
    home: &std::path::Path,
    name: &str,
    answer: &Value,
    code: Option<i32>,
    status: i64,
    last_words: &str,
) {
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("exit status {status}")),
        "{message}"
    );
    assert!(message.contains(last_words), "{message}");
    assert_eq!(
        code,
        Some(1),
        "the proxy exits non-zero when the server died"
    );

    let records = record(home, name);
    let end = records.last().expect("records");
    assert_eq!(end["type"], "end");
    assert_eq!(end["reason"], "server_exited");
    assert_eq!(end["server_status"]["code"], status);
    assert_eq!(end["pending_answered"], 1);
    assert!(
        end["stderr_tail"]
            .as_array()
            .expect("tail")
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains(last_words))),
        "{end}"
    );
    let answered = records
        .iter()
        .find(|r| r["type"] == "message" && r["origin"] == "proxy")
        .expect("the proxy's answer is recorded");
    assert_eq!(&answered["msg"], answer);
    let call = of_type(&records, "call");
    assert_eq!(call[0]["outcome"], "error");
}

#[test]
fn a_server_that_exits_mid_call_leaves_the_agent_an_error_and_the_record_a_reason() {
    let script = r#"read -r line
echo '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"dying","version":"1"}}}'
read -r line
read -r line
echo "about to die on purpose" >&2
exit 3"#;
    let home = tempfile::tempdir().expect("tempdir");
    let server = vec!["sh".to_owned(), "-c".to_owned(), script.to_owned()];
    let mut peer = Peer::start(proxy_command(home.path(), "dying", &[], &server));
    peer.initialize();
    let answer = peer.request(
        1,
        "tools/call",
        json!({"name": "anything", "arguments": {}}),
    );
    let (code, _) = peer.finish();
    assert_server_death(
        home.path(),
        "dying",
        &answer,
        code,
        3,
        "about to die on purpose",
    );
}

/// The project's rmcp test server and its `crash` tool (`cargo build -p toolscope-mcp --bin
/// toolscope-mcp-testserver`; `cargo test --workspace` builds it).
#[test]
fn the_rmcp_test_server_crashing_mid_call() {
    let Some(testserver) = mcp_testserver() else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let server = vec![testserver.to_string_lossy().into_owned()];
    let mut peer = Peer::start(proxy_command(home.path(), "crashing", &[], &server));
    peer.initialize();
    peer.request(1, "tools/list", json!({}));
    let answer = peer.request(2, "tools/call", json!({"name": "crash", "arguments": {}}));
    let (code, _) = peer.finish();
    assert_server_death(
        home.path(),
        "crashing",
        &answer,
        code,
        3,
        "crashing on purpose",
    );
}

#[test]
fn sigkill_of_the_proxy_loses_no_message_the_client_received() {
    let Some(script) = everything_script() else {
        return;
    };
    let server = vec![node(), script, "stdio".to_owned()];
    let home = tempfile::tempdir().expect("tempdir");
    let mut peer = Peer::start(proxy_command(home.path(), "killed", &[], &server));
    peer.initialize();
    peer.request(1, "tools/list", json!({}));
    for id in 2..12 {
        peer.request(
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": format!("message {id}")}}),
        );
    }
    peer.send(json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call",
                     "params": {"name": "trigger-long-running-operation",
                                "arguments": {"duration": 2, "steps": 20}, "_meta": {"progressToken": 1}}}));
    let mut seen = 0;
    peer.until(|m| {
        seen += usize::from(m["method"] == "notifications/progress");
        seen == 3
    });
    peer.child.kill().expect("SIGKILL the proxy");
    peer.child.wait().expect("reaped");
    std::thread::sleep(Duration::from_millis(100));
    let received = peer.received_json();

    let records = record(home.path(), "killed");
    assert_ne!(
        records.last().map(|r| r["type"].clone()),
        Some(json!("end")),
        "a killed proxy writes no end"
    );
    let recorded = messages(&records, "server_to_agent");
    assert!(recorded.len() >= received.len());
    assert_eq!(
        recorded[..received.len()],
        received[..],
        "every received message is recorded, in order"
    );
    let sent: Vec<Value> = peer.sent.iter().map(|l| parse(l)).collect();
    assert_eq!(messages(&records, "agent_to_server"), sent);
    assert_eq!(
        of_type(&records, "call").len(),
        10,
        "the ten answered echo calls"
    );
}
