//! Tests of `coerce`: the default typing, and each format's policy against its reference.

use super::*;
use serde_json::json;

fn coerced(args: Value, schema: Value) -> Value {
    let Value::Object(mut args) = args else {
        panic!("test args must be an object")
    };
    coerce_untyped(&mut args, &schema);
    Value::Object(args)
}

#[test]
fn without_a_schema_json_literals_are_read_and_other_text_stays() {
    let Value::Object(mut args) = json!({
        "n": " 42 ", "f": "1.5", "b": "true", "null": "null", "list": "[1, \"a\"]",
        "object": "{\"k\": 1}", "quoted": "\"x\"", "word": "Paris", "zeros": "007"
    }) else {
        unreachable!()
    };
    read_literals(&mut args);
    assert_eq!(
        Value::Object(args),
        json!({
            "n": 42, "f": 1.5, "b": true, "null": null, "list": [1, "a"],
            "object": {"k": 1}, "quoted": "x", "word": "Paris", "zeros": "007"
        })
    );
}

#[test]
fn converts_to_declared_types() {
    let schema = json!({"properties": {
        "i": {"type": "integer"}, "f": {"type": "number"}, "b": {"type": "boolean"},
        "n": {"type": "null"}, "o": {"type": "object"}, "a": {"type": "array"},
        "s": {"type": "string"}, "either": {"type": ["integer", "string"]},
        "maybe": {"type": ["null", "integer"]}, "e": {"enum": [1, 2]}, "whole": {"type": "integer"}
    }});
    let out = coerced(
        json!({"i": " 42 ", "f": "2.5", "b": "TRUE", "n": "null", "o": "{\"k\": [1]}",
               "a": "[1, \"x\"]", "s": "7", "either": "7", "maybe": "", "e": "2",
               "whole": "3.0", "extra": "5"}),
        schema,
    );
    assert_eq!(
        out,
        json!({"i": 42, "f": 2.5, "b": true, "n": null, "o": {"k": [1]}, "a": [1, "x"],
               "s": "7", "either": "7", "maybe": null, "e": 2, "whole": 3, "extra": "5"})
    );
}

#[test]
fn any_of_members_and_loose_type_names_type_values() {
    let schema = json!({"properties": {
        "maybe_int": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "maybe_obj": {"oneOf": [{"type": "object"}, {"type": "null"}]},
        "maybe_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "f": {"type": "float"}, "b": {"type": "bool"}, "i": {"type": "int"}
    }});
    let out = coerced(
        json!({"maybe_int": "5", "maybe_obj": "{\"a\": 1}", "maybe_str": "5",
               "f": "2.75", "b": "true", "i": "42"}),
        schema,
    );
    assert_eq!(
        out,
        json!({"maybe_int": 5, "maybe_obj": {"a": 1}, "maybe_str": "5",
               "f": 2.75, "b": true, "i": 42})
    );
}

#[test]
fn leaves_unconvertible_text_for_validation_to_report() {
    let schema = json!({"properties": {
        "i": {"type": "integer"}, "o": {"type": "object"}, "e": {"enum": [1, 2]}
    }});
    let out = coerced(json!({"i": "4.5", "o": "[1]", "e": "3"}), schema);
    assert_eq!(out, json!({"i": "4.5", "o": "[1]", "e": "3"}));
}

#[test]
fn defaults_fill_only_missing_properties() {
    let schema = json!({"properties": {
        "a": {"type": "integer", "default": 1}, "b": {"default": "x"}, "c": {"type": "string"}
    }});
    let mut args = Map::new();
    args.insert("b".into(), json!("given"));
    apply_defaults(&mut args, &schema);
    assert_eq!(Value::Object(args), json!({"a": 1, "b": "given"}));
}

fn typed_as(typing: ValueTyping, args: Value, schema: Option<Value>) -> Value {
    let Value::Object(mut args) = args else {
        panic!("test args must be an object")
    };
    typing.apply(&mut args, schema.as_ref());
    Value::Object(args)
}

#[test]
fn formats_name_their_policy_and_the_rest_read_json_literals() {
    assert_eq!(ValueTyping::of("qwen3_coder"), ValueTyping::QWEN3_CODER);
    assert_eq!(ValueTyping::of("glm45"), ValueTyping::GLM);
    assert_eq!(ValueTyping::of("minimax_m2"), ValueTyping::MINIMAX_M2);
    assert_eq!(ValueTyping::of("minimax_m3"), ValueTyping::MINIMAX_M3);
    assert_eq!(ValueTyping::of("seed_oss"), ValueTyping::QWEN3_CODER);
    assert_eq!(ValueTyping::of("minicpm5_xml"), ValueTyping::GLM);
    for other in ["step3", "vcp", "deepseek_v32", "nope"] {
        assert_eq!(
            ValueTyping::of(other),
            ValueTyping::JSON_LITERALS,
            "{other}"
        );
    }
}

#[test]
fn qwen3_coder_follows_vllm_convert_param_value() {
    let schema = json!({"properties": {
        "s": {"type": "string"}, "b": {"type": "boolean"}, "o": {"type": "object"},
        "a": {"type": "array"}, "i": {"type": "integer"}, "odd": {"type": "decimal"},
        "bad": {"type": "object"}, "whole": {"type": "integer"}, "n": {"type": "number"},
        "sep": {"type": "integer"}
    }});
    let out = typed_as(
        ValueTyping::QWEN3_CODER,
        json!({"s": "NULL", "b": "yes", "o": "{'a': True}", "a": "('x', 1)", "i": "x7",
               "odd": "1.5", "bad": "{not literal", "extra": "null", "extra2": "42",
               "whole": "3.0", "n": "2.0", "sep": "-1_000"}),
        Some(schema),
    );
    assert_eq!(
        out,
        json!({"s": null, "b": false, "o": {"a": true}, "a": ["x", 1], "i": "x7", "odd": 1.5,
               "bad": "{not literal", "extra": null, "extra2": "42", "whole": "3.0", "n": 2.0,
               "sep": -1000})
    );
    let out = typed_as(
        ValueTyping::QWEN3_CODER,
        json!({"n": "42", "t": "true", "z": "Null"}),
        None,
    );
    assert_eq!(out, json!({"n": "42", "t": "true", "z": null}));
}

#[test]
fn minimax_m2_follows_vllm_convert_param_value_with_types() {
    let schema = json!({"properties": {
        "s": {"type": "string"}, "b": {"type": "boolean"}, "off": {"type": "boolean"},
        "i": {"type": "integer"}, "whole": {"type": "integer"}, "o": {"type": "object"},
        "either": {"type": ["integer", "string"]}
    }});
    let out = typed_as(
        ValueTyping::MINIMAX_M2,
        json!({"s": "None", "b": "yes", "off": "0", "i": "42", "whole": "3.0",
               "o": "{\"a\": 1}", "either": "x", "extra": "42", "gone": "nil"}),
        Some(schema),
    );
    assert_eq!(
        out,
        json!({"s": null, "b": true, "off": false, "i": 42, "whole": "3.0", "o": {"a": 1},
               "either": "x", "extra": "42", "gone": null})
    );
    // No schema: every parameter is a string to the reference; only the null words are read.
    let out = typed_as(
        ValueTyping::MINIMAX_M2,
        json!({"n": "5", "t": "true", "l": "[1]", "z": "NIL"}),
        None,
    );
    assert_eq!(out, json!({"n": "5", "t": "true", "l": "[1]", "z": null}));
}

#[test]
fn glm_reads_json_then_python_unless_the_type_is_exactly_string() {
    let schema = json!({"properties": {
        "s": {"type": "string"}, "either": {"type": ["string", "null"]},
        "i": {"type": "integer"}
    }});
    let out = typed_as(
        ValueTyping::GLM,
        json!({"s": "None", "either": "None", "i": "'7'", "extra": "[True, 'x']",
               "zip": "007", "word": "Paris"}),
        Some(schema),
    );
    assert_eq!(
        out,
        json!({"s": "None", "either": null, "i": "7", "extra": [true, "x"], "zip": "007",
               "word": "Paris"})
    );
}
