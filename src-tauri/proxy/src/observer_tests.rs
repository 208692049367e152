//! The observer on hand-written message sequences: matching, timing, validation, refusal,
//! progress, elicitation and cancellation, without a transport.

use super::*;
use crate::message::{parse, Parsed};

fn feed(
    observer: &mut Observer,
    dir: Direction,
    seq: u64,
    ms: f64,
    line: &str,
) -> (Vec<Value>, Option<Refusal>) {
    let Parsed::Json { messages, .. } = parse(line.as_bytes()) else {
        panic!("test lines are JSON: {line}")
    };
    let (events, refusal) = observer.observe(dir, seq, ms, &messages);
    let events = events
        .iter()
        .map(|e| serde_json::to_value(e).expect("serialisable"))
        .collect();
    (events, refusal)
}

const A: Direction = Direction::AgentToServer;
const S: Direction = Direction::ServerToAgent;

fn listed(observer: &mut Observer) {
    feed(
        observer,
        A,
        1,
        0.0,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    let (events, _) = feed(
        observer,
        S,
        2,
        1.0,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"sum","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}}]}}"#,
    );
    assert_eq!(events[0]["type"], "tools");
    assert_eq!(events[0]["names"], json!(["sum"]));
}

#[test]
fn matches_calls_with_answers_and_times_them() {
    let mut observer = Observer::new(false);
    let (events, _) = feed(
        &mut observer,
        A,
        1,
        0.0,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}"#,
    );
    assert!(events.is_empty());
    let (events, _) = feed(
        &mut observer,
        S,
        2,
        5.0,
        r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tools":{}}}}"#,
    );
    assert_eq!(events[0]["type"], "initialize");
    assert_eq!(
        events[0]["params"]["capabilities"]["elicitation"],
        json!({})
    );
    assert_eq!(events[0]["result"]["capabilities"]["tools"], json!({}));

    listed(&mut observer);
    feed(
        &mut observer,
        A,
        10,
        100.0,
        r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"sum","arguments":{"a":1},"_meta":{"progressToken":"p1"}}}"#,
    );
    let (events, _) = feed(
        &mut observer,
        S,
        11,
        101.0,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2}}"#,
    );
    assert_eq!(events[0]["type"], "progress");
    assert_eq!(events[0]["request_seq"], 10);
    assert_eq!(events[0]["total"], 2);
    assert_eq!(observer.pending_agent_requests().len(), 1);
    let (events, _) = feed(
        &mut observer,
        S,
        12,
        112.5,
        r#"{"jsonrpc":"2.0","id":"c1","result":{"content":[],"isError":true}}"#,
    );
    assert_eq!(events[0]["type"], "call");
    assert_eq!(events[0]["request_seq"], 10);
    assert_eq!(events[0]["latency_ms"], 12.5);
    assert_eq!(events[0]["outcome"], "tool_error");
    assert_eq!(events[0]["id"], "c1");
    assert!(observer.pending_agent_requests().is_empty());
}

#[test]
fn flags_invalid_calls_and_refuses_them_only_when_enforcing() {
    for enforce in [false, true] {
        let mut observer = Observer::new(enforce);
        listed(&mut observer);
        let (events, refusal) = feed(
            &mut observer,
            A,
            5,
            0.0,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sum","arguments":{"a":"one"}}}"#,
        );
        assert_eq!(events[0]["type"], "invalid_call");
        assert_eq!(events[0]["call_seq"], 5);
        assert_eq!(events[0]["enforced"], enforce);
        assert_eq!(events[0]["issues"][0]["path"], "/a");
        assert!(events[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Validation failed:\n- /a: ")));
        assert_eq!(refusal.is_some(), enforce);
        if let Some(refusal) = refusal {
            let answer: Value = serde_json::from_str(&refusal.response).expect("JSON");
            assert_eq!(answer["id"], 9);
            assert_eq!(answer["error"]["code"], INVALID_PARAMS);
        }
        // Calls to tools that were not listed are flagged but never refused.
        let (events, refusal) = feed(
            &mut observer,
            A,
            6,
            0.0,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope"}}"#,
        );
        assert_eq!(events[0]["unknown_tool"], true);
        assert!(refusal.is_none());
    }
}

#[test]
fn elicitation_and_cancellation() {
    let mut observer = Observer::new(false);
    feed(
        &mut observer,
        A,
        1,
        0.0,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}"#,
    );
    let (events, _) = feed(
        &mut observer,
        S,
        2,
        1.0,
        r#"{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object"}}}"#,
    );
    assert_eq!(events[0]["type"], "elicitation");
    assert_eq!(events[0]["params"]["message"], "Name?");
    let (events, _) = feed(
        &mut observer,
        A,
        3,
        2.0,
        r#"{"jsonrpc":"2.0","id":0,"result":{"action":"decline"}}"#,
    );
    assert_eq!(events[0]["type"], "elicitation_result");
    assert_eq!(events[0]["request_seq"], 2);
    assert_eq!(events[0]["action"], "decline");
    let (events, _) = feed(
        &mut observer,
        A,
        4,
        3.0,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#,
    );
    assert_eq!(events[0]["type"], "cancelled");
    assert_eq!(events[0]["request_seq"], 1);
    assert_eq!(events[0]["reason"], "user");
    assert!(
        observer.pending_agent_requests().is_empty(),
        "a cancelled request is not answered by the proxy"
    );
}
