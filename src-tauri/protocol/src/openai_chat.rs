//! OpenAI Chat Completions (seed 002): `choices[].message.tool_calls`, arguments as a JSON string.
//!
//! The reply is a pasted API document: a whole response (`{"choices": [{"message": …}]}`), the
//! assistant message alone (`{"role": "assistant", "tool_calls": […]}`), a bare `tool_calls`
//! array, possibly after prose or in a ```json fence; a single tool call is read only as the whole
//! reply (smaller shapes are too easily JSON inside another format's markup). Each call is
//! `{"id", "type": "function", "function": {"name", "arguments": "<JSON string>"}}`; the legacy
//! `function_call: {"name", "arguments"}` of older models is read too (seed 002 §"上游返回不兼容格式").
//! An `arguments` string that is not valid JSON is reported at the byte inside the string, and
//! the other calls are kept. Only the first choice is read (as the seed does); reasoning fields
//! (`reasoning_content`, `reasoning`) are never parsed.
//!
//! Definitions are the request's `tools` array. Results are the `role: "tool"` messages to
//! append to `messages`, rendered as **one JSON array** (pretty-printed), so the whole output can
//! be pasted into a request or spliced into a message list as it is.

use serde_json::{json, Map, Value};

use crate::call_json::ARGUMENT_KEYS;
use crate::calls::{error, push_request, warning, Call};
use crate::json_document::calls::{
    call_id, call_object, integrity, name_and_arguments, report_integrity, text_of,
};
use crate::json_document::found::{find_documents, is_whole_reply};
use crate::json_document::{Doc, Node};
use crate::prompt::{function_definitions, pretty, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "openai_chat";

#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiChat;

impl Protocol for OpenAiChat {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "OpenAI Chat Completions (tool_calls)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        pretty(&Value::Array(function_definitions(tools)))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let messages: Vec<Value> = results
            .iter()
            .map(|result| {
                json!({
                    "role": "tool",
                    "tool_call_id": result.request_id,
                    "content": result_content(result),
                })
            })
            .collect();
        pretty(&Value::Array(messages))
    }

    fn signature(&self) -> super::detect::Signature {
        super::detect::Signature {
            markers: vec![
                "\"tool_calls\"",
                "\"function_call\"",
                "\"chat.completion",
                "\"function\":",
            ],
            prefixes: vec![],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

/// A result as the `content` string of a tool message: the output as is, or a structured error
/// (seed 002: "回填一个结构化错误（建议 JSON）").
fn result_content(result: &ToolExecutionResult) -> String {
    if result.error.is_some() {
        result_value(result).to_string()
    } else {
        result.result.clone()
    }
}

/// Wraps a bare function schema (`{"name", "description"?, "parameters"}`, as older tool
/// registrations store it) into the `{"type": "function", "function": {…}}` entry of a `tools`
/// array (seed 002 §"兼容性与迁移"); an entry already in that shape is returned unchanged.
pub fn wrap_tool_schema(schema: Value) -> Result<Value, String> {
    let Value::Object(object) = schema else {
        return Err("a tool schema must be a JSON object".to_owned());
    };
    if matches!(object.get("function"), Some(Value::Object(_))) {
        let mut object = object;
        object
            .entry("type")
            .or_insert_with(|| Value::from("function"));
        return Ok(Value::Object(object));
    }
    match object.get("name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        _ => return Err("a tool schema needs a \"function\" object or a \"name\"".to_owned()),
    }
    let mut function = Map::new();
    for key in ["name", "description", "parameters", "strict"] {
        if let Some(value) = object.get(key) {
            function.insert(key.to_owned(), value.clone());
        }
    }
    function
        .entry("parameters")
        .or_insert_with(|| json!({"type": "object", "properties": {}}));
    Ok(json!({"type": "function", "function": function}))
}

fn recognise(text: &Doc, node: Node) -> bool {
    if node.is_array(text) {
        return node
            .items(text)
            .next()
            .is_some_and(|first| first.is_object(text) && first.has(text, "function"));
    }
    let mut role = false;
    let mut text_content = false;
    for member in node.members(text) {
        match member.key.as_ref() {
            "choices" | "tool_calls" | "function_call" => return true,
            "function" if member.value.is_object(text) && is_whole_reply(text, node) => {
                return true
            }
            "role" => role = true,
            // A chat message's content is a string (or null); Anthropic's is a list of blocks.
            "content" => text_content = !member.value.is_array(text),
            _ => {}
        }
    }
    role && text_content
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
    let (calls_complete, what) = if document.is_array(text) {
        (
            read_tool_calls(text, document, &mut out),
            "the tool_calls list",
        )
    } else if let Some(choices) = document.get(text, "choices") {
        (
            read_choices(text, choices, &mut out, &mut said),
            "the response",
        )
    } else if document.has(text, "function") && !document.has(text, "tool_calls") {
        read_tool_call(text, document, "the tool call", &mut out);
        (document.complete, "the tool call")
    } else {
        (
            read_message(text, document, &mut out, &mut said),
            "the message",
        )
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
    out.content = found.content(text, vec![said.concat()]);
    out
}

/// Reads the first choice; true when its calls are complete.
/// A choice that stopped at the token limit: its last call was being written when the limit hit,
/// so its arguments may be cut off. It stays visible, marked incomplete; strict parsing drops it.
fn report_length(out: &mut ParseOutput, first: usize, choice: Span) {
    let (message, span) = match out.requests.iter_mut().skip(first).last() {
        Some(request) => {
            request.incomplete = true;
            (
                "the model stopped at its token limit (finish_reason \"length\") while writing \
                 the last call: its arguments may be cut off (strict parsing drops the call)",
                request.span,
            )
        }
        None => (
            "the model stopped at its token limit (finish_reason \"length\"): the reply is cut \
             short",
            choice,
        ),
    };
    warning(out, DiagnosticCode::UnclosedBlock, message.to_owned(), span);
}

fn read_choices(text: &Doc, choices: Node, out: &mut ParseOutput, said: &mut Vec<String>) -> bool {
    let mut items = choices.items(text);
    let Some(choice) = items.next() else {
        return choices.complete;
    };
    let others = items.count();
    if others > 0 {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!(
                "the response has {} choices; only the first is read",
                others + 1
            ),
            choices.span,
        );
    }
    let at_limit = choice.get_string(text, "finish_reason").as_deref() == Some("length");
    let first = out.requests.len();
    let complete = if let Some(message) = choice.get(text, "message") {
        read_message(text, message, out, said)
    } else if let Some(delta) = choice.get(text, "delta") {
        warning(
            out,
            DiagnosticCode::StrayText,
            "this is one chunk of a streamed response (choices[].delta): only this chunk is \
             read, so its arguments may be partial; paste the assembled message instead"
                .to_owned(),
            choice.span,
        );
        read_message(text, delta, out, said)
    } else {
        choice.complete
    };
    if at_limit {
        report_length(out, first, choice.span);
    }
    complete
}

/// Reads an assistant message; true when its calls are complete.
fn read_message(text: &Doc, message: Node, out: &mut ParseOutput, said: &mut Vec<String>) -> bool {
    let mut complete = message.complete;
    let mut has_calls = false;
    for member in message.members(text) {
        match member.key.as_ref() {
            "content" | "refusal" => {
                if let Some(content) = text_of(text, member.value) {
                    said.push(content);
                }
            }
            "tool_calls" => {
                has_calls = true;
                complete = read_tool_calls(text, member.value, out);
            }
            "function_call" if !member.value.is_object(text) => {}
            "function_call" => {
                has_calls = true;
                read_tool_call_legacy(text, member.value, out);
                complete = member.value.complete;
            }
            // role, name, reasoning_content / reasoning (never parsed), annotations, audio …
            _ => {}
        }
    }
    if has_calls {
        complete
    } else {
        message.complete
    }
}

/// Reads a `tool_calls` array; true when it is complete.
fn read_tool_calls(text: &Doc, list: Node, out: &mut ParseOutput) -> bool {
    if !list.is_array(text) {
        if list.slice(text) != "null" {
            error(
                out,
                DiagnosticCode::InvalidJson,
                "\"tool_calls\" must be a list of calls".to_owned(),
                list.span,
            );
        }
        return list.complete;
    }
    for (index, call) in list.items(text).enumerate() {
        read_tool_call(text, call, &format!("tool call {}", index + 1), out);
    }
    list.complete
}

fn read_tool_call(text: &Doc, node: Node, label: &str, out: &mut ParseOutput) {
    let Some(mut map) = call_object(text, node, label, out) else {
        return;
    };
    if let Some(kind) = map.get("type").and_then(Value::as_str) {
        if kind != "function" {
            error(
                out,
                DiagnosticCode::UnknownKey,
                format!("{label} has type \"{kind}\", not \"function\"; it is skipped"),
                node.span,
            );
            return;
        }
    }
    let Some(Value::Object(mut function)) = map.remove("function") else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "{label} has no \"function\" object (an OpenAI call is {{\"id\", \"type\": \
                 \"function\", \"function\": {{\"name\", \"arguments\"}}}}); it is skipped"
            ),
            node.span,
        );
        return;
    };
    if let Some(keys) = arguments_elsewhere(&map, &function) {
        error(
            out,
            DiagnosticCode::UnknownKey,
            format!(
                "{label} has no \"arguments\" in its \"function\": {keys} {} not read as \
                 its arguments; it is skipped",
                if keys.contains(", ") { "are" } else { "is" }
            ),
            node.span,
        );
        return;
    }
    let function_node = node.get(text, "function");
    let keys = ["name", "arguments"];
    let Some((name, args)) = name_and_arguments(
        text,
        &mut function,
        function_node,
        keys,
        label,
        node.span,
        out,
    ) else {
        return;
    };
    let id = call_id(&map, "id");
    push_request(out, text, node.span, ID, Call { name, args, id }, false);
}

/// The keys that hold what the model meant as arguments when the function has no
/// `"arguments"`: arguments beside the function object (`"parameters": {…}` next to
/// `"function": {"name"}`), or values beside the name inside it. `None` when the function has
/// its arguments or nothing was written elsewhere (a call with no arguments).
fn arguments_elsewhere(call: &Map<String, Value>, function: &Map<String, Value>) -> Option<String> {
    if function.contains_key("arguments") {
        return None;
    }
    let beside = call.keys().filter(|k| ARGUMENT_KEYS.contains(&k.as_str()));
    let inside = function.keys().filter(|k| k.as_str() != "name");
    let keys: Vec<String> = beside.chain(inside).map(|k| format!("\"{k}\"")).collect();
    (!keys.is_empty()).then(|| keys.join(", "))
}

/// The legacy `function_call: {"name", "arguments"}` (no id: one is generated).
fn read_tool_call_legacy(text: &Doc, node: Node, out: &mut ParseOutput) {
    let label = "the function_call";
    let Some(mut map) = call_object(text, node, label, out) else {
        return;
    };
    let keys = ["name", "arguments"];
    let Some((name, args)) =
        name_and_arguments(text, &mut map, Some(node), keys, label, node.span, out)
    else {
        return;
    };
    push_request(
        out,
        text,
        node.span,
        ID,
        Call {
            name,
            args,
            id: None,
        },
        false,
    );
}

#[cfg(test)]
mod tests;
