//! Tests of `deepseek_v3`, kept beside it so the module itself stays readable.

use super::*;
use crate::request::Severity;
use serde_json::json;

fn parse(text: &str) -> ParseOutput {
    DeepSeekV3.parse_tool_requests(text)
}

fn calls(out: &ParseOutput) -> Vec<(String, Value)> {
    out.requests
        .iter()
        .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
        .collect()
}

fn call(name: &str, args: &str) -> String {
    format!("{CALL_BEGIN}function{SEP}{name}\n```json\n{args}\n```{CALL_END}")
}

#[test]
fn calls_between_the_outer_tokens() {
    let first = call("get_weather", r#"{"city": "東京", "q": "say \"hi\""}"#);
    let second = call("time_now", "{}");
    let text = format!("Checking.{CALLS_BEGIN}{first}\n{second}{CALLS_END}{END_OF_SENTENCE}");
    let out = parse(&text);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        calls(&out),
        vec![
            (
                "get_weather".to_owned(),
                json!({"city": "東京", "q": "say \"hi\""})
            ),
            ("time_now".to_owned(), json!({})),
        ]
    );
    assert_eq!(out.requests[0].raw_block, first);
    assert!(out
        .requests
        .iter()
        .all(|r| !r.untyped_args && r.format == ID));
    assert_eq!(out.content, "Checking.");
}

#[test]
fn think_is_never_parsed() {
    let fake = call("rm", "{}");
    let out = parse(&format!("<think>{CALLS_BEGIN}{fake}</think>Done."));
    assert!(out.requests.is_empty());
    assert!(out.diagnostics.is_empty());
    assert_eq!(out.content, "Done.");
}

#[test]
fn lenient_on_type_and_fence() {
    let out = parse(&format!(
        "{CALL_BEGIN}{SEP}f\n```json\n{{}}\n```{CALL_END}\
         {CALL_BEGIN}tool{SEP}g\n{{\"a\": 1}}{CALL_END}\
         {CALL_BEGIN}function{SEP}h\n```\n{{\"b\": 2}}{CALL_END}"
    ));
    assert_eq!(
        calls(&out),
        vec![
            ("f".to_owned(), json!({})),
            ("g".to_owned(), json!({"a": 1})),
            ("h".to_owned(), json!({"b": 2})),
        ]
    );
    assert!(!out.has_errors());
    assert_eq!(out.diagnostics.len(), 4, "{:?}", out.diagnostics);
}

#[test]
fn broken_calls_are_skipped_and_their_neighbours_kept() {
    for broken in [
        format!("{CALL_BEGIN}function get_weather\n```json\n{{}}\n```{CALL_END}"),
        format!("{CALL_BEGIN}function{SEP}\n```json\n{{}}\n```{CALL_END}"),
        call("f", r#"{"a": }"#),
        call("f", "[1, 2]"),
        format!("{CALL_BEGIN}f{SEP}{{\"a\": 1}}{CALL_END}"),
    ] {
        let good = call("ok", "{}");
        let out = parse(&format!("{CALLS_BEGIN}{good}{broken}{good}{CALLS_END}"));
        assert_eq!(out.requests.len(), 2, "{broken}");
        assert!(out.has_errors(), "{broken}");
    }
}

#[test]
fn a_cut_off_reply_is_decoded_only_if_its_json_is_complete() {
    let good = call("ok", "{}");
    let out = parse(&format!(
        "{CALLS_BEGIN}{good}{CALL_BEGIN}function{SEP}f\n```json\n{{\"a\": 1}}\n``"
    ));
    assert_eq!(out.requests.len(), 2);
    assert!(!out.has_errors(), "{:?}", out.diagnostics);
    let out = parse(&format!(
        "{CALLS_BEGIN}{good}{CALL_BEGIN}function{SEP}f\n```json\n{{\"a\": 1"
    ));
    assert_eq!(out.requests.len(), 1);
    assert!(out.has_errors());
    // The model skipped the call's end marker but closed the list.
    let out = parse(&format!(
        "{CALLS_BEGIN}{CALL_BEGIN}function{SEP}f\n```json\n{{\"a\": 1}}\n```{CALLS_END}"
    ));
    assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": 1}))]);
    assert!(out
        .diagnostics
        .iter()
        .all(|d| d.severity == Severity::Warning));
}

#[test]
fn results_use_the_output_tokens() {
    let result = |id: &str, text: &str| ToolExecutionResult {
        request_id: id.into(),
        tool_name: "f".into(),
        status: crate::result::ExecutionStatus::Success,
        result: text.into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    };
    assert_eq!(
        DeepSeekV3.format_tool_results(&[result("1", "a"), result("2", "{\"b\":1}")]),
        format!(
            "{OUTPUTS_BEGIN}{OUTPUT_BEGIN}a{OUTPUT_END}\n{OUTPUT_BEGIN}{{\"b\":1}}\
             {OUTPUT_END}{OUTPUTS_END}"
        )
    );
    assert_eq!(DeepSeekV3.format_tool_results(&[]), "");
}

#[test]
fn any_mix_of_its_tokens_never_panics_and_spans_hold() {
    const PARTS: [&str; 16] = [
        CALLS_BEGIN,
        CALLS_END,
        CALL_BEGIN,
        CALL_END,
        SEP,
        "function",
        "```json",
        "```",
        "\n",
        "{",
        "}",
        "\"a\": 1",
        "<think>",
        "</think>",
        "é東",
        " ",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..20_000 {
        let mut text = String::new();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut bits = seed;
        for _ in 0..(bits % 24) {
            bits = bits.rotate_left(5) ^ 0x9e37_79b9;
            let index = usize::try_from(bits % 16).unwrap_or(0);
            text.push_str(PARTS[index]);
        }
        for out in [
            parse(&text),
            super::super::deepseek_v31::DeepSeekV31.parse_tool_requests(&text),
        ] {
            for request in &out.requests {
                assert_eq!(
                    text.get(request.span.start..request.span.end),
                    Some(request.raw_block.as_str())
                );
            }
            for d in &out.diagnostics {
                assert!(
                    text.get(d.span.start..d.span.end).is_some(),
                    "{text:?}: {d:?}"
                );
            }
        }
    }
}
