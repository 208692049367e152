//! One conversation (a task, a call, its result) in each wire's spelling, checked whole.

use serde_json::{json, Value};

use super::*;
use toolscope_engine::agent::{AssembledCall, RequestOptions, ToolResultMessage};

fn conversation() -> Vec<Message> {
    vec![
        Message::User {
            text: "Weather in Oslo?".to_owned(),
        },
        Message::Assistant {
            text: String::new(),
            calls: vec![AssembledCall {
                id: "call_1".to_owned(),
                name: "weather_current".to_owned(),
                arguments: r#"{"city":"Oslo"}"#.to_owned(),
                signature: None,
            }],
        },
        Message::ToolResults {
            results: vec![ToolResultMessage {
                call_id: "call_1".to_owned(),
                name: "weather_current".to_owned(),
                content: "4 °C".to_owned(),
                is_error: false,
            }],
        },
    ]
}

fn request<'a>(
    messages: &'a [Message],
    tools: &'a Value,
    options: &'a RequestOptions,
) -> ModelRequest<'a> {
    ModelRequest {
        system: Some("Be brief."),
        messages,
        tools: Some(tools),
        options,
    }
}

fn options() -> RequestOptions {
    RequestOptions {
        tool_choice: ToolChoice::Named {
            name: "weather_current".to_owned(),
        },
        parallel_tool_calls: Some(false),
        temperature: Some(0.0),
        max_tokens: Some(256),
    }
}

#[test]
fn chat_completions_carry_calls_on_the_assistant_and_results_as_tool_messages() {
    let messages = conversation();
    let tools = json!([{"type": "function", "function": {"name": "weather_current"}}]);
    let options = options();
    assert_eq!(
        openai_chat(&request(&messages, &tools, &options)),
        json!({
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Oslo?"},
                // Not `null`: see the module's notes (a real server refuses it).
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "weather_current", "arguments": "{\"city\":\"Oslo\"}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "4 °C"}
            ],
            "tools": tools,
            "tool_choice": {"type": "function", "function": {"name": "weather_current"}},
            "parallel_tool_calls": false,
            "temperature": 0.0,
            "max_tokens": 256,
            "stream_options": {"include_usage": true}
        })
    );
}

#[test]
fn responses_input_has_function_call_items_and_their_outputs() {
    let messages = conversation();
    let tools = json!([{"type": "function", "name": "weather_current"}]);
    let options = options();
    assert_eq!(
        openai_responses(&request(&messages, &tools, &options)),
        json!({
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": "Weather in Oslo?"},
                {"type": "function_call", "call_id": "call_1", "name": "weather_current",
                 "arguments": "{\"city\":\"Oslo\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "4 °C"}
            ],
            "store": false,
            "tools": tools,
            "tool_choice": {"type": "function", "name": "weather_current"},
            "parallel_tool_calls": false,
            "temperature": 0.0,
            "max_output_tokens": 256
        })
    );
}

#[test]
fn anthropic_uses_tool_use_blocks_and_tool_results_in_a_user_turn() {
    let messages = conversation();
    let tools = json!([{"name": "weather_current", "input_schema": {"type": "object"}}]);
    let options = options();
    assert_eq!(
        anthropic(&request(&messages, &tools, &options)),
        json!({
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather in Oslo?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "call_1", "name": "weather_current", "input": {"city": "Oslo"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "4 °C", "is_error": false}]}
            ],
            "tools": tools,
            "tool_choice": {"type": "tool", "name": "weather_current", "disable_parallel_tool_use": true},
            "temperature": 0.0,
            "max_tokens": 256
        })
    );
    // No tools and no limit: no tool_choice, the required max_tokens filled in.
    let none = RequestOptions::default();
    let body = anthropic(&ModelRequest {
        system: None,
        messages: &messages[..1],
        tools: None,
        options: &none,
    });
    assert_eq!(
        body,
        json!({"messages": [{"role": "user", "content": "Weather in Oslo?"}], "max_tokens": 4096})
    );
}

#[test]
fn gemini_sends_function_calls_and_responses_as_parts() {
    let mut messages = conversation();
    if let Message::ToolResults { results } = &mut messages[2] {
        results[0].is_error = true;
    }
    let tools = json!([{"functionDeclarations": [{"name": "weather_current"}]}]);
    let options = RequestOptions {
        tool_choice: ToolChoice::Required,
        ..options()
    };
    assert_eq!(
        gemini(&request(&messages, &tools, &options)),
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                {"role": "model", "parts": [
                    {"functionCall": {"id": "call_1", "name": "weather_current", "args": {"city": "Oslo"}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "call_1", "name": "weather_current", "response": {"error": "4 °C"}}}]}
            ],
            "tools": tools,
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
            "generationConfig": {"temperature": 0.0, "maxOutputTokens": 256}
        })
    );
}

#[test]
fn gemini_gets_a_call_s_thought_signature_back() {
    let mut messages = conversation();
    if let Message::Assistant { calls, .. } = &mut messages[1] {
        calls[0].signature = Some("sig-1".to_owned());
    }
    let none = RequestOptions::default();
    let body = gemini(&ModelRequest {
        system: None,
        messages: &messages,
        tools: None,
        options: &none,
    });
    assert_eq!(body["contents"][1]["parts"][0]["thoughtSignature"], "sig-1");
    // The other wires have no place for it.
    let chat = openai_chat(&ModelRequest {
        system: None,
        messages: &messages,
        tools: None,
        options: &none,
    });
    assert!(!chat.to_string().contains("sig-1"));
}

#[test]
fn a_call_with_broken_arguments_is_replayed_with_an_empty_input() {
    let messages = vec![Message::Assistant {
        text: "Trying".to_owned(),
        calls: vec![AssembledCall {
            id: "c".to_owned(),
            name: "n".to_owned(),
            arguments: "{\"a\": ".to_owned(),
            signature: None,
        }],
    }];
    let none = RequestOptions::default();
    let body = anthropic(&ModelRequest {
        system: None,
        messages: &messages,
        tools: None,
        options: &none,
    });
    assert_eq!(body["messages"][0]["content"][1]["input"], json!({}));
    assert_eq!(
        body["messages"][0]["content"][0],
        json!({"type": "text", "text": "Trying"})
    );
}
