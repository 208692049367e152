use serde_json::json;

use super::*;
use crate::request_tools::RequestTool;

fn case(line: Value) -> EvalCase {
    serde_json::from_value(line).expect("a valid case")
}

fn run(case: &EvalCase, tools: Option<&RequestTools>) -> CaseOutcome {
    evaluate_case(case, "line 1".into(), &ProtocolSet::standard(), None, tools)
        .expect("known format")
}

#[test]
fn a_reply_whose_calls_match_agrees_and_numbers_compare_by_value() {
    let outcome = run(
        &case(json!({
            "format": "hermes",
            "reply": "<tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 1.0, \"tags\": [\"a\"]}}</tool_call>",
            "expected": [{"name": "f", "arguments": {"n": 1, "tags": ["a"]}}]
        })),
        None,
    );
    assert!(outcome.agrees, "{:?}", outcome.reasons);
    assert_eq!(outcome.format, "hermes");
}

#[test]
fn a_differing_argument_a_wrong_name_and_a_missing_call_are_misses() {
    let reply = "<tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 2}}</tool_call>";
    let wrong_value = run(
        &case(json!({"reply": reply, "expected": [{"name": "f", "arguments": {"n": 3}}]})),
        None,
    );
    assert!(!wrong_value.agrees);
    assert!(
        wrong_value.reasons[0].contains("expected {\"n\":3}"),
        "{:?}",
        wrong_value.reasons
    );
    assert_eq!(
        wrong_value.format, "hermes",
        "the detected format labels a case without one"
    );
    let wrong_name = run(
        &case(json!({"reply": reply, "expected": [{"name": "g", "arguments": {"n": 2}}]})),
        None,
    );
    assert_eq!(wrong_name.reasons, vec!["call 1: f ≠ expected g"]);
    let missing = run(
        &case(json!({"reply": reply, "expected": [
            {"name": "f", "arguments": {"n": 2}}, {"name": "f", "arguments": {"n": 2}}
        ]})),
        None,
    );
    assert_eq!(missing.reasons, vec!["1 call(s) found, 2 expected"]);
    let none = run(
        &case(json!({"reply": "no calls here", "expected": []})),
        None,
    );
    assert!(none.agrees);
    assert_eq!(none.format, "none");
}

#[test]
fn the_request_tools_type_text_values_before_comparing() {
    let reply =
        "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>";
    let expected =
        case(json!({"reply": reply, "expected": [{"name": "f", "arguments": {"n": 3}}]}));
    let tools = RequestTools::new([RequestTool {
        name: "f".into(),
        parameters: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        routing_name: None,
    }]);
    assert!(run(&expected, Some(&tools)).agrees);
    let text_schema = RequestTools::new([RequestTool {
        name: "f".into(),
        parameters: json!({"type": "object", "properties": {"n": {"type": "string"}}}),
        routing_name: None,
    }]);
    let as_text =
        case(json!({"reply": reply, "expected": [{"name": "f", "arguments": {"n": "3"}}]}));
    assert!(
        run(&as_text, Some(&text_schema)).agrees,
        "a string stays a string"
    );
    assert!(
        run(&as_text, None).agrees,
        "without tools Qwen3-Coder text stays text, as vLLM's parser keeps it"
    );
    assert!(!run(&expected, None).agrees);
}

#[test]
fn the_report_counts_per_format_and_keeps_only_misses() {
    let mut report = EvalReport::default();
    for (format, agrees) in [("hermes", true), ("hermes", false), ("vcp", true)] {
        report.add(CaseOutcome {
            label: String::new(),
            format: format.into(),
            agrees,
            expected: Vec::new(),
            found: Vec::new(),
            reasons: Vec::new(),
        });
    }
    assert_eq!(
        report.overall,
        Agreement {
            cases: 3,
            agreed: 2
        }
    );
    assert!((report.by_format["hermes"].rate() - 0.5).abs() < f64::EPSILON);
    assert_eq!(report.mismatches.len(), 1);
    assert!((Agreement::default().rate() - 1.0).abs() < f64::EPSILON);
}
