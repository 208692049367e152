//! Turning the schema dialects tool definitions are written in into JSON Schema.
//!
//! Vendors and data sets write argument schemas in near-JSON-Schema dialects: Gemini uses the
//! OpenAPI subset with upper-case types (`"OBJECT"`) and `nullable: true`; BFCL uses Python and
//! Java type names (`"dict"`, `"float"`, `"tuple"`, `"any"`, `"String"`, `"HashMap"`), an
//! `optional` key, and defaults written as strings (`"default": "false"` on a boolean). The
//! validator and the typing of text values need real JSON Schema, so each node is rewritten, and
//! every kind of rewrite is counted so the import can say what it changed.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What [`normalise`] changed, by kind of change, with how often.
pub type Changes = BTreeMap<String, usize>;

/// Rewrites `schema` into JSON Schema in place and reports each kind of change made.
pub fn normalise(schema: &mut Value) -> Changes {
    let mut changes = Changes::new();
    node(schema, &mut changes);
    changes
}

fn note(changes: &mut Changes, what: String) {
    *changes.entry(what).or_insert(0) += 1;
}

/// The JSON Schema type a dialect's type name stands for; `Some(None)` when the name means
/// "any value" (no `type` at all), `None` when it is not a dialect name.
fn dialect_type(name: &str) -> Option<Option<&'static str>> {
    let mapped = match name {
        // Gemini / OpenAPI upper case.
        "OBJECT" => "object",
        "STRING" => "string",
        "INTEGER" => "integer",
        "NUMBER" => "number",
        "BOOLEAN" => "boolean",
        "ARRAY" => "array",
        "NULL" => "null",
        // BFCL's Python names.
        "dict" => "object",
        "float" => "number",
        "tuple" | "list" => "array",
        "int" => "integer",
        "str" => "string",
        "bool" => "boolean",
        // BFCL's Java and JavaScript names.
        "String" | "char" => "string",
        "Boolean" => "boolean",
        "Array" | "ArrayList" => "array",
        "HashMap" => "object",
        "long" => "integer",
        "double" => "number",
        "any" | "TYPE_UNSPECIFIED" | "" => return Some(None),
        _ => return None,
    };
    Some(Some(mapped))
}

fn node(value: &mut Value, changes: &mut Changes) {
    let Value::Object(schema) = value else {
        return;
    };
    types(schema, changes);
    nullable(schema, changes);
    if schema.remove("optional").is_some() {
        note(
            changes,
            "'optional' removed (JSON Schema says it with 'required')".into(),
        );
    }
    string_default(schema, changes);
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(Value::Object(children)) = schema.get_mut(key) {
            children.values_mut().for_each(|c| node(c, changes));
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
    ] {
        match schema.get_mut(key) {
            Some(Value::Array(children)) => children.iter_mut().for_each(|c| node(c, changes)),
            Some(child @ Value::Object(_)) => node(child, changes),
            _ => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = schema.get_mut(key) {
            children.iter_mut().for_each(|c| node(c, changes));
        }
    }
}

fn types(schema: &mut Map<String, Value>, changes: &mut Changes) {
    match schema.get_mut("type") {
        Some(Value::String(name)) => match dialect_type(name) {
            Some(Some(mapped)) => {
                note(changes, format!("type '{name}' read as '{mapped}'"));
                *name = mapped.to_owned();
            }
            Some(None) => {
                note(changes, format!("type '{name}' read as any value"));
                schema.remove("type");
            }
            None => {}
        },
        Some(Value::Array(names)) => {
            for entry in names.iter_mut() {
                if let Value::String(name) = entry {
                    if let Some(Some(mapped)) = dialect_type(name) {
                        note(changes, format!("type '{name}' read as '{mapped}'"));
                        *name = mapped.to_owned();
                    }
                }
            }
        }
        _ => {}
    }
}

/// OpenAPI's `nullable: true` is JSON Schema's `"null"` among the types.
fn nullable(schema: &mut Map<String, Value>, changes: &mut Changes) {
    let Some(flag) = schema.remove("nullable") else {
        return;
    };
    if flag != Value::Bool(true) {
        note(changes, "'nullable: false' removed".into());
        return;
    }
    note(changes, "'nullable: true' read as a \"null\" type".into());
    match schema.get_mut("type") {
        Some(Value::String(name)) if name != "null" => {
            let name = std::mem::take(name);
            schema.insert("type".into(), Value::from(vec![name, "null".to_owned()]));
        }
        Some(Value::Array(names)) if !names.iter().any(|n| n == "null") => {
            names.push(Value::from("null"));
        }
        _ => {}
    }
}

/// BFCL writes defaults of numbers and booleans as strings (`"default": "0"`); a default is
/// what fills a missing argument, so it must have the argument's type.
fn string_default(schema: &mut Map<String, Value>, changes: &mut Changes) {
    let Some(Value::String(text)) = schema.get("default") else {
        return;
    };
    let Some(Value::String(kind)) = schema.get("type") else {
        return;
    };
    let typed = match kind.as_str() {
        "boolean" => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "integer" => text.trim().parse::<i64>().ok().map(Value::from),
        "number" => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from),
        _ => return,
    };
    let kind = kind.clone();
    match typed {
        Some(value) => {
            note(changes, format!("string default read as a {kind}"));
            schema.insert("default".into(), value);
        }
        None => {
            note(
                changes,
                format!("string default removed (not a valid {kind})"),
            );
            schema.remove("default");
        }
    }
}

/// One line saying what [`normalise`] changed: `type 'dict' read as 'object' (×3); ...`.
pub fn describe(changes: &Changes) -> String {
    changes
        .iter()
        .map(|(what, n)| {
            if *n == 1 {
                what.clone()
            } else {
                format!("{what} (×{n})")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bfcl_types_optional_and_string_defaults_become_json_schema() {
        let mut schema = json!({
            "type": "dict",
            "properties": {
                "angle": {"type": "float", "default": "45.0"},
                "verbose": {"type": "boolean", "default": "False", "optional": true},
                "point": {"type": "tuple", "items": {"type": "integer"}},
                "payload": {"type": "any"},
                "count": {"type": "integer", "default": "many"},
                "name": {"type": "String"}
            },
            "required": ["angle"]
        });
        let changes = normalise(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "angle": {"type": "number", "default": 45.0},
                    "verbose": {"type": "boolean", "default": false},
                    "point": {"type": "array", "items": {"type": "integer"}},
                    "payload": {},
                    "count": {"type": "integer"},
                    "name": {"type": "string"}
                },
                "required": ["angle"]
            })
        );
        assert_eq!(changes["type 'dict' read as 'object'"], 1);
        assert_eq!(changes["string default removed (not a valid integer)"], 1);
        assert!(describe(&changes).contains("type 'any' read as any value"));
    }

    #[test]
    fn gemini_upper_case_types_and_nullable_become_json_schema() {
        let mut schema = json!({
            "type": "OBJECT",
            "properties": {
                "unit": {"type": "STRING", "nullable": true, "enum": ["C", "F"], "format": "enum"},
                "days": {"type": "ARRAY", "items": {"type": "INTEGER"}},
                "any": {"anyOf": [{"type": "NUMBER"}, {"type": "BOOLEAN", "nullable": false}]}
            },
            "propertyOrdering": ["unit", "days"]
        });
        let changes = normalise(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "unit": {"type": ["string", "null"], "enum": ["C", "F"], "format": "enum"},
                    "days": {"type": "array", "items": {"type": "integer"}},
                    "any": {"anyOf": [{"type": "number"}, {"type": "boolean"}]}
                },
                "propertyOrdering": ["unit", "days"]
            })
        );
        assert_eq!(changes["type 'STRING' read as 'string'"], 1);
        assert_eq!(changes["'nullable: true' read as a \"null\" type"], 1);
    }

    #[test]
    fn json_schema_is_left_alone() {
        let original = json!({
            "type": "object",
            "properties": {"q": {"type": ["string", "null"], "default": "x"}},
            "additionalProperties": false
        });
        let mut schema = original.clone();
        assert!(normalise(&mut schema).is_empty());
        assert_eq!(schema, original);
    }
}
