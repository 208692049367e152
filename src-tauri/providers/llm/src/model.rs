//! An endpoint as the engine's agent loop sees it: a [`ModelClient`].
//!
//! The loop hands over its conversation in no vendor's terms; this writes it as the wire's
//! request body ([`crate::request`]), streams the reply through the wire's reader, passes on
//! every raw chunk and event as it is read, and turns the client's errors into the loop's
//! [`ModelErrorKind`]s.

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use toolscope_engine::agent::{
    AssembledReply, ModelClient, ModelError, ModelErrorKind, ModelInfo, ModelRequest, StreamItem,
};
use toolscope_engine::BoxFuture;

use crate::client::{self, ClientError, ClientNotice, Endpoint, Wire};
use crate::request;
use crate::status::EndpointError;

/// How long connecting may take before the endpoint counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One endpoint with its own HTTP client (connection reuse across the turns of a conversation).
#[derive(Debug, Clone)]
pub struct EndpointModel {
    client: reqwest::Client,
    endpoint: Endpoint,
}

impl EndpointModel {
    pub fn new(endpoint: Endpoint) -> Result<Self, ClientError> {
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ClientError::Transport {
                url: endpoint.base_url.clone(),
                message: e.to_string(),
            })?;
        Ok(Self { client, endpoint })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// "Test connection": the models the endpoint serves.
    pub async fn list_models(&self) -> Result<Vec<String>, ClientError> {
        client::list_models(&self.client, &self.endpoint).await
    }
}

/// The protocol id whose tool definitions and documents a wire carries natively.
pub fn native_protocol(wire: Wire) -> &'static str {
    match wire {
        Wire::OpenAiChat => "openai_chat",
        Wire::OpenAiResponses => "openai_responses",
        Wire::Anthropic => "anthropic",
        Wire::Gemini => "gemini",
    }
}

/// The wire's name as profiles and records spell it.
pub fn wire_name(wire: Wire) -> &'static str {
    native_protocol(wire)
}

fn wire_of(name: &str) -> Option<Wire> {
    [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
    ]
    .into_iter()
    .find(|w| wire_name(*w) == name)
}

impl ModelClient for EndpointModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            wire: wire_name(self.endpoint.wire).to_owned(),
            base_url: self.endpoint.base_url.clone(),
            model: self.endpoint.model.clone(),
            native_protocol: native_protocol(self.endpoint.wire).to_owned(),
        }
    }

    fn send<'a>(
        &'a self,
        request: ModelRequest<'a>,
        cancel: &'a CancellationToken,
        on_item: &'a mut (dyn FnMut(StreamItem<'_>) + Send),
    ) -> BoxFuture<'a, Result<AssembledReply, ModelError>> {
        Box::pin(async move {
            let body = match self.endpoint.wire {
                Wire::OpenAiChat => request::openai_chat(&request),
                Wire::OpenAiResponses => request::openai_responses(&request),
                Wire::Anthropic => request::anthropic(&request),
                Wire::Gemini => request::gemini(&request),
            };
            let on_notice = |notice: ClientNotice<'_>| match notice {
                ClientNotice::Sent { body } => on_item(StreamItem::Sent { body }),
                ClientNotice::Raw { data } => on_item(StreamItem::Raw { data }),
                ClientNotice::Event(event) => on_item(StreamItem::Event(event)),
                ClientNotice::Retry(retry) => on_item(StreamItem::Retry {
                    attempt: retry.attempt,
                    of: retry.of,
                    wait_ms: u64::try_from(retry.wait.as_millis()).unwrap_or(u64::MAX),
                    reason: &retry.reason,
                }),
            };
            client::stream_observed(&self.client, &self.endpoint, body, cancel, on_notice)
                .await
                .map_err(model_error)
        })
    }
}

/// The client's error in the loop's terms, keeping what had arrived.
pub fn model_error(error: ClientError) -> ModelError {
    let message = error.to_string();
    let (kind, partial) = match error {
        ClientError::Refused(refusal) => (refused_kind(&refusal), None),
        ClientError::GaveUp { last, .. } => (refused_kind(&last), None),
        ClientError::Transport { .. } => (ModelErrorKind::Transport, None),
        ClientError::Stream { partial, .. } => (ModelErrorKind::Stream, Some(*partial)),
        ClientError::Cut { partial } => (ModelErrorKind::Cut, Some(*partial)),
        ClientError::Stalled { partial, .. } => (ModelErrorKind::Stalled, Some(*partial)),
        ClientError::Cancelled { partial } => (ModelErrorKind::Cancelled, Some(*partial)),
    };
    ModelError {
        kind,
        message,
        partial,
    }
}

/// The kind of failure a refusal is, as the agent loop and the model proxy record it.
pub fn refused_kind(refusal: &EndpointError) -> ModelErrorKind {
    match refusal {
        EndpointError::Unauthorized { .. } => ModelErrorKind::Unauthorized,
        EndpointError::ModelNotFound { .. } => ModelErrorKind::ModelNotFound,
        EndpointError::RateLimited { .. } => ModelErrorKind::RateLimited,
        EndpointError::ContextLength { .. } => ModelErrorKind::ContextLength,
        EndpointError::Server { .. } => ModelErrorKind::Server,
        _ => ModelErrorKind::Rejected,
    }
}

/// A cURL command that sends `body` to the endpoint `info` describes again, streaming; the key
/// is read from an environment variable, never written out.
pub fn curl_command(info: &ModelInfo, body: &Value) -> String {
    let wire = wire_of(&info.wire).unwrap_or(Wire::OpenAiChat);
    let endpoint = Endpoint::new(
        wire,
        info.base_url.clone(),
        info.model.clone(),
        None,
        Duration::from_secs(60),
    );
    let auth = match wire {
        Wire::OpenAiChat | Wire::OpenAiResponses => {
            "-H \"Authorization: Bearer $API_KEY\"".to_owned()
        }
        Wire::Anthropic => format!(
            "-H \"x-api-key: $API_KEY\" -H 'anthropic-version: {}'",
            client::ANTHROPIC_VERSION
        ),
        Wire::Gemini => "-H \"x-goog-api-key: $API_KEY\"".to_owned(),
    };
    let json = serde_json::to_string_pretty(body).unwrap_or_default();
    format!(
        "curl -N '{}' \\\n  -H 'Content-Type: application/json' {auth} \\\n  --data-binary @- <<'JSON'\n{json}\nJSON\n",
        endpoint.url()
    )
}
