//! OpenAI Chat Completions chunks: a role chunk, `reasoning_content` and `content` deltas,
//! `tool_calls` deltas keyed by `index` (the first with `id`, `type` and the name, later ones
//! with argument fragments), a finish chunk with an empty delta, an optional usage chunk with
//! no choices, then `data: [DONE]`.

use serde_json::{json, Value};

use super::{call_id, usage, Context, SseEvent};
use crate::script::{split, Reply};

pub(super) fn render(reply: &Reply, context: &Context) -> Vec<SseEvent> {
    let chunk_with = |choices: Value| {
        let mut chunk = json!({
            "id": format!("chatcmpl-{}", context.turn),
            "object": "chat.completion.chunk",
            "created": context.created,
            "model": context.model,
            "system_fingerprint": "fp_toolscope",
            "choices": choices,
        });
        if context.include_usage {
            chunk["usage"] = Value::Null;
        }
        chunk
    };
    let delta = |delta: Value| {
        let choices =
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]);
        SseEvent::json(None, &chunk_with(choices))
    };
    let mut events = vec![delta(json!({"role": "assistant", "content": ""}))];
    for piece in split(
        reply.reasoning.as_deref().unwrap_or_default(),
        reply.chunk_chars,
    ) {
        events.push(delta(json!({"reasoning_content": piece})));
    }
    for piece in split(reply.text.as_deref().unwrap_or_default(), reply.chunk_chars) {
        events.push(delta(json!({"content": piece})));
    }
    for (index, call) in reply.calls.iter().enumerate() {
        events.push(delta(json!({"tool_calls": [{
            "index": index,
            "id": call_id(reply, index, "call", context),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]})));
        for piece in split(&call.arguments_text(), reply.chunk_chars) {
            events.push(delta(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
            ));
        }
    }
    let finish = reply.finish.clone().unwrap_or_else(|| {
        if reply.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
        .to_owned()
    });
    events.push(SseEvent::json(
        None,
        &chunk_with(json!([{"index": 0, "delta": {}, "logprobs": null, "finish_reason": finish}])),
    ));
    if context.include_usage || reply.usage.is_some() {
        let usage = usage(reply, context);
        let mut last = chunk_with(json!([]));
        last["usage"] = json!({
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        });
        events.push(SseEvent::json(None, &last));
    }
    events.push(SseEvent {
        event: None,
        data: "[DONE]".to_owned(),
    });
    events
}
