//! Gemini `streamGenerateContent` streams (`?alt=sse`): every SSE `data` is a whole
//! `GenerateContentResponse`, the same object the non-streaming call returns, holding only the
//! newest piece of the reply.
//!
//! Shapes this reader follows (checked against the Gemini API reference's pages on streaming
//! and function calling, the js-genai type docs for `usageMetadata` and `promptFeedback`, and
//! recorded chunks in other clients' test fixtures):
//!
//! - `candidates[0].content.parts[]`: a part with `text` is visible text, unless it also has
//!   `thought: true`, which makes it a thought summary (reasoning). A part with `functionCall
//!   {name, args, id?}` is a whole call: Gemini never splits a call's arguments across chunks,
//!   and `args` is a JSON object, not a text. The reader still emits `CallStarted` and one
//!   `CallArguments` holding `args` serialised, so the reply looks like every other vendor's.
//!   Calls usually have no `id`; the reader names them `call_{n}` by their number in the reply,
//!   which is stable for one reply. A call's `thoughtSignature` is kept with it
//!   (`CallSignature`) and sent back with the call in the next request: thinking models refuse
//!   a follow-up turn whose calls lost it. Other part kinds (inline data, code execution) are
//!   not assembled.
//! - `candidates[0].finishReason` (`STOP`, `MAX_TOKENS`, `SAFETY`, `MALFORMED_FUNCTION_CALL`,
//!   ...) is passed on unchanged as `Finished`. Gemini says `STOP` even when the reply is calls.
//! - There is no `[DONE]`: the stream ends when the connection closes, so a reply without a
//!   finish reason by then was cut (the client decides that).
//! - `usageMetadata` comes with many chunks, each repeating the running totals. Only the counts
//!   known once the reply finished are reported. `candidatesTokenCount` leaves out the thinking
//!   tokens (`thoughtsTokenCount`), which are generated and billed like output, so
//!   `output_tokens` is their sum: the same meaning as the other vendors' output count, which
//!   includes reasoning.
//! - `promptFeedback.blockReason` with no candidates: the prompt itself was refused and no reply
//!   will come; that is an error, not an empty reply.
//! - An `{"error": {code, message, status}}` object in place of a chunk ends the stream with
//!   that error.

use serde_json::Value;

use crate::error::{endpoint_error, parse_chunk, StreamError};
use crate::reply::{ReplyEvent, Usage};

/// Reads one Gemini stream; counts its calls and keeps the running usage.
#[derive(Debug, Default)]
pub struct GenerateStream {
    calls: usize,
    finished: bool,
}

impl GenerateStream {
    /// Reads one SSE event's data. Always `Ok(true)` when it is readable: only the closed
    /// connection ends a Gemini stream.
    pub fn read_event(
        &mut self,
        data: &str,
        events: &mut Vec<ReplyEvent>,
    ) -> Result<bool, StreamError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(true);
        }
        match parse_chunk(data)? {
            // The JSON-array framing (without `alt=sse`) puts several responses in one value.
            Value::Array(responses) => {
                for response in &responses {
                    self.read_response(response, events)?;
                }
            }
            response => self.read_response(&response, events)?,
        }
        Ok(true)
    }

    fn read_response(
        &mut self,
        response: &Value,
        events: &mut Vec<ReplyEvent>,
    ) -> Result<(), StreamError> {
        if let Some(error) = endpoint_error(response) {
            return Err(error);
        }
        let candidate = response["candidates"].as_array().and_then(|c| c.first());
        if let Some(reason) = response["promptFeedback"]["blockReason"].as_str() {
            if candidate.is_none() {
                return Err(StreamError::Blocked {
                    reason: reason.to_owned(),
                });
            }
        }
        if let Some(candidate) = candidate {
            for part in candidate["content"]["parts"]
                .as_array()
                .into_iter()
                .flatten()
            {
                self.read_part(part, events);
            }
            if let Some(reason) = candidate["finishReason"].as_str() {
                self.finished = true;
                events.push(ReplyEvent::Finished {
                    reason: reason.to_owned(),
                });
            }
        }
        if self.finished {
            if let Some(usage) = usage(&response["usageMetadata"]) {
                events.push(ReplyEvent::Usage { usage });
            }
        }
        Ok(())
    }

    fn read_part(&mut self, part: &Value, events: &mut Vec<ReplyEvent>) {
        if let Some(call) = part.get("functionCall") {
            let index = self.calls;
            self.calls += 1;
            let id = call["id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map_or_else(|| format!("call_{index}"), str::to_owned);
            events.push(ReplyEvent::CallStarted {
                index,
                id,
                name: call["name"].as_str().unwrap_or_default().to_owned(),
            });
            // A call without `args` takes no arguments: `{}`, as the other vendors send it.
            let args = match call.get("args") {
                Some(Value::Null) | None => "{}".to_owned(),
                Some(args) => args.to_string(),
            };
            events.push(ReplyEvent::CallArguments {
                index,
                fragment: args,
            });
            if let Some(signature) = part["thoughtSignature"].as_str() {
                events.push(ReplyEvent::CallSignature {
                    index,
                    signature: signature.to_owned(),
                });
            }
            return;
        }
        let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) else {
            return;
        };
        let text = text.to_owned();
        if part["thought"].as_bool() == Some(true) {
            events.push(ReplyEvent::Reasoning { text });
        } else {
            events.push(ReplyEvent::Text { text });
        }
    }
}

/// `usageMetadata`: prompt tokens in, candidate plus thinking tokens out.
fn usage(metadata: &Value) -> Option<Usage> {
    let count = |key: &str| metadata[key].as_u64();
    let input = count("promptTokenCount");
    let output = count("candidatesTokenCount");
    let thoughts = count("thoughtsTokenCount");
    if input.is_none() && output.is_none() && thoughts.is_none() {
        return None;
    }
    Some(Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0) + thoughts.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests;
