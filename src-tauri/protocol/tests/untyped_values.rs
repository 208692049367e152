//! Typing of text values in the formats that carry every value as text (Qwen3-Coder, GLM-4.5,
//! MiniMax-M2, Seed-OSS, Step-3, VCP): the same rule for all six, through
//! `parser::type_arguments`. Without a schema a value that is a whole JSON literal becomes that
//! literal (vLLM's and SGLang's fallback when a tool is unknown); with one, the schema decides.

use std::path::Path;

use serde_json::{json, Value};
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

fn parsed(format: &str, case: &str) -> parser::ParseReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/parser")
        .join(format)
        .join(case);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let report = parser::parse(&ProtocolSet::standard(), &text, Some(format)).expect("format");
    assert_eq!(report.requests.len(), 1, "{format}/{case}");
    assert!(report.requests[0].untyped_args, "{format}/{case}");
    report
}

fn typed(format: &str, case: &str, schema: Option<Value>) -> Value {
    let mut report = parsed(format, case);
    parser::type_arguments(&mut report, |_| schema.clone());
    Value::Object(report.requests[0].args.clone())
}

#[test]
#[allow(clippy::approx_constant)] // 3.14 is the value of vLLM's test_extract_tool_calls_type_conversion
fn without_a_schema_json_literals_become_literals_in_every_text_format() {
    let cases = [
        (
            "qwen3_coder",
            "12_json_literal_values_untyped.txt",
            json!({"int_param": 42, "float_param": 3.14, "bool_param": true,
                   "str_param": "hello world", "obj_param": {"key": "value"}, "null_param": null}),
        ),
        (
            "glm45",
            "10_json_literal_values_untyped.txt",
            json!({"days": 3, "budget": 1250.5, "refundable": false, "stops": ["Paris", "Lyon"],
                   "options": {"seat": "window"}, "note": null, "city": "Paris"}),
        ),
        (
            "minimax_m2",
            "10_json_literal_values_untyped.txt",
            json!({"query": ["rust", "tokio"], "limit": 5, "safe": true,
                   "filters": {"lang": "en"}, "site": null, "region": "us"}),
        ),
        (
            "seed_oss",
            "09_json_literal_values_untyped.txt",
            json!({"location": "San Francisco", "days": 3, "hourly": false,
                   "fields": ["temp", "wind"]}),
        ),
        (
            "step3",
            "08_value_whitespace_and_literals.txt",
            json!({"location": "Paris", "days": 3, "metric": true, "fields": ["temp", "rain"]}),
        ),
        (
            "vcp",
            "07_single_line_typed_values.txt",
            json!({"numbers": [1, 2.5, -3], "measures": ["mean", "max"], "sample": true}),
        ),
    ];
    for (format, case, expected) in cases {
        assert_eq!(typed(format, case, None), expected, "{format}/{case}");
    }
}

#[test]
fn a_schema_decides_over_the_literal_reading() {
    let schema = json!({"type": "object", "properties": {
        "days": {"type": "string"}, "budget": {"type": "integer"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
    }});
    let args = typed("glm45", "10_json_literal_values_untyped.txt", Some(schema));
    assert_eq!(args["days"], "3", "a string property keeps its text");
    assert_eq!(
        args["budget"], "1250.5",
        "not an integer: left for validation"
    );
    assert_eq!(args["note"], Value::Null, "nullable: null is null");
    assert_eq!(
        args["refundable"], "false",
        "no property: the schema says nothing"
    );
}
