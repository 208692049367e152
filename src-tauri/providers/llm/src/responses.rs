//! OpenAI Responses API streams: typed events (`response.output_item.added`,
//! `response.output_text.delta`, `response.function_call_arguments.delta`,
//! `response.completed`, ...), each a JSON object whose `type` names it.
//!
//! Output items are numbered by `output_index` across messages, reasoning and function calls;
//! the reply's calls are numbered among calls only, so this reader maps one to the other. A
//! function call item brings its `call_id` and `name` when it is added; its arguments arrive as
//! `delta` fragments. A refused or failed response (`response.failed`, `response.incomplete`,
//! `error`) ends the stream with its reason.

use serde_json::Value;

use crate::error::{endpoint_error, excerpt, parse_chunk, StreamError};
use crate::reply::{CallNumbers, ReplyEvent, Usage};

/// Reads one Responses stream; keeps which output item is which call.
#[derive(Debug, Default)]
pub struct ResponseStream {
    calls: CallNumbers,
}

impl ResponseStream {
    /// Reads one SSE event: `Ok(false)` when the response is complete.
    pub fn read_event(
        &mut self,
        data: &str,
        events: &mut Vec<ReplyEvent>,
    ) -> Result<bool, StreamError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(data.is_empty());
        }
        let event = parse_chunk(data)?;
        let text = |key: &str| event[key].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str().unwrap_or_default() {
            "response.output_item.added" => self.item_added(&event, events),
            "response.output_text.delta" => events.push(ReplyEvent::Text {
                text: text("delta"),
            }),
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                events.push(ReplyEvent::Reasoning {
                    text: text("delta"),
                });
            }
            "response.function_call_arguments.delta" => {
                self.calls
                    .fragment(&event["output_index"], &event["delta"], events);
            }
            "response.completed" => {
                let response = &event["response"];
                let reason = if self.calls.is_empty() {
                    "stop"
                } else {
                    "tool_calls"
                };
                events.push(ReplyEvent::Finished {
                    reason: reason.to_owned(),
                });
                events.extend(usage(response));
                return Ok(false);
            }
            "response.incomplete" => {
                // Cut by max_output_tokens or a content filter: the reply so far is kept.
                let reason = event["response"]["incomplete_details"]["reason"]
                    .as_str()
                    .unwrap_or("incomplete");
                events.push(ReplyEvent::Finished {
                    reason: reason.to_owned(),
                });
                return Ok(false);
            }
            "response.failed" => {
                return Err(
                    endpoint_error(&event["response"]).unwrap_or(StreamError::Endpoint {
                        kind: "failed".to_owned(),
                        message: excerpt(data),
                    }),
                )
            }
            "error" => {
                return Err(StreamError::Endpoint {
                    kind: event["code"].as_str().unwrap_or("error").to_owned(),
                    message: text("message"),
                })
            }
            // created, in_progress, content_part.*, *.done: nothing new to assemble.
            _ => {}
        }
        Ok(true)
    }

    fn item_added(&mut self, event: &Value, events: &mut Vec<ReplyEvent>) {
        let item = &event["item"];
        if item["type"].as_str() != Some("function_call") {
            return;
        }
        let index = self.calls.start(
            &event["output_index"],
            &item["call_id"],
            &item["name"],
            events,
        );
        // Some servers send the whole arguments with the item.
        if let Some(arguments) = item["arguments"].as_str().filter(|a| !a.is_empty()) {
            events.push(ReplyEvent::CallArguments {
                index,
                fragment: arguments.to_owned(),
            });
        }
    }
}

/// Reads a whole (non-streamed) response object: its output items in order (a function
/// call's arguments as one fragment), then a finish reason as [`ResponseStream`] gives one, and
/// the usage. The model proxy records agents that do not stream.
pub fn read_response(data: &str, events: &mut Vec<ReplyEvent>) -> Result<(), StreamError> {
    let response = parse_chunk(data.trim())?;
    if let Some(error) = endpoint_error(&response) {
        return Err(error);
    }
    let mut calls = CallNumbers::default();
    let items = response["output"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, item) in items.iter().enumerate() {
        match item["type"].as_str().unwrap_or_default() {
            "message" => {
                let parts = item["content"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                for part in parts.iter().filter(|p| p["type"] == "output_text") {
                    events.push(ReplyEvent::Text {
                        text: part["text"].as_str().unwrap_or_default().to_owned(),
                    });
                }
            }
            "reasoning" => {
                let parts = item["summary"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                for part in parts {
                    events.push(ReplyEvent::Reasoning {
                        text: part["text"].as_str().unwrap_or_default().to_owned(),
                    });
                }
            }
            "function_call" => {
                let part = Value::from(index);
                calls.start(&part, &item["call_id"], &item["name"], events);
                calls.fragment(&part, &item["arguments"], events);
            }
            _ => {}
        }
    }
    let reason = match response["status"].as_str() {
        Some("incomplete") => response["incomplete_details"]["reason"]
            .as_str()
            .unwrap_or("incomplete"),
        _ if calls.is_empty() => "stop",
        _ => "tool_calls",
    };
    events.push(ReplyEvent::Finished {
        reason: reason.to_owned(),
    });
    events.extend(usage(&response));
    Ok(())
}

/// The usage a response object reports (streamed in `response.completed`, or whole).
fn usage(response: &Value) -> Option<ReplyEvent> {
    let input = response["usage"]["input_tokens"].as_u64()?;
    Some(ReplyEvent::Usage {
        usage: Usage {
            input_tokens: input,
            output_tokens: response["usage"]["output_tokens"].as_u64().unwrap_or(0),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::AssembledReply;

    #[test]
    fn a_response_with_reasoning_text_and_a_function_call_adds_up() {
        let stream = [
            r#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}"#,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1"}}"#,
            r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"delta":"Weather first."}"#,
            r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}"#,
            r#"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"Checking."}"#,
            r#"{"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_9","name":"get_weather","arguments":""}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"city\":"}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"\"Oslo\"}"}"#,
            r#"{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":2,"arguments":"{\"city\":\"Oslo\"}"}"#,
            r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":20,"output_tokens":9}}}"#,
        ];
        let mut reader = ResponseStream::default();
        let mut events = Vec::new();
        let mut ended = false;
        for data in stream {
            ended = !reader.read_event(data, &mut events).expect("valid");
        }
        assert!(ended);
        let mut reply = AssembledReply::default();
        events.iter().for_each(|e| reply.apply(e));
        assert_eq!(reply.reasoning, "Weather first.");
        assert_eq!(reply.text, "Checking.");
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].id, "call_9");
        assert_eq!(reply.calls[0].arguments, "{\"city\":\"Oslo\"}");
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(reply.usage.map(|u| u.output_tokens), Some(9));
    }

    #[test]
    fn a_whole_response_reads_as_its_stream_would() {
        let response = r#"{"id":"resp_1","object":"response","status":"completed","output":[
            {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]},
            {"type":"function_call","call_id":"call_9","name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}],
            "usage":{"input_tokens":20,"output_tokens":9}}"#;
        let mut events = Vec::new();
        read_response(response, &mut events).expect("valid");
        let mut reply = AssembledReply::default();
        events.iter().for_each(|e| reply.apply(e));
        assert_eq!(reply.text, "Checking.");
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].id, "call_9");
        assert_eq!(reply.calls[0].arguments, r#"{"city":"Oslo"}"#);
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(reply.usage.map(|u| u.input_tokens), Some(20));
    }

    #[test]
    fn failed_and_incomplete_responses_say_why() {
        let mut reader = ResponseStream::default();
        let failed = reader
            .read_event(
                r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}"#,
                &mut Vec::new(),
            )
            .expect_err("failed");
        assert_eq!(
            failed.to_string(),
            "the endpoint reported an error mid-stream (server_error): The model failed"
        );
        let mut events = Vec::new();
        let goes_on = reader
            .read_event(
                r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#,
                &mut events,
            )
            .expect("incomplete is an end, not an error");
        assert!(!goes_on);
        assert_eq!(
            events,
            [ReplyEvent::Finished {
                reason: "max_output_tokens".to_owned()
            }]
        );
    }
}
