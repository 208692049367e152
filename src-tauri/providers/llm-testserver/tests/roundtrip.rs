//! Every wire, through the real `toolscope-llm` client: the reply the client assembles is the
//! scripted one (text, reasoning, calls with their exact argument text, finish, usage), and
//! it arrived in many deltas.

mod common;

use common::{endpoint, stream, stream_with, WIRES};
use toolscope_llm::client::{list_models, Wire};
use toolscope_llm::{ReplyEvent, Usage};
use toolscope_llm_testserver::{Call, Reply, Script, TestServer, Turn};

fn call(id: Option<&str>, name: &str, arguments: &str) -> Call {
    Call {
        id: id.map(str::to_owned),
        name: name.to_owned(),
        arguments: serde_json::Value::from(arguments),
    }
}

/// Text with multi-byte characters and a flag (two code points); arguments with escapes and
/// one call whose arguments are cut off (invalid JSON on purpose).
fn rich_reply() -> Reply {
    Reply {
        reasoning: Some("The user wants Zürich's weather and a sum.".to_owned()),
        text: Some("Checking Zürich \u{1F1E8}\u{1F1ED} — one moment…".to_owned()),
        calls: vec![
            call(
                Some("call_a"),
                "weather_current",
                r#"{"city": "Z\u00fcrich", "note": "say \"hi\"\n"}"#,
            ),
            call(None, "calculator_evaluate", r#"{"expression": "1 + "#),
        ],
        usage: Some(toolscope_llm_testserver::Usage {
            input_tokens: 321,
            output_tokens: 45,
        }),
        ..Reply::default()
    }
}

#[tokio::test]
async fn every_wire_delivers_the_scripted_reply_through_the_client() {
    for wire in WIRES {
        let script = Script::new(vec![Turn::reply(rich_reply())]);
        let server = TestServer::start(script).await.expect("server");
        let (reply, events) =
            stream_with(&endpoint(&server, wire, None), common::body(wire, "hi")).await;
        let reply = reply.unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        let expected = rich_reply();
        assert_eq!(
            Some(reply.text.as_str()),
            expected.text.as_deref(),
            "{wire:?}"
        );
        assert_eq!(
            Some(reply.reasoning.as_str()),
            expected.reasoning.as_deref(),
            "{wire:?}"
        );
        assert_eq!(reply.calls.len(), 2, "{wire:?}");
        assert_eq!(reply.calls[0].id, "call_a");
        assert_eq!(reply.calls[0].name, "weather_current");
        assert_eq!(
            reply.calls[0].arguments,
            expected.calls[0].arguments_text(),
            "{wire:?}"
        );
        assert_eq!(reply.calls[1].arguments, r#"{"expression": "1 + "#);
        assert!(!reply.calls[1].id.is_empty(), "{wire:?}: a generated id");
        let finish = match wire {
            Wire::Anthropic => "tool_use",
            Wire::OpenAiChat | Wire::OpenAiResponses => "tool_calls",
            Wire::Gemini => "STOP",
        };
        assert_eq!(reply.finish_reason.as_deref(), Some(finish), "{wire:?}");
        assert_eq!(
            reply.usage,
            Some(Usage {
                input_tokens: 321,
                output_tokens: 45
            }),
            "{wire:?}"
        );
        let text_deltas = events
            .iter()
            .filter(|e| matches!(e, ReplyEvent::Text { .. }))
            .count();
        assert!(text_deltas >= 5, "{wire:?}: {text_deltas} text deltas");
        let argument_deltas = events
            .iter()
            .filter(|e| matches!(e, ReplyEvent::CallArguments { index: 0, .. }))
            .count();
        assert!(argument_deltas >= 5, "{wire:?}: {argument_deltas}");
    }
}

#[tokio::test]
async fn a_text_only_reply_finishes_the_wire_s_way_and_chunk_chars_is_respected() {
    for (wire, finish) in [
        (Wire::OpenAiChat, "stop"),
        (Wire::OpenAiResponses, "stop"),
        (Wire::Anthropic, "end_turn"),
    ] {
        let reply = Reply {
            text: Some("abcdefghij".to_owned()),
            chunk_chars: Some(4),
            ..Reply::default()
        };
        let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
            .await
            .expect("server");
        let (reply, events) =
            stream_with(&endpoint(&server, wire, None), common::body(wire, "hi")).await;
        let reply = reply.expect("reply");
        assert_eq!(reply.text, "abcdefghij");
        assert_eq!(reply.finish_reason.as_deref(), Some(finish), "{wire:?}");
        // Chat sends usage only when asked (`stream_options.include_usage`) or scripted.
        assert_eq!(
            reply.usage.is_some_and(|u| u.output_tokens > 0),
            wire != Wire::OpenAiChat,
            "{wire:?}"
        );
        let texts: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                ReplyEvent::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["abcd", "efgh", "ij"], "{wire:?}");
    }
}

#[tokio::test]
async fn a_scripted_finish_reason_is_passed_on() {
    for (wire, finish) in [
        (Wire::OpenAiChat, "length"),
        (Wire::OpenAiResponses, "max_output_tokens"),
        (Wire::Anthropic, "max_tokens"),
    ] {
        let reply = Reply {
            text: Some("cut short".to_owned()),
            finish: Some(finish.to_owned()),
            ..Reply::default()
        };
        let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
            .await
            .expect("server");
        let reply = stream(&server, wire, "hi").await.expect("reply");
        assert_eq!(reply.finish_reason.as_deref(), Some(finish), "{wire:?}");
    }
}

#[tokio::test]
async fn the_model_list_has_both_vendors_shapes() {
    let mut script = Script::new(Vec::new());
    script.models = vec!["tiny".to_owned(), "small".to_owned()];
    let server = TestServer::start(script).await.expect("server");
    for wire in [Wire::OpenAiChat, Wire::Anthropic] {
        let models = list_models(&reqwest::Client::new(), &endpoint(&server, wire, Some("k")))
            .await
            .expect("models");
        assert_eq!(models, ["tiny", "small"], "{wire:?}");
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests
        .iter()
        .all(|r| r.path == "/v1/models" && r.turn.is_none()));
    let anthropic: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/v1/models", server.base_url()))
        .header("anthropic-version", "2023-06-01")
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(anthropic["has_more"], false);
    assert_eq!(anthropic["data"][0]["type"], "model");
}

#[tokio::test]
async fn chat_sends_an_estimated_usage_chunk_when_the_request_asks_for_it() {
    let reply = Reply {
        text: Some("twelve chars".to_owned()),
        ..Reply::default()
    };
    let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
        .await
        .expect("server");
    let mut body = common::body(Wire::OpenAiChat, "hello");
    body["stream_options"] = serde_json::json!({"include_usage": true});
    let (reply, _) = stream_with(&endpoint(&server, Wire::OpenAiChat, None), body).await;
    let usage = reply.expect("reply").usage.expect("usage");
    assert!(
        usage.input_tokens > 0 && usage.output_tokens == 3,
        "{usage:?}"
    );
}
