//! What every model endpoint's stream becomes: events as they arrive and the reply they add up to.
//!
//! The vendors' readers (the `llm` provider) produce these; the agent loop, the recorder and the
//! Agent pane consume them and never care which vendor answered.

use serde::{Deserialize, Serialize};

/// Token counts, as the endpoint reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// One step of a streamed reply, in arrival order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReplyEvent {
    /// Visible text.
    Text {
        text: String,
    },
    /// Reasoning the endpoint sends apart from the text (`reasoning_content`, thinking blocks).
    Reasoning {
        text: String,
    },
    /// A native tool call began (its name may only be known now).
    CallStarted {
        index: usize,
        id: String,
        name: String,
    },
    /// More of a call's arguments (a JSON text fragment).
    CallArguments {
        index: usize,
        fragment: String,
    },
    /// An opaque token the vendor wants back with the call in the next request (Gemini's
    /// `thoughtSignature`: without it, a thinking model's follow-up turn is refused).
    CallSignature {
        index: usize,
        signature: String,
    },
    /// The reply ended, with the endpoint's reason (`tool_calls`, `stop`, `length`, `tool_use`,
    /// `max_tokens`, ...).
    Finished {
        reason: String,
    },
    Usage {
        usage: Usage,
    },
}

/// A native tool call, assembled from its fragments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AssembledCall {
    pub id: String,
    pub name: String,
    /// The arguments' JSON text as sent (it may be invalid or cut off: the parser judges it).
    pub arguments: String,
    /// Sent back with the call in the next request, as the vendor asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// A whole reply: what the events add up to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AssembledReply {
    pub text: String,
    pub reasoning: String,
    pub calls: Vec<AssembledCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

impl AssembledReply {
    /// Folds one event in.
    pub fn apply(&mut self, event: &ReplyEvent) {
        match event {
            ReplyEvent::Text { text } => self.text.push_str(text),
            ReplyEvent::Reasoning { text } => self.reasoning.push_str(text),
            ReplyEvent::CallStarted { index, id, name } => {
                let call = self.call_mut(*index);
                if !id.is_empty() {
                    call.id.clone_from(id);
                }
                if !name.is_empty() {
                    call.name.clone_from(name);
                }
            }
            ReplyEvent::CallArguments { index, fragment } => {
                self.call_mut(*index).arguments.push_str(fragment);
            }
            ReplyEvent::CallSignature { index, signature } => {
                self.call_mut(*index).signature = Some(signature.clone());
            }
            ReplyEvent::Finished { reason } => self.finish_reason = Some(reason.clone()),
            ReplyEvent::Usage { usage } => self.usage = Some(*usage),
        }
    }

    /// Whether the endpoint ended the reply (a stream cut before that is incomplete).
    pub fn is_finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    fn call_mut(&mut self, index: usize) -> &mut AssembledCall {
        // Indices arrive in order; a gap (an index never sent) leaves an empty call that the
        // caller reports rather than a panic or a silent shift of later calls.
        if self.calls.len() <= index {
            self.calls.resize_with(index + 1, AssembledCall::default);
        }
        &mut self.calls[index]
    }
}
