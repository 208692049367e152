//! Tests of `stream`, kept beside it so the module itself stays readable.

use super::*;
use crate::ProtocolSet;

fn stream_all(format: &str, text: &str, chunk: usize) -> (Vec<StreamEvent>, String) {
    let protocol = ProtocolSet::standard().get(format).expect("known format");
    let mut stream = ToolCallStream::new(protocol);
    let mut events = Vec::new();
    for delta in deltas(text, || chunk) {
        stream.push(delta, &mut events);
    }
    stream.finish(&mut events);
    (events, stream.text().to_owned())
}

#[test]
fn deltas_cover_the_text_in_order_and_never_split_a_character() {
    let text = "ab\u{e9}c\u{1f600}d";
    let pieces: Vec<&str> = deltas(text, || 1).collect();
    assert_eq!(pieces, vec!["a", "b", "\u{e9}", "c", "\u{1f600}", "d"]);
    // Sizes 0 and 3 in turn: a 0 counts as 1, and a cut inside a character moves past it.
    let mut sizes = [0, 3].into_iter().cycle();
    let pieces: Vec<&str> = deltas(text, || sizes.next().unwrap_or(1)).collect();
    assert_eq!(pieces, vec!["a", "b\u{e9}", "c", "\u{1f600}", "d"]);
    assert_eq!(deltas("", || 4).count(), 0);
}

fn calls(events: &[StreamEvent]) -> Vec<(String, serde_json::Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Call { request, .. } => Some((
                request.tool_name.clone(),
                serde_json::Value::Object(request.args.clone()),
            )),
            _ => None,
        })
        .collect()
}

const HERMES: &str = "Let me look.\n<think>maybe <tool_call>{\"name\":\"no\"}</tool_call></think>\n<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"héllo\"}}\n</tool_call>\nand\n<tool_call>\n{\"name\": \"time_now\", \"arguments\": {}}\n</tool_call>";

#[test]
fn streaming_in_small_deltas_matches_the_batch_parse() {
    let batch = ProtocolSet::standard()
        .get("hermes")
        .expect("hermes")
        .parse_tool_requests(HERMES);
    for chunk in [1, 2, 4, 7, 1000] {
        let (events, text) = stream_all("hermes", HERMES, chunk);
        assert_eq!(text, HERMES);
        let batch_calls: Vec<_> = batch
            .requests
            .iter()
            .map(|r| {
                (
                    r.tool_name.clone(),
                    serde_json::Value::Object(r.args.clone()),
                )
            })
            .collect();
        assert_eq!(calls(&events), batch_calls, "chunk {chunk}");
        let mut arguments = String::new();
        for event in &events {
            if let StreamEvent::ArgumentsDelta { block: 0, span } = event {
                arguments.push_str(&text[span.start..span.end]);
            }
        }
        assert!(
            arguments.contains("\"héllo\""),
            "chunk {chunk}: {arguments:?}"
        );
    }
}

#[test]
fn a_call_is_reported_as_soon_as_its_block_closes() {
    let protocol = ProtocolSet::standard().get("hermes").expect("hermes");
    let mut stream = ToolCallStream::new(protocol);
    let mut events = Vec::new();
    // hermes reads text before a lone `</think>` as reasoning (templates that open `<think>` in
    // the prompt), so calls stream once the reply has shown where its reasoning ends.
    stream.push(
        "<think>ok</think><tool_call>{\"name\": \"a\"}</tool_",
        &mut events,
    );
    assert!(calls(&events).is_empty());
    stream.push("call> and then <tool_call>{", &mut events);
    assert_eq!(calls(&events).len(), 1);
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::CallStarted { block: 1, .. })));
}

#[test]
fn a_replay_records_when_each_call_appeared() {
    let protocol = ProtocolSet::standard().get("hermes").expect("hermes");
    let replay = replay(protocol, HERMES, 4);
    assert!(replay.incremental);
    assert_eq!(replay.total_bytes, HERMES.len());
    assert_eq!(replay.calls.len(), 2);
    let first = &replay.calls[0];
    let close = HERMES.find("}}\n</tool_call>").expect("close") + "}}\n</tool_call>".len();
    let completed = first.completed_at.expect("complete");
    assert!(
        completed >= close && completed < close + 4,
        "{completed} vs {close}"
    );
    assert!(first.started_at < completed);
    assert!(HERMES[first.body_start..].starts_with('\n'));
    assert_eq!(first.requests[0].tool_name, "echo_echo");
    assert!(replay.calls[1].started_at > completed);
    assert_eq!(replay.reasoning.len(), 1);
}

#[test]
fn replay_body_start_points_at_the_arguments() {
    let text = "<think>Maybe <tool_call>{\"name\": \"echo_echo\"}</tool_call>? No.</think>\nTwo calls:\n<tool_call>\n{\"name\": \"a\"}\n</tool_call>";
    let protocol = ProtocolSet::standard().get("hermes").expect("hermes");
    for delta in 1..8 {
        let replay = replay(protocol.clone(), text, delta);
        let call = &replay.calls[0];
        assert_eq!(
            &text[call.body_start..call.body_start + 2],
            "\n{",
            "delta {delta}: {call:?}"
        );
    }
}

#[test]
fn vcp_streams_too() {
    let reply = "x\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_echo「末」\nmessage:「始」hi「末」\n<<<[END_TOOL_REQUEST]>>>";
    let (events, _) = stream_all("vcp", reply, 3);
    assert_eq!(calls(&events).len(), 1);
}
