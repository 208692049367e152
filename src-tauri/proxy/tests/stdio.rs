//! The stdio transport in-process, with `cat` as the "server" (it sends back exactly what it
//! gets): bytes go through unchanged whatever they are, the record keeps them, and each way a
//! session can end is recorded as such.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolscope_proxy::stdio::agent_lines_from;
use toolscope_proxy::{run_stdio, EndReason, Recorder, SessionInfo, StdioOptions, Tap};

fn tap(dir: &std::path::Path, argv: &[&str]) -> Arc<Tap> {
    let recorder = Recorder::create(dir, "cat", "session").expect("recorder");
    let info = SessionInfo {
        name: "cat".to_owned(),
        argv: argv.iter().map(|s| (*s).to_owned()).collect(),
        enforce: false,
    };
    Arc::new(Tap::start(recorder, "session", &info).expect("header"))
}

fn records(dir: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("cat/session.jsonl")).expect("record");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn options(argv: &[&str]) -> StdioOptions {
    StdioOptions {
        argv: argv.iter().map(|s| (*s).to_owned()).collect(),
        exit_grace: Duration::from_secs(2),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwards_every_byte_and_records_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let argv = ["cat"];
    let tap = tap(dir.path(), &argv);
    let input: &[u8] = b"{ \"jsonrpc\" : \"2.0\", \"id\": 1.50, \"method\":\"x\" }\r\nnot json\n\xff\xfe raw\n[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\nno newline at the end";
    let (mut agent, proxy_side) = tokio::io::duplex(1 << 16);
    let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
    let session = tokio::spawn(run_stdio(
        tap.clone(),
        options(&argv),
        agent_lines_from(proxy_in),
        proxy_out,
        std::future::pending(),
    ));
    agent.write_all(input).await.expect("send");
    agent.shutdown().await.expect("close our side");
    let mut received = Vec::new();
    agent.read_to_end(&mut received).await.expect("read");
    let outcome = session.await.expect("joined").expect("session");
    assert_eq!(received, input, "byte for byte, in order");
    assert_eq!(outcome.reason, EndReason::AgentClosed);
    assert_eq!(outcome.server_status.and_then(|s| s.code), Some(0));

    let records = records(dir.path());
    let raw = std::fs::read_to_string(dir.path().join("cat/session.jsonl")).expect("record");
    assert!(
        raw.contains(r#""msg":{ "jsonrpc" : "2.0", "id": 1.50, "method":"x" }"#),
        "{raw}"
    );
    let to_server: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "message" && r["dir"] == "agent_to_server")
        .collect();
    assert_eq!(to_server.len(), 5);
    assert_eq!(to_server[1]["text"], "not json");
    assert_eq!(to_server[2]["base64"], "//4gcmF3");
    assert_eq!(to_server[3]["msg"][0]["method"], "n");
    assert_eq!(to_server[4]["text"], "no newline at the end");
    let back = records
        .iter()
        .filter(|r| r["type"] == "message" && r["dir"] == "server_to_agent")
        .count();
    assert_eq!(back, 5);
    assert_eq!(
        records.last().map(|r| r["reason"].clone()),
        Some("agent_closed".into())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_ends_the_session_and_stops_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let argv = ["cat"];
    let tap = tap(dir.path(), &argv);
    let (_agent, proxy_side) = tokio::io::duplex(1024);
    let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
    let outcome = run_stdio(
        tap,
        options(&argv),
        agent_lines_from(proxy_in),
        proxy_out,
        async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            "SIGTERM".to_owned()
        },
    )
    .await
    .expect("session");
    assert_eq!(outcome.reason, EndReason::Signal);
    assert!(
        outcome.server_status.is_some(),
        "cat was stopped and reaped"
    );
    let end = records(dir.path()).pop().expect("end record");
    assert_eq!(end["reason"], "signal");
    assert_eq!(end["signal"], "SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let argv = ["/nonexistent/toolscope-no-such-server"];
    let (_agent, proxy_side) = tokio::io::duplex(1024);
    let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
    let error = run_stdio(
        tap(dir.path(), &argv),
        options(&argv),
        agent_lines_from(proxy_in),
        proxy_out,
        std::future::pending(),
    )
    .await
    .expect_err("no such program");
    assert!(error.to_string().contains("cannot start"), "{error}");
}
