//! Sending one request to an endpoint and reading its streamed reply.
//!
//! The request body is the caller's (it knows the conversation, the tools and the options);
//! this module adds what every streamed request needs (`model`, `stream: true`, the vendor's
//! auth headers), reads the SSE events as they arrive through the wire's reader, and tells the
//! caller each event the moment it is read. A refusal is classified ([`EndpointError`]), a
//! stream that stops before the endpoint said it finished is reported with what had arrived,
//! and a stalled stream ends at the idle timeout; cancelling ends the read at once.
//!
//! Gemini differs in where things go: the model is part of the URL (and the stream is asked for
//! by the method and `alt=sse`), so nothing is added to its body. A rate limit before the
//! stream starts is retried ([`retry`]), each retry told to the caller. A Chat Completions reply
//! that arrives whole, or a stream the server closed before its first event (llama.cpp's Python
//! server with a call the model chose), is read as one document ([`whole`]).

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::StreamError;
use crate::reply::{AssembledReply, ReplyEvent};
use crate::status::{classify, EndpointError};

pub mod retry;
mod stream;
mod whole;
pub use retry::{RetryNotice, MAX_RETRY_WAIT};
pub use whole::UNSTREAMED_REASON;

/// Which wire protocol an endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST {base_url}/chat/completions`; the base URL ends in `/v1` for most servers.
    OpenAiChat,
    /// `POST {base_url}/responses` (OpenAI's Responses API), same base URL and key.
    OpenAiResponses,
    /// `POST {base_url}/v1/messages`, with `x-api-key` and `anthropic-version`.
    Anthropic,
    /// `POST {base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse`, with
    /// `x-goog-api-key`; the base URL is the API's root, without a version.
    Gemini,
}

/// Where requests go.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub wire: Wire,
    pub base_url: String,
    pub model: String,
    /// Sent as the vendor's auth header; never logged or recorded.
    pub api_key: Option<String>,
    /// How long the stream may stay silent before it counts as stalled.
    pub idle_timeout: Duration,
    /// How many times a rate-limited request is sent again ([`retry`]); 0 turns retries off.
    pub max_retries: u32,
}

/// The Anthropic API version this reader follows.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Bodies of refusals are read up to this size (an HTML error page can be large).
const MAX_ERROR_BODY: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Refused(#[from] EndpointError),
    #[error("could not reach {url}: {message}")]
    Transport { url: String, message: String },
    #[error("{error} (after {} of the reply)", describe(.partial))]
    Stream {
        error: StreamError,
        partial: Box<AssembledReply>,
    },
    #[error("the stream stopped before the endpoint finished the reply (after {})", describe(.partial))]
    Cut { partial: Box<AssembledReply> },
    #[error("the endpoint sent nothing for {} s (after {})", .waited.as_secs(), describe(.partial))]
    Stalled {
        waited: Duration,
        partial: Box<AssembledReply>,
    },
    #[error("cancelled")]
    Cancelled { partial: Box<AssembledReply> },
    /// The endpoint still refused after the retries, or asked for a wait too long to sit through.
    #[error("gave up after {attempts} attempt(s){}: {last}", refused_wait_text(.refused_wait))]
    GaveUp {
        /// Requests sent, the first included.
        attempts: u32,
        /// The wait the endpoint asked for, when it was longer than [`MAX_RETRY_WAIT`].
        refused_wait: Option<Duration>,
        last: EndpointError,
    },
}

fn refused_wait_text(wait: &Option<Duration>) -> String {
    wait.map(|wait| {
        format!(
            " (the endpoint asks to wait {} s, more than the {} s this client waits)",
            wait.as_secs(),
            MAX_RETRY_WAIT.as_secs()
        )
    })
    .unwrap_or_default()
}

fn describe(reply: &AssembledReply) -> String {
    format!(
        "{} characters of text and {} call(s)",
        reply.text.chars().count(),
        reply.calls.len()
    )
}

impl Endpoint {
    /// Retries of a rate-limited request unless a profile says otherwise.
    pub const DEFAULT_MAX_RETRIES: u32 = 2;

    /// An endpoint with the default retries.
    pub fn new(
        wire: Wire,
        base_url: String,
        model: String,
        api_key: Option<String>,
        idle_timeout: Duration,
    ) -> Self {
        Self {
            wire,
            base_url,
            model,
            api_key,
            idle_timeout,
            max_retries: Self::DEFAULT_MAX_RETRIES,
        }
    }

    /// Where the wire's streamed requests go.
    pub fn url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        match self.wire {
            Wire::OpenAiChat => format!("{base}/chat/completions"),
            Wire::OpenAiResponses => format!("{base}/responses"),
            Wire::Anthropic => format!("{base}/v1/messages"),
            Wire::Gemini => format!(
                "{base}/v1beta/models/{}:streamGenerateContent?alt=sse",
                // The model list names models `models/…`; a name copied from it still works.
                self.model.trim_start_matches("models/")
            ),
        }
    }
}

/// What the client tells its caller while a request runs, in order.
#[derive(Debug, Clone, Copy)]
pub enum ClientNotice<'a> {
    /// The body as it is sent (with `model` and `stream`); credentials travel in headers.
    Sent { body: &'a Value },
    /// The endpoint refused for now; the request is sent again after the notice's wait.
    Retry(&'a RetryNotice),
    /// One SSE event's data, exactly as received.
    Raw { data: &'a str },
    /// What the data meant.
    Event(&'a ReplyEvent),
}

/// Sends `body` (with `model` and `stream` set here, except for Gemini, whose URL names both)
/// and reads the streamed reply, calling `on_event` for each event as it is read.
///
/// A rate-limited request is retried as [`stream_observed`] describes, without telling the
/// caller; the error after the last retry says how many attempts were made.
pub async fn stream_reply(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    body: Value,
    cancel: &CancellationToken,
    on_event: impl FnMut(&ReplyEvent),
) -> Result<AssembledReply, ClientError> {
    stream_reply_with_retries(client, endpoint, body, cancel, on_event, |_| {}).await
}

/// [`stream_reply`], telling `on_retry` of each retry before its wait.
pub async fn stream_reply_with_retries(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    body: Value,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(&ReplyEvent),
    mut on_retry: impl FnMut(&RetryNotice),
) -> Result<AssembledReply, ClientError> {
    stream_observed(client, endpoint, body, cancel, |notice| match notice {
        ClientNotice::Event(event) => on_event(event),
        ClientNotice::Retry(retry) => on_retry(retry),
        ClientNotice::Sent { .. } | ClientNotice::Raw { .. } => {}
    })
    .await
}

/// Sends `body` and reads the streamed reply, telling `on` everything as it happens (what was
/// sent, retries, each raw chunk and what it meant), for callers that keep evidence.
///
/// A 429 (or a 503 that names its end) before the stream starts is sent again after the
/// endpoint's wait, else after 1 s, 2 s, 4 s, ..., at most [`Endpoint::max_retries`] times, and
/// never after a wait longer than [`MAX_RETRY_WAIT`] ([`ClientError::GaveUp`] then).
/// Cancelling ends a wait, or the read, at once.
pub async fn stream_observed(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    mut body: Value,
    cancel: &CancellationToken,
    mut on: impl FnMut(ClientNotice<'_>),
) -> Result<AssembledReply, ClientError> {
    match body.as_object_mut() {
        Some(object) if endpoint.wire != Wire::Gemini => {
            object.insert("model".to_owned(), Value::from(endpoint.model.clone()));
            object.insert("stream".to_owned(), Value::Bool(true));
        }
        _ => {}
    }
    on(ClientNotice::Sent { body: &body });
    let url = endpoint.url();
    let response = open(client, endpoint, &url, &body, cancel, &mut on).await?;
    if endpoint.wire == Wire::OpenAiChat && whole::is_json(&response) {
        return whole::read(response, endpoint, cancel, &mut on).await;
    }
    match stream::read(response, endpoint, cancel, &mut on).await {
        stream::Read::Done(result) => result,
        // See [`whole`]: a server that cannot stream this reply, asked again for it whole.
        stream::Read::Silent if endpoint.wire == Wire::OpenAiChat => {
            let body = whole::unstreamed(&body);
            on(ClientNotice::Retry(&whole::notice()));
            on(ClientNotice::Sent { body: &body });
            let response = match open(client, endpoint, &url, &body, cancel, &mut on).await {
                // The server may close the connection its failed stream used just as the pool
                // hands it out again: the request never reached it, so it is sent once more.
                Err(ClientError::Transport { .. }) => {
                    open(client, endpoint, &url, &body, cancel, &mut on).await?
                }
                other => other?,
            };
            whole::read(response, endpoint, cancel, &mut on).await
        }
        stream::Read::Silent => Err(ClientError::Cut {
            partial: Box::default(),
        }),
    }
}

/// [`retry::open`], telling `on` of each retry.
async fn open(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    url: &str,
    body: &Value,
    cancel: &CancellationToken,
    on: &mut impl FnMut(ClientNotice<'_>),
) -> Result<reqwest::Response, ClientError> {
    let mut on_retry = |retry: &RetryNotice| on(ClientNotice::Retry(retry));
    retry::open(client, endpoint, url, body, cancel, &mut on_retry).await
}

/// "Test connection": the models the endpoint serves (`GET /models`, `data[].id`; Gemini's
/// `GET /v1beta/models`, `models[].name` without its `models/`), which also proves the URL and
/// the key. A refusal is classified like a chat request's.
pub async fn list_models(
    client: &reqwest::Client,
    endpoint: &Endpoint,
) -> Result<Vec<String>, ClientError> {
    let base = endpoint.base_url.trim_end_matches('/');
    let url = match endpoint.wire {
        Wire::OpenAiChat | Wire::OpenAiResponses => format!("{base}/models"),
        Wire::Anthropic => format!("{base}/v1/models"),
        // The default page is 50 models, fewer than Gemini serves; 1000 is the largest page.
        Wire::Gemini => format!("{base}/v1beta/models?pageSize=1000"),
    };
    let request = authorize(client.get(&url), endpoint).timeout(endpoint.idle_timeout);
    let transport = |e: reqwest::Error| ClientError::Transport {
        url: url.clone(),
        message: e.to_string(),
    };
    let response = request.send().await.map_err(transport)?;
    let status = response.status();
    let body = read_limited(response).await;
    if !status.is_success() {
        return Err(classify(status.as_u16(), None, &body, &endpoint.model).into());
    }
    let listed: Value = serde_json::from_str(&body).map_err(|e| ClientError::Transport {
        url: url.clone(),
        message: format!("the model list is not JSON: {e}"),
    })?;
    let (list, key) = match endpoint.wire {
        Wire::Gemini => ("models", "name"),
        _ => ("data", "id"),
    };
    Ok(listed[list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|model| model[key].as_str())
        .map(|name| name.trim_start_matches("models/").to_owned())
        .collect())
}

/// The vendor's auth headers (and Anthropic's version header). Gemini also takes the key as a
/// `key` query parameter; the header keeps it out of URLs, which end up in logs and errors.
fn authorize(request: reqwest::RequestBuilder, endpoint: &Endpoint) -> reqwest::RequestBuilder {
    match (endpoint.wire, &endpoint.api_key) {
        (Wire::OpenAiChat | Wire::OpenAiResponses, Some(key)) => request.bearer_auth(key),
        (Wire::OpenAiChat | Wire::OpenAiResponses, None) => request,
        (Wire::Anthropic, key) => {
            let request = request.header("anthropic-version", ANTHROPIC_VERSION);
            match key {
                Some(key) => request.header("x-api-key", key),
                None => request,
            }
        }
        (Wire::Gemini, Some(key)) => request.header("x-goog-api-key", key),
        (Wire::Gemini, None) => request,
    }
}

async fn read_limited(response: reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = MAX_ERROR_BODY.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

#[cfg(test)]
mod tests;
