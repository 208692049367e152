//! One model request of a conversation: the streamed reply told to the observer and the
//! record as it arrives (prompted replies through the format's streaming parser), then read.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::model::{ModelRequest, StreamItem};
use super::record::Record;
use super::reply::{AssembledReply, ReplyEvent};
use super::{native, AgentEvent, TurnTiming};
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::stream::ToolCallStream;
use toolscope_protocol::Protocol;

use super::run::{Agent, RunState};

impl Agent<'_> {
    /// Sends one request and streams its reply to the observer and the record.
    pub(super) async fn stream_turn(
        &self,
        turn: u32,
        request: ModelRequest<'_>,
        prompted: Option<&Arc<dyn Protocol>>,
        cancel: &CancellationToken,
    ) -> (
        Result<AssembledReply, super::ModelError>,
        TurnTiming,
        Vec<String>,
    ) {
        let sent = Instant::now();
        let mut timing = TurnTiming::default();
        let mut stream = prompted.map(|p| ToolCallStream::new(Arc::clone(p)));
        let mut parsed = Vec::new();
        let mut record_errors = Vec::new();
        let observer = self.observer;
        let log = self.log;
        let mut on_item = |item: StreamItem<'_>| {
            let record = match item {
                StreamItem::Sent { body } => Some(Record::Request {
                    turn,
                    body: body.clone(),
                }),
                StreamItem::Raw { data } => Some(Record::Chunk {
                    turn,
                    data: data.to_owned(),
                }),
                StreamItem::Retry {
                    attempt,
                    of,
                    wait_ms,
                    reason,
                } => {
                    observer(&AgentEvent::Retry {
                        turn,
                        attempt,
                        of,
                        wait_ms,
                        reason: reason.to_owned(),
                    });
                    Some(Record::Retry {
                        turn,
                        attempt,
                        of,
                        wait_ms,
                        reason: reason.to_owned(),
                    })
                }
                StreamItem::Event(event) => {
                    let now = sent.elapsed().as_secs_f64() * 1000.0;
                    match event {
                        ReplyEvent::Text { .. } | ReplyEvent::Reasoning { .. } => {
                            timing.first_token_ms.get_or_insert(now);
                        }
                        ReplyEvent::CallStarted { .. } => {
                            timing.first_token_ms.get_or_insert(now);
                            timing.first_call_ms.get_or_insert(now);
                        }
                        _ => {}
                    }
                    observer(&AgentEvent::Reply {
                        turn,
                        event: event.clone(),
                    });
                    if let (Some(stream), ReplyEvent::Text { text }) = (stream.as_mut(), event) {
                        parsed.clear();
                        stream.push(text, &mut parsed);
                        for event in parsed.drain(..) {
                            if matches!(event, toolscope_protocol::stream::StreamEvent::Call { .. })
                            {
                                timing.first_call_ms.get_or_insert(now);
                            }
                            observer(&AgentEvent::Parse { turn, event });
                        }
                    }
                    None
                }
            };
            if let (Some(log), Some(record)) = (log, record) {
                if let Err(e) = log.append(record) {
                    record_errors.push(e.to_string());
                }
            }
        };
        let outcome = self.model.send(request, cancel, &mut on_item).await;
        if let Some(stream) = stream.as_mut() {
            let mut rest = Vec::new();
            stream.finish(&mut rest);
            for event in rest {
                (self.observer)(&AgentEvent::Parse { turn, event });
            }
        }
        timing.total_ms = sent.elapsed().as_secs_f64() * 1000.0;
        (outcome, timing, record_errors)
    }

    pub(super) fn report(
        &self,
        reply: &AssembledReply,
        prompted: Option<&Arc<dyn Protocol>>,
        native_protocol: &str,
    ) -> ParseReport {
        match prompted {
            Some(protocol) => parser::parse_with(protocol.as_ref(), &reply.text),
            None => native::report(self.protocols, native_protocol, reply),
        }
    }

    pub(super) fn finish_turn_record(
        &self,
        run: &mut RunState,
        turn: u32,
        reply: AssembledReply,
        report: ParseReport,
        timing: TurnTiming,
    ) {
        (self.observer)(&AgentEvent::TurnParsed {
            turn,
            reply: reply.clone(),
            report: report.clone(),
            timing,
        });
        self.record(
            run,
            Record::Reply {
                turn,
                reply,
                timing,
            },
        );
        self.record(run, Record::Parsed { turn, report });
    }
}
