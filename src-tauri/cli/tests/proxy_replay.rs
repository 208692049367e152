//! `toolscope proxy replay`: a session recorded through the proxy with server-everything
//! (an elicitation included, answered again as the agent answered it) replays with every answer
//! the same; with a mock fault set for one tool, the replay names the call and the path that
//! changed; and the replay is itself a recorded session.

mod proxy_support;

use std::process::Command;

use proxy_support::*;
use serde_json::{json, Value};

fn toolscope(home: &std::path::Path, args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .env("TOOLSCOPE_HOME", home)
        .args(args)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (
        output.status.code().unwrap_or(-1),
        format!("{stdout}{stderr}"),
    )
}

#[test]
fn a_recorded_session_replays_the_same_and_a_changed_answer_is_named() {
    let Some(script) = everything_script() else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let server = vec![node(), script, "stdio".to_owned()];
    let mut peer = Peer::start(proxy_command(home.path(), "everything", &[], &server));
    peer.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "toolscope-test", "version": "1"}}),
    );
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer.request(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "again"}}),
    );
    peer.request(
        2,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
    );
    peer.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "trigger-elicitation-request", "arguments": {}}}));
    let ask = peer.until(|m| m["method"] == "elicitation/create");
    peer.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    peer.until(|m| m["id"] == 3 && m.get("method").is_none());
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));

    let (code, out) = toolscope(
        home.path(),
        &[
            "--json",
            "proxy",
            "replay",
            "--name",
            "everything",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let report: Value = serde_json::from_str(out.lines().next().expect("a report")).expect("json");
    assert_eq!(report["same"], 4, "{report:#}");
    assert_eq!(report["different"], 0);

    let mock = r#"{"content":[{"type":"text","text":"Echo: mocked"}]}"#;
    let (code, out) = toolscope(
        home.path(),
        &[
            "proxy",
            "fault",
            "--name",
            "everything",
            "--tool",
            "echo",
            "--mock",
            mock,
        ],
    );
    assert_eq!(code, 0, "{out}");
    let sessions = std::fs::read_dir(home.path().join("proxy/everything"))
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
        })
        .count();
    assert_eq!(sessions, 2, "the first replay was recorded");
    let first = std::fs::read_dir(home.path().join("proxy/everything"))
        .expect("dir")
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".jsonl")
                .map(str::to_owned)
        })
        .min()
        .expect("the original session");
    let (code, out) = toolscope(
        home.path(),
        &[
            "proxy",
            "replay",
            "--name",
            "everything",
            "--session",
            &first,
        ],
    );
    assert_eq!(code, 1, "an answer changed: {out}");
    assert!(out.contains("1 different"), "{out}");
    assert!(
        out.contains("1 tools/call echo: different at /result/content/0/text"),
        "{out}"
    );
}
