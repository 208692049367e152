//! Tests of `openai_chat`, kept beside it so the module itself stays readable.

use super::*;
use crate::request::Severity;
use crate::result::ExecutionStatus;

#[test]
fn a_response_a_message_and_a_bare_list() {
    let call = r#"{"id": "call_1", "type": "function", "function": {"name": "echo_echo", "arguments": "{\"message\": \"hi\"}"}}"#;
    for text in [
        format!(
            r#"{{"choices": [{{"message": {{"role": "assistant", "content": null, "tool_calls": [{call}]}}}}]}}"#
        ),
        format!(r#"{{"role": "assistant", "tool_calls": [{call}]}}"#),
        format!("[{call}]"),
    ] {
        let out = parse(&text);
        assert_eq!(out.diagnostics, vec![], "{text}");
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].request_id, "call_1");
        assert_eq!(out.requests[0].args["message"], json!("hi"));
        assert_eq!(out.requests[0].raw_block, call);
    }
}

#[test]
fn bad_arguments_are_reported_inside_the_string() {
    let text = r#"{"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\": tru}"}}]}"#;
    let out = parse(text);
    assert!(out.requests.is_empty());
    let d = &out.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert!(text[d.span.start..].starts_with('}'), "{d:?}");
}

#[test]
fn legacy_function_call() {
    let text = r#"{"role": "assistant", "content": null, "function_call": {"name": "f", "arguments": "{}"}}"#;
    let out = parse(text);
    assert_eq!(out.requests.len(), 1);
    assert_eq!(out.requests[0].tool_name, "f");
}

#[test]
fn bare_schemas_are_wrapped() {
    let wrapped =
        wrap_tool_schema(json!({"name": "f", "parameters": {"type": "object"}})).expect("wraps");
    assert_eq!(wrapped["type"], json!("function"));
    assert_eq!(wrapped["function"]["name"], json!("f"));
    let kept = wrap_tool_schema(json!({"function": {"name": "g"}})).expect("kept");
    assert_eq!(kept["function"]["name"], json!("g"));
    assert!(wrap_tool_schema(json!({"parameters": {}})).is_err());
}

#[test]
fn results_are_tool_messages() {
    let results = vec![ToolExecutionResult {
        request_id: "call_1".into(),
        tool_name: "f".into(),
        status: ExecutionStatus::Success,
        result: "ok".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    }];
    let value: Value =
        serde_json::from_str(&OpenAiChat.format_tool_results(&results)).expect("json");
    assert_eq!(
        value,
        json!([{"role": "tool", "tool_call_id": "call_1", "content": "ok"}])
    );
}
