//! Reading one event stream: each SSE event through the wire's reader, told to the caller as
//! it arrives, until the endpoint ends the reply, the connection closes, the stream stalls or
//! the caller cancels. A stream that closed before its first event is told apart
//! ([`Read::Silent`]): for Chat Completions it is asked again whole ([`super::whole`]).

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::{ClientError, ClientNotice, Endpoint, Wire};
use crate::anthropic::MessageStream;
use crate::error::StreamError;
use crate::gemini::GenerateStream;
use crate::openai_chat;
use crate::reply::AssembledReply;
use crate::responses::ResponseStream;

/// How an event stream ended.
pub(super) enum Read {
    Done(Result<AssembledReply, ClientError>),
    /// The connection closed (or broke) before a single event arrived.
    Silent,
}

pub(super) async fn read(
    response: reqwest::Response,
    endpoint: &Endpoint,
    cancel: &CancellationToken,
    on: &mut impl FnMut(ClientNotice<'_>),
) -> Read {
    let mut events = response.bytes_stream().eventsource();
    let mut reply = AssembledReply::default();
    let mut anthropic = MessageStream::default();
    let mut responses = ResponseStream::default();
    let mut gemini = GenerateStream::default();
    let mut batch = Vec::new();
    let mut received = 0_usize;
    let done = |result| Read::Done(result);
    loop {
        let next = tokio::select! {
            next = tokio::time::timeout(endpoint.idle_timeout, events.next()) => next,
            () = cancel.cancelled() => return done(Err(ClientError::Cancelled { partial: Box::new(reply) })),
        };
        let event = match next {
            Err(_) => {
                return done(Err(ClientError::Stalled {
                    waited: endpoint.idle_timeout,
                    partial: Box::new(reply),
                }))
            }
            Ok(None) if received == 0 => return Read::Silent,
            Ok(None) => break,
            Ok(Some(Err(eventsource_stream::EventStreamError::Transport(_)))) if received == 0 => {
                return Read::Silent
            }
            // The connection broke mid-body (a chunked stream cut off): what arrived is partial.
            Ok(Some(Err(eventsource_stream::EventStreamError::Transport(_)))) => {
                return done(Err(ClientError::Cut {
                    partial: Box::new(reply),
                }))
            }
            Ok(Some(Err(e))) => {
                return done(Err(ClientError::Stream {
                    error: StreamError::InvalidChunk {
                        reason: e.to_string(),
                        excerpt: String::new(),
                    },
                    partial: Box::new(reply),
                }))
            }
            Ok(Some(Ok(event))) => event,
        };
        received += 1;
        on(ClientNotice::Raw { data: &event.data });
        batch.clear();
        let goes_on = match endpoint.wire {
            Wire::OpenAiChat => openai_chat::read_chunk(&event.data, &mut batch),
            Wire::OpenAiResponses => responses.read_event(&event.data, &mut batch),
            Wire::Anthropic => anthropic.read_event(&event.data, &mut batch),
            Wire::Gemini => gemini.read_event(&event.data, &mut batch),
        };
        for event in &batch {
            reply.apply(event);
            on(ClientNotice::Event(event));
        }
        match goes_on {
            Ok(true) => {}
            Ok(false) => return done(Ok(reply)),
            Err(error) => {
                return done(Err(ClientError::Stream {
                    error,
                    partial: Box::new(reply),
                }))
            }
        }
    }
    // The connection closed. OpenAI-compatible servers that skip `[DONE]` still said how the
    // reply finished, and Gemini always ends this way; without a finish reason, it was cut.
    done(if reply.is_finished() {
        Ok(reply)
    } else {
        Err(ClientError::Cut {
            partial: Box::new(reply),
        })
    })
}
