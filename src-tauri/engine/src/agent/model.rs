//! What the agent loop asks of a model endpoint, in no vendor's terms.
//!
//! The loop keeps the conversation as [`Message`]s and hands a [`ModelRequest`] to a
//! [`ModelClient`]; the `llm` provider turns it into an OpenAI, Responses, Anthropic or Gemini
//! request body, streams the reply back as [`StreamItem`]s and classifies what went wrong as a
//! [`ModelError`]. The engine never depends on the provider: the app and the CLI wire one in.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::reply::{AssembledCall, AssembledReply, ReplyEvent};
use crate::tool::BoxFuture;

/// One message of the conversation as the loop keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User {
        text: String,
    },
    /// The model's reply: its text and, with native tools, its structured calls.
    Assistant {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        calls: Vec<AssembledCall>,
    },
    /// Results of native calls, answering the assistant message before them.
    ToolResults {
        results: Vec<ToolResultMessage>,
    },
}

/// One native call's result as the model is told it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolResultMessage {
    pub call_id: String,
    pub name: String,
    pub content: String,
    pub is_error: bool,
}

/// Which tools the model may call (OpenAI's `tool_choice`; each wire has its own spelling).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    #[default]
    Auto,
    None,
    Required,
    /// Exactly this tool (its name as the model sees it).
    Named {
        name: String,
    },
}

/// The request options people tune; `None` leaves the endpoint's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct RequestOptions {
    pub tool_choice: ToolChoice,
    pub parallel_tool_calls: Option<bool>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
}

/// Everything one model request needs.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: Option<&'a str>,
    pub messages: &'a [Message],
    /// The native tool definitions as the wire's protocol renders them (a JSON array), or
    /// `None` when the tools are described in the system prompt instead.
    pub tools: Option<&'a Value>,
    pub options: &'a RequestOptions,
}

/// What the endpoint is, for the record and the screen (never its key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ModelInfo {
    /// `openai_chat`, `openai_responses`, `anthropic`, `gemini`.
    pub wire: String,
    pub base_url: String,
    pub model: String,
    /// The protocol whose tool definitions the wire carries natively.
    pub native_protocol: String,
}

/// What arrives while a reply streams, in order.
#[derive(Debug, Clone, Copy)]
pub enum StreamItem<'a> {
    /// The request body, as it is about to be sent (credentials travel in headers, not here).
    Sent { body: &'a Value },
    /// One SSE event's data, exactly as received (recorded as evidence).
    Raw { data: &'a str },
    /// What the raw data meant.
    Event(&'a ReplyEvent),
    /// The endpoint refused for now (429) and the request will be sent again after `wait_ms`.
    Retry {
        attempt: u32,
        of: u32,
        wait_ms: u64,
        reason: &'a str,
    },
}

/// How a model request failed, in the terms people act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ModelErrorKind {
    /// 401/403: the key is missing, wrong or lacks access.
    Unauthorized,
    ModelNotFound,
    /// 429 after the bounded retries.
    RateLimited,
    /// The conversation no longer fits the model's context.
    ContextLength,
    /// 5xx.
    Server,
    /// Any other refusal (400 with the endpoint's reason).
    Rejected,
    /// The endpoint could not be reached.
    Transport,
    /// A chunk of the stream could not be read.
    Stream,
    /// The stream stopped before the endpoint finished the reply.
    Cut,
    /// The stream went silent past the idle timeout.
    Stalled,
    Cancelled,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    pub kind: ModelErrorKind,
    pub message: String,
    /// What had arrived before the failure (evidence, and a cut call shown as incomplete).
    pub partial: Option<AssembledReply>,
}

/// A model endpoint the loop can talk to.
pub trait ModelClient: Send + Sync {
    fn info(&self) -> ModelInfo;

    /// Sends one request and streams the reply, telling `on_item` each piece as it arrives.
    fn send<'a>(
        &'a self,
        request: ModelRequest<'a>,
        cancel: &'a CancellationToken,
        on_item: &'a mut (dyn FnMut(StreamItem<'_>) + Send),
    ) -> BoxFuture<'a, Result<AssembledReply, ModelError>>;
}
