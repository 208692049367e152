//! OpenAI Responses API: `function_call` output items, arguments as a JSON string.
//!
//! The reply is a pasted response (`{"object": "response", "output": […], "status": …}`), a bare
//! `output` array, possibly after prose or in a ```json fence; a single `function_call` item is
//! read only as the whole reply. A call is `{"type": "function_call", "id": "fc_…", "call_id": "call_…", "name", "arguments":
//! "<JSON string>"}`; its request id is the `call_id`, which the result must echo. `message`
//! items are the content (their `output_text` and `refusal` parts); `reasoning` items are never
//! parsed; hosted-tool items (web search, file search, …) are not client calls and are skipped.
//!
//! Definitions are the request's `tools` array in the Responses shape (flat: `{"type":
//! "function", "name", "description", "parameters"}`). Results are the `function_call_output`
//! input items for the next request, as one JSON array.

use serde_json::{json, Value};

use crate::calls::{push_request, warning, Call};
use crate::json_document::calls::{
    call_id, call_object, integrity, name_and_arguments, report_integrity,
};
use crate::json_document::found::{find_documents, is_whole_reply};
use crate::json_document::{Doc, Node};
use crate::prompt::{per_method, pretty, result_value};
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "openai_responses";

/// Item types a bare `output` array may start with.
const ITEM_TYPES: &[&str] = &[
    "function_call",
    "message",
    "reasoning",
    "custom_tool_call",
    "web_search_call",
    "file_search_call",
];

#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponses;

impl Protocol for OpenAiResponses {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "OpenAI Responses (function_call items)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let definitions = per_method(tools, |name, method| {
            json!({
                "type": "function",
                "name": name,
                "description": method.description,
                "parameters": method.parameters,
            })
        });
        pretty(&Value::Array(definitions))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let items: Vec<Value> = results
            .iter()
            .map(|result| {
                let output = if result.error.is_some() {
                    result_value(result).to_string()
                } else {
                    result.result.clone()
                };
                json!({
                    "type": "function_call_output",
                    "call_id": result.request_id,
                    "output": output,
                })
            })
            .collect();
        pretty(&Value::Array(items))
    }

    fn signature(&self) -> super::detect::Signature {
        super::detect::Signature {
            markers: vec![
                "\"function_call\"",
                "\"object\": \"response\"",
                "\"object\":\"response\"",
            ],
            prefixes: vec![],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

fn item_type(text: &Doc, node: Node) -> Option<String> {
    node.get_string(text, "type")
}

fn recognise(text: &Doc, node: Node) -> bool {
    if node.is_array(text) {
        return node.items(text).next().is_some_and(|first| {
            item_type(text, first).is_some_and(|t| ITEM_TYPES.contains(&t.as_str()))
        });
    }
    node.members(text).any(|member| match member.key.as_ref() {
        "output" => member.value.is_array(text),
        "type" => {
            member.value.string(text).as_deref() == Some("function_call")
                && is_whole_reply(text, node)
        }
        _ => false,
    })
}

fn parse(text: &str) -> ParseOutput {
    let mut out = ParseOutput::default();
    let found = find_documents(text, 1, recognise);
    let Some((text, document)) = found.first() else {
        out.content = found.content(text, Vec::new());
        return out;
    };
    let integrity = integrity(text, document);
    let mut said = Vec::new();
    let calls_complete = if document.is_array(text) {
        read_items(text, document, &mut out, &mut said)
    } else if let Some(items) = document.get(text, "output") {
        if document.get_string(text, "status").as_deref() == Some("incomplete") {
            let reason = document
                .get(text, "incomplete_details")
                .and_then(|d| d.get_string(text, "reason"))
                .unwrap_or_else(|| "unknown".to_owned());
            warning(
                &mut out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "the response is incomplete (reason \"{reason}\"): its last item may be cut \
                     off"
                ),
                document.span,
            );
        }
        read_items(text, items, &mut out, &mut said)
    } else {
        read_function_call(text, document, "the function_call item", &mut out);
        document.complete
    };
    let what = if document.is_array(text) {
        "the output list"
    } else {
        "the response"
    };
    report_integrity(
        text,
        document,
        &integrity,
        calls_complete,
        what,
        &mut out,
        0,
    );
    out.content = found.content(text, vec![said.join("\n\n")]);
    out
}

/// Reads output items; true when the list is complete.
fn read_items(text: &Doc, items: Node, out: &mut ParseOutput, said: &mut Vec<String>) -> bool {
    for (index, item) in items.items(text).enumerate() {
        let label = format!("output item {}", index + 1);
        match item_type(text, item).as_deref() {
            Some("function_call") => {
                read_function_call(text, item, &format!("{label} (function_call)"), out);
            }
            Some("message") => {
                if let Some(content) = item.get(text, "content") {
                    let parts: Vec<String> = content
                        .items(text)
                        .filter_map(|part| {
                            part.get_string(text, "text")
                                .or_else(|| part.get_string(text, "refusal"))
                        })
                        .collect();
                    if !parts.is_empty() {
                        said.push(parts.concat());
                    }
                }
            }
            Some("custom_tool_call") => {
                let name = item.get_string(text, "name").unwrap_or_default();
                warning(
                    out,
                    DiagnosticCode::UnknownKey,
                    format!(
                        "{label} is a custom tool call ('{name}') with free-form input, not \
                         JSON arguments; it is skipped"
                    ),
                    item.span,
                );
            }
            // reasoning: never parsed; hosted tools (web_search_call, …) run on OpenAI's side.
            _ => {}
        }
    }
    items.complete
}

fn read_function_call(text: &Doc, node: Node, label: &str, out: &mut ParseOutput) {
    let Some(mut map) = call_object(text, node, label, out) else {
        return;
    };
    let keys = ["name", "arguments"];
    let Some((name, args)) =
        name_and_arguments(text, &mut map, Some(node), keys, label, node.span, out)
    else {
        return;
    };
    let id = call_id(&map, "call_id").or_else(|| call_id(&map, "id"));
    push_request(out, text, node.span, ID, Call { name, args, id }, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_calls_use_their_call_id() {
        let text = r#"{"object": "response", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "f", "arguments": "{\"a\":1}"},
            {"type": "message", "content": [{"type": "output_text", "text": "Done."}]}
        ]}"#;
        let out = parse(text);
        assert_eq!(out.diagnostics, vec![]);
        assert_eq!(out.requests[0].request_id, "call_9");
        assert_eq!(out.requests[0].args["a"], json!(1));
        assert_eq!(out.content, "Done.");
    }
}
