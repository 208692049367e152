//! Native tool calls judged by the same parser as a pasted reply.
//!
//! A streamed reply's structured calls are assembled from fragments, so their arguments may be
//! invalid or cut-off JSON. Rather than a second set of rules beside the parsers, the assembled
//! reply is written as the Chat Completions document it amounts to and read by the
//! `openai_chat` protocol: the calls, their diagnostics and the Parser pane's view of a turn are
//! the same whatever vendor streamed it. The report then names the wire's own protocol.

use serde_json::{json, Value};

use super::reply::AssembledReply;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::request::{ParsedToolRequest, Severity};
use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult};
use toolscope_protocol::ProtocolSet;

/// The protocol that reads the rendered document.
const DOCUMENT_PROTOCOL: &str = "openai_chat";

/// Gives every call an id (Gemini sends none, some servers send empty ones), so its result can
/// answer it; ids are unique within the conversation.
pub fn name_unnamed_calls(reply: &mut AssembledReply, turn: u32) {
    for (index, call) in reply.calls.iter_mut().enumerate() {
        if call.id.trim().is_empty() {
            call.id = format!("call_{turn}_{index}");
        }
    }
}

/// The reply as a Chat Completions response document (what a non-streamed request would have
/// returned), which is also what a turn exports as a parser fixture.
pub fn document(reply: &AssembledReply) -> String {
    let calls: Vec<Value> = reply
        .calls
        .iter()
        .map(|call| {
            json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            })
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": reply.text});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    let document = json!({
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": reply.finish_reason,
        }],
    });
    serde_json::to_string_pretty(&document).unwrap_or_else(|_| document.to_string())
}

/// The reply's calls and diagnostics, reported under `native_protocol`.
pub fn report(
    protocols: &ProtocolSet,
    native_protocol: &str,
    reply: &AssembledReply,
) -> ParseReport {
    let text = document(reply);
    let mut report = match parser::parse(protocols, &text, Some(DOCUMENT_PROTOCOL)) {
        Ok(report) => report,
        // A protocol set without the document reader: every call fails visibly below.
        Err(_) => ParseReport {
            format: DOCUMENT_PROTOCOL.to_owned(),
            detected: false,
            requests: Vec::new(),
            diagnostics: Vec::new(),
            content: reply.text.clone(),
        },
    };
    report.format = native_protocol.to_owned();
    for request in &mut report.requests {
        request.format = native_protocol.to_owned();
    }
    if reply.finish_reason.as_deref().is_some_and(is_length_stop) {
        // The reply hit its token limit: the last call may be cut, whatever its JSON looks like.
        if let Some(last) = report.requests.last_mut() {
            last.incomplete = true;
        }
    }
    report
}

fn is_length_stop(reason: &str) -> bool {
    matches!(
        reason,
        "length" | "max_tokens" | "MAX_TOKENS" | "max_output_tokens"
    )
}

/// A reply read without knowing how its tools were offered (the model proxy watches an agent
/// it did not configure): its native calls when it has any, else the calls of whatever format
/// its text is in, found by detection as in the Parser pane.
pub fn observed_report(
    protocols: &ProtocolSet,
    native_protocol: &str,
    reply: &AssembledReply,
) -> ParseReport {
    if !reply.calls.is_empty() {
        return report(protocols, native_protocol, reply);
    }
    match parser::parse(protocols, &reply.text, None) {
        Ok(report) => report,
        // Detection names no format, so this arm is unreachable; the text stays visible anyway.
        Err(_) => ParseReport {
            format: native_protocol.to_owned(),
            detected: false,
            requests: Vec::new(),
            diagnostics: Vec::new(),
            content: reply.text.clone(),
        },
    }
}

/// Per native call, in order: its parsed request, or the failed result that tells the model why
/// the call could not be read (every native call must be answered).
pub fn requests_per_call(
    reply: &AssembledReply,
    report: &ParseReport,
) -> Vec<Result<ParsedToolRequest, Box<ToolExecutionResult>>> {
    let errors: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    reply
        .calls
        .iter()
        .map(|call| {
            if let Some(request) = report.requests.iter().find(|r| r.request_id == call.id) {
                return Ok(request.clone());
            }
            let reason = if errors.is_empty() {
                "the call could not be read".to_owned()
            } else {
                errors.join("; ")
            };
            let message = format!(
                "the arguments of '{}' could not be read: {reason}. They were: {}",
                call.name,
                excerpt(&call.arguments)
            );
            Err(Box::new(ToolExecutionResult {
                request_id: call.id.clone(),
                tool_name: call.name.clone(),
                status: ExecutionStatus::Error,
                result: message.clone(),
                duration_ms: 0.0,
                error: Some(ExecutionError::new(ErrorKind::InvalidArgs, message)),
                truncated: None,
            }))
        })
        .collect()
}

fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
