//! A JSON object standing in the prose with a `"name"` first: a call only when it holds the
//! call's arguments under one of the keys its format reads (vLLM's Llama 3 parser needs
//! `"parameters"` or `"arguments"`); otherwise prose that names something
//! (`{"name": "Andres Morales", "company": …}` in a model's reasoning), kept as content with no
//! diagnostic. Shared by the formats that read bare call objects in the prose.

use serde_json::{Map, Value};

use super::{call_from_json, error, push_json_calls, push_request};
use crate::framing::Block;
use crate::request::ParseOutput;

/// Pushes the object in `block` as a call when it holds one of `argument_keys`, as content
/// when it is an object without them, and the shared decoder's diagnostic (with its position)
/// when it is not valid JSON. Parsed once: the object read to tell is the call that is pushed.
pub fn push_object_in_prose(
    out: &mut ParseOutput,
    text: &str,
    block: &Block,
    format: &str,
    argument_keys: &[&str],
) {
    let slice = block.body_text(text);
    match serde_json::from_str::<Map<String, Value>>(slice) {
        Ok(object) if argument_keys.iter().any(|key| object.contains_key(*key)) => {
            match call_from_json(Value::Object(object)) {
                Ok(call) => push_request(out, text, block.span, format, call, false),
                Err((code, message)) => error(out, code, message, block.span),
            }
        }
        Err(e) if !e.is_data() => {
            push_json_calls(out, text, block.body, block.span, format, "the JSON call");
        }
        _ => out.content.push_str(
            text.get(block.span.start..block.span.end)
                .unwrap_or_default(),
        ),
    }
}
