//! Stream reading helpers shared by the vendors' readers; the reply types themselves are the
//! engine's, so the agent loop and the recorder see the same ones.

use std::collections::HashMap;

use serde_json::Value;

pub use toolscope_engine::agent::reply::{AssembledCall, AssembledReply, ReplyEvent, Usage};

/// Numbers the calls of a stream whose parts are numbered across all kinds of content
/// (Anthropic's content blocks, the Responses API's output items): the reply's calls count
/// calls only, so the part number a fragment names is mapped to its call.
#[derive(Debug, Default)]
pub struct CallNumbers {
    by_part: HashMap<u64, usize>,
}

impl CallNumbers {
    /// A call starts in part `part` (its position in the stream's numbering).
    pub fn start(
        &mut self,
        part: &Value,
        id: &Value,
        name: &Value,
        events: &mut Vec<ReplyEvent>,
    ) -> usize {
        let index = self.by_part.len();
        if let Some(part) = part.as_u64() {
            self.by_part.insert(part, index);
        }
        events.push(ReplyEvent::CallStarted {
            index,
            id: id.as_str().unwrap_or_default().to_owned(),
            name: name.as_str().unwrap_or_default().to_owned(),
        });
        index
    }

    /// More arguments for the call of part `part`; a part that never started a call has no call
    /// to join, and its fragment is dropped.
    pub fn fragment(&self, part: &Value, fragment: &Value, events: &mut Vec<ReplyEvent>) {
        let call = part
            .as_u64()
            .and_then(|part| self.by_part.get(&part).copied());
        if let Some(index) = call {
            events.push(ReplyEvent::CallArguments {
                index,
                fragment: fragment.as_str().unwrap_or_default().to_owned(),
            });
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_part.is_empty()
    }
}
