//! The Live view's commands against session files written by the proxy crate's own recorder
//! and tap, as `toolscope proxy mcp` writes them: listed, read whole, tailed from a cursor
//! while the session runs, a torn last line, and names that would leave the directory.

use std::io::Write;

use serde_json::{json, Value};
use toolscope_proxy::record::EndReason;
use toolscope_proxy::tap::{Ending, Tap};
use toolscope_proxy::{Recorder, SessionInfo};

use super::*;

fn line(value: &Value) -> Vec<u8> {
    format!("{value}\n").into_bytes()
}

fn start(root: &Path, name: &str, id: &str, enforce: bool) -> Tap {
    let recorder = Recorder::create(root, name, id).expect("recorder");
    let info = SessionInfo {
        name: name.to_owned(),
        argv: vec!["node".to_owned(), "server.js".to_owned()],
        enforce,
    };
    Tap::start(recorder, id, &info).expect("tap")
}

/// The handshake and a listing of one tool, `sum(a: number, b: number)`.
fn handshake(tap: &Tap) {
    tap.agent_message(&line(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "claude-desktop", "version": "1.2"}}}),
    ));
    tap.server_message(&line(&json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "serverInfo": {"name": "everything", "version": "2.0.0"}}})));
    tap.agent_message(&line(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ));
    tap.agent_message(&line(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ));
    tap.server_message(&line(
        &json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{
        "name": "sum", "inputSchema": {"type": "object", "required": ["a", "b"],
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}]}}),
    ));
}

fn call(tap: &Tap, id: u32, a: Value) -> Verdict {
    tap.agent_message(&line(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "sum", "arguments": {"a": a, "b": 2}, "_meta": {"progressToken": id}}}),
    ))
}

use toolscope_proxy::Verdict;

fn answer(tap: &Tap, id: u32, sum: u32) {
    tap.server_message(&line(
        &json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": id, "progress": 1, "total": 1}}),
    ));
    tap.server_message(&line(&json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": sum.to_string()}]}})));
}

fn bodies(chunk: &ProxySessionChunk) -> Vec<&ProxyRecordBody> {
    chunk.records.iter().map(|r| &r.body).collect()
}

#[test]
fn a_session_is_listed_and_read_with_every_kind_of_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let tap = start(root, "everything", "20260101T120000.000Z-aaaaaaaa", true);
    handshake(&tap);
    assert_eq!(call(&tap, 2, json!(1)), Verdict::Forward);
    answer(&tap, 2, 3);
    // Refused by --enforce: answered by the proxy itself.
    assert!(matches!(call(&tap, 3, json!("one")), Verdict::Answer(_)));
    assert_eq!(call(&tap, 4, json!(5)), Verdict::Forward);
    tap.agent_message(&line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 4, "reason": "changed my mind"}}),
    ));
    tap.end(
        EndReason::AgentClosed,
        &Ending {
            server_status: Some(toolscope_proxy::record::ExitStatusRecord {
                code: Some(0),
                signal: None,
            }),
            ..Ending::default()
        },
    );

    let sessions = list_sessions(&[root.to_path_buf()]).sessions;
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!(session.name, "everything");
    assert_eq!(session.session_id, "20260101T120000.000Z-aaaaaaaa");
    assert_eq!(session.argv, ["node", "server.js"]);
    assert!(session.enforce);
    assert_eq!(session.client.as_deref(), Some("claude-desktop 1.2"));
    assert_eq!(session.server.as_deref(), Some("everything 2.0.0"));
    assert_eq!(session.tools, Some(1));
    assert_eq!(session.calls, 2, "the valid call and the refused one");
    assert_eq!(session.failed_calls, 1);
    assert_eq!(session.invalid_calls, 1);
    assert_eq!(session.refused_calls, 1);
    assert_eq!(session.messages, 12);
    assert!(session
        .started_at
        .as_deref()
        .is_some_and(|at| at.ends_with('Z')));
    assert!(session.last_at >= session.started_at);
    assert!(session.modified_ms.is_some());
    let end = session.end.as_ref().expect("ended");
    assert_eq!(end.reason, "agent_closed");
    assert_eq!(
        end.server_status,
        Some(ProxyExitStatus {
            code: Some(0),
            signal: None
        })
    );
    assert_eq!(end.messages, 12);
    assert!(!session.torn && session.skipped_lines == 0);

    let chunk = read_session(
        &[root.to_path_buf()],
        "everything",
        &session.session_id,
        SessionCursor::default(),
    )
    .expect("read");
    assert!(!chunk.torn && !chunk.reset && chunk.skipped.is_empty());
    let seqs: Vec<u64> = chunk.records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let kinds: Vec<Value> = chunk
        .records
        .iter()
        .map(|r| serde_json::to_value(&r.body).expect("json")["type"].clone())
        .collect();
    for kind in [
        "session",
        "message",
        "initialize",
        "tools",
        "call",
        "invalid_call",
        "progress",
        "cancelled",
        "end",
    ] {
        assert!(kinds.contains(&json!(kind)), "{kind} in {kinds:?}");
    }
    let bodies = bodies(&chunk);
    let refused = bodies
        .iter()
        .find_map(|b| match b {
            ProxyRecordBody::InvalidCall {
                call_seq,
                issues,
                enforced,
                tool,
                ..
            } => Some((*call_seq, issues.clone(), *enforced, tool.clone())),
            _ => None,
        })
        .expect("an invalid call");
    assert!(refused.2, "enforced");
    assert_eq!(refused.3, "sum");
    assert_eq!(refused.1[0].path, "/a");
    // The request it points to is the message with that seq, kept as JSON.
    let request = chunk
        .records
        .iter()
        .find(|r| r.seq == refused.0)
        .expect("the call's message");
    match &request.body {
        ProxyRecordBody::Message { dir, msg, .. } => {
            assert_eq!(*dir, ProxyDirection::AgentToServer);
            assert_eq!(
                msg.as_ref().expect("json")["params"]["arguments"]["a"],
                "one"
            );
        }
        other => panic!("not a message: {other:?}"),
    }
    let outcomes: Vec<&str> = bodies
        .iter()
        .filter_map(|b| match b {
            ProxyRecordBody::Call { outcome, .. } => Some(outcome.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, ["result", "error"]);
    // The record crosses IPC as the bindings describe it.
    let first = serde_json::to_value(&chunk.records[0]).expect("json");
    assert_eq!(first["body"]["type"], "session");
    assert_eq!(first["body"]["name"], "everything");
}

#[test]
fn a_running_session_is_tailed_from_its_cursor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let id = "20260101T120000.000Z-bbbbbbbb";
    let tap = start(root, "files", id, false);
    handshake(&tap);

    let first =
        read_session(&[root.to_path_buf()], "files", id, SessionCursor::default()).expect("read");
    let listed = list_sessions(&[root.to_path_buf()]).sessions;
    assert!(listed[0].end.is_none(), "running");
    assert_eq!(listed[0].calls, 0);

    // A call that does not match the schema: flagged, forwarded, answered.
    assert_eq!(call(&tap, 2, json!("x")), Verdict::Forward);
    answer(&tap, 2, 2);
    let second = read_session(&[root.to_path_buf()], "files", id, first.next).expect("tail");
    assert!(!second.reset);
    assert_eq!(
        second.records[0].seq,
        first.records.last().expect("records").seq + 1,
        "only what was appended"
    );
    assert!(bodies(&second).iter().any(|b| matches!(
        b,
        ProxyRecordBody::InvalidCall {
            enforced: false,
            ..
        }
    )));
    assert_eq!(
        second.next.line as usize,
        first.records.len() + second.records.len()
    );
    let nothing = read_session(&[root.to_path_buf()], "files", id, second.next).expect("tail");
    assert!(nothing.records.is_empty() && nothing.next == second.next);

    // The list catches up from where it stopped.
    let listed = list_sessions(&[root.to_path_buf()]).sessions;
    assert_eq!(
        (
            listed[0].calls,
            listed[0].invalid_calls,
            listed[0].refused_calls
        ),
        (1, 1, 0)
    );

    // A line being written is left for the next read, then read whole.
    let path = root.join("files").join(format!("{id}.jsonl"));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    let next_seq = second.records.last().expect("records").seq + 1;
    let whole = format!(
        r#"{{"seq":{next_seq},"at":"2026-01-01T12:00:01.000000Z","ms":1000.0,"type":"end","reason":"server_exited","server_status":{{"code":3}},"stderr_tail":["boom"],"pending_answered":0,"messages":9}}"#
    );
    let (head, tail) = whole.split_at(40);
    file.write_all(head.as_bytes()).expect("write");
    let torn = read_session(&[root.to_path_buf()], "files", id, second.next).expect("torn");
    assert!(torn.torn && torn.records.is_empty() && torn.skipped.is_empty());
    assert_eq!(torn.next, second.next);
    assert!(list_sessions(&[root.to_path_buf()]).sessions[0].torn);
    writeln!(file, "{tail}").expect("write");
    let ended = read_session(&[root.to_path_buf()], "files", id, torn.next).expect("completed");
    assert!(!ended.torn);
    match &ended.records[..] {
        [record] => match &record.body {
            ProxyRecordBody::End(end) => {
                assert_eq!(end.reason, "server_exited");
                assert_eq!(end.stderr_tail, ["boom"]);
            }
            other => panic!("not the end: {other:?}"),
        },
        other => panic!("one record expected: {other:?}"),
    }
    let listed = list_sessions(&[root.to_path_buf()]).sessions;
    assert!(!listed[0].torn);
    assert_eq!(
        listed[0].end.as_ref().map(|e| e.reason.as_str()),
        Some("server_exited")
    );
}

#[test]
fn a_cursor_that_does_not_fit_reads_from_the_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let id = "20260101T120000.000Z-cccccccc";
    let tap = start(root, "files", id, false);
    handshake(&tap);
    let whole =
        read_session(&[root.to_path_buf()], "files", id, SessionCursor::default()).expect("read");
    for cursor in [
        SessionCursor {
            line: 3,
            offset: whole.next.offset + 100,
        },
        SessionCursor { line: 1, offset: 5 },
        SessionCursor { line: 4, offset: 0 },
    ] {
        let chunk = read_session(&[root.to_path_buf()], "files", id, cursor).expect("read");
        assert!(chunk.reset, "{cursor:?}");
        assert_eq!(chunk.records, whole.records);
        assert_eq!(chunk.next, whole.next);
    }
}

#[test]
fn unreadable_lines_and_unknown_records_do_not_stop_a_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let id = "20260101T120000.000Z-dddddddd";
    let path = root.join("srv").join(format!("{id}.jsonl"));
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(
        &path,
        concat!(
            r#"{"seq":0,"at":"2026-01-01T12:00:00.000000Z","ms":0.0,"type":"session","session_id":"x","name":"srv","argv":["--url","http://127.0.0.1:9/mcp"],"proxy_version":"0.1.0","enforce":false,"format":1}"#,
            "\n",
            "not json\n",
            r#"{"seq":1,"at":"2026-01-01T12:00:00.100000Z","ms":100.0,"type":"fault_injected","tool":"sum"}"#,
            "\n",
            r#"{"seq":2,"at":"2026-01-01T12:00:00.200000Z","ms":200.0,"type":"call","tool":"sum"}"#,
            "\n",
        ),
    )
    .expect("write");
    let chunk =
        read_session(&[root.to_path_buf()], "srv", id, SessionCursor::default()).expect("read");
    assert_eq!(chunk.records.len(), 2);
    assert_eq!(
        chunk.records[1].body,
        ProxyRecordBody::Unknown {
            kind: "fault_injected".to_owned()
        }
    );
    let reasons: Vec<(usize, &str)> = chunk
        .skipped
        .iter()
        .map(|s| (s.line, s.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(reasons[0].0, 2);
    assert!(
        reasons[1].1.contains("malformed 'call' record"),
        "{reasons:?}"
    );
    assert_eq!(chunk.next.line, 4);

    let listed = list_sessions(&[root.to_path_buf()]).sessions;
    assert_eq!(listed[0].argv, ["--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(listed[0].skipped_lines, 1, "the line that is not JSON");
}

#[test]
fn sessions_are_listed_newest_first_and_names_cannot_leave_the_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("proxy");
    let roots = [root.clone()];
    assert!(list_sessions(&roots).sessions.is_empty());
    for (name, id) in [
        ("a", "20260101T100000.000Z-11111111"),
        ("b", "20260102T100000.000Z-22222222"),
        ("a", "20260103T100000.000Z-33333333"),
    ] {
        let tap = start(&root, name, id, false);
        tap.end(EndReason::Signal, &Ending::default());
    }
    // Neither a hidden directory nor a stray file counts.
    std::fs::create_dir_all(root.join(".hidden")).expect("dir");
    std::fs::write(root.join(".hidden/20260104T100000.000Z-4.jsonl"), "").expect("file");
    std::fs::write(root.join("a/notes.txt"), "").expect("file");
    let listed: Vec<(String, String)> = list_sessions(&roots)
        .sessions
        .into_iter()
        .map(|s| (s.name, s.session_id))
        .collect();
    assert_eq!(
        listed,
        [
            ("a".to_owned(), "20260103T100000.000Z-33333333".to_owned()),
            ("b".to_owned(), "20260102T100000.000Z-22222222".to_owned()),
            ("a".to_owned(), "20260101T100000.000Z-11111111".to_owned()),
        ]
    );
    std::fs::remove_file(root.join("b/20260102T100000.000Z-22222222.jsonl")).expect("remove");
    assert_eq!(list_sessions(&roots).sessions.len(), 2);

    std::fs::write(dir.path().join("secret.jsonl"), "{}\n").expect("file");
    for (name, id) in [
        ("..", "secret"),
        ("a/..", "x"),
        ("a", "../../secret"),
        ("a", ".hidden"),
        ("", "x"),
        ("a", "x/y"),
    ] {
        let error = read_session(&roots, name, id, SessionCursor::default()).expect_err(name);
        assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{name} {id}");
    }
    let missing = read_session(
        &roots,
        "a",
        "20990101T000000.000Z-0",
        SessionCursor::default(),
    )
    .expect_err("missing");
    assert_eq!(missing.kind, CommandErrorKind::InvalidInput);
    assert!(missing.message.contains("no proxy session"), "{missing}");
}

#[test]
fn sessions_of_the_cli_data_directory_are_listed_with_the_apps() {
    let app = tempfile::tempdir().expect("tempdir");
    let cli = tempfile::tempdir().expect("tempdir");
    let roots = [app.path().join("proxy"), cli.path().join("proxy")];
    start(&roots[0], "files", "20260101T100000.000Z-11111111", false);
    start(&roots[1], "files", "20260102T100000.000Z-22222222", false);
    // The same session in both: listed once, read from the first.
    start(&roots[0], "web", "20260103T100000.000Z-33333333", true);
    start(&roots[1], "web", "20260103T100000.000Z-33333333", false);
    let listed = list_sessions(&roots);
    assert_eq!(
        listed.roots,
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
    );
    let ids: Vec<&str> = listed
        .sessions
        .iter()
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "20260103T100000.000Z-33333333",
            "20260102T100000.000Z-22222222",
            "20260101T100000.000Z-11111111"
        ]
    );
    assert!(listed.sessions[0].enforce, "from the app's directory");
    let chunk = read_session(
        &roots,
        "files",
        "20260102T100000.000Z-22222222",
        SessionCursor::default(),
    )
    .expect("read from the second root");
    assert_eq!(chunk.records.len(), 1);
}
