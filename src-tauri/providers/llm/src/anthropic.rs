//! Anthropic Messages streams: named events (`message_start`, `content_block_start`,
//! `content_block_delta`, `content_block_stop`, `message_delta`, `message_stop`, `ping`,
//! `error`), each with a JSON `data` that repeats its type.
//!
//! Content blocks are numbered by `index` across text, thinking and tool use, while the reply's
//! calls are numbered among calls only: this reader keeps that mapping, so a tool call that is
//! the second block is call 0. A `tool_use` block's input arrives as `input_json_delta`
//! fragments of a JSON text; `content_block_start` carries `input: {}`, which is not part of
//! that text and is left out.

use serde_json::Value;

use crate::error::{endpoint_error, excerpt, parse_chunk, StreamError};
use crate::reply::{CallNumbers, ReplyEvent, Usage};

/// Reads one stream of events; keeps which content block is which call.
#[derive(Debug, Default)]
pub struct MessageStream {
    calls: CallNumbers,
    input_tokens: u64,
}

impl MessageStream {
    /// Reads one SSE event: `Ok(false)` at the end (`message_stop`).
    pub fn read_event(
        &mut self,
        data: &str,
        events: &mut Vec<ReplyEvent>,
    ) -> Result<bool, StreamError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(true);
        }
        let event = parse_chunk(data)?;
        match event["type"].as_str().unwrap_or_default() {
            "error" => {
                return Err(endpoint_error(&event).unwrap_or(StreamError::Endpoint {
                    kind: "error".to_owned(),
                    message: excerpt(data),
                }))
            }
            "message_start" => {
                self.input_tokens = event["message"]["usage"]["input_tokens"]
                    .as_u64()
                    .unwrap_or(0);
            }
            "content_block_start" => self.block_start(&event, events),
            "content_block_delta" => self.block_delta(&event, events),
            "message_delta" => {
                if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                    events.push(ReplyEvent::Finished {
                        reason: reason.to_owned(),
                    });
                }
                if let Some(output) = event["usage"]["output_tokens"].as_u64() {
                    events.push(ReplyEvent::Usage {
                        usage: Usage {
                            input_tokens: self.input_tokens,
                            output_tokens: output,
                        },
                    });
                }
            }
            "message_stop" => return Ok(false),
            // ping, content_block_stop, and event types added later: nothing to assemble.
            _ => {}
        }
        Ok(true)
    }

    fn block_start(&mut self, event: &Value, events: &mut Vec<ReplyEvent>) {
        let block = &event["content_block"];
        let text_of = |key: &str| {
            block[key]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        match block["type"].as_str().unwrap_or_default() {
            "tool_use" => {
                self.calls
                    .start(&event["index"], &block["id"], &block["name"], events);
            }
            "text" => events.extend(text_of("text").map(|text| ReplyEvent::Text { text })),
            "thinking" => {
                events.extend(text_of("thinking").map(|text| ReplyEvent::Reasoning { text }));
            }
            _ => {}
        }
    }

    fn block_delta(&mut self, event: &Value, events: &mut Vec<ReplyEvent>) {
        let delta = &event["delta"];
        let text = |key: &str| delta[key].as_str().unwrap_or_default().to_owned();
        match delta["type"].as_str().unwrap_or_default() {
            "text_delta" => events.push(ReplyEvent::Text { text: text("text") }),
            "thinking_delta" => events.push(ReplyEvent::Reasoning {
                text: text("thinking"),
            }),
            "input_json_delta" => {
                self.calls
                    .fragment(&event["index"], &delta["partial_json"], events);
            }
            // signature_delta, citations_delta: nothing to assemble.
            _ => {}
        }
    }
}

/// Reads a whole (non-streamed) Messages response: each content block as the stream would have
/// brought it (a tool call's `input` as one fragment of its JSON text), then the stop reason and
/// the usage. The model proxy records agents that do not stream.
pub fn read_message(data: &str, events: &mut Vec<ReplyEvent>) -> Result<(), StreamError> {
    let message = parse_chunk(data.trim())?;
    if message["type"].as_str() == Some("error") {
        return Err(endpoint_error(&message).unwrap_or(StreamError::Endpoint {
            kind: "error".to_owned(),
            message: excerpt(data),
        }));
    }
    let mut calls = CallNumbers::default();
    let blocks = message["content"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, block) in blocks.iter().enumerate() {
        let text = |key: &str| block[key].as_str().unwrap_or_default().to_owned();
        match block["type"].as_str().unwrap_or_default() {
            "text" => events.push(ReplyEvent::Text { text: text("text") }),
            "thinking" => events.push(ReplyEvent::Reasoning {
                text: text("thinking"),
            }),
            "tool_use" => {
                let part = Value::from(index);
                calls.start(&part, &block["id"], &block["name"], events);
                calls.fragment(&part, &Value::String(block["input"].to_string()), events);
            }
            _ => {}
        }
    }
    if let Some(reason) = message["stop_reason"].as_str() {
        events.push(ReplyEvent::Finished {
            reason: reason.to_owned(),
        });
    }
    if let Some(input) = message["usage"]["input_tokens"].as_u64() {
        events.push(ReplyEvent::Usage {
            usage: Usage {
                input_tokens: input,
                output_tokens: message["usage"]["output_tokens"].as_u64().unwrap_or(0),
            },
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::AssembledReply;

    #[test]
    fn a_streamed_message_with_text_thinking_and_a_tool_call_adds_up() {
        let stream = [
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":472,"output_tokens":2}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Need weather."}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type": "ping"}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking."}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ncisco, CA\"}"}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut reader = MessageStream::default();
        let mut events = Vec::new();
        let mut ended = false;
        for data in stream {
            ended = !reader.read_event(data, &mut events).expect("valid");
        }
        assert!(ended);
        let mut reply = AssembledReply::default();
        events.iter().for_each(|e| reply.apply(e));
        assert_eq!(reply.reasoning, "Need weather.");
        assert_eq!(reply.text, "Checking.");
        assert_eq!(reply.calls.len(), 1, "block 2 is call 0");
        assert_eq!(reply.calls[0].name, "get_weather");
        assert_eq!(
            reply.calls[0].arguments,
            "{\"location\": \"San Francisco, CA\"}"
        );
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            reply.usage,
            Some(Usage {
                input_tokens: 472,
                output_tokens: 89
            })
        );
    }

    #[test]
    fn a_whole_message_reads_as_its_stream_would() {
        let message = r#"{"id":"msg_1","type":"message","role":"assistant","content":[
            {"type":"text","text":"Checking."},
            {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Oslo"}}],
            "stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":7}}"#;
        let mut events = Vec::new();
        read_message(message, &mut events).expect("valid");
        let mut reply = AssembledReply::default();
        events.iter().for_each(|e| reply.apply(e));
        assert_eq!(reply.text, "Checking.");
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].id, "toolu_1");
        assert_eq!(reply.calls[0].arguments, r#"{"location":"Oslo"}"#);
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(reply.usage.map(|u| u.output_tokens), Some(7));
    }

    #[test]
    fn an_error_event_is_an_error() {
        let error = MessageStream::default()
            .read_event(
                r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
                &mut Vec::new(),
            )
            .expect_err("error event");
        assert_eq!(
            error,
            StreamError::Endpoint {
                kind: "overloaded_error".to_owned(),
                message: "Overloaded".to_owned()
            }
        );
    }
}
