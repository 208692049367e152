//! Which conversation a request belongs to, and its turns recorded in the conversation store
//! the agent loop writes (`<data dir>/conversations/`), so a proxied agent's conversation opens
//! in the app like one of Toolscope's own.
//!
//! An agent sends its whole transcript with every request, so a request continues the
//! conversation whose last request is a strict prefix of its own messages (the longest such).
//! Agents that rewrite earlier messages (a system prompt with the time in it) still continue
//! the conversation that began with the same first user message, when the transcript grew. A
//! Responses request that names `previous_response_id` continues the conversation of that
//! response. Anything else starts a new conversation.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use toolscope_engine::agent::model::ModelInfo;
use toolscope_engine::agent::record::{ConversationError, ConversationLog, ConversationStore};
use toolscope_engine::agent::Record;
use toolscope_llm::client::Wire;
use toolscope_llm::model::native_protocol;

use super::route::model_of;

/// How many conversations are kept open for matching; the oldest is let go first.
const OPEN_LIMIT: usize = 64;
/// The first user message is kept to this many characters in the start record.
const FIRST_MESSAGE_CHARS: usize = 200;

/// One turn in progress: where its records go.
#[derive(Debug, Clone)]
pub struct TurnSlot {
    pub log: Arc<ConversationLog>,
    pub turn: u32,
    pub wire: Wire,
    pub model: String,
    conversation: usize,
}

#[derive(Debug)]
struct Open {
    serial: usize,
    log: Arc<ConversationLog>,
    wire: Wire,
    transcript: Vec<Value>,
    first_user: String,
    turns: u32,
    response_ids: Vec<String>,
}

/// The open conversations of one proxy run.
#[derive(Debug)]
pub struct Conversations {
    store: ConversationStore,
    upstream: String,
    /// Scrubbed from every line of every conversation (the proxy's token).
    secrets: Vec<String>,
    open: Mutex<(usize, Vec<Open>)>,
}

impl Conversations {
    pub fn new(store: ConversationStore, upstream: String, secrets: Vec<String>) -> Self {
        Self {
            store,
            upstream,
            secrets,
            open: Mutex::new((0, Vec::new())),
        }
    }

    pub fn store(&self) -> &ConversationStore {
        &self.store
    }

    /// Finds or starts the conversation of a request and records the request as its next turn.
    /// `keys` are the credentials the request carried: never written.
    pub fn begin(
        &self,
        wire: Wire,
        body: &Value,
        keys: &[String],
    ) -> Result<TurnSlot, ConversationError> {
        let transcript = transcript(wire, body);
        let first_user = first_user_message(&transcript);
        let mut open = self.lock();
        let found = find(&open.1, wire, body, &transcript, &first_user);
        let index = match found {
            Some(index) => index,
            None => {
                let mut secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
                secrets.extend(keys.iter().map(String::as_str));
                let log = Arc::new(self.store.create(&secrets)?);
                let model = ModelInfo {
                    wire: native_protocol(wire).to_owned(),
                    base_url: self.upstream.clone(),
                    model: model_of(body),
                    native_protocol: native_protocol(wire).to_owned(),
                };
                log.append(Record::Proxied {
                    id: log.id().to_owned(),
                    started_at_ms: chrono::Utc::now().timestamp_millis(),
                    first_message: shorten(&first_user),
                    model,
                    upstream: self.upstream.clone(),
                    tools: tool_names(body),
                })?;
                open.0 += 1;
                let serial = open.0;
                if open.1.len() >= OPEN_LIMIT {
                    open.1.remove(0);
                }
                open.1.push(Open {
                    serial,
                    log,
                    wire,
                    transcript: Vec::new(),
                    first_user: first_user.clone(),
                    turns: 0,
                    response_ids: Vec::new(),
                });
                open.1.len() - 1
            }
        };
        // The conversation used last moves to the back: it is let go last.
        let mut conversation = open.1.remove(index);
        conversation.turns += 1;
        conversation.transcript = transcript;
        let slot = TurnSlot {
            log: conversation.log.clone(),
            turn: conversation.turns,
            wire,
            model: model_of(body),
            conversation: conversation.serial,
        };
        open.1.push(conversation);
        drop(open);
        slot.log.append(Record::Request {
            turn: slot.turn,
            body: body.clone(),
        })?;
        Ok(slot)
    }

    /// A Responses reply's id, so a later `previous_response_id` finds its conversation.
    pub fn note_response_id(&self, slot: &TurnSlot, id: String) {
        let mut open = self.lock();
        if let Some(conversation) = open.1.iter_mut().find(|c| c.serial == slot.conversation) {
            conversation.response_ids.push(id);
        }
    }

    fn lock(&self) -> MutexGuard<'_, (usize, Vec<Open>)> {
        // A panic while matching leaves nothing half-written: the list is still usable.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn find(
    open: &[Open],
    wire: Wire,
    body: &Value,
    transcript: &[Value],
    first_user: &str,
) -> Option<usize> {
    if let Some(previous) = body["previous_response_id"].as_str() {
        if let Some(index) = open
            .iter()
            .position(|c| c.response_ids.iter().any(|id| id == previous))
        {
            return Some(index);
        }
    }
    let same_wire = |c: &&Open| c.wire == wire && c.transcript.len() < transcript.len();
    let prefix = open
        .iter()
        .enumerate()
        .filter(|(_, c)| same_wire(c) && transcript.starts_with(&c.transcript))
        .max_by_key(|(_, c)| c.transcript.len())
        .map(|(index, _)| index);
    prefix.or_else(|| {
        open.iter()
            .enumerate()
            .rev()
            .find(|(_, c)| same_wire(c) && !first_user.is_empty() && c.first_user == first_user)
            .map(|(index, _)| index)
    })
}

/// The messages a request carries, in order, as one list per wire.
fn transcript(wire: Wire, body: &Value) -> Vec<Value> {
    let mut items = Vec::new();
    match wire {
        Wire::Anthropic => {
            if !body["system"].is_null() {
                items.push(serde_json::json!({"role": "system", "content": body["system"]}));
            }
            items.extend(body["messages"].as_array().cloned().unwrap_or_default());
        }
        Wire::OpenAiResponses => {
            if let Some(instructions) = body["instructions"].as_str() {
                items.push(serde_json::json!({"role": "system", "content": instructions}));
            }
            match &body["input"] {
                Value::Array(input) => items.extend(input.iter().cloned()),
                Value::String(text) => {
                    items.push(serde_json::json!({"role": "user", "content": text}));
                }
                _ => {}
            }
        }
        Wire::OpenAiChat | Wire::Gemini => {
            items.extend(body["messages"].as_array().cloned().unwrap_or_default());
        }
    }
    items
}

/// The text of the first user message (its text parts joined when it has several).
fn first_user_message(transcript: &[Value]) -> String {
    let Some(message) = transcript.iter().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let short: String = chars.by_ref().take(FIRST_MESSAGE_CHARS).collect();
    if chars.next().is_some() {
        format!("{short}…")
    } else {
        short
    }
}

/// The names of the tools a request offers (`tools[].function.name` on Chat, `tools[].name`
/// on Messages and Responses).
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|tool| {
            tool["function"]["name"]
                .as_str()
                .or_else(|| tool["name"].as_str())
        })
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolscope_engine::agent::record::LoadedConversation;

    fn conversations(dir: &std::path::Path) -> Conversations {
        Conversations::new(
            ConversationStore::new(dir),
            "http://127.0.0.1:9/v1".to_owned(),
            vec!["proxy-token".to_owned()],
        )
    }

    fn chat(messages: Value) -> Value {
        json!({"model": "m", "messages": messages, "tools": [{"type": "function", "function": {"name": "get_weather"}}]})
    }

    #[test]
    fn a_growing_transcript_is_one_conversation_and_a_new_task_another() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conversations = conversations(dir.path());
        let first = json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "Weather in Oslo?"}]);
        let one = conversations
            .begin(
                Wire::OpenAiChat,
                &chat(first.clone()),
                &["sk-agent".to_owned()],
            )
            .expect("turn 1");
        let mut second = first.as_array().cloned().expect("array");
        second.push(json!({"role": "assistant", "tool_calls": [{"id": "c1"}]}));
        second.push(json!({"role": "tool", "tool_call_id": "c1", "content": "sunny sk-agent"}));
        let two = conversations
            .begin(Wire::OpenAiChat, &chat(Value::Array(second)), &[])
            .expect("turn 2");
        assert_eq!((one.log.id(), one.turn), (two.log.id(), 1));
        assert_eq!(two.turn, 2);
        // The same first message again, not longer: a new conversation.
        let again = conversations
            .begin(Wire::OpenAiChat, &chat(first), &[])
            .expect("new");
        assert_ne!(again.log.id(), one.log.id());
        let loaded: LoadedConversation = conversations.store().load(one.log.id()).expect("load");
        let kinds: Vec<String> = loaded
            .records
            .iter()
            .map(|r| serde_json::to_value(&r.record).expect("json")["type"].to_string())
            .collect();
        assert_eq!(kinds, ["\"proxied\"", "\"request\"", "\"request\""]);
        let text = std::fs::read_to_string(one.log.path()).expect("file");
        assert!(
            !text.contains("sk-agent"),
            "the agent's key is masked: {text}"
        );
        let summary = toolscope_engine::agent::record::summarise(&loaded).expect("summary");
        assert!(summary.proxied);
        assert_eq!(summary.task, "Weather in Oslo?");
        assert_eq!(summary.turns, 2);
    }

    #[test]
    fn a_previous_response_id_or_the_same_first_message_continues_a_conversation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let conversations = conversations(dir.path());
        let first = conversations
            .begin(
                Wire::OpenAiResponses,
                &json!({"model": "m", "input": "Plan a trip"}),
                &[],
            )
            .expect("turn 1");
        conversations.note_response_id(&first, "resp_1".to_owned());
        let next = json!({"model": "m", "previous_response_id": "resp_1", "input": [{"type": "function_call_output", "call_id": "c", "output": "ok"}]});
        let second = conversations
            .begin(Wire::OpenAiResponses, &next, &[])
            .expect("turn 2");
        assert_eq!((second.log.id(), second.turn), (first.log.id(), 2));
        // A rewritten system prompt, same first user message, longer transcript.
        let a = conversations
            .begin(
                Wire::Anthropic,
                &json!({"model": "c", "system": "time 10:00", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}),
                &[],
            )
            .expect("a1");
        let b = conversations
            .begin(
                Wire::Anthropic,
                &json!({"model": "c", "system": "time 10:01", "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                    {"role": "assistant", "content": "Hello"},
                    {"role": "user", "content": "More"}]}),
                &[],
            )
            .expect("a2");
        assert_eq!((b.log.id(), b.turn), (a.log.id(), 2));
    }
}
