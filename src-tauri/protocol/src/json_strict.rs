//! JSON_Strict (seed 003 §2.1, the default paradigm for GPT-4o / Llama 3): a
//! `{"tool_calls": [{"id"?, "name", "arguments": {…}}, …]}` object in the reply.
//!
//! The object may be the whole reply, sit in a ```json fence, or follow prose; a reply may hold
//! several. Calls are the seed's flat shape: an OpenAI-style call (`{"function": {…}}`) is
//! reported, pointing at the `openai_chat` format, rather than read (which is also what tells
//! the two formats apart in auto-detect). `arguments` may also be a JSON string holding the
//! object; a call that names them `parameters` is read with a warning; other keys are ignored
//! with a warning. Per seed 003 §4.2 the reply is parsed once it is complete (a stream is
//! buffered); a reply cut off inside the object keeps the calls that were complete.
//!
//! Definitions are a system-prompt section with the tools as JSON function definitions and the
//! reply shape. Results are the seed's "pseudo user message", one
//! `{"tool_call_result": {"toolCallId", "result"}}` object per line (failures add `"isError":
//! true` and `"errorKind"`).

use serde_json::{json, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::json_document::calls::{
    call_arguments, call_id, call_name, call_object, integrity, report_integrity,
};
use crate::json_document::found::find_documents;
use crate::json_document::{Doc, Node};
use crate::prompt::{function_definitions, pretty};
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::{example_args, Protocol, ToolDefinitionInput};

const ID: &str = "json_strict";

/// Keys a JSON_Strict call may have.
const CALL_KEYS: &[&str] = &["id", "name", "arguments", "type"];

#[derive(Debug, Clone, Copy, Default)]
pub struct JsonStrict;

impl Protocol for JsonStrict {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "JSON_Strict ({\"tool_calls\": [...]})"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou can call the following tools, given as JSON function definitions:\n\n",
        );
        out.push_str(&pretty(&Value::Array(function_definitions(tools))));
        let example = example_call(tools, Some("call_1"));
        out.push_str(&format!(
            "\n\nTo call tools, reply with one JSON object (alone, or in a ```json code block) of \
             this shape, listing one or more calls:\n\n```json\n{}\n```\n\n\
             \"arguments\" is a JSON object matching the tool's parameters. Give each call a \
             unique \"id\". The results come back in a user message, one line per call:\n\
             {{\"tool_call_result\": {{\"toolCallId\": \"call_1\", \"result\": \"...\"}}}}\n\
             When you have the results, continue your answer.\n",
            pretty(&json!({ "tool_calls": [example] }))
        ));
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        tool_call_results(results)
    }

    fn signature(&self) -> super::detect::Signature {
        super::detect::Signature {
            markers: vec!["\"tool_calls\""],
            prefixes: vec![],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

/// An example call with the first tool's example arguments, for the prompt (with an `id` when
/// `id` is given).
pub(crate) fn example_call(tools: &[ToolDefinitionInput], id: Option<&str>) -> Value {
    let first = tools
        .iter()
        .find_map(|tool| tool.methods.first().map(|method| (tool, method)));
    let (name, arguments) = match first {
        Some((tool, method)) => (
            tool.routing_name(method),
            Value::Object(example_args(&method.parameters)),
        ),
        None => ("<tool name>".to_owned(), json!({})),
    };
    let mut call = serde_json::Map::new();
    if let Some(id) = id {
        call.insert("id".into(), Value::from(id));
    }
    call.insert("name".into(), Value::from(name));
    call.insert("arguments".into(), arguments);
    Value::Object(call)
}

/// Seed 003 §3.3: each result as `{"tool_call_result": {"toolCallId", "result"}}`, one per line.
pub(crate) fn tool_call_results(results: &[ToolExecutionResult]) -> String {
    let mut out = String::new();
    for result in results {
        let mut body = serde_json::Map::new();
        body.insert("toolCallId".into(), Value::from(result.request_id.clone()));
        body.insert("result".into(), Value::from(result.result.clone()));
        if !result.is_success() {
            body.insert("isError".into(), Value::Bool(true));
            if let Some(kind) = result.error_kind() {
                body.insert("errorKind".into(), Value::from(kind.as_str()));
            }
            if let Some(suggestion) = result.suggestion() {
                body.insert("suggestion".into(), Value::from(suggestion));
            }
        }
        out.push_str(&json!({ "tool_call_result": body }).to_string());
        out.push('\n');
    }
    out
}

fn recognise(text: &Doc, node: Node) -> bool {
    node.is_object(text) && node.has(text, "tool_calls")
}

fn parse(text: &str) -> ParseOutput {
    let mut out = ParseOutput::default();
    let found = find_documents(text, usize::MAX, recognise);
    for (text, &document) in found.docs.iter().zip(&found.documents) {
        let before = out.diagnostics.len();
        let integrity = integrity(text, document);
        let calls_complete = match document.get(text, "tool_calls") {
            Some(list) => read_calls(text, list, &mut out),
            None => document.complete,
        };
        report_integrity(
            text,
            document,
            &integrity,
            calls_complete,
            "the {\"tool_calls\": …} object",
            &mut out,
            before,
        );
    }
    out.content = found.content(text, Vec::new());
    out
}

/// Reads the `tool_calls` list; true when it is complete.
fn read_calls(text: &Doc, list: Node, out: &mut ParseOutput) -> bool {
    if !list.is_array(text) {
        error(
            out,
            DiagnosticCode::InvalidJson,
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
    if map.contains_key("function") && !map.contains_key("name") {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "{label} is an OpenAI-style call ({{\"function\": {{\"name\", \"arguments\"}}}}); \
                 JSON_Strict calls are {{\"id\", \"name\", \"arguments\"}}. Parse the reply as \
                 openai_chat to read it; it is skipped"
            ),
            node.span,
        );
        return;
    }
    let Some(name) = call_name(&map, "name", label, node.span, out) else {
        return;
    };
    let mut key = "arguments";
    if !map.contains_key("arguments") && map.contains_key("parameters") {
        key = "parameters";
        warning(
            out,
            DiagnosticCode::UnknownKey,
            format!(
                "{label} names its arguments \"parameters\"; JSON_Strict calls them \"arguments\""
            ),
            node.span,
        );
    }
    for unknown in map
        .keys()
        .filter(|k| !CALL_KEYS.contains(&k.as_str()) && k.as_str() != key)
    {
        warning(
            out,
            DiagnosticCode::UnknownKey,
            format!("{label} has an unknown key \"{unknown}\"; it is ignored"),
            node.span,
        );
    }
    let Some(args) = call_arguments(
        text,
        map.remove(key),
        node.get(text, key),
        key,
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
    fn objects_in_prose_and_fences() {
        let text = "First: {\"tool_calls\": [{\"id\": \"a\", \"name\": \"f\", \"arguments\": {}}]}\n\
                    ```json\n{\"tool_calls\": [{\"name\": \"g\", \"arguments\": {\"x\": [1]}}]}\n```\nDone.";
        let out = parse(text);
        assert_eq!(out.diagnostics, vec![]);
        let names: Vec<&str> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
        assert_eq!(names, vec!["f", "g"]);
        assert_eq!(out.requests[0].request_id, "a");
        assert_eq!(out.content, "First:\n\nDone.");
    }

    #[test]
    fn openai_shaped_calls_are_pointed_elsewhere() {
        let text = r#"{"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}"#;
        let out = parse(text);
        assert!(out.requests.is_empty());
        assert!(out.diagnostics[0].message.contains("openai_chat"));
    }
}
