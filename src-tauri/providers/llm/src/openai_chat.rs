//! OpenAI Chat Completions streams (and every server that copies them: vLLM, SGLang,
//! llama.cpp's server, Ollama, LM Studio): `data: {"choices": [{"delta": …}]}` chunks, then
//! `data: [DONE]`.
//!
//! A tool call arrives in pieces keyed by `index`: the first piece carries `id` and
//! `function.name`, later ones append to `function.arguments` (a JSON text cut anywhere, even
//! inside an escape). Servers differ in small ways this reader accepts: the name repeated in
//! later pieces, `reasoning_content` or `reasoning` for thinking, usage in a last chunk with no
//! choices (`stream_options.include_usage`), an `{"error": …}` chunk in place of a delta.
//! A reply that arrives whole ([`read_completion`], see `client::whole`) is read as one delta.

use serde_json::Value;

use crate::error::{endpoint_error, excerpt, parse_chunk, StreamError};
use crate::reply::{ReplyEvent, Usage};

/// Reads one SSE event's data: `Ok(false)` at the end (`[DONE]`). Only the first choice is
/// read (the loop asks for one).
pub fn read_chunk(data: &str, events: &mut Vec<ReplyEvent>) -> Result<bool, StreamError> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(false);
    }
    if data.is_empty() {
        return Ok(true);
    }
    let chunk = parse_chunk(data)?;
    if let Some(error) = endpoint_error(&chunk) {
        return Err(error);
    }
    if let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) {
        read_delta(&choice["delta"], events);
        if let Some(reason) = choice["finish_reason"].as_str() {
            events.push(ReplyEvent::Finished {
                reason: reason.to_owned(),
            });
        }
    }
    if let Some(usage) = usage(&chunk["usage"]) {
        events.push(ReplyEvent::Usage { usage });
    }
    Ok(true)
}

/// Reads a whole (non-streamed) `chat.completion` document: the first choice's `message` is
/// read as one delta carrying everything, then its finish reason and the usage.
pub fn read_completion(data: &str, events: &mut Vec<ReplyEvent>) -> Result<(), StreamError> {
    let completion = parse_chunk(data.trim())?;
    if let Some(error) = endpoint_error(&completion) {
        return Err(error);
    }
    let Some(choice) = completion["choices"].as_array().and_then(|c| c.first()) else {
        return Err(StreamError::InvalidChunk {
            reason: "a completion without choices".to_owned(),
            excerpt: excerpt(data),
        });
    };
    read_delta(&choice["message"], events);
    if let Some(reason) = choice["finish_reason"].as_str() {
        events.push(ReplyEvent::Finished {
            reason: reason.to_owned(),
        });
    }
    if let Some(usage) = usage(&completion["usage"]) {
        events.push(ReplyEvent::Usage { usage });
    }
    Ok(())
}

fn read_delta(delta: &Value, events: &mut Vec<ReplyEvent>) {
    for key in ["reasoning_content", "reasoning"] {
        if let Some(text) = delta[key].as_str().filter(|t| !t.is_empty()) {
            events.push(ReplyEvent::Reasoning {
                text: text.to_owned(),
            });
            break;
        }
    }
    if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
        events.push(ReplyEvent::Text {
            text: text.to_owned(),
        });
    }
    for (position, call) in delta["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        // Some servers leave out `index` when they send whole calls: their position stands in.
        let index = call["index"]
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(position);
        let id = call["id"].as_str().unwrap_or_default();
        let name = call["function"]["name"].as_str().unwrap_or_default();
        if !id.is_empty() || !name.is_empty() {
            events.push(ReplyEvent::CallStarted {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
            });
        }
        let arguments = &call["function"]["arguments"];
        let fragment = match arguments {
            Value::String(text) => text.clone(),
            // A server that sends the arguments as an object (not the spec, but seen).
            Value::Object(_) => arguments.to_string(),
            _ => String::new(),
        };
        if !fragment.is_empty() {
            events.push(ReplyEvent::CallArguments { index, fragment });
        }
    }
}

fn usage(value: &Value) -> Option<Usage> {
    let input = value["prompt_tokens"].as_u64()?;
    Some(Usage {
        input_tokens: input,
        output_tokens: value["completion_tokens"].as_u64().unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::AssembledReply;

    fn assemble(chunks: &[&str]) -> (AssembledReply, bool) {
        let mut reply = AssembledReply::default();
        let mut events = Vec::new();
        let mut done = false;
        for chunk in chunks {
            done |= !read_chunk(chunk, &mut events).expect("valid chunk");
        }
        for event in &events {
            reply.apply(event);
        }
        (reply, done)
    }

    #[test]
    fn tool_call_deltas_split_anywhere_add_up_to_the_call() {
        let (reply, done) = assemble(&[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Par"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"is \\u00e9\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":31,"completion_tokens":12,"total_tokens":43}}"#,
            "[DONE]",
        ]);
        assert!(done);
        assert_eq!(reply.calls.len(), 2);
        assert_eq!(reply.calls[0].name, "get_weather");
        assert_eq!(reply.calls[0].id, "call_1");
        assert_eq!(reply.calls[0].arguments, "{\"city\": \"Paris \\u00e9\"}");
        assert_eq!(reply.calls[1].arguments, "{}");
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            reply.usage,
            Some(Usage {
                input_tokens: 31,
                output_tokens: 12
            })
        );
    }

    #[test]
    fn text_and_reasoning_are_kept_apart() {
        let (reply, _) = assemble(&[
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Think."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hello"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]}"#,
        ]);
        assert_eq!(reply.text, "Hello there");
        assert_eq!(reply.reasoning, "Think.");
        assert!(reply.is_finished());
    }

    #[test]
    fn errors_and_garbage_are_reported_not_swallowed() {
        let mut events = Vec::new();
        let error = read_chunk(
            r#"{"error":{"message":"This model's maximum context length is 4096 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            &mut events,
        )
        .expect_err("an error chunk");
        assert!(
            error.to_string().contains("maximum context length"),
            "{error}"
        );
        let garbage = read_chunk("{\"choices\": [", &mut events).expect_err("cut JSON");
        assert!(matches!(garbage, StreamError::InvalidChunk { .. }));
    }
}
