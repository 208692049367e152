//! Reads a method's JSON Schema the way a prompt needs it: a flat parameter list with types,
//! required flags and defaults, and example arguments. Shared by every text protocol so they
//! describe parameters identically.

use serde_json::{json, Map, Value};

/// One entry per top-level property: `{name, type, required, description?, default?, enum?}`,
/// plus the raw sub-schema for objects and arrays so nested shapes are not lost.
pub fn parameter_summary(schema: &Value) -> Vec<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, prop)| {
            let mut entry = Map::new();
            entry.insert("name".into(), json!(name));
            entry.insert("type".into(), json!(type_label(prop)));
            entry.insert("required".into(), json!(required.contains(&name.as_str())));
            for key in ["description", "default", "enum"] {
                if let Some(value) = prop.get(key) {
                    entry.insert(key.into(), value.clone());
                }
            }
            if matches!(type_label(prop).as_str(), "object" | "array") {
                for key in ["properties", "items", "required"] {
                    if let Some(value) = prop.get(key) {
                        entry.insert(key.into(), value.clone());
                    }
                }
            }
            Value::Object(entry)
        })
        .collect()
}

/// A readable type name: `string`, `integer|null`, `oneOf`, ...
fn type_label(prop: &Value) -> String {
    match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => ["oneOf", "anyOf", "allOf", "enum", "const"]
            .into_iter()
            .find(|k| prop.get(*k).is_some())
            .unwrap_or("any")
            .to_owned(),
    }
}

/// Arguments for a call example: required properties (or the first one when none is
/// required), each with its `examples[0]`, default, first enum value or a typed placeholder.
pub fn example_args(schema: &Value) -> Map<String, Value> {
    let mut args = Map::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return args;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, prop) in properties {
        if required.is_empty() && !args.is_empty() {
            break;
        }
        if !required.is_empty() && !required.contains(&name.as_str()) {
            continue;
        }
        args.insert(name.clone(), example_value(prop));
    }
    args
}

fn example_value(prop: &Value) -> Value {
    if let Some(first) = prop
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = prop.get("default") {
        return default.clone();
    }
    if let Some(first) = prop
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    match type_label(prop).split('|').next().unwrap_or("any") {
        "integer" => json!(1),
        "number" => json!(1.5),
        "boolean" => json!(true),
        "array" => json!([]),
        "object" => json!({}),
        "null" => Value::Null,
        _ => json!("..."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_and_exemplifies() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "where", "examples": ["src"]},
                "depth": {"type": ["integer", "null"], "default": 2},
                "mode": {"enum": ["a", "b"]},
                "opts": {"type": "object", "properties": {"x": {"type": "boolean"}}}
            },
            "required": ["path", "mode"]
        });
        let summary = parameter_summary(&schema);
        assert_eq!(summary.len(), 4);
        let depth = summary
            .iter()
            .find(|e| e["name"] == "depth")
            .expect("depth listed");
        assert_eq!(depth["type"], "integer|null");
        assert_eq!(depth["default"], 2);
        assert_eq!(depth["required"], false);
        let opts = summary
            .iter()
            .find(|e| e["name"] == "opts")
            .expect("opts listed");
        assert!(opts.get("properties").is_some());
        let example = example_args(&schema);
        assert_eq!(Value::Object(example), json!({"path": "src", "mode": "a"}));
    }

    #[test]
    fn no_properties_means_no_parameters() {
        assert!(parameter_summary(&json!({"type": "object"})).is_empty());
        assert!(example_args(&json!({})).is_empty());
    }
}
