//! Tests of `calls`, kept beside it so the module itself stays readable.

use super::*;
use serde_json::json;

#[test]
fn the_common_shapes() {
    let plain = call_from_json(json!({"name": "f", "arguments": {"a": 1}})).expect("ok");
    assert_eq!(
        (plain.name.as_str(), plain.args["a"].clone()),
        ("f", json!(1))
    );
    let llama = call_from_json(json!({"name": "f", "parameters": {"a": 2}})).expect("ok");
    assert_eq!(llama.args["a"], json!(2));
    let openai = call_from_json(
        json!({"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":3}"}}),
    )
    .expect("ok");
    assert_eq!(
        (openai.id.as_deref(), openai.args["a"].clone()),
        (Some("c1"), json!(3))
    );
    let cohere = call_from_json(json!({"tool_name": "f", "parameters": {}})).expect("ok");
    assert_eq!(cohere.name, "f");
    assert!(call_from_json(json!({"name": "f"}))
        .expect("ok")
        .args
        .is_empty());
}

#[test]
fn bad_shapes_are_explained() {
    let (code, _) = call_from_json(json!({"arguments": {}})).expect_err("no name");
    assert_eq!(code, DiagnosticCode::MissingToolName);
    let (_, message) =
        call_from_json(json!({"name": "f", "arguments": "{oops"})).expect_err("bad string");
    assert!(message.contains("not valid JSON"), "{message}");
    let (_, message) = call_from_json(json!({"name": "f", "arguments": [1]})).expect_err("array");
    assert!(message.contains("an array"), "{message}");
    assert!(call_from_json(json!([1])).is_err());
}

#[test]
fn json_errors_point_at_the_byte() {
    let text = "xx{\"a\":\n  ,}";
    let mut out = ParseOutput::default();
    assert!(parse_json(text, Span::new(2, text.len()), "the call", &mut out).is_none());
    let span = out.diagnostics[0].span;
    assert_eq!(&text[span.start..span.end], ",");
}
