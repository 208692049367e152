//! The prompt and result text of a declared format: templates with a few named placeholders.
//!
//! Chat templates differ in small ways (the tools as one JSON per line or as a pretty list, a
//! result as its content alone or as `{"name", "tool_call_id", "content"}`), so a description
//! says where each piece goes instead of picking from fixed layouts. Only the placeholders named
//! here are replaced, in one pass over the template: any other brace (a JSON example in the
//! instructions) is kept, and text a placeholder inserts is never read as a placeholder again.

use serde_json::{json, Value};

use crate::prompt::{function_definitions, result_value};
use crate::result::ToolExecutionResult;
use crate::ToolDefinitionInput;

/// Writes `template` with each `{name}` that `value` knows replaced by its value.
pub fn render(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(after.len());
        let replaced = (name_len > 0 && after[name_len..].starts_with('}'))
            .then(|| value(&after[..name_len]))
            .flatten();
        match replaced {
            Some(text) => {
                out.push_str(&text);
                rest = &after[name_len + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Placeholders of a prompt template: `{each}` (the per-tool template for every method),
/// `{definitions_list}` / `{definitions_pretty}` (the `{"type": "function", …}` list, compact or
/// indented), `{functions_list}` (the bare function objects as a compact list).
pub fn prompt(template: &str, each: &str, tools: &[ToolDefinitionInput]) -> String {
    let definitions = function_definitions(tools);
    render(template, |name| match name {
        "each" => Some(
            definitions
                .iter()
                .map(|definition| definition_text(each, definition))
                .collect(),
        ),
        "definitions_list" => Some(Value::Array(definitions.clone()).to_string()),
        "definitions_pretty" => {
            serde_json::to_string_pretty(&Value::Array(definitions.clone())).ok()
        }
        "functions_list" => Some(
            Value::Array(definitions.iter().map(|d| d["function"].clone()).collect()).to_string(),
        ),
        _ => None,
    })
}

/// Placeholders of the per-tool template: `{definition}` (`{"type": "function", …}`),
/// `{function}` (the bare function object), `{name}`, `{description}`.
fn definition_text(each: &str, definition: &Value) -> String {
    let function = &definition["function"];
    render(each, |name| match name {
        "definition" => Some(definition.to_string()),
        "function" => Some(function.to_string()),
        "name" => function["name"].as_str().map(str::to_owned),
        "description" => Some(
            function["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => None,
    })
}

/// Placeholders of the results template: `{each}` (the per-result template for every result)
/// and `{results}` (a JSON list of `{"name", "tool_call_id", "content"}` objects).
pub fn results(template: &str, each: &str, results: &[ToolExecutionResult]) -> String {
    render(template, |name| match name {
        "each" => Some(results.iter().map(|r| result_text(each, r)).collect()),
        "results" => Some(Value::Array(results.iter().map(full_result).collect()).to_string()),
        _ => None,
    })
}

fn full_result(result: &ToolExecutionResult) -> Value {
    json!({"name": result.tool_name, "tool_call_id": result.request_id, "content": result_value(result)})
}

/// Placeholders of the per-result template: `{result}` (`{"name", "tool_call_id",
/// "content"}`), `{id_result}` (`{"tool_call_id", "name", "content"}`), `{named_content}`
/// (`{"name", "content"}`), `{content}` (the content as JSON), `{text}` (the result's text as
/// it is), `{name}`, `{id}`.
fn result_text(each: &str, result: &ToolExecutionResult) -> String {
    render(each, |name| {
        match name {
        "result" => Some(full_result(result).to_string()),
        "id_result" => Some(
            json!({"tool_call_id": result.request_id, "name": result.tool_name, "content": result_value(result)})
                .to_string(),
        ),
        "named_content" => {
            Some(json!({"name": result.tool_name, "content": result_value(result)}).to_string())
        }
        "content" => Some(result_value(result).to_string()),
        "text" => Some(result.text_for_model().into_owned()),
        "name" => Some(result.tool_name.clone()),
        "id" => Some(result.request_id.clone()),
        _ => None,
    }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_placeholders_are_replaced_once() {
        let text = render("a {x} {\"name\": {y}} {unknown} {", |name| match name {
            "x" => Some("{y}".to_owned()),
            "y" => Some("Y".to_owned()),
            _ => None,
        });
        assert_eq!(text, "a {y} {\"name\": Y} {unknown} {");
    }
}
