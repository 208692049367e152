//! A model that plays back replies instead of calling an endpoint.
//!
//! Two uses: a recorded conversation's replies played through today's loop, tools and parsers
//! (what would happen now, with no model and no network), and a model whose every turn is
//! known in advance, which is how the loop's rules are tested and its own overhead measured.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::model::{
    Message, ModelClient, ModelError, ModelErrorKind, ModelInfo, ModelRequest, StreamItem,
};
use super::record::{LoadedConversation, Record};
use super::reply::{AssembledReply, ReplyEvent};
use crate::tool::BoxFuture;

/// One turn to play: the events of a reply, and whether the stream then fails.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaybackTurn {
    pub events: Vec<ReplyEvent>,
    pub fails_with: Option<ModelErrorKind>,
}

impl PlaybackTurn {
    pub fn reply(events: Vec<ReplyEvent>) -> Self {
        Self {
            events,
            fails_with: None,
        }
    }

    /// The events of a whole reply, in the order a stream would bring them.
    pub fn from_reply(reply: &AssembledReply) -> Self {
        let mut events = Vec::new();
        if !reply.reasoning.is_empty() {
            events.push(ReplyEvent::Reasoning {
                text: reply.reasoning.clone(),
            });
        }
        if !reply.text.is_empty() {
            events.push(ReplyEvent::Text {
                text: reply.text.clone(),
            });
        }
        for (index, call) in reply.calls.iter().enumerate() {
            events.push(ReplyEvent::CallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            events.push(ReplyEvent::CallArguments {
                index,
                fragment: call.arguments.clone(),
            });
            if let Some(signature) = &call.signature {
                events.push(ReplyEvent::CallSignature {
                    index,
                    signature: signature.clone(),
                });
            }
        }
        if let Some(usage) = reply.usage {
            events.push(ReplyEvent::Usage { usage });
        }
        if let Some(reason) = &reply.finish_reason {
            events.push(ReplyEvent::Finished {
                reason: reason.clone(),
            });
        }
        Self::reply(events)
    }
}

/// What one request carried: the system prompt, the messages, the native tools.
pub type SeenRequest = (Option<String>, Vec<Message>, Option<Value>);

/// Plays its turns in order; with `repeat_last`, the last one answers every further request.
#[derive(Debug)]
pub struct PlaybackModel {
    info: ModelInfo,
    turns: Mutex<VecDeque<PlaybackTurn>>,
    repeat_last: bool,
    last: Mutex<Option<PlaybackTurn>>,
    seen: Mutex<Vec<SeenRequest>>,
}

impl PlaybackModel {
    pub fn new(info: ModelInfo, turns: Vec<PlaybackTurn>, repeat_last: bool) -> Self {
        Self {
            info,
            turns: Mutex::new(turns.into()),
            repeat_last,
            last: Mutex::new(None),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// The replies a conversation recorded, as the same endpoint would have sent them.
    pub fn from_conversation(conversation: &LoadedConversation) -> Option<Self> {
        let mut info = None;
        let mut turns = Vec::new();
        for timed in &conversation.records {
            match &timed.record {
                Record::Started { model, .. } | Record::Proxied { model, .. } => {
                    info = Some(model.clone())
                }
                Record::Reply { reply, .. } => turns.push(PlaybackTurn::from_reply(reply)),
                _ => {}
            }
        }
        Some(Self::new(info?, turns, false))
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        lock(&self.seen).clone()
    }

    fn next_turn(&self) -> Option<PlaybackTurn> {
        let next = lock(&self.turns).pop_front();
        let mut last = lock(&self.last);
        match next {
            Some(turn) => {
                if self.repeat_last {
                    *last = Some(turn.clone());
                }
                Some(turn)
            }
            None => last.clone(),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl ModelClient for PlaybackModel {
    fn info(&self) -> ModelInfo {
        self.info.clone()
    }

    fn send<'a>(
        &'a self,
        request: ModelRequest<'a>,
        cancel: &'a CancellationToken,
        on_item: &'a mut (dyn FnMut(StreamItem<'_>) + Send),
    ) -> BoxFuture<'a, Result<AssembledReply, ModelError>> {
        Box::pin(async move {
            lock(&self.seen).push((
                request.system.map(str::to_owned),
                request.messages.to_vec(),
                request.tools.cloned(),
            ));
            let body = json!({"playback": true, "messages": request.messages.len()});
            on_item(StreamItem::Sent { body: &body });
            let Some(turn) = self.next_turn() else {
                return Err(ModelError {
                    kind: ModelErrorKind::Rejected,
                    message: "the playback has no more replies".to_owned(),
                    partial: None,
                });
            };
            let mut reply = AssembledReply::default();
            for event in &turn.events {
                if cancel.is_cancelled() {
                    return Err(failure(ModelErrorKind::Cancelled, reply));
                }
                let raw = serde_json::to_string(event).unwrap_or_default();
                on_item(StreamItem::Raw { data: &raw });
                reply.apply(event);
                on_item(StreamItem::Event(event));
            }
            match turn.fails_with {
                None => Ok(reply),
                Some(kind) => Err(failure(kind, reply)),
            }
        })
    }
}

fn failure(kind: ModelErrorKind, partial: AssembledReply) -> ModelError {
    ModelError {
        kind,
        message: format!("the played-back stream ended with {kind:?}"),
        partial: Some(partial),
    }
}
