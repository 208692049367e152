//! The agent loop's conversation as each vendor's request body.
//!
//! The loop keeps messages in no vendor's terms ([`Message`]); each wire spells the same things
//! differently: where the system prompt goes, how an assistant turn carries its calls, how a
//! result answers a call, how `tool_choice` is written. `model` and `stream` are added by the
//! client (Gemini puts the model in the URL instead). Deliberate choices, per wire:
//! - Chat Completions: `max_tokens` (what vLLM, SGLang, llama.cpp and Ollama read) rather than
//!   OpenAI's newer `max_completion_tokens`; `stream_options.include_usage` so usage arrives.
//!   An assistant turn that only called tools has `"content": ""`, not `null` nor no `content`
//!   (both of which the docs allow): llama.cpp's Python server refuses `null` (HTTP 500, its
//!   request model wants a string) and fails on a missing one (its chat template reads it).
//! - Responses: `store: false`, the conversation is sent whole each time (no server state).
//! - Anthropic: `max_tokens` is required, 4096 when unset; a call whose arguments are not a
//!   JSON object is replayed with `{}` as its input (its error result says what was wrong).
//! - Gemini: results go back as `functionResponse` parts, `{"result": …}` or `{"error": …}`.

use serde_json::{json, Map, Value};

use toolscope_engine::agent::{Message, ModelRequest, ToolChoice};

/// Anthropic requires `max_tokens`; this is sent when the person set none.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 4096;

/// `POST /chat/completions`.
pub fn openai_chat(request: &ModelRequest<'_>) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in request.messages {
        match message {
            Message::User { text } => messages.push(json!({"role": "user", "content": text})),
            Message::Assistant { text, calls } => {
                let mut m = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    m["tool_calls"] = calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": c.arguments}})
                        })
                        .collect();
                }
                messages.push(m);
            }
            Message::ToolResults { results } => {
                for r in results {
                    messages.push(
                        json!({"role": "tool", "tool_call_id": r.call_id, "content": r.content}),
                    );
                }
            }
        }
    }
    let mut body = Map::new();
    body.insert("messages".to_owned(), Value::Array(messages));
    if let Some(tools) = request.tools {
        body.insert("tools".to_owned(), tools.clone());
        let choice = match &request.options.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Named { name } => json!({"type": "function", "function": {"name": name}}),
        };
        body.insert("tool_choice".to_owned(), choice);
        if let Some(parallel) = request.options.parallel_tool_calls {
            body.insert("parallel_tool_calls".to_owned(), Value::Bool(parallel));
        }
    }
    common_options(&mut body, request, "max_tokens");
    body.insert("stream_options".to_owned(), json!({"include_usage": true}));
    Value::Object(body)
}

/// `POST /responses`.
pub fn openai_responses(request: &ModelRequest<'_>) -> Value {
    let mut input = Vec::new();
    for message in request.messages {
        match message {
            Message::User { text } => input.push(json!({"role": "user", "content": text})),
            Message::Assistant { text, calls } => {
                if !text.is_empty() {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for c in calls {
                    input.push(json!({"type": "function_call", "call_id": c.id,
                                      "name": c.name, "arguments": c.arguments}));
                }
            }
            Message::ToolResults { results } => {
                for r in results {
                    input.push(json!({"type": "function_call_output", "call_id": r.call_id,
                                      "output": r.content}));
                }
            }
        }
    }
    let mut body = Map::new();
    if let Some(system) = request.system {
        body.insert("instructions".to_owned(), json!(system));
    }
    body.insert("input".to_owned(), Value::Array(input));
    body.insert("store".to_owned(), Value::Bool(false));
    if let Some(tools) = request.tools {
        body.insert("tools".to_owned(), tools.clone());
        let choice = match &request.options.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Named { name } => json!({"type": "function", "name": name}),
        };
        body.insert("tool_choice".to_owned(), choice);
        if let Some(parallel) = request.options.parallel_tool_calls {
            body.insert("parallel_tool_calls".to_owned(), Value::Bool(parallel));
        }
    }
    common_options(&mut body, request, "max_output_tokens");
    Value::Object(body)
}

/// `POST /v1/messages`.
pub fn anthropic(request: &ModelRequest<'_>) -> Value {
    let mut messages = Vec::new();
    for message in request.messages {
        match message {
            Message::User { text } => messages.push(json!({"role": "user", "content": text})),
            Message::Assistant { text, calls } => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                for c in calls {
                    content.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                        "input": object_or_empty(&c.arguments)}));
                }
                if content.is_empty() {
                    // The API refuses an empty assistant turn; the model did send one.
                    content.push(json!({"type": "text", "text": "(no content)"}));
                }
                messages.push(json!({"role": "assistant", "content": content}));
            }
            Message::ToolResults { results } => {
                let content: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        json!({"type": "tool_result", "tool_use_id": r.call_id,
                               "content": r.content, "is_error": r.is_error})
                    })
                    .collect();
                messages.push(json!({"role": "user", "content": content}));
            }
        }
    }
    let mut body = Map::new();
    if let Some(system) = request.system {
        body.insert("system".to_owned(), json!(system));
    }
    body.insert("messages".to_owned(), Value::Array(messages));
    if let Some(tools) = request.tools {
        body.insert("tools".to_owned(), tools.clone());
        let mut choice = match &request.options.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Named { name } => json!({"type": "tool", "name": name}),
        };
        if request.options.parallel_tool_calls == Some(false) {
            choice["disable_parallel_tool_use"] = Value::Bool(true);
        }
        body.insert("tool_choice".to_owned(), choice);
    }
    common_options(&mut body, request, "max_tokens");
    body.entry("max_tokens")
        .or_insert_with(|| json!(ANTHROPIC_DEFAULT_MAX_TOKENS));
    Value::Object(body)
}

/// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
pub fn gemini(request: &ModelRequest<'_>) -> Value {
    let mut contents = Vec::new();
    for message in request.messages {
        match message {
            Message::User { text } => {
                contents.push(json!({"role": "user", "parts": [{"text": text}]}));
            }
            Message::Assistant { text, calls } => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                for c in calls {
                    let mut part = json!({"functionCall": {"id": c.id, "name": c.name,
                                                           "args": object_or_empty(&c.arguments)}});
                    if let Some(signature) = &c.signature {
                        part["thoughtSignature"] = json!(signature);
                    }
                    parts.push(part);
                }
                if parts.is_empty() {
                    parts.push(json!({"text": ""}));
                }
                contents.push(json!({"role": "model", "parts": parts}));
            }
            Message::ToolResults { results } => {
                let parts: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let key = if r.is_error { "error" } else { "result" };
                        json!({"functionResponse": {"id": r.call_id, "name": r.name,
                                                    "response": {key: r.content}}})
                    })
                    .collect();
                contents.push(json!({"role": "user", "parts": parts}));
            }
        }
    }
    let mut body = Map::new();
    if let Some(system) = request.system {
        body.insert(
            "systemInstruction".to_owned(),
            json!({"parts": [{"text": system}]}),
        );
    }
    body.insert("contents".to_owned(), Value::Array(contents));
    if let Some(tools) = request.tools {
        body.insert("tools".to_owned(), tools.clone());
        let config = match &request.options.tool_choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Named { name } => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body.insert(
            "toolConfig".to_owned(),
            json!({"functionCallingConfig": config}),
        );
    }
    let mut generation = Map::new();
    if let Some(t) = request.options.temperature {
        generation.insert("temperature".to_owned(), json!(t));
    }
    if let Some(n) = request.options.max_tokens {
        generation.insert("maxOutputTokens".to_owned(), json!(n));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".to_owned(), Value::Object(generation));
    }
    Value::Object(body)
}

fn common_options(body: &mut Map<String, Value>, request: &ModelRequest<'_>, max_key: &str) {
    if let Some(t) = request.options.temperature {
        body.insert("temperature".to_owned(), json!(t));
    }
    if let Some(n) = request.options.max_tokens {
        body.insert(max_key.to_owned(), json!(n));
    }
}

fn object_or_empty(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => Value::Object(Map::new()),
    }
}

#[cfg(test)]
mod tests;
