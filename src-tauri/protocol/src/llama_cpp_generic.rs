//! llama.cpp's generic tool format, for models whose template has no tool syntax of its own:
//! the reply is one JSON object, `{"tool_call": {"name", "arguments"}}`, `{"tool_calls":
//! [{"name", "arguments", "id"}, …]}` (parallel calls) or `{"response": "…"}`.
//!
//! Follows llama.cpp's `COMMON_CHAT_FORMAT_GENERIC` (`common/chat.cpp`: the grammar's schema is
//! `tool_call` (one call) or `tool_calls` (with ids, when parallel calls are on) or `response`;
//! `common/chat-parser.cpp` reads the object; cases in `tests/test-chat.cpp`, the generic
//! parser tests). The tools reach the model through minja's polyfill: a system message listing
//! them as pretty JSON with an example call, plus llama.cpp's "Respond in JSON format, either
//! with `tool_call` … or with `response` …". Tool results come back as user messages holding
//! `{"tool_response": {"tool", "content", "tool_call_id"}}` (minja's polyfill).
//!
//! `{"tool_calls": […]}` is also the `json_strict` format (seed 003), which reads the same calls
//! (name, arguments, id): auto-detect leaves that shape to `json_strict` (this format's
//! signature is only `"tool_call"` and a leading `{"response"`), while naming this format reads
//! all three shapes. What this module adds is the single `tool_call` and the `response` shapes.
//!
//! Deliberate differences:
//! - The object may follow prose or sit in a ```json fence, and a reply may hold several;
//!   llama.cpp's grammar makes the whole reply one object. A `response` object is only read as
//!   the answer when it is the whole reply.
//! - A call with a bad name or arguments is reported and its neighbours kept; llama.cpp rejects
//!   the message. A reply cut off inside the object keeps the calls that were complete
//!   (llama.cpp, streaming, shows the cut-off call with partial arguments).

use serde_json::{json, Value};

use crate::calls::{push_request, Call};
use crate::json_document::calls::{
    call_arguments, call_id, call_name, call_object, integrity, report_integrity, text_of,
};
use crate::json_document::found::{find_documents, is_whole_reply};
use crate::json_document::{Doc, Node};
use crate::prompt::{function_definitions, pretty, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "llama_cpp_generic";

#[derive(Debug, Clone, Copy, Default)]
pub struct LlamaCppGeneric;

impl Protocol for LlamaCppGeneric {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "llama.cpp generic {\"tool_call\": …} / {\"response\": …}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let example = json!({
            "tool_calls": [{
                "name": "tool_name",
                "arguments": {"arg1": "some_value"},
                "id": "call_1___"
            }]
        });
        format!(
            "Respond in JSON format, either with `tool_call` (a request to call tools) or with \
             `response` reply to the user's request\n\n\
             You can call any of the following tools to satisfy the user's requests: {}\n\n\
             Example tool call syntax:\n\n{}\n\n",
            pretty(&Value::Array(function_definitions(tools))),
            pretty(&example)
        )
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // One user message per result, as minja's polyfill writes tool messages.
        results
            .iter()
            .map(|r| {
                let response = json!({
                    "tool_response": {
                        "tool": r.tool_name,
                        "content": result_value(r),
                        "tool_call_id": r.request_id,
                    }
                });
                format!("{}\n", pretty(&response))
            })
            .collect()
    }

    fn signature(&self) -> crate::detect::Signature {
        crate::detect::Signature {
            // Not "tool_calls": that reply is json_strict's too, which reads the same calls;
            // being a candidate for it would only add an "also parses as" warning.
            // "response" too: a whole-reply answer object must outrank a bare `{` (llama3_json
            // reads objects in prose); the decoder only takes it when it is the whole reply.
            markers: vec!["\"tool_call\"", "\"response\""],
            // A whole-reply answer object, as llama.cpp's grammar writes it.
            prefixes: vec!["{\"response\"", "{ \"response\"", "{\n  \"response\""],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

fn recognise(text: &Doc, node: Node) -> bool {
    node.is_object(text)
        && (node.has(text, "tool_call")
            || node.has(text, "tool_calls")
            || (node.has(text, "response") && is_whole_reply(text, node)))
}

fn parse(text: &str) -> ParseOutput {
    let mut out = ParseOutput::default();
    let found = find_documents(text, usize::MAX, recognise);
    let mut said = Vec::new();
    for (doc, &document) in found.docs.iter().zip(&found.documents) {
        let before = out.diagnostics.len();
        let integrity = integrity(doc, document);
        let mut answer = String::new();
        let calls_complete = if let Some(list) = document.get(doc, "tool_calls") {
            read_list(doc, list, &mut out)
        } else if let Some(call) = document.get(doc, "tool_call") {
            read_call(doc, call, "the \"tool_call\" object", &mut out);
            call.complete
        } else {
            if let Some(response) = document.get(doc, "response") {
                answer =
                    text_of(doc, response).unwrap_or_else(|| response.slice(doc).trim().to_owned());
            }
            document.complete
        };
        said.push(answer);
        report_integrity(
            doc,
            document,
            &integrity,
            calls_complete,
            "the reply's JSON object",
            &mut out,
            before,
        );
    }
    out.content = found.content(text, said);
    out
}

/// Reads the `tool_calls` list; true when it is complete.
fn read_list(text: &Doc, list: Node, out: &mut ParseOutput) -> bool {
    if !list.is_array(text) {
        crate::calls::error(
            out,
            crate::request::DiagnosticCode::InvalidJson,
            "\"tool_calls\" must be a list of calls".to_owned(),
            list.span,
        );
        return list.complete;
    }
    for (index, node) in list.items(text).enumerate() {
        read_call(text, node, &format!("call {}", index + 1), out);
    }
    list.complete
}

fn read_call(text: &Doc, node: Node, label: &str, out: &mut ParseOutput) {
    let Some(mut map) = call_object(text, node, label, out) else {
        return;
    };
    let Some(name) = call_name(&map, "name", label, node.span, out) else {
        return;
    };
    let Some(args) = call_arguments(
        text,
        map.remove("arguments"),
        node.get(text, "arguments"),
        "arguments",
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
    fn a_whole_reply_response_is_the_answer() {
        let out = parse("{\n  \"response\": \"Hello, world!\\nWhat's up?\"\n}");
        assert!(out.requests.is_empty());
        assert_eq!(out.diagnostics, vec![]);
        assert_eq!(out.content, "Hello, world!\nWhat's up?");
    }

    #[test]
    fn one_call_and_a_list_of_calls() {
        let one = parse(r#"{"tool_call": {"name": "f", "arguments": {"a": 1}}}"#);
        assert_eq!(one.requests[0].tool_name, "f");
        let list = parse(r#"{"tool_calls": [{"name": "f", "arguments": {}, "id": "call_1"}]}"#);
        assert_eq!(list.requests[0].request_id, "call_1");
    }
}
