//! Argument preparation before validation: typing text values and filling defaults.
//!
//! Text formats (VCP, Qwen3-Coder, GLM-4.5, MiniMax-M2, Seed-OSS, Step-3) deliver every value as
//! a string. A model that
//! writes `count:「始」3「末」` means the integer 3, so strings are converted to the type the
//! method's schema asks for; a string that does not convert is left alone and validation then
//! reports it with its path. Typed formats (JSON) are never coerced: a model that sends `"3"`
//! for an integer made a mistake worth showing.

use serde_json::{Map, Number, Value};

/// Converts string arguments to the types their property schemas ask for.
pub fn coerce_untyped(args: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, value) in args.iter_mut() {
        let Some(prop) = properties.get(name) else {
            continue;
        };
        if let Value::String(text) = value {
            if let Some(converted) = convert(text, prop) {
                *value = converted;
            }
        }
    }
}

/// Reads each string argument that is a whole JSON literal as that literal (`42`, `null`,
/// `"x"` → `x`, `[1]`): what untyped text means when no schema says more. llama.cpp's XML
/// tool-call reader and vLLM's GLM-4.5 parser read values so; other text stays as written.
pub fn read_literals(args: &mut Map<String, Value>) {
    for value in args.values_mut() {
        if let Value::String(text) = value {
            if let Ok(literal) = serde_json::from_str::<Value>(text.trim()) {
                *value = literal;
            }
        }
    }
}

/// Adds each missing top-level property that declares a `default`.
pub fn apply_defaults(args: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, prop) in properties {
        if let Some(default) = prop.get("default") {
            if !args.contains_key(name) {
                args.insert(name.clone(), default.clone());
            }
        }
    }
}

/// The types a property allows: its `type` (a name or a list), else those of its `anyOf` /
/// `oneOf` members (Pydantic writes `Optional[int]` as `anyOf: [{integer}, {null}]`; vLLM's
/// Qwen3-Coder parser reads those too). The loose names some tool schemas use (`int`, `float`,
/// `bool`, as in vLLM's tests) mean the JSON Schema types.
fn declared_types(prop: &Value) -> Vec<&str> {
    let own: Vec<&str> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| prop.get(*k).and_then(Value::as_array))
            .flatten()
            .flat_map(|member| match member.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            })
            .collect(),
    };
    own.into_iter()
        .map(|t| match t {
            "int" => "integer",
            "float" | "double" => "number",
            "bool" => "boolean",
            other => other,
        })
        .collect()
}

fn convert(text: &str, prop: &Value) -> Option<Value> {
    let types = declared_types(prop);
    // A nullable value written `null` means null, even when it may also be a string (the
    // reference parsers read `null` first, whatever the type).
    if types.contains(&"null") && text.trim() == "null" {
        return Some(Value::Null);
    }
    if types.contains(&"string") {
        return None;
    }
    if types.is_empty() {
        // No type: an enum of non-strings can still say what the text means.
        let options = prop.get("enum").and_then(Value::as_array)?;
        let parsed: Value = serde_json::from_str(text.trim()).ok()?;
        return options.contains(&parsed).then_some(parsed);
    }
    let trimmed = text.trim();
    types.iter().find_map(|t| match *t {
        "integer" => parse_integer(trimmed),
        "number" => parse_number(trimmed),
        "boolean" => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (trimmed.is_empty() || trimmed == "null").then_some(Value::Null),
        "object" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_object),
        "array" => serde_json::from_str::<Value>(trimmed)
            .ok()
            .filter(Value::is_array),
        _ => None,
    })
}

fn parse_integer(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::Number(u.into()));
    }
    // "3.0" is an integer in JSON Schema's eyes.
    let f = text.parse::<f64>().ok()?;
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)] // checked integral and in range above
        return Some(Value::Number((f as i64).into()));
    }
    None
}

fn parse_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    let f = text.parse::<f64>().ok()?;
    Number::from_f64(f).map(Value::Number)
}

#[cfg(test)]
mod tests {
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
}
