//! Fault injection on the HTTP provider, through the engine's executor and history: a real
//! loopback server answers with invalid UTF-8 (as text, as "JSON", undeclared, in an error
//! body), hangs up without answering (a server that died mid-call), or cuts its body short.
//! Every call ends in a classified result whose text is valid UTF-8, and the history records
//! and loads every one of them.

mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use support::calls::tool;
use support::{Reply, TestServer};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::history::{History, HistoryEntry, RecordedRequest};
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ToolExecutionResult};

/// Not UTF-8: a lone continuation byte, a truncated sequence, an overlong `/` and `0xFF`.
const INVALID: &[u8] = b"caf\xc3 \x80 \xe2\x82 \xc0\xaf \xff end";

fn full(status: u16, content_type: Option<&str>, body: &[u8]) -> Reply {
    Reply::Full {
        status,
        headers: content_type
            .map(|t| vec![("Content-Type".to_owned(), t.to_owned())])
            .unwrap_or_default(),
        body: body.to_vec(),
    }
}

fn route(path: &str) -> Reply {
    match path {
        "/text" => full(200, Some("text/plain; charset=utf-8"), INVALID),
        "/json" => full(
            200,
            Some("application/json"),
            &[b"{\"a\": \"", INVALID, b"\"}"].concat(),
        ),
        "/undeclared" => full(200, None, INVALID),
        "/error" => full(500, Some("text/plain"), INVALID),
        "/hangup" => Reply::Hangup,
        "/cut" => Reply::Raw(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly this"
                .to_vec(),
        ),
        "/garbage" => Reply::Raw(INVALID.to_vec()),
        _ => Reply::text(404, "no such path"),
    }
}

/// Runs `path` as the only method `t_m` of a fresh tool through the executor.
async fn run(server: &TestServer, path: &str) -> ToolExecutionResult {
    let registry = Arc::new(Registry::new());
    let http_tool = tool(
        &server.base,
        json!({"url": path}),
        json!({"type": "object"}),
    );
    registry.register(Arc::new(http_tool)).expect("registers");
    // Unannotated HTTP methods count as destructive: approve them.
    let executor =
        Executor::new(registry, ExecutorOptions::default()).with_confirmation(Arc::new(ApproveAll));
    let request = ParsedToolRequest::manual("t_m", serde_json::Map::new());
    executor.execute(&request, &CancellationToken::new()).await
}

#[tokio::test]
async fn invalid_utf8_and_dying_servers_end_in_classified_recorded_results() {
    let server = TestServer::start(|r| route(r.path())).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (history, _) = History::open(dir.path().join("history.jsonl")).expect("history");
    let cases: [(&str, Option<ErrorKind>); 7] = [
        ("/text", None),
        ("/undeclared", None),
        ("/json", Some(ErrorKind::ToolError)),
        ("/error", Some(ErrorKind::ToolError)),
        ("/hangup", Some(ErrorKind::Transport)),
        ("/cut", Some(ErrorKind::Transport)),
        ("/garbage", Some(ErrorKind::Transport)),
    ];
    let mut recorded = Vec::new();
    for (path, expected) in cases {
        let result = run(&server, path).await;
        assert_eq!(result.error_kind(), expected, "{path}: {result:?}");
        let entry = HistoryEntry::new(
            None,
            "faults",
            RecordedRequest::from(&ParsedToolRequest::manual(
                result.tool_name.clone(),
                serde_json::Map::new(),
            )),
            result.clone(),
        );
        history.append(&entry).expect("records");
        recorded.push((path, result));
    }
    // Invalid bytes become U+FFFD where the body is shown as text; the rest of it survives.
    let text = &recorded[0].1.result;
    assert!(
        text.starts_with("caf\u{FFFD}") && text.ends_with("end"),
        "{text}"
    );
    assert!(recorded[1].1.result.contains('\u{FFFD}'));
    let json_error = &recorded[2].1.result;
    assert!(
        json_error.contains("the server said the body is JSON but it is not"),
        "{json_error}"
    );
    let error = &recorded[3].1.result;
    assert!(
        error.contains("HTTP 500") && error.contains('\u{FFFD}'),
        "{error}"
    );
    assert_eq!(server.requests().len(), cases.len());

    let loaded = History::load(history.path()).expect("loads");
    assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
    let results: Vec<&ToolExecutionResult> = loaded.entries.iter().map(|e| &e.result).collect();
    let expected: Vec<&ToolExecutionResult> = recorded.iter().map(|(_, r)| r).collect();
    assert_eq!(results, expected);
    // Nothing non-UTF-8 reached the file.
    let raw = std::fs::read(history.path()).expect("read history");
    assert!(std::str::from_utf8(&raw).is_ok());
    assert_eq!(
        serde_json::from_slice::<Value>(raw.split(|&b| b == b'\n').next().unwrap_or_default())
            .map(|v| v["result"]["status"].clone())
            .ok(),
        Some(json!("success"))
    );
}
