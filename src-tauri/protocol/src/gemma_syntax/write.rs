//! Writing JSON in the Gemma notation, as the Gemma 4 and FunctionGemma chat templates do:
//! tool declarations (`declaration:NAME{description:…,parameters:{…}}`) and result values.

use serde_json::{Map, Value};

use crate::prompt::{function_definitions, result_value};
use crate::result::ToolExecutionResult;
use crate::ToolDefinitionInput;

/// Every tool's [`declaration`], each between `open` and `close`, as both templates list them.
pub fn declarations(tools: &[ToolDefinitionInput], open: &str, close: &str, quote: &str) -> String {
    let mut out = String::new();
    for definition in function_definitions(tools) {
        let f = &definition["function"];
        out.push_str(open);
        out.push_str(&declaration(
            f["name"].as_str().unwrap_or_default(),
            f["description"].as_str().unwrap_or_default(),
            &f["parameters"],
            quote,
        ));
        out.push_str(close);
    }
    out
}

/// Every result as `response:NAME{…}` between `open` and `close`.
pub fn responses(results: &[ToolExecutionResult], open: &str, close: &str, quote: &str) -> String {
    results
        .iter()
        .map(|r| format!("{open}{}{close}", response_body(r, quote)))
        .collect()
}

/// `response:NAME{key:value,…}` for an object result, `response:NAME{value:…}` otherwise: the
/// templates' tool-response rendering (keys bare, in sorted order).
pub fn response_body(result: &ToolExecutionResult, quote: &str) -> String {
    let value = result_value(result);
    let mut out = format!("response:{}", result.tool_name);
    match &value {
        Value::Object(_) => write_value(&mut out, &value, quote, false),
        other => {
            out.push_str("{value:");
            write_value(&mut out, other, quote, false);
            out.push('}');
        }
    }
    out
}

/// A value as the templates' `format_argument` macro writes it: strings between `quote`, keys
/// in sorted order (the template's `dictsort`), bare or quoted as `quote_keys` says.
pub fn write_value(out: &mut String, value: &Value, quote: &str, quote_keys: bool) {
    match value {
        Value::String(text) => quoted(out, text, quote),
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in sorted(map).into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                if quote_keys {
                    quoted(out, key, quote);
                } else {
                    out.push_str(key);
                }
                out.push(':');
                write_value(out, item, quote, quote_keys);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item, quote, quote_keys);
            }
            out.push(']');
        }
        // Numbers, booleans and null print as JSON does (the template prints Python's `None`
        // for null; `null` reads back the same and is what the reference parsers expect).
        other => out.push_str(&other.to_string()),
    }
}

/// `declaration:NAME{description:…,parameters:{properties:{…},required:[…],type:OBJECT}}`, the
/// templates' `format_function_declaration`.
pub fn declaration(name: &str, description: &str, parameters: &Value, quote: &str) -> String {
    let mut out = format!("declaration:{name}{{description:");
    quoted(&mut out, description, quote);
    if let Some(params) = parameters.as_object().filter(|p| !p.is_empty()) {
        out.push_str(",parameters:{");
        let mut parts = Vec::new();
        if let Some(properties) = params.get("properties").and_then(Value::as_object) {
            parts.push(format!(
                "properties:{{{}}}",
                properties_text(properties, quote)
            ));
        }
        if let Some(required) = params.get("required").and_then(Value::as_array) {
            parts.push(format!("required:{}", required_text(required, quote)));
        }
        if let Some(kind) = params.get("type").and_then(Value::as_str) {
            parts.push(format!("type:{quote}{}{quote}", kind.to_uppercase()));
        }
        out.push_str(&parts.join(","));
        out.push('}');
    }
    out.push('}');
    out
}

/// The template's `format_parameters`: each property with its description, nullability, enum,
/// nested properties or items, and its type in capitals.
fn properties_text(properties: &Map<String, Value>, quote: &str) -> String {
    let mut entries = Vec::new();
    for (key, schema) in sorted(properties) {
        let mut parts = Vec::new();
        if let Some(description) = schema.get("description").and_then(Value::as_str) {
            let mut part = String::from("description:");
            quoted(&mut part, description, quote);
            parts.push(part);
        }
        if schema.get("nullable") == Some(&Value::Bool(true)) {
            parts.push("nullable:true".to_owned());
        }
        let kind = match schema.get("type") {
            Some(Value::String(kind)) => kind.to_uppercase(),
            Some(Value::Array(kinds)) => kinds
                .first()
                .and_then(Value::as_str)
                .unwrap_or("string")
                .to_uppercase(),
            _ => "STRING".to_owned(),
        };
        match kind.as_str() {
            "STRING" => {
                if let Some(options) = schema.get("enum") {
                    let mut part = String::from("enum:");
                    write_value(&mut part, options, quote, true);
                    parts.push(part);
                }
            }
            "OBJECT" => {
                let nested = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| properties_text(p, quote))
                    .unwrap_or_default();
                parts.push(format!("properties:{{{nested}}}"));
                if let Some(required) = schema.get("required").and_then(Value::as_array) {
                    parts.push(format!("required:{}", required_text(required, quote)));
                }
            }
            "ARRAY" => {
                if let Some(items) = schema.get("items").and_then(Value::as_object) {
                    parts.push(format!("items:{{{}}}", items_text(items, quote)));
                }
            }
            _ => {}
        }
        parts.push(format!("type:{quote}{kind}{quote}"));
        entries.push(format!("{key}:{{{}}}", parts.join(",")));
    }
    entries.join(",")
}

fn items_text(items: &Map<String, Value>, quote: &str) -> String {
    let mut parts = Vec::new();
    for (key, value) in sorted(items) {
        match (key.as_str(), value) {
            (_, Value::Null) => {}
            ("properties", Value::Object(properties)) => {
                parts.push(format!(
                    "properties:{{{}}}",
                    properties_text(properties, quote)
                ));
            }
            ("required", Value::Array(required)) => {
                parts.push(format!("required:{}", required_text(required, quote)));
            }
            ("type", Value::String(kind)) => {
                parts.push(format!("type:{quote}{}{quote}", kind.to_uppercase()));
            }
            _ => {
                let mut part = format!("{key}:");
                write_value(&mut part, value, quote, true);
                parts.push(part);
            }
        }
    }
    parts.join(",")
}

fn required_text(required: &[Value], quote: &str) -> String {
    let names: Vec<String> = required
        .iter()
        .filter_map(Value::as_str)
        .map(|name| format!("{quote}{name}{quote}"))
        .collect();
    format!("[{}]", names.join(","))
}

fn quoted(out: &mut String, text: &str, quote: &str) {
    out.push_str(quote);
    out.push_str(text);
    out.push_str(quote);
}

fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}
