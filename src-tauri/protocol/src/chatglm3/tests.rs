//! Tests of the ChatGLM3 reader beyond its fixtures: prose shapes it must leave alone.

use super::*;

fn calls(text: &str) -> Vec<(String, Value)> {
    ChatGlm3
        .parse_tool_requests(text)
        .requests
        .into_iter()
        .map(|r| (r.tool_name, Value::Object(r.args)))
        .collect()
}

#[test]
fn a_sentence_or_interpreter_code_is_not_a_call() {
    for prose in [
        "Let me check.\n```python\ntool_call(a=1)\n```",
        "interpreter\n```python\nimport json\nprint(1)\n```",
        "get_weather\nThe weather is fine.",
        "```python\ntool_call(a=1)\n```",
    ] {
        let out = ChatGlm3.parse_tool_requests(prose);
        assert!(out.requests.is_empty(), "{prose}");
        assert!(out.diagnostics.is_empty(), "{prose}");
    }
}

#[test]
fn the_fence_may_be_left_out_and_values_are_typed() {
    assert_eq!(
        calls("track\ntool_call(symbol='AAPL', n=2, live=True)"),
        vec![(
            "track".to_owned(),
            serde_json::json!({"symbol": "AAPL", "n": 2, "live": true})
        )]
    );
}

#[test]
fn a_second_call_in_one_fence_is_reported() {
    let out = ChatGlm3.parse_tool_requests("f\n```python\ntool_call(a=1)\ntool_call(a=2)\n```");
    assert_eq!(out.requests.len(), 1);
    assert_eq!(out.diagnostics.len(), 1);
}

#[test]
fn prompt_and_results_follow_the_template() {
    let prompt = ChatGlm3.generate_tool_definitions(&[]);
    assert!(prompt.starts_with("<|system|>\nAnswer the following questions"));
    assert!(prompt.ends_with("[]"));
}
