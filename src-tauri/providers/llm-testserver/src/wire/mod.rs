//! The four wire protocols a script is played on: how a scripted [`Reply`] becomes each
//! vendor's SSE events, and how a refusal becomes each vendor's error body.
//!
//! The renderers only build events (no I/O), so the server decides separately how to send
//! them (framing, pauses, faults), and tests can compare the frames with the vendors' own
//! documented examples.

mod anthropic;
mod chat;
mod gemini;
mod responses;

pub(crate) use gemini::{error_body as gemini_error_body, model_list as gemini_model_list};

use serde_json::{json, Value};

use crate::script::{Reply, Usage};

/// Which protocol a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST /v1/chat/completions`.
    Chat,
    /// `POST /v1/responses`.
    Responses,
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (and `:generateContent`,
    /// which is refused: this server only streams).
    Gemini,
}

impl Wire {
    /// The wire a route serves.
    pub fn for_path(path: &str) -> Option<Self> {
        match path {
            "/v1/chat/completions" => Some(Self::Chat),
            "/v1/responses" => Some(Self::Responses),
            "/v1/messages" => Some(Self::Anthropic),
            _ => gemini::route(path).map(|_| Self::Gemini),
        }
    }

    /// The model a Gemini route names (`/v1beta/models/{model}:…`).
    pub fn model_in_path(path: &str) -> Option<&str> {
        gemini::route(path).map(|(model, _)| model)
    }

    /// Whether a request on this wire asks for a stream: `"stream": true` in the body, or for
    /// Gemini the `streamGenerateContent` method with `alt=sse`.
    pub(crate) fn streamed(self, path: &str, alt: Option<&str>, body: &Value) -> bool {
        match self {
            Self::Gemini => {
                gemini::route(path).is_some_and(|(_, method)| method == "streamGenerateContent")
                    && alt == Some("sse")
            }
            _ => body["stream"] == Value::Bool(true),
        }
    }
}

/// One Server-Sent Event: an optional `event:` name and its `data:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

impl SseEvent {
    fn json(event: Option<&str>, data: &Value) -> Self {
        Self {
            event: event.map(str::to_owned),
            data: data.to_string(),
        }
    }

    /// The event's bytes on the wire, blank line included.
    pub fn encode(&self) -> String {
        match &self.event {
            Some(name) => format!("event: {name}\ndata: {}\n\n", self.data),
            None => format!("data: {}\n\n", self.data),
        }
    }
}

/// What a rendering needs besides the reply.
#[derive(Debug, Clone)]
pub struct Context {
    /// The request's `model`, echoed back.
    pub model: String,
    /// The turn's number, used in generated ids (`call_2_0`).
    pub turn: usize,
    /// An estimate of the prompt's tokens, used when the reply scripts no usage.
    pub input_estimate: u64,
    /// Chat: the request asked for `stream_options.include_usage`.
    pub include_usage: bool,
    /// Seconds since the epoch, for `created` fields.
    pub created: u64,
}

/// The events of `reply` on `wire`.
pub fn render(wire: Wire, reply: &Reply, context: &Context) -> Vec<SseEvent> {
    match wire {
        Wire::Chat => chat::render(reply, context),
        Wire::Responses => responses::render(reply, context),
        Wire::Anthropic => anthropic::render(reply, context),
        Wire::Gemini => gemini::render(reply, context),
    }
}

/// The scripted usage, or an estimate (about four characters a token).
fn usage(reply: &Reply, context: &Context) -> Usage {
    reply.usage.unwrap_or_else(|| {
        let output: usize = reply.reasoning.as_deref().map_or(0, str::len)
            + reply.text.as_deref().map_or(0, str::len)
            + reply
                .calls
                .iter()
                .map(|c| c.arguments_text().len() + c.name.len())
                .sum::<usize>();
        Usage {
            input_tokens: context.input_estimate,
            output_tokens: u64::try_from(output / 4).unwrap_or(u64::MAX).max(1),
        }
    })
}

/// The call's id, or a generated one with the wire's prefix.
fn call_id(reply: &Reply, index: usize, prefix: &str, context: &Context) -> String {
    reply.calls[index]
        .id
        .clone()
        .unwrap_or_else(|| format!("{prefix}_{}_{index}", context.turn))
}

/// A refusal's JSON body in the vendor's shape: OpenAI's `{"error": {message, type, param,
/// code}}` on both OpenAI wires, Anthropic's `{"type": "error", "error": {type, message}}`,
/// Google's `{"error": {code, message, status, details}}` on Gemini (`kind` is its `status`,
/// `code` an `ErrorInfo` reason).
pub fn error_body(
    wire: Wire,
    status: u16,
    message: &str,
    kind: Option<&str>,
    code: Option<&str>,
) -> String {
    match wire {
        Wire::Chat | Wire::Responses => {
            let kind = kind.unwrap_or(match status {
                429 => "requests",
                500..=599 => "server_error",
                _ => "invalid_request_error",
            });
            json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
        }
        Wire::Anthropic => {
            let kind = kind.unwrap_or(match status {
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                500..=599 => "api_error",
                _ => "invalid_request_error",
            });
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
        Wire::Gemini => return gemini::error_body(status, message, kind, code, None),
    }
    .to_string()
}

/// The standard reason phrase of a status (for the status line and default messages).
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Error",
    }
}
