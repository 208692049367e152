//! Anthropic Messages events: `message_start` (input usage), one content block per part
//! (`thinking` with `thinking_delta`s and a `signature_delta`, `text` with `text_delta`s,
//! `tool_use` with `input_json_delta` `partial_json` fragments), a `ping` after the first block
//! starts, `message_delta` with `stop_reason` and output usage, then `message_stop`.

use serde_json::{json, Value};

use super::{call_id, usage, Context, SseEvent};
use crate::script::{split, Reply};

/// Collects events, naming each after its `type` as Anthropic does.
struct Events {
    events: Vec<SseEvent>,
    pinged: bool,
}

impl Events {
    fn push(&mut self, data: Value) {
        let name = data["type"].as_str().unwrap_or("message").to_owned();
        self.events.push(SseEvent::json(Some(&name), &data));
    }

    fn block(&mut self, index: usize, start: Value, deltas: Vec<Value>) {
        self.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        if !self.pinged {
            self.pinged = true;
            self.push(json!({"type": "ping"}));
        }
        for delta in deltas {
            self.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        }
        self.push(json!({"type": "content_block_stop", "index": index}));
    }
}

pub(super) fn render(reply: &Reply, context: &Context) -> Vec<SseEvent> {
    let usage = usage(reply, context);
    let mut out = Events {
        events: Vec::new(),
        pinged: false,
    };
    out.push(json!({"type": "message_start", "message": {
        "id": format!("msg_{}", context.turn),
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": context.model,
        "stop_reason": null,
        "stop_sequence": null,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": 1},
    }}));
    let mut index = 0;
    if let Some(reasoning) = &reply.reasoning {
        let mut deltas: Vec<Value> = split(reasoning, reply.chunk_chars)
            .into_iter()
            .map(|piece| json!({"type": "thinking_delta", "thinking": piece}))
            .collect();
        deltas.push(json!({"type": "signature_delta", "signature": "dG9vbHNjb3BlLXRlc3Q="}));
        out.block(index, json!({"type": "thinking", "thinking": ""}), deltas);
        index += 1;
    }
    if let Some(text) = &reply.text {
        let deltas = split(text, reply.chunk_chars)
            .into_iter()
            .map(|piece| json!({"type": "text_delta", "text": piece}))
            .collect();
        out.block(index, json!({"type": "text", "text": ""}), deltas);
        index += 1;
    }
    for (call_index, call) in reply.calls.iter().enumerate() {
        let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
        deltas.extend(
            split(&call.arguments_text(), reply.chunk_chars)
                .into_iter()
                .map(|piece| json!({"type": "input_json_delta", "partial_json": piece})),
        );
        let start = json!({
            "type": "tool_use",
            "id": call_id(reply, call_index, "toolu", context),
            "name": call.name,
            "input": {},
        });
        out.block(index, start, deltas);
        index += 1;
    }
    if !out.pinged {
        out.push(json!({"type": "ping"}));
    }
    let stop = reply.finish.clone().unwrap_or_else(|| {
        if reply.calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
        .to_owned()
    });
    out.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null},
        "usage": {"output_tokens": usage.output_tokens},
    }));
    out.push(json!({"type": "message_stop"}));
    out.events
}
