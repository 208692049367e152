//! Every wire, through the real `toolscope-llm` client: the reply the client assembles is the
//! scripted one (text, reasoning, calls with their exact argument text, finish, usage), and
//! it arrived in many deltas. Gemini sends each call whole with `args` as a JSON object, so
//! there the arguments are the same JSON in one delta, and a call whose arguments are not a
//! JSON object ends the reply as `MALFORMED_FUNCTION_CALL` instead of being sent.

mod common;

use common::{assert_arguments, endpoint, stream, stream_with, WIRES};
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
        assert_eq!(reply.calls[0].id, "call_a");
        assert_eq!(reply.calls[0].name, "weather_current");
        assert_arguments(
            wire,
            &reply.calls[0].arguments,
            &expected.calls[0].arguments_text(),
        );
        if wire == Wire::Gemini {
            // The cut arguments cannot be a `functionCall`: the reply ends as malformed.
            assert_eq!(reply.calls.len(), 1);
        } else {
            assert_eq!(reply.calls.len(), 2, "{wire:?}");
            assert_eq!(reply.calls[1].arguments, r#"{"expression": "1 + "#);
            assert!(!reply.calls[1].id.is_empty(), "{wire:?}: a generated id");
        }
        let finish = match wire {
            Wire::Anthropic => "tool_use",
            Wire::OpenAiChat | Wire::OpenAiResponses => "tool_calls",
            Wire::Gemini => "MALFORMED_FUNCTION_CALL",
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
        let whole_calls = usize::from(wire == Wire::Gemini);
        assert!(
            argument_deltas >= 5 || argument_deltas == whole_calls,
            "{wire:?}: {argument_deltas}"
        );
    }
}

#[tokio::test]
async fn gemini_calls_come_whole_with_or_without_an_id() {
    let reply = Reply {
        text: Some("Two lookups.".to_owned()),
        calls: vec![
            Call {
                id: None,
                name: "weather_current".to_owned(),
                arguments: serde_json::json!({"city": "Oslo"}),
            },
            call(Some("call_scripted"), "time_now", "{}"),
            call(None, "calculator_evaluate", r#"{"expression": "1 + 1"}"#),
        ],
        ..Reply::default()
    };
    let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
        .await
        .expect("server");
    let (reply, events) = stream_with(
        &endpoint(&server, Wire::Gemini, Some("k")),
        common::body(Wire::Gemini, "hi"),
    )
    .await;
    let reply = reply.expect("reply");
    let ids: Vec<&str> = reply.calls.iter().map(|c| c.id.as_str()).collect();
    // The client numbers calls that came without an id by their place in the reply.
    assert_eq!(ids, ["call_0", "call_scripted", "call_2"]);
    assert_eq!(reply.calls[0].arguments, r#"{"city":"Oslo"}"#);
    assert_eq!(reply.calls[2].arguments, r#"{"expression":"1 + 1"}"#);
    assert_eq!(reply.finish_reason.as_deref(), Some("STOP"));
    let fragments = events
        .iter()
        .filter(|e| matches!(e, ReplyEvent::CallArguments { .. }))
        .count();
    assert_eq!(fragments, 3, "one whole `args` per call");
    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/v1beta/models/toolscope-test:streamGenerateContent"
    );
    assert_eq!(request.query, "alt=sse");
    assert_eq!(request.header("x-goog-api-key"), Some("k"));
    assert!(request.body.get("stream").is_none() && request.body.get("model").is_none());
}

#[tokio::test]
async fn gemini_reasoning_is_thought_parts_and_usage_counts_thinking_as_output() {
    let reply = Reply {
        reasoning: Some("Twelve characters of thought.".to_owned()),
        text: Some("Done.".to_owned()),
        usage: Some(toolscope_llm_testserver::Usage {
            input_tokens: 10,
            output_tokens: 20,
        }),
        ..Reply::default()
    };
    let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
        .await
        .expect("server");
    let url = format!(
        "{}/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
        server.base_url()
    );
    let sse = reqwest::Client::new()
        .post(url)
        .json(&common::body(Wire::Gemini, "hi"))
        .send()
        .await
        .expect("send")
        .text()
        .await
        .expect("body");
    assert!(!sse.contains("event:") && !sse.contains("[DONE]"), "{sse}");
    let chunks: Vec<serde_json::Value> = sse
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).expect("json"))
        .collect();
    assert_eq!(
        chunks[0]["candidates"][0]["content"]["parts"][0]["thought"],
        true
    );
    assert_eq!(
        chunks[0]["modelVersion"], "gemini-test",
        "the model of the path"
    );
    let last = chunks.last().expect("chunks");
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    let usage = &last["usageMetadata"];
    assert_eq!(usage["promptTokenCount"], 10);
    assert_eq!(usage["totalTokenCount"], 30);
    assert_eq!(
        usage["candidatesTokenCount"].as_u64().expect("candidates")
            + usage["thoughtsTokenCount"].as_u64().expect("thoughts"),
        20
    );
}

#[tokio::test]
async fn a_text_only_reply_finishes_the_wire_s_way_and_chunk_chars_is_respected() {
    for (wire, finish) in [
        (Wire::OpenAiChat, "stop"),
        (Wire::OpenAiResponses, "stop"),
        (Wire::Anthropic, "end_turn"),
        (Wire::Gemini, "STOP"),
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
        (Wire::Gemini, "MAX_TOKENS"),
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
async fn the_model_list_has_each_vendor_s_shape() {
    let mut script = Script::new(Vec::new());
    script.models = vec!["tiny".to_owned(), "small".to_owned()];
    let server = TestServer::start(script).await.expect("server");
    for wire in [Wire::OpenAiChat, Wire::Anthropic, Wire::Gemini] {
        let models = list_models(&reqwest::Client::new(), &endpoint(&server, wire, Some("k")))
            .await
            .expect("models");
        assert_eq!(models, ["tiny", "small"], "{wire:?}");
    }
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/v1/models", "/v1/models", "/v1beta/models"]);
    assert!(requests.iter().all(|r| r.turn.is_none()));
    let gemini: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/v1beta/models", server.base_url()))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(gemini["models"][1]["name"], "models/small");
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
