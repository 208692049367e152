//! Google Gemini `generateContent`: `functionCall` parts.
//!
//! The reply is a pasted response (`{"candidates": [{"content": {"parts": […]}}]}`), the JSON
//! array `streamGenerateContent` returns (one response per chunk, read in order), a `Content`
//! (`{"role": "model", "parts": […]}`) or a bare parts array, possibly after prose or in a ```json
//! fence; a single part is read only as the whole reply. A call is a part `{"functionCall": {"name", "args": {…}, "id"?}}`
//! (its span is the whole part, `thoughtSignature` included); parts with `"thought": true` are
//! reasoning and never parsed; other text parts are the content. Only the first candidate is
//! read. A `MALFORMED_FUNCTION_CALL` finish reason (the model wrote a call the API could not
//! parse) is an error, with Gemini's `finishMessage`.
//!
//! Definitions are the request's `tools` value, `[{"functionDeclarations": […]}]`, with each
//! schema under `parametersJsonSchema` (full JSON Schema; the older `parameters` field takes only
//! an OpenAPI subset and rejects keywords such as `additionalProperties`). Results are the user
//! `Content` holding one `functionResponse` part per call, `response: {"output": …}` or
//! `{"error": …}` as the API documents; a call id is echoed only when the model gave one.

use serde_json::{json, Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::json_document::calls::{call_id, call_name, call_object, integrity, report_integrity};
use crate::json_document::found::{find_documents, is_whole_reply};
use crate::json_document::offsets::is_generated_id;
use crate::json_document::{Doc, Node};
use crate::prompt::{per_method, pretty, result_value};
use crate::request::{json_kind, DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "gemini";

#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl Protocol for Gemini {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Google Gemini (functionCall parts)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let declarations = per_method(tools, |name, method| {
            json!({
                "name": name,
                "description": method.description,
                "parametersJsonSchema": method.parameters,
            })
        });
        pretty(&json!([{ "functionDeclarations": declarations }]))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let parts: Vec<Value> = results
            .iter()
            .map(|result| {
                let response = match result_value(result) {
                    Value::Object(mut error) if result.error.is_some() => error
                        .remove("error")
                        .map_or_else(|| json!({"error": result.result}), |e| json!({"error": e})),
                    _ if !result.is_success() => json!({"error": {"message": result.result}}),
                    output => json!({ "output": output }),
                };
                let mut call = Map::new();
                if !is_generated_id(&result.request_id) {
                    call.insert("id".into(), Value::from(result.request_id.clone()));
                }
                call.insert("name".into(), Value::from(result.tool_name.clone()));
                call.insert("response".into(), response);
                json!({ "functionResponse": call })
            })
            .collect();
        pretty(&json!({"role": "user", "parts": parts}))
    }

    fn signature(&self) -> super::detect::Signature {
        super::detect::Signature {
            markers: vec!["\"functionCall\"", "\"candidates\""],
            prefixes: vec![],
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

fn recognise(text: &Doc, node: Node) -> bool {
    if node.is_array(text) {
        return node.items(text).next().is_some_and(|first| {
            first.members(text).any(|m| {
                matches!(
                    m.key.as_ref(),
                    "candidates" | "functionCall" | "text" | "thought"
                )
            })
        });
    }
    node.members(text).any(|m| match m.key.as_ref() {
        "candidates" => true,
        "functionCall" => is_whole_reply(text, node),
        "parts" => m.value.is_array(text),
        _ => false,
    })
}

/// What the parts of a reply said, and whether all of them arrived.
struct Reader<'o> {
    out: &'o mut ParseOutput,
    said: String,
    calls: usize,
}

fn parse(text: &str) -> ParseOutput {
    let mut out = ParseOutput::default();
    let found = find_documents(text, 1, recognise);
    let Some((text, document)) = found.first() else {
        out.content = found.content(text, Vec::new());
        return out;
    };
    let integrity = integrity(text, document);
    let mut reader = Reader {
        out: &mut out,
        said: String::new(),
        calls: 0,
    };
    let streamed = document.is_array(text)
        && document
            .items(text)
            .next()
            .is_some_and(|first| first.has(text, "candidates"));
    let calls_complete = if streamed {
        for chunk in document.items(text) {
            reader.response(text, chunk, false);
        }
        document.complete
    } else if document.is_array(text) {
        reader.parts(text, document)
    } else if document.has(text, "candidates") {
        reader.response(text, document, true)
    } else if let Some(parts) = document.get(text, "parts") {
        reader.parts(text, parts)
    } else {
        reader.part(text, document);
        document.complete
    };
    let said = std::mem::take(&mut reader.said);
    let what = if streamed {
        "the streamed response"
    } else if document.has(text, "candidates") {
        "the response"
    } else {
        "the content"
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
    out.content = found.content(text, vec![said]);
    out
}

impl Reader<'_> {
    /// Reads one response (or one streamed chunk); true when its parts are complete.
    fn response(&mut self, text: &Doc, response: Node, whole: bool) -> bool {
        let Some(candidates) = response.get(text, "candidates") else {
            return response.complete;
        };
        let mut items = candidates.items(text);
        let Some(candidate) = items.next() else {
            return candidates.complete;
        };
        if whole {
            let others = items.count();
            if others > 0 {
                warning(
                    self.out,
                    DiagnosticCode::StrayText,
                    format!(
                        "the response has {} candidates; only the first is read",
                        others + 1
                    ),
                    candidates.span,
                );
            }
        }
        match candidate.get_string(text, "finishReason").as_deref() {
            Some("MAX_TOKENS") => warning(
                self.out,
                DiagnosticCode::UnclosedBlock,
                "the model stopped at its token limit (finishReason MAX_TOKENS): the last part \
                 may be incomplete"
                    .to_owned(),
                candidate.span,
            ),
            Some(reason @ ("MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL")) => {
                let detail = candidate
                    .get_string(text, "finishMessage")
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                error(
                    self.out,
                    DiagnosticCode::InvalidJson,
                    format!("Gemini rejected the model's function call ({reason}){detail}"),
                    candidate.span,
                );
            }
            _ => {}
        }
        match candidate.get(text, "content") {
            Some(content) => match content.get(text, "parts") {
                Some(parts) => self.parts(text, parts),
                None => content.complete,
            },
            None => candidate.complete,
        }
    }

    /// Reads a parts array; true when it is complete.
    fn parts(&mut self, text: &Doc, parts: Node) -> bool {
        for part in parts.items(text) {
            self.part(text, part);
        }
        parts.complete
    }

    fn part(&mut self, text: &Doc, part: Node) {
        let mut thought = false;
        let mut call = false;
        let mut said = None;
        for member in part.members(text) {
            match member.key.as_ref() {
                "functionCall" => call = true,
                "thought" => thought = member.value.slice(text) == "true",
                "text" => said = member.value.string(text),
                _ => {}
            }
        }
        if call {
            self.calls += 1;
            let label = format!("functionCall part {}", self.calls);
            self.function_call(text, part, &label);
        } else if !thought {
            if let Some(said) = said {
                self.said.push_str(&said);
            }
        }
    }

    fn function_call(&mut self, text: &Doc, part: Node, label: &str) {
        let Some(mut map) = call_object(text, part, label, self.out) else {
            return;
        };
        let Some(Value::Object(mut call)) = map.remove("functionCall") else {
            error(
                self.out,
                DiagnosticCode::InvalidJson,
                format!("{label}: \"functionCall\" must be an object; it is skipped"),
                part.span,
            );
            return;
        };
        let Some(name) = call_name(&call, "name", label, part.span, self.out) else {
            return;
        };
        let args = match call.remove("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(other) => {
                error(
                    self.out,
                    DiagnosticCode::InvalidJson,
                    format!(
                        "{label}: \"args\" must be an object, found {}; it is skipped",
                        json_kind(&other)
                    ),
                    part.span,
                );
                return;
            }
        };
        let id = call_id(&call, "id");
        push_request(
            self.out,
            text,
            part.span,
            ID,
            Call { name, args, id },
            false,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_calls_thoughts_and_text() {
        let text = r#"{"candidates": [{"content": {"role": "model", "parts": [
            {"text": "{\"functionCall\": 1}", "thought": true},
            {"text": "Checking."},
            {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "abc"}
        ]}, "finishReason": "STOP"}]}"#;
        let out = parse(text);
        assert_eq!(out.diagnostics, vec![]);
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].args["a"], json!(1));
        assert_eq!(out.content, "Checking.");
    }

    #[test]
    fn results_echo_only_real_ids() {
        let result = |id: &str| ToolExecutionResult {
            request_id: id.into(),
            tool_name: "f".into(),
            status: crate::result::ExecutionStatus::Success,
            result: "{\"t\": 3}".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        let generated = crate::request::new_request_id();
        let value: Value =
            serde_json::from_str(&Gemini.format_tool_results(&[result("abc"), result(&generated)]))
                .expect("json");
        assert_eq!(
            value,
            json!({"role": "user", "parts": [
                {"functionResponse": {"id": "abc", "name": "f", "response": {"output": {"t": 3}}}},
                {"functionResponse": {"name": "f", "response": {"output": {"t": 3}}}}
            ]})
        );
    }
}
