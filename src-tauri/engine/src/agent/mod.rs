//! The agent loop (seed 000 §6, seed 002's limits, seed 004's ReAct steps): a model replies,
//! its calls are parsed, confirmed, executed, and their results go back as the next request,
//! until the model answers without calls or a limit ends the conversation.
//!
//! Tools reach the model one of two ways. **Native**: the request carries them as the API's
//! `tools` (rendered by the wire's own protocol) and the reply's structured calls are
//! assembled from their deltas. **Prompted**: the system prompt is a wire format's tool
//! prompt (Hermes, VCP, JSON_Strict, ...) and the streamed text goes through that format's
//! streaming parser, so calls and diagnostics appear while the reply still arrives. Either way
//! the same executor runs the calls and failures go back with a suggestion ([`suggest`]), so a
//! conversation shows how a model corrects itself. Everything is recorded ([`record`]).

mod calls;
pub mod model;
pub mod native;
pub mod playback;
pub mod record;
pub mod replay;
pub mod reply;
mod run;
pub mod suggest;
mod turn;

use serde::{Deserialize, Serialize};

pub use model::{
    Message, ModelClient, ModelError, ModelErrorKind, ModelInfo, ModelRequest, RequestOptions,
    StreamItem, ToolChoice, ToolResultMessage,
};
pub use record::{ConversationLog, ConversationStore, Decision, Record};
pub use reply::{AssembledCall, AssembledReply, ReplyEvent, Usage};
pub use run::{Agent, AgentError, AgentOutcome, Confirmer};

use crate::config::CallMode;
use toolscope_protocol::parser::ParseReport;
use toolscope_protocol::result::ToolExecutionResult;
use toolscope_protocol::stream::StreamEvent;
use toolscope_protocol::ToolDefinitionInput;

/// How the model is given its tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolMode {
    /// As the API's `tools`; calls come back structured.
    Native,
    /// In the system prompt, in the wire format `format` (a protocol id).
    Prompted { format: String },
}

/// What a conversation runs with (recorded in its first line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct AgentSettings {
    pub tools: ToolMode,
    /// Model requests at most (seed 002's `max_iterations`).
    pub max_iterations: u32,
    /// Tool calls at most across the whole conversation.
    pub max_total_tool_calls: u32,
    /// Input plus output tokens at most, as the endpoint reports them; `None` for no budget.
    pub token_budget: Option<u64>,
    /// Auto runs read-only methods and asks for the rest; manual asks for every call.
    pub mode: CallMode,
    /// The person's own instructions, sent before the tool prompt.
    pub system_prompt: Option<String>,
    pub request: RequestOptions,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            tools: ToolMode::Native,
            max_iterations: 8,
            max_total_tool_calls: 32,
            token_budget: None,
            mode: CallMode::Auto,
            system_prompt: None,
            request: RequestOptions::default(),
        }
    }
}

/// Why a conversation ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered without calling a tool.
    Final,
    MaxIterations {
        limit: u32,
    },
    MaxToolCalls {
        limit: u32,
    },
    TokenBudget {
        limit: u64,
        used: u64,
    },
    /// A person stopped it (Esc, or "stop" at a confirmation).
    Stopped,
    ModelFailed {
        kind: ModelErrorKind,
        message: String,
    },
}

/// When a reply's parts arrived, in milliseconds after its request was sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TurnTiming {
    pub first_token_ms: Option<f64>,
    pub first_call_ms: Option<f64>,
    pub total_ms: f64,
}

/// What the loop reports while it runs, in order (the Agent pane and the CLI draw from these).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    TurnStarted {
        turn: u32,
    },
    Retry {
        turn: u32,
        attempt: u32,
        of: u32,
        wait_ms: u64,
        reason: String,
    },
    /// A piece of the streaming reply.
    Reply {
        turn: u32,
        event: ReplyEvent,
    },
    /// What the streaming parser found in the reply's text so far (prompted tools only); spans
    /// index into the turn's text.
    Parse {
        turn: u32,
        event: StreamEvent,
    },
    /// The reply is complete and parsed.
    TurnParsed {
        turn: u32,
        reply: AssembledReply,
        report: ParseReport,
        timing: TurnTiming,
    },
    /// The loop told the model its reply could not be acted on.
    Feedback {
        turn: u32,
        text: String,
    },
    CallFinished {
        turn: u32,
        result: ToolExecutionResult,
        suggestion: Option<String>,
    },
    ModelFailed {
        turn: u32,
        kind: ModelErrorKind,
        message: String,
    },
    Stopped {
        reason: StopReason,
        turns: u32,
        tool_calls: u32,
        usage: Usage,
    },
}

/// `tools` narrowed to `wanted`: a tool id keeps all its methods, a routing name one method.
/// An entry that names nothing in `tools` is returned as the error (a typo should not silently
/// leave the model with fewer tools).
pub fn select_tools(
    mut tools: Vec<ToolDefinitionInput>,
    wanted: &[String],
) -> Result<Vec<ToolDefinitionInput>, String> {
    if wanted.is_empty() {
        return Ok(tools);
    }
    let known = |name: &String| {
        tools
            .iter()
            .any(|t| &t.tool_id == name || t.methods.iter().any(|m| &t.routing_name(m) == name))
    };
    if let Some(unknown) = wanted.iter().find(|w| !known(w)) {
        return Err(unknown.clone());
    }
    for tool in &mut tools {
        let whole = wanted.contains(&tool.tool_id);
        let id = tool.tool_id.clone();
        tool.methods
            .retain(|m| whole || wanted.contains(&format!("{id}_{}", m.name)));
    }
    tools.retain(|t| !t.methods.is_empty());
    Ok(tools)
}
