//! One turn's answer recorded while the agent receives it: the recorder gets a copy of each
//! piece of the body after it was handed to the agent, so the agent's stream is never held up
//! by the recording. SSE events are read by the same readers as the agent loop's (one per
//! wire), each event's data recorded as a `chunk`, the reply assembled; a whole JSON answer is
//! read the same way. At the end the reply is parsed as the Parser pane would (native calls,
//! else calls in whatever format the text is in). A refusal is classified as the agent loop
//! classifies one.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;
use toolscope_engine::agent::model::ModelErrorKind;
use toolscope_engine::agent::native::observed_report;
use toolscope_engine::agent::{AssembledReply, Record, ReplyEvent, TurnTiming};
use toolscope_llm::anthropic::{self, MessageStream};
use toolscope_llm::client::Wire;
use toolscope_llm::model::{native_protocol, refused_kind};
use toolscope_llm::responses::{self, ResponseStream};
use toolscope_llm::{classify, openai_chat, StreamError};
use toolscope_protocol::ProtocolSet;

use super::conversations::{Conversations, TurnSlot};
use super::sse::SseReader;

/// A refusal's body is kept up to this size (an HTML error page can be large).
const MAX_REFUSAL_BODY: usize = 64 * 1024;

/// What the recorder is told about the body, in order.
#[derive(Debug)]
pub enum Piece {
    Bytes(Bytes),
    /// The upstream's body broke off with this error.
    Broken(String),
    /// The upstream's body ended and the agent received all of it.
    End,
}

/// How the answer began.
#[derive(Debug, Clone)]
pub struct Head {
    pub status: u16,
    pub content_type: String,
    pub retry_after: Option<String>,
}

/// What a turn's recording needs besides its body.
pub struct TurnRecording {
    pub slot: TurnSlot,
    pub head: Head,
    pub sent: Instant,
    pub conversations: Arc<Conversations>,
    pub protocols: Arc<ProtocolSet>,
    /// Told about every record that could not be written.
    pub on_error: Arc<dyn Fn(String) + Send + Sync>,
}

impl TurnRecording {
    /// Reads the copies of the body until the forwarding side lets go, recording as it goes.
    pub async fn run(self, mut pieces: UnboundedReceiver<Piece>) {
        let mut body = Vec::new();
        let mut ending = Ending::AgentLeft;
        let mut reader = Reader::new(self.slot.wire);
        let mut sse = SseReader::default();
        let streamed = self.head.content_type.starts_with("text/event-stream");
        let refused = self.head.status >= 400;
        let mut events = Vec::new();
        while let Some(piece) = pieces.recv().await {
            match piece {
                Piece::Bytes(bytes) if streamed && !refused => {
                    sse.push(&bytes, &mut events);
                    for data in events.drain(..) {
                        self.event(&mut reader, data);
                    }
                }
                Piece::Bytes(bytes) => {
                    if body.len() < MAX_BODY {
                        body.extend_from_slice(&bytes);
                    }
                }
                Piece::Broken(error) => ending = Ending::Broken(error),
                Piece::End => ending = Ending::Whole,
            }
        }
        if streamed && !refused {
            sse.finish(&mut events);
            for data in events.drain(..) {
                self.event(&mut reader, data);
            }
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        if refused {
            self.refusal(&text);
            return;
        }
        if !streamed {
            if self.head.content_type.contains("json") || text.trim_start().starts_with('{') {
                self.whole(&mut reader, text);
            } else if !text.is_empty() {
                self.record(Record::Chunk {
                    turn: self.slot.turn,
                    data: text,
                });
            }
        }
        self.finish(reader, ending);
    }

    fn event(&self, reader: &mut Reader, data: String) {
        if self.slot.wire == Wire::OpenAiResponses {
            self.note_response_id(&data, |event| &event["response"]["id"]);
        }
        let elapsed = self.sent.elapsed().as_secs_f64() * 1000.0;
        reader.read(&data, elapsed);
        self.record(Record::Chunk {
            turn: self.slot.turn,
            data,
        });
    }

    fn whole(&self, reader: &mut Reader, text: String) {
        if self.slot.wire == Wire::OpenAiResponses {
            self.note_response_id(&text, |document| &document["id"]);
        }
        let elapsed = self.sent.elapsed().as_secs_f64() * 1000.0;
        reader.read_whole(&text, elapsed);
        self.record(Record::Chunk {
            turn: self.slot.turn,
            data: text,
        });
    }

    fn note_response_id(&self, data: &str, id: impl Fn(&Value) -> &Value) {
        if let Ok(value) = serde_json::from_str::<Value>(data) {
            if let Some(found) = id(&value).as_str() {
                self.conversations
                    .note_response_id(&self.slot, found.to_owned());
            }
        }
    }

    fn refusal(&self, body: &str) {
        let body: String = body.chars().take(MAX_REFUSAL_BODY).collect();
        let refusal = classify(
            self.head.status,
            self.head.retry_after.as_deref(),
            &body,
            &self.slot.model,
        );
        self.record(Record::ModelFailed {
            turn: self.slot.turn,
            kind: refused_kind(&refusal),
            message: refusal.to_string(),
        });
    }

    fn finish(self, reader: Reader, ending: Ending) {
        let Reader {
            reply,
            mut timing,
            failure,
            ended,
            ..
        } = reader;
        timing.total_ms = self.sent.elapsed().as_secs_f64() * 1000.0;
        let failure = failure.or_else(|| match ending {
            Ending::Broken(error) => Some((
                ModelErrorKind::Cut,
                format!("the upstream's answer broke off: {error}"),
            )),
            // An agent may hang up as soon as it has the finish reason, before the wire's last
            // marker (`[DONE]`) or the end of the body: it had the whole answer.
            Ending::AgentLeft if !ended && !reply.is_finished() => Some((
                ModelErrorKind::Cancelled,
                "the agent closed the connection before the answer ended".to_owned(),
            )),
            Ending::AgentLeft => None,
            Ending::Whole if !ended && !reply.is_finished() => Some((
                ModelErrorKind::Cut,
                "the answer ended before the endpoint finished the reply".to_owned(),
            )),
            Ending::Whole => None,
        });
        let report = observed_report(&self.protocols, native_protocol(self.slot.wire), &reply);
        let turn = self.slot.turn;
        self.record(Record::Reply {
            turn,
            reply,
            timing,
        });
        self.record(Record::Parsed { turn, report });
        if let Some((kind, message)) = failure {
            self.record(Record::ModelFailed {
                turn,
                kind,
                message,
            });
        }
    }

    fn record(&self, record: Record) {
        if let Err(error) = self.slot.log.append(record) {
            (self.on_error)(error.to_string());
        }
    }
}

/// How the body's copies stopped.
enum Ending {
    Whole,
    Broken(String),
    /// The copies stopped without an end: the agent hung up and the body was dropped.
    AgentLeft,
}

/// A whole answer is kept up to this size for reading.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// The wire's reader, and the reply it assembles.
struct Reader {
    wire: Wire,
    anthropic: MessageStream,
    responses: ResponseStream,
    reply: AssembledReply,
    timing: TurnTiming,
    failure: Option<(ModelErrorKind, String)>,
    /// The wire said the reply is over (`[DONE]`, `message_stop`, `response.completed`).
    ended: bool,
    batch: Vec<ReplyEvent>,
}

impl Reader {
    fn new(wire: Wire) -> Self {
        Self {
            wire,
            anthropic: MessageStream::default(),
            responses: ResponseStream::default(),
            reply: AssembledReply::default(),
            timing: TurnTiming::default(),
            failure: None,
            ended: false,
            batch: Vec::new(),
        }
    }

    fn read(&mut self, data: &str, elapsed_ms: f64) {
        if self.failure.is_some() {
            return;
        }
        self.batch.clear();
        let goes_on = match self.wire {
            Wire::OpenAiChat => openai_chat::read_chunk(data, &mut self.batch),
            Wire::OpenAiResponses => self.responses.read_event(data, &mut self.batch),
            Wire::Anthropic => self.anthropic.read_event(data, &mut self.batch),
            // The proxy does not route Gemini's paths.
            Wire::Gemini => Ok(true),
        };
        self.apply(elapsed_ms);
        match goes_on {
            Ok(true) => {}
            Ok(false) => self.ended = true,
            Err(error) => self.fail(&error),
        }
    }

    fn read_whole(&mut self, text: &str, elapsed_ms: f64) {
        self.batch.clear();
        let read = match self.wire {
            Wire::OpenAiChat => openai_chat::read_completion(text, &mut self.batch),
            Wire::OpenAiResponses => responses::read_response(text, &mut self.batch),
            Wire::Anthropic => anthropic::read_message(text, &mut self.batch),
            Wire::Gemini => Ok(()),
        };
        self.apply(elapsed_ms);
        self.ended = true;
        if let Err(error) = read {
            self.fail(&error);
        }
    }

    fn apply(&mut self, elapsed_ms: f64) {
        for event in &self.batch {
            match event {
                ReplyEvent::Text { .. } | ReplyEvent::Reasoning { .. } => {
                    self.timing.first_token_ms.get_or_insert(elapsed_ms);
                }
                ReplyEvent::CallStarted { .. } => {
                    self.timing.first_token_ms.get_or_insert(elapsed_ms);
                    self.timing.first_call_ms.get_or_insert(elapsed_ms);
                }
                _ => {}
            }
            self.reply.apply(event);
        }
    }

    fn fail(&mut self, error: &StreamError) {
        self.failure = Some((ModelErrorKind::Stream, error.to_string()));
    }
}
