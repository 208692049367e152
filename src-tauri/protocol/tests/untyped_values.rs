//! Typing of text values in the formats that carry every value as text (Qwen3-Coder, GLM-4.5,
//! MiniMax-M2, Seed-OSS, Step-3, VCP), through `parser::type_arguments`. Each format types
//! text as the reference parser it mirrors (`coerce::ValueTyping::of`): Qwen3-Coder as vLLM's
//! `_convert_param_value` (Seed-OSS too), GLM as vLLM's `_deserialize` (MiniCPM5 too),
//! MiniMax-M2 as vLLM's `_convert_param_value_with_types`; the others read a whole JSON literal as that literal
//! without a schema and convert to the schema's types with one.

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
fn without_a_schema_each_format_reads_text_as_its_reference_does() {
    let cases = [
        // vLLM's Qwen3-Coder parser: text stays text when no tool types it; only `null` is null.
        (
            "qwen3_coder",
            "12_json_literal_values_untyped.txt",
            json!({"int_param": "42", "float_param": "3.14", "bool_param": "true",
                   "str_param": "hello world", "obj_param": "{\"key\": \"value\"}",
                   "null_param": null}),
        ),
        (
            "qwen3_coder",
            "31_python_literal_values.txt",
            json!({"label": null, "retries": "5", "options": "{'verbose': True, 'level': None}",
                   "dry_run": "yes", "tags": "['x', 'y']", "zip": "01234"}),
        ),
        // vLLM's GLM-4 parser: JSON, then a Python literal, else the text.
        (
            "glm45",
            "10_json_literal_values_untyped.txt",
            json!({"days": 3, "budget": 1250.5, "refundable": false, "stops": ["Paris", "Lyon"],
                   "options": {"seat": "window"}, "note": null, "city": "Paris"}),
        ),
        (
            "glm45",
            "15_python_literal_values.txt",
            json!({"refundable": true, "note": null, "options": {"seat": "window", "meal": false},
                   "stops": ["Paris", "Lyon"], "zip": "01234", "date": "2025-12-24",
                   "city": "Rome"}),
        ),
        // vLLM's MiniMax-M2 parser: a parameter no schema declares is a string; only `null`,
        // `none` and `nil` are null.
        (
            "minimax_m2",
            "10_json_literal_values_untyped.txt",
            json!({"query": "[\"rust\", \"tokio\"]", "limit": "5", "safe": "true",
                   "filters": "{\"lang\": \"en\"}", "site": null, "region": "us"}),
        ),
        // vLLM's and SGLang's Seed-OSS parsers copy Qwen3-Coder's: text stays text.
        (
            "seed_oss",
            "09_json_literal_values_untyped.txt",
            json!({"location": "San Francisco", "days": "3", "hourly": "false",
                   "fields": "[\"temp\", \"wind\"]"}),
        ),
        // The others: a whole JSON literal becomes that literal.
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
fn qwen3_coder_types_as_vllm_convert_param_value() {
    let schema = json!({"type": "object", "properties": {
        "label": {"type": "string"},
        "retries": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "options": {"type": "object"}, "dry_run": {"type": "boolean"},
        "tags": {"type": "array"}, "zip": {"type": "string"}
    }});
    let args = typed("qwen3_coder", "31_python_literal_values.txt", Some(schema));
    assert_eq!(
        args,
        json!({"label": null, "retries": 5, "options": {"verbose": true, "level": null},
               "dry_run": false, "tags": ["x", "y"], "zip": "01234"})
    );
    // A parameter the schema does not declare stays text.
    let schema = json!({"type": "object", "properties": {"str_param": {"type": "string"}}});
    let args = typed(
        "qwen3_coder",
        "12_json_literal_values_untyped.txt",
        Some(schema),
    );
    assert_eq!(args["int_param"], "42");
    assert_eq!(args["null_param"], Value::Null);
}

#[test]
fn glm_reads_every_value_not_declared_a_string() {
    let schema = json!({"type": "object", "properties": {
        "days": {"type": "string"}, "budget": {"type": "integer"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
    }});
    let args = typed("glm45", "10_json_literal_values_untyped.txt", Some(schema));
    assert_eq!(args["days"], "3", "a string property keeps its text");
    assert_eq!(args["budget"], 1250.5, "JSON whatever the type says");
    assert_eq!(args["note"], Value::Null, "not `type: string`: read");
    assert_eq!(args["refundable"], false, "undeclared: read");
    let schema = json!({"type": "object", "properties": {
        "city": {"type": "string"}, "zip": {"type": "string"}
    }});
    let args = typed("glm45", "15_python_literal_values.txt", Some(schema));
    assert_eq!(args["city"], "'Rome'");
    assert_eq!(args["zip"], "01234");
    assert_eq!(args["stops"], json!(["Paris", "Lyon"]));
}

#[test]
fn by_default_a_schema_decides_over_the_literal_reading() {
    let schema = json!({"type": "object", "properties": {
        "days": {"type": "string"}, "metric": {"type": "boolean"},
        "fields": {"type": "object"}
    }});
    let args = typed(
        "step3",
        "08_value_whitespace_and_literals.txt",
        Some(schema),
    );
    assert_eq!(args["days"], "3", "a string property keeps its text");
    assert_eq!(args["metric"], true);
    assert_eq!(
        args["fields"], "[\"temp\", \"rain\"]",
        "not an object: left for validation"
    );
    assert_eq!(
        args["location"], "Paris",
        "no property: the schema says nothing"
    );
}
