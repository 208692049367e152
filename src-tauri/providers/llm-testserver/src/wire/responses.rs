//! OpenAI Responses API events: `response.created` and `response.in_progress`, then one output
//! item per part (a `reasoning` item with summary text deltas, a `message` item with an
//! `output_text` content part and its deltas, a `function_call` item per call with
//! `response.function_call_arguments.delta`/`.done`), each opened by
//! `response.output_item.added` and closed by `response.output_item.done`, and last
//! `response.completed` with usage (or `response.incomplete` with the scripted reason).
//! Every event carries a `sequence_number`; there is no `[DONE]`.

use serde_json::{json, Value};

use super::{call_id, usage, Context, SseEvent};
use crate::script::{split, Reply};

/// Collects events, numbering them and naming each after its `type`.
struct Events {
    events: Vec<SseEvent>,
}

impl Events {
    fn push(&mut self, mut data: Value) {
        data["sequence_number"] = Value::from(self.events.len());
        let name = data["type"].as_str().unwrap_or("response").to_owned();
        self.events.push(SseEvent::json(Some(&name), &data));
    }
}

fn response(context: &Context, status: &str, output: &[Value], usage: Value) -> Value {
    json!({
        "id": format!("resp_{}", context.turn),
        "object": "response",
        "created_at": context.created,
        "status": status,
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "model": context.model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": {"effort": null, "summary": null},
        "store": false,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": null,
        "metadata": {},
    })
}

pub(super) fn render(reply: &Reply, context: &Context) -> Vec<SseEvent> {
    let mut out = Events { events: Vec::new() };
    let started = response(context, "in_progress", &[], Value::Null);
    out.push(json!({"type": "response.created", "response": started}));
    out.push(json!({"type": "response.in_progress", "response": started}));
    let mut output = Vec::new();
    if let Some(reasoning) = &reply.reasoning {
        output.push(reasoning_item(
            &mut out,
            reply,
            context,
            output.len(),
            reasoning,
        ));
    }
    if let Some(text) = &reply.text {
        output.push(message_item(&mut out, reply, context, output.len(), text));
    }
    for index in 0..reply.calls.len() {
        output.push(call_item(&mut out, reply, context, output.len(), index));
    }
    let usage = usage(reply, context);
    let usage = json!({
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    });
    match reply.finish.as_deref().unwrap_or("completed") {
        "completed" => {
            let done = response(context, "completed", &output, usage);
            out.push(json!({"type": "response.completed", "response": done}));
        }
        reason => {
            let mut done = response(context, "incomplete", &output, usage);
            done["incomplete_details"] = json!({"reason": reason});
            out.push(json!({"type": "response.incomplete", "response": done}));
        }
    }
    out.events
}

fn reasoning_item(
    out: &mut Events,
    reply: &Reply,
    context: &Context,
    output_index: usize,
    reasoning: &str,
) -> Value {
    let id = format!("rs_{}", context.turn);
    let item = json!({"id": id, "type": "reasoning", "summary": []});
    out.push(
        json!({"type": "response.output_item.added", "output_index": output_index, "item": item}),
    );
    let at = json!({"item_id": id, "output_index": output_index, "summary_index": 0});
    let with = |kind: &str, extra: Value| {
        let mut event = at.clone();
        event["type"] = Value::from(kind);
        if let (Some(event), Some(extra)) = (event.as_object_mut(), extra.as_object()) {
            event.extend(extra.clone());
        }
        event
    };
    out.push(with(
        "response.reasoning_summary_part.added",
        json!({"part": {"type": "summary_text", "text": ""}}),
    ));
    for piece in split(reasoning, reply.chunk_chars) {
        out.push(with(
            "response.reasoning_summary_text.delta",
            json!({"delta": piece}),
        ));
    }
    out.push(with(
        "response.reasoning_summary_text.done",
        json!({"text": reasoning}),
    ));
    let part = json!({"type": "summary_text", "text": reasoning});
    out.push(with(
        "response.reasoning_summary_part.done",
        json!({"part": part}),
    ));
    let item = json!({"id": id, "type": "reasoning", "summary": [part]});
    out.push(
        json!({"type": "response.output_item.done", "output_index": output_index, "item": item}),
    );
    item
}

fn message_item(
    out: &mut Events,
    reply: &Reply,
    context: &Context,
    output_index: usize,
    text: &str,
) -> Value {
    let id = format!("msg_{}", context.turn);
    let item = |status: &str, content: Value| json!({"id": id, "type": "message", "status": status, "role": "assistant", "content": content});
    let part = |text: &str| json!({"type": "output_text", "annotations": [], "text": text});
    let at = |kind: &str| json!({"type": kind, "item_id": id, "output_index": output_index, "content_index": 0});
    out.push(json!({"type": "response.output_item.added", "output_index": output_index, "item": item("in_progress", json!([]))}));
    let mut added = at("response.content_part.added");
    added["part"] = part("");
    out.push(added);
    for piece in split(text, reply.chunk_chars) {
        let mut delta = at("response.output_text.delta");
        delta["delta"] = Value::from(piece);
        delta["logprobs"] = json!([]);
        out.push(delta);
    }
    let mut done = at("response.output_text.done");
    done["text"] = Value::from(text);
    done["logprobs"] = json!([]);
    out.push(done);
    let mut part_done = at("response.content_part.done");
    part_done["part"] = part(text);
    out.push(part_done);
    let item = item("completed", json!([part(text)]));
    out.push(
        json!({"type": "response.output_item.done", "output_index": output_index, "item": item}),
    );
    item
}

fn call_item(
    out: &mut Events,
    reply: &Reply,
    context: &Context,
    output_index: usize,
    index: usize,
) -> Value {
    let call = &reply.calls[index];
    let id = format!("fc_{}_{index}", context.turn);
    let arguments = call.arguments_text();
    let item = |status: &str, arguments: &str| {
        json!({
            "id": id,
            "type": "function_call",
            "status": status,
            "arguments": arguments,
            "call_id": call_id(reply, index, "call", context),
            "name": call.name,
        })
    };
    out.push(json!({"type": "response.output_item.added", "output_index": output_index, "item": item("in_progress", "")}));
    for piece in split(&arguments, reply.chunk_chars) {
        out.push(json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": output_index, "delta": piece}));
    }
    out.push(json!({"type": "response.function_call_arguments.done", "item_id": id, "output_index": output_index, "arguments": arguments}));
    let item = item("completed", &arguments);
    out.push(
        json!({"type": "response.output_item.done", "output_index": output_index, "item": item}),
    );
    item
}
