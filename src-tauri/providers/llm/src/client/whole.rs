//! Chat Completions replies that arrive whole instead of streamed.
//!
//! Real OpenAI-compatible servers do not all stream every reply. llama.cpp's Python server
//! (`llama-cpp-python`, `chatml-function-calling`) cannot stream a tool call the model chose
//! itself (`tool_choice: "auto"`): it starts the event stream, fails, and closes it before the
//! first event, so every such turn would end as a cut stream. Other servers ignore `stream`
//! and answer with one `chat.completion` document. Both are read here:
//! - a response whose content type is JSON is read as one document, whatever was asked;
//! - a Chat Completions stream that closed before any event arrived is asked again once with
//!   `stream: false` (and without `stream_options`, which only goes with streaming), told to
//!   the caller as a retry so the record shows why the turn was sent twice.
//!
//! The document is passed on as one raw chunk, so the transcript keeps what arrived.

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{ClientError, ClientNotice, Endpoint, RetryNotice};
use crate::openai_chat;
use crate::reply::AssembledReply;

/// Why a turn is sent again without streaming, as the retry notice says it.
pub const UNSTREAMED_REASON: &str =
    "the endpoint closed the stream before sending any event; asking again without streaming";

/// Whether the endpoint answered with a JSON document rather than an event stream.
pub(super) fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"))
}

/// The same request, asking for the reply whole.
pub(super) fn unstreamed(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut() {
        object.insert("stream".to_owned(), Value::Bool(false));
        object.remove("stream_options");
    }
    body
}

/// The notice told before the request is sent again without streaming.
pub(super) fn notice() -> RetryNotice {
    RetryNotice {
        attempt: 1,
        of: 1,
        wait: std::time::Duration::ZERO,
        reason: UNSTREAMED_REASON.to_owned(),
    }
}

/// Reads a whole `chat.completion` document, telling `on` the raw document and each event it
/// amounts to. The endpoint may stay silent for the idle timeout, as a stream may.
pub(super) async fn read(
    response: reqwest::Response,
    endpoint: &Endpoint,
    cancel: &CancellationToken,
    on: &mut impl FnMut(ClientNotice<'_>),
) -> Result<AssembledReply, ClientError> {
    let reply = AssembledReply::default();
    let text = tokio::select! {
        text = tokio::time::timeout(endpoint.idle_timeout, response.text()) => text,
        () = cancel.cancelled() => return Err(ClientError::Cancelled { partial: Box::new(reply) }),
    };
    let text = match text {
        Err(_) => {
            return Err(ClientError::Stalled {
                waited: endpoint.idle_timeout,
                partial: Box::new(reply),
            })
        }
        Ok(Err(_)) => {
            return Err(ClientError::Cut {
                partial: Box::new(reply),
            })
        }
        Ok(Ok(text)) => text,
    };
    on(ClientNotice::Raw { data: &text });
    let mut events = Vec::new();
    let read = openai_chat::read_completion(&text, &mut events);
    let mut reply = reply;
    for event in &events {
        reply.apply(event);
        on(ClientNotice::Event(event));
    }
    match read {
        Ok(()) => Ok(reply),
        Err(error) => Err(ClientError::Stream {
            error,
            partial: Box::new(reply),
        }),
    }
}
