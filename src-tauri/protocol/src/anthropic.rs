//! Anthropic Messages API (seed 001): `tool_use` content blocks.
//!
//! The reply is a pasted response (`{"type": "message", "content": […], "stop_reason": …}`), an
//! assistant message (`{"role": "assistant", "content": […]}`) or a bare content array, possibly
//! after prose or in a ```json fence; a single `tool_use` block is read only as the whole reply
//! (smaller shapes are too easily JSON inside another format's markup). A call is
//! `{"type": "tool_use", "id", "name", "input": {…}}`; a block without `name` or `input` is
//! invalid (seed 001 §阶段 1). `text` blocks are the content; `thinking` and `redacted_thinking`
//! blocks are reasoning and never parsed; `server_tool_use` blocks run on Anthropic's side and
//! are noted, not called.
//!
//! Definitions are the request's `tools` array (`name`, `description`, `input_schema`). Results
//! are the user message carrying one `tool_result` block per call (`tool_use_id`, `content`,
//! `is_error`), as seed 001 §阶段 4 formats them.

use serde_json::{json, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::json_document::calls::{
    call_arguments, call_id, call_name, call_object, integrity, report_integrity,
};
use crate::json_document::found::{find_documents, is_whole_reply};
use crate::json_document::{Doc, Node};
use crate::prompt::{per_method, pretty};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "anthropic";

/// Content block types a bare content array may start with.
const BLOCK_TYPES: &[&str] = &[
    "text",
    "tool_use",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
];

#[derive(Debug, Clone, Copy, Default)]
pub struct Anthropic;

impl Protocol for Anthropic {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Anthropic Messages (tool_use blocks)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let definitions = per_method(tools, |name, method| {
            json!({
                "name": name,
                "description": method.description,
                "input_schema": method.parameters,
            })
        });
        pretty(&Value::Array(definitions))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let blocks: Vec<Value> = results
            .iter()
            .map(|result| {
                json!({
                    "type": "tool_result",
                    "tool_use_id": result.request_id,
                    "content": result.text_for_model(),
                    "is_error": !result.is_success(),
                })
            })
            .collect();
        pretty(&json!({"role": "user", "content": blocks}))
    }

    fn signature(&self) -> super::detect::Signature {
        super::detect::Signature {
            markers: vec!["\"tool_use\"", "\"stop_reason\""],
            prefixes: vec![],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

fn block_type(text: &Doc, node: Node) -> Option<String> {
    node.get_string(text, "type")
}

fn recognise(text: &Doc, node: Node) -> bool {
    if node.is_array(text) {
        return node.items(text).next().is_some_and(|first| {
            block_type(text, first).is_some_and(|t| BLOCK_TYPES.contains(&t.as_str()))
        });
    }
    let mut content_blocks = false;
    let mut message = false;
    for member in node.members(text) {
        match member.key.as_ref() {
            "content" => content_blocks = member.value.is_array(text),
            "role" | "stop_reason" => message = true,
            "type" => match member.value.string(text).as_deref() {
                Some("message") => message = true,
                Some("tool_use") => return is_whole_reply(text, node),
                _ => {}
            },
            _ => {}
        }
    }
    content_blocks && message
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
        read_blocks(text, document, &mut out, &mut said)
    } else if block_type(text, document).as_deref() == Some("tool_use") {
        read_tool_use(text, document, "the tool_use block", &mut out);
        document.complete
    } else {
        let content = document.get(text, "content");
        let complete = match content {
            Some(blocks) => read_blocks(text, blocks, &mut out, &mut said),
            None => document.complete,
        };
        if document.get_string(text, "stop_reason").as_deref() == Some("max_tokens") {
            report_max_tokens(text, content, document.span, &mut out);
        }
        complete
    };
    let what = if document.is_array(text) {
        "the content list"
    } else {
        "the message"
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

/// A message that stopped at `max_tokens`: when its last block is a `tool_use`, that call was
/// being written when the limit hit, so its input may be partial (Anthropic's guidance is to
/// retry with a higher `max_tokens`). It stays visible, marked incomplete; strict parsing drops it.
fn report_max_tokens(text: &Doc, content: Option<Node>, message: Span, out: &mut ParseOutput) {
    let last = content
        .filter(|blocks| blocks.is_array(text))
        .and_then(|blocks| blocks.items(text).last());
    let cut_call = last
        .filter(|block| block_type(text, *block).as_deref() == Some("tool_use"))
        .and_then(|block| {
            out.requests
                .iter_mut()
                .rev()
                .find(|request| request.span == block.span)
        });
    let message = match cut_call {
        Some(request) => {
            request.incomplete = true;
            let span = request.span;
            (
                "the model stopped at max_tokens (stop_reason \"max_tokens\") while writing this \
                 tool_use: its input may be incomplete; Anthropic advises retrying with a higher \
                 max_tokens (strict parsing drops the call)"
                    .to_owned(),
                span,
            )
        }
        None => (
            "the model stopped at max_tokens (stop_reason \"max_tokens\"): its reply is cut \
             short, though no tool_use was being written"
                .to_owned(),
            message,
        ),
    };
    warning(out, DiagnosticCode::UnclosedBlock, message.0, message.1);
}

/// Reads content blocks; true when the list is complete.
fn read_blocks(text: &Doc, blocks: Node, out: &mut ParseOutput, said: &mut Vec<String>) -> bool {
    if !blocks.is_array(text) {
        // `content` as a plain string (allowed in requests): text only.
        if let Some(content) = blocks.string(text) {
            said.push(content);
        }
        return blocks.complete;
    }
    for (index, block) in blocks.items(text).enumerate() {
        let label = format!("content block {}", index + 1);
        match block_type(text, block).as_deref() {
            Some("text") => {
                if let Some(content) = block.get_string(text, "text") {
                    said.push(content);
                }
            }
            Some("tool_use") => read_tool_use(text, block, &format!("{label} (tool_use)"), out),
            Some("server_tool_use") => {
                let name = block.get_string(text, "name").unwrap_or_default();
                warning(
                    out,
                    DiagnosticCode::UnknownKey,
                    format!(
                        "{label} is a server tool use ('{name}'): Anthropic runs it, so it is \
                         not a call for this workbench"
                    ),
                    block.span,
                );
            }
            // thinking / redacted_thinking: reasoning, never parsed; other server-side blocks.
            _ => {}
        }
    }
    blocks.complete
}

fn read_tool_use(text: &Doc, node: Node, label: &str, out: &mut ParseOutput) {
    let Some(mut map) = call_object(text, node, label, out) else {
        return;
    };
    let Some(name) = call_name(&map, "name", label, node.span, out) else {
        return;
    };
    let input = match map.remove("input") {
        None | Some(Value::Null) => {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!("{label} has no \"input\" object; it is skipped"),
                node.span,
            );
            return;
        }
        some => some,
    };
    let Some(args) = call_arguments(
        text,
        input,
        node.get(text, "input"),
        "input",
        label,
        node.span,
        out,
    ) else {
        return;
    };
    let id = call_id(&map, "id");
    push_request(out, text, node.span, ID, Call { name, args, id }, false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_use_blocks_with_text_and_thinking() {
        let text = r#"{"type": "message", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "{\"type\": \"tool_use\"}", "signature": "x"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}
        ], "stop_reason": "tool_use"}"#;
        let out = parse(text);
        assert_eq!(out.diagnostics, vec![]);
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].request_id, "toolu_1");
        assert_eq!(out.content, "Reading.");
    }

    #[test]
    fn results_are_one_user_message() {
        let results = vec![crate::result::ToolExecutionResult {
            request_id: "toolu_1".into(),
            tool_name: "f".into(),
            status: crate::result::ExecutionStatus::Error,
            result: "Error: nope".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        }];
        let value: Value =
            serde_json::from_str(&Anthropic.format_tool_results(&results)).expect("json");
        assert_eq!(
            value,
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Error: nope", "is_error": true}]})
        );
    }
}
