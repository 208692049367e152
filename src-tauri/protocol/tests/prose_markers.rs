//! The scanner rules added for the token formats, on megabyte replies streamed in 4-byte
//! deltas: markers quoted in inline code (`src/framing/prose.rs`), replies that start inside
//! reasoning (`src/framing/scanner/start_open.rs`), reasoning that a call ends and calls that an
//! end-of-turn token ends (`src/framing/scanner/delimited.rs`). Streaming must give the batch parse's calls
//! and both must stay linear (a quadratic scan of these takes minutes).

use toolscope_protocol::stream::replay;
use toolscope_protocol::ProtocolSet;

fn check(format: &str, text: &str, calls: usize) {
    let set = ProtocolSet::standard();
    let protocol = set.get(format).expect("known format");
    let started = std::time::Instant::now();
    let batch = protocol.parse_tool_requests(text);
    let streamed = replay(protocol, text, 4);
    let elapsed = started.elapsed();
    assert_eq!(batch.requests.len(), calls, "{format}: batch");
    assert_eq!(streamed.calls.len(), calls, "{format}: streamed");
    assert!(elapsed.as_secs() < 20, "{format}: took {elapsed:?}");
}

#[test]
fn quoted_markers_and_open_reasoning_stay_linear_and_stream_like_batch() {
    let call =
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>\n";
    // Quoted mentions between real calls.
    check(
        "qwen3_coder",
        &format!("Use `<tool_call>` then:\n{call}").repeat(10_000),
        10_000,
    );
    // One line: an unclosed backtick before 20 000 markers (the look-ahead runs once).
    check(
        "qwen3_coder",
        &format!("a ` {}", call.replace('\n', " ").repeat(20_000)),
        20_000,
    );
    // A fence left open: mid-line markers are code, line-start ones calls.
    check(
        "qwen3_coder",
        &format!(
            "```\n{}",
            format!("x = '<tool_call>'\n{call}").repeat(10_000)
        ),
        10_000,
    );
    // DeepSeek V3.1 without `</think>`: settled only at the end, once.
    let ds = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n";
    check("deepseek_v31", &ds.repeat(10_000), 10_000);
    // ... and with reasoning that opened in the prompt: its calls are not calls.
    check(
        "deepseek_v31",
        &format!("{}</think>{ds}", ds.repeat(10_000)),
        1,
    );
}

#[test]
fn unclosed_reasoning_and_end_of_turn_tokens_stay_linear_and_stream_like_batch() {
    // Reasoning that never closes, ended by a call, 10 000 times: `</think>` is looked for
    // once, not once per `<think>`.
    let call =
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>\n";
    check(
        "qwen3_coder",
        &format!("<think>plan\n{call}").repeat(10_000),
        10_000,
    );
    let json = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n";
    check(
        "hermes",
        &format!("<think>plan\n{json}").repeat(10_000),
        10_000,
    );
    // A call left open at an end-of-turn token, then a megabyte that never closes it: the
    // tokens are looked for once, not once per delta.
    let open = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n";
    check(
        "hermes",
        &format!("{open}<|endoftext|>{}", "x <|im_".repeat(150_000)),
        1,
    );
    // Reasoning opened in the prompt, 10 000 drafted calls, then the real one.
    check(
        "hermes",
        &format!("{}</think>{json}", json.repeat(10_000)),
        1,
    );
}
