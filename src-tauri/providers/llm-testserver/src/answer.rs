//! Deciding how a request is answered: which turn it uses up, and whether it is refused
//! (wrong key, not streamed, script exhausted, `expect` not met), answered with a scripted
//! error, or answered with a reply rendered on its wire.
//!
//! Deciding is synchronous and separate from sending, so the request is recorded (with the
//! turn that answers it) before a single byte of the answer is written: a test that waits on a
//! stalled stream still sees the request.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::http::RawRequest;
use crate::script::{Fault, Framing, Script};
use crate::server::ReceivedRequest;
use crate::wire::{
    error_body, gemini_error_body, gemini_model_list, reason_phrase, render, Context, SseEvent,
    Wire,
};

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) script: Script,
    pub(crate) log: bool,
    pub(crate) cursor: Mutex<usize>,
    pub(crate) requests: Mutex<Vec<ReceivedRequest>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn json_type() -> Vec<(&'static str, String)> {
    vec![("content-type", "application/json".to_owned())]
}

/// An answer, decided before anything is written.
pub(crate) enum Answer {
    Json {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    Stream {
        events: Vec<SseEvent>,
        fault: Option<Fault>,
        framing: Framing,
    },
}

impl Answer {
    fn json(status: u16, body: String) -> Self {
        Self::Json {
            status,
            headers: json_type(),
            body,
        }
    }
}

impl State {
    pub(crate) fn say(&self, message: &str) {
        if self.log {
            eprintln!("{message}");
        }
    }

    /// Picks the answer to `request`, recording the request with the turn that answers it.
    pub(crate) fn decide(&self, request: &RawRequest) -> Answer {
        let raw_body = String::from_utf8_lossy(&request.body).into_owned();
        let body: Value = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
        let wire = Wire::for_path(&request.path);
        let mut turn = None;
        let (answer, summary) = match (request.method.as_str(), wire) {
            ("GET", _) if request.path == "/v1/models" => self.models(request),
            ("GET", _) if request.path == "/v1beta/models" => self.gemini_models(request),
            ("POST", Some(wire)) => self.model_request(wire, request, &raw_body, &body, &mut turn),
            (_, Some(wire)) => refuse(wire, 405, "model routes take POST"),
            _ => {
                let wire = if request.path.starts_with("/v1beta/") {
                    Wire::Gemini
                } else {
                    Wire::Chat
                };
                let message = format!("no route for {} {}", request.method, request.path);
                refuse(wire, 404, &message)
            }
        };
        self.say(&format!("{} {} -> {summary}", request.method, request.path));
        lock(&self.requests).push(ReceivedRequest {
            method: request.method.clone(),
            path: request.path.clone(),
            query: request.query.clone(),
            headers: request.headers.clone(),
            body,
            raw_body,
            received_at: SystemTime::now(),
            turn,
        });
        answer
    }

    fn authorized(&self, wire: Wire, request: &RawRequest) -> bool {
        let Some(key) = &self.script.api_key else {
            return true;
        };
        match wire {
            Wire::Chat | Wire::Responses => {
                request.header("authorization") == Some(format!("Bearer {key}").as_str())
            }
            Wire::Anthropic => request.header("x-api-key") == Some(key.as_str()),
            // Gemini also takes the key as the `key` query parameter.
            Wire::Gemini => gemini_key(request) == Some(key.as_str()),
        }
    }

    fn gemini_models(&self, request: &RawRequest) -> (Answer, String) {
        if !self.authorized(Wire::Gemini, request) {
            return unauthorized(Wire::Gemini, request);
        }
        let models = &self.script.models;
        let body = gemini_model_list(models);
        let summary = format!("200, {} model(s)", models.len());
        (Answer::json(200, body.to_string()), summary)
    }

    fn models(&self, request: &RawRequest) -> (Answer, String) {
        let anthropic =
            request.header("x-api-key").is_some() || request.header("anthropic-version").is_some();
        let wire = if anthropic {
            Wire::Anthropic
        } else {
            Wire::Chat
        };
        if !self.authorized(wire, request) {
            return unauthorized(wire, request);
        }
        let models = &self.script.models;
        let body = if anthropic {
            json!({
                "data": models.iter().map(|id| json!({
                    "type": "model", "id": id, "display_name": id,
                    "created_at": "2025-01-01T00:00:00Z",
                })).collect::<Vec<_>>(),
                "has_more": false,
                "first_id": models.first(),
                "last_id": models.last(),
            })
        } else {
            json!({
                "object": "list",
                "data": models.iter().map(|id| json!({
                    "id": id, "object": "model", "created": 0, "owned_by": "toolscope",
                })).collect::<Vec<_>>(),
            })
        };
        let summary = format!("200, {} model(s)", models.len());
        (Answer::json(200, body.to_string()), summary)
    }

    fn model_request(
        &self,
        wire: Wire,
        request: &RawRequest,
        raw_body: &str,
        body: &Value,
        turn: &mut Option<usize>,
    ) -> (Answer, String) {
        if !self.authorized(wire, request) {
            return unauthorized(wire, request);
        }
        if !body.is_object() {
            return refuse(wire, 400, "the request body is not a JSON object");
        }
        if !wire.streamed(&request.path, request.query_param("alt"), body) {
            let how = match wire {
                Wire::Gemini => "call :streamGenerateContent?alt=sse",
                _ => "set \"stream\": true",
            };
            let message = format!("this test server answers streamed requests only: {how}");
            return refuse(wire, 400, &message);
        }
        let index = {
            let mut cursor = lock(&self.cursor);
            let index = *cursor;
            let Some(next) = self.script.turns.get(index) else {
                let message = format!("script exhausted after {} turns", self.script.turns.len());
                return refuse(wire, 400, &message);
            };
            if !next.repeat {
                *cursor += 1;
            }
            index
        };
        *turn = Some(index);
        let scripted = &self.script.turns[index];
        if let Some(missing) = scripted
            .expect
            .as_ref()
            .and_then(|expect| expect.missing(raw_body, body))
        {
            let message = format!("script turn {index} expected the request to have {missing}");
            return refuse(wire, 400, &message);
        }
        if let Some(error) = &scripted.error {
            let message = error.message.clone().unwrap_or_else(|| {
                format!(
                    "scripted error {} {}",
                    error.status,
                    reason_phrase(error.status)
                )
            });
            let (kind, code) = (error.kind.as_deref(), error.code.as_deref());
            let body = error.body.clone().unwrap_or_else(|| match wire {
                // Gemini says how long to wait in the body too.
                Wire::Gemini => gemini_error_body(
                    error.status,
                    &message,
                    kind,
                    code,
                    error.retry_after.as_deref(),
                ),
                _ => error_body(wire, error.status, &message, kind, code),
            });
            let mut headers = json_type();
            if let Some(wait) = &error.retry_after {
                headers.push(("retry-after", wait.clone()));
            }
            let summary = format!("turn {index}: error {}", error.status);
            return (
                Answer::Json {
                    status: error.status,
                    headers,
                    body,
                },
                summary,
            );
        }
        let Some(reply) = &scripted.reply else {
            return refuse(
                wire,
                500,
                "the script's turn has neither a reply nor an error",
            );
        };
        let context = Context {
            model: Wire::model_in_path(&request.path)
                .or_else(|| body["model"].as_str())
                .unwrap_or("toolscope-test")
                .to_owned(),
            turn: index,
            input_estimate: u64::try_from(raw_body.len() / 4).unwrap_or(u64::MAX),
            include_usage: body.pointer("/stream_options/include_usage")
                == Some(&Value::Bool(true)),
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let events = render(wire, reply, &context);
        let fault = match (wire, reply.fault) {
            (Wire::Gemini, Some(fault)) => Some(before_the_end(fault, events.len())),
            (_, fault) => fault,
        };
        let framing = reply.framing.unwrap_or(match reply.fault {
            Some(Fault::CutAfter(_)) => Framing::Close,
            _ => Framing::Chunked,
        });
        let summary = format!(
            "turn {index}: {} event(s){}",
            events.len(),
            fault.map(|f| format!(", {f:?}")).unwrap_or_default()
        );
        let answer = Answer::Stream {
            events,
            fault,
            framing,
        };
        (answer, summary)
    }
}

/// Gemini sends a call as one chunk and has no end marker, so the other wires' mid-call
/// positions have no equivalent and a fault at or past its last chunk would be no fault at all
/// (a body that ends there is a whole reply). There it falls just before the last chunk, the
/// one with `finishReason`: what came before arrives whole, and the reply never finishes.
fn before_the_end(fault: Fault, events: usize) -> Fault {
    let last = events.saturating_sub(1);
    match fault {
        Fault::CutAfter(n) => Fault::CutAfter(n.min(last)),
        Fault::StallAfter(n) => Fault::StallAfter(n.min(last)),
        Fault::InvalidChunkAfter(n) => Fault::InvalidChunkAfter(n.min(last)),
    }
}

fn refuse(wire: Wire, status: u16, message: &str) -> (Answer, String) {
    let body = error_body(wire, status, message, None, None);
    (Answer::json(status, body), format!("{status}: {message}"))
}

/// The key a Gemini request carries: `x-goog-api-key`, else the `key` query parameter.
fn gemini_key(request: &RawRequest) -> Option<&str> {
    request
        .header("x-goog-api-key")
        .or_else(|| request.query_param("key"))
}

/// A refused key in the vendor's shape. Gemini answers a missing key with 403
/// `PERMISSION_DENIED` and a wrong one with 400 `INVALID_ARGUMENT`, reason `API_KEY_INVALID`.
fn unauthorized(wire: Wire, request: &RawRequest) -> (Answer, String) {
    let (status, body) = match wire {
        Wire::Anthropic => (401, error_body(wire, 401, "invalid x-api-key", None, None)),
        Wire::Gemini if gemini_key(request).is_none() => (
            403,
            error_body(
                wire,
                403,
                "Method doesn't allow unregistered callers (callers without established \
                 identity). Please use API Key or other form of API consumer identity to call \
                 this API.",
                None,
                None,
            ),
        ),
        Wire::Gemini => (
            400,
            error_body(
                wire,
                400,
                "API key not valid. Please pass a valid API key.",
                None,
                Some("API_KEY_INVALID"),
            ),
        ),
        _ => (
            401,
            error_body(
                wire,
                401,
                "Incorrect API key provided.",
                Some("invalid_request_error"),
                Some("invalid_api_key"),
            ),
        ),
    };
    (
        Answer::json(status, body),
        format!("{status}: wrong or missing API key"),
    )
}
