//! The server's frames against the vendors' documented example streams
//! (`tests/fixtures/llm/vendor_examples/`, sources in its README): for the same content, the
//! same event names in the same order and the same JSON key structure (keys, and the type of
//! the value at each path). Ids, timestamps, text and how many deltas a string takes are not
//! compared: runs of frames of the same shape count as one. Anthropic's `ping` may come
//! anywhere, so pings are compared only by being there.

mod common;

use std::collections::BTreeSet;

use common::fixtures;
use serde_json::Value;
use toolscope_llm_testserver::{Call, Reply, Script, TestServer, Turn};

/// A frame's event name and the shape of its data.
type Frame = (String, String);

fn shape(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "bool".to_owned(),
        Value::Number(_) => "number".to_owned(),
        Value::String(_) => "string".to_owned(),
        Value::Array(items) => {
            let kinds: BTreeSet<String> = items.iter().map(shape).collect();
            format!("[{}]", kinds.into_iter().collect::<Vec<_>>().join("|"))
        }
        Value::Object(map) => {
            let mut keys: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}:{}", shape(v)))
                .collect();
            keys.sort();
            format!("{{{}}}", keys.join(","))
        }
    }
}

/// SSE text to frames, pings dropped (and reported), consecutive repeats collapsed.
fn frames(sse: &str) -> (Vec<Frame>, bool) {
    let mut out: Vec<Frame> = Vec::new();
    let mut pinged = false;
    for block in sse.replace("\r\n", "\n").split("\n\n") {
        let mut event = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(name) = line.strip_prefix("event:") {
                event = name.trim().to_owned();
            } else if let Some(value) = line.strip_prefix("data:") {
                data.push_str(value.trim_start());
            }
        }
        if data.is_empty() {
            continue;
        }
        if event == "ping" {
            pinged = true;
            continue;
        }
        let shape = if data == "[DONE]" {
            data
        } else {
            shape(&serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}")))
        };
        let frame = (event, shape);
        if out.last() != Some(&frame) {
            out.push(frame);
        }
    }
    (out, pinged)
}

async fn served(path: &str, reply: Reply) -> String {
    let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
        .await
        .expect("server");
    let response = reqwest::Client::new()
        .post(format!("{}{path}", server.base_url()))
        .json(&serde_json::json!({"model": "m", "stream": true, "max_tokens": 64, "messages": []}))
        .send()
        .await
        .expect("send");
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .starts_with("text/event-stream"));
    response.text().await.expect("body")
}

async fn assert_same_frames(example: &str, path: &str, reply: Reply) {
    let documented =
        std::fs::read_to_string(fixtures().join("vendor_examples").join(example)).expect("example");
    let (expected, example_pings) = frames(&documented);
    let (actual, pings) = frames(&served(path, reply).await);
    assert!(expected.len() > 2, "{example}: the example parsed");
    for (index, (want, got)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(want, got, "{example}: frame {index} differs");
    }
    assert_eq!(expected.len(), actual.len(), "{example}: {actual:#?}");
    if example_pings {
        assert!(pings, "{example}: the example has a ping");
    }
}

fn weather_call() -> Call {
    Call {
        id: None,
        name: "weather_current".to_owned(),
        arguments: Value::from(r#"{"city": "Lisbon", "units": "metric"}"#),
    }
}

fn text(text: &str) -> Reply {
    Reply {
        text: Some(text.to_owned()),
        ..Reply::default()
    }
}

#[tokio::test]
async fn anthropic_frames_match_the_documented_examples() {
    let tool_use = Reply {
        calls: vec![weather_call()],
        ..text("I'll look up the weather in Lisbon.")
    };
    assert_same_frames("anthropic_tool_use.sse", "/v1/messages", tool_use).await;
    let thinking = Reply {
        reasoning: Some("Seven times six: that is 42.".to_owned()),
        ..text("7 × 6 = 42.")
    };
    assert_same_frames("anthropic_thinking.sse", "/v1/messages", thinking).await;
}

#[tokio::test]
async fn openai_chat_frames_match_the_documented_examples() {
    let path = "/v1/chat/completions";
    assert_same_frames("openai_chat_text.sse", path, text("Good morning!")).await;
    let calls = Reply {
        calls: vec![weather_call()],
        ..Reply::default()
    };
    assert_same_frames("openai_chat_tool_calls.sse", path, calls).await;
}

#[tokio::test]
async fn openai_responses_frames_match_the_documented_examples() {
    let path = "/v1/responses";
    assert_same_frames(
        "openai_responses_text.sse",
        path,
        text("Lisbon is sunny today."),
    )
    .await;
    let calls = Reply {
        calls: vec![weather_call()],
        ..Reply::default()
    };
    assert_same_frames("openai_responses_function_call.sse", path, calls).await;
}

#[tokio::test]
async fn gemini_frames_match_the_documented_examples() {
    let path = "/v1beta/models/gemini-example:streamGenerateContent?alt=sse";
    let call = Reply {
        calls: vec![weather_call()],
        ..text("I'll look up the weather in Lisbon.")
    };
    assert_same_frames("gemini_function_call.sse", path, call).await;
    let thinking = Reply {
        reasoning: Some("Seven times six: that is 42.".to_owned()),
        ..text("7 × 6 = 42.")
    };
    assert_same_frames("gemini_thinking.sse", path, thinking).await;
}

#[test]
fn the_shape_ignores_values_but_not_keys_or_types() {
    let a = serde_json::json!({"id": "x", "n": 1, "list": [{"k": true}]});
    let b = serde_json::json!({"n": 2.5, "id": "y", "list": [{"k": false}, {"k": true}]});
    assert_eq!(shape(&a), shape(&b));
    assert_ne!(
        shape(&a),
        shape(&serde_json::json!({"id": "x", "n": "1", "list": []}))
    );
}
