//! The example scripts under `tests/fixtures/llm/scripts/` load and play as their names say,
//! on every wire. On Gemini, calls arrive whole (`args` is a JSON object, so the arguments are
//! the same JSON, not the same text), scripted arguments that are not a JSON object end the
//! reply as `MALFORMED_FUNCTION_CALL` with no call, and a cut falls before the finishing chunk,
//! after the call.

mod common;

use common::{assert_arguments, fixtures, stream, WIRES};
use toolscope_llm::client::ClientError;
use toolscope_llm::client::Wire;
use toolscope_llm_testserver::{Script, TestServer};

fn script(name: &str) -> Script {
    Script::load(&fixtures().join("scripts").join(name)).expect("script loads")
}

#[test]
fn every_example_script_loads() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures().join("scripts"))
        .expect("scripts dir")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    for name in &names {
        script(name);
    }
    assert_eq!(names.len(), 7, "{names:?}");
}

#[tokio::test]
async fn two_turn_weather_calls_a_tool_then_answers_with_its_result() {
    for wire in WIRES {
        let server = TestServer::start(script("two_turn_weather.json"))
            .await
            .expect("server");
        let first = stream(&server, wire, "Weather in Zürich?")
            .await
            .expect("call");
        assert_eq!(first.calls[0].name, "weather_current");
        assert_eq!(first.calls[0].id, "call_weather_1");
        assert_arguments(
            wire,
            &first.calls[0].arguments,
            r#"{"city": "Z\u00fcrich", "units": "metric"}"#,
        );
        assert_eq!(
            first.usage.map(|u| (u.input_tokens, u.output_tokens)),
            Some((182, 31)),
            "{wire:?}"
        );
        let result = "tool result for call_weather_1: {\"temp\": 14}";
        let second = stream(&server, wire, result).await.expect("answer");
        assert!(second.text.starts_with("It is currently mild"), "{wire:?}");
        assert!(second.calls.is_empty());
    }
}

#[tokio::test]
async fn recovers_from_invalid_args_sends_cut_arguments_first() {
    for wire in WIRES {
        let server = TestServer::start(script("recovers_from_invalid_args.json"))
            .await
            .expect("server");
        let first = stream(&server, wire, "2 * (3 + 4)?").await.expect("first");
        if wire == Wire::Gemini {
            // Cut arguments cannot be a `functionCall`: Gemini's malformed-call finish, no call.
            assert!(first.calls.is_empty());
            assert_eq!(
                first.finish_reason.as_deref(),
                Some("MALFORMED_FUNCTION_CALL")
            );
        } else {
            assert!(serde_json::from_str::<serde_json::Value>(&first.calls[0].arguments).is_err());
        }
        let second = stream(&server, wire, "call_calc_1 failed: invalid JSON")
            .await
            .expect("second");
        let arguments: serde_json::Value =
            serde_json::from_str(&second.calls[0].arguments).expect("valid now");
        assert_eq!(arguments["expression"], "2 * (3 + 4)");
        let last = stream(&server, wire, "call_calc_2 returned 14")
            .await
            .expect("last");
        assert_eq!(last.text, "2 * (3 + 4) = 14.");
    }
}

#[tokio::test]
async fn loops_forever_keeps_calling() {
    let server = TestServer::start(script("loops_forever.json"))
        .await
        .expect("server");
    for round in 0..9 {
        let reply = stream(&server, WIRES[round % WIRES.len()], "what time is it")
            .await
            .expect("reply");
        assert_eq!(reply.calls[0].name, "time_now");
    }
}

#[tokio::test]
async fn disconnects_mid_call_cuts_the_call_then_answers() {
    for wire in WIRES {
        let server = TestServer::start(script("disconnects_mid_call.json"))
            .await
            .expect("server");
        match stream(&server, wire, "echo this").await {
            Err(ClientError::Cut { partial }) => {
                assert_eq!(partial.calls[0].name, "echo_echo", "{wire:?}");
                let sent = &partial.calls[0].arguments;
                let whole =
                    r#"{"message": "this call is cut off before its arguments end", "repeat": 2}"#;
                if wire == Wire::Gemini {
                    // The call came whole; the finishing chunk never did.
                    assert_arguments(wire, sent, whole);
                    assert!(partial.finish_reason.is_none());
                    let retry = stream(&server, wire, "echo this").await.expect("retry");
                    assert!(retry.text.starts_with("Reconnected"));
                    continue;
                }
                assert!(
                    !sent.is_empty()
                        && sent.len() < whole.len()
                        && whole.starts_with(sent.as_str())
                );
            }
            other => panic!("{wire:?}: expected a cut, got {other:?}"),
        }
        let retry = stream(&server, wire, "echo this").await.expect("retry");
        assert!(retry.text.starts_with("Reconnected"));
    }
}

#[tokio::test]
async fn rate_limited_then_ok_is_retried_after_the_second_it_asks_for() {
    for wire in WIRES {
        let server = TestServer::start(script("rate_limited_then_ok.json"))
            .await
            .expect("server");
        let mut notices = Vec::new();
        let reply = toolscope_llm::client::stream_reply_with_retries(
            &reqwest::Client::new(),
            &common::endpoint(&server, wire, None),
            common::body(wire, "hi"),
            &tokio_util::sync::CancellationToken::new(),
            |_| {},
            |notice| notices.push(notice.clone()),
        )
        .await
        .expect("the retry is answered");
        assert_eq!(reply.text, "Hello after the rate limit.", "{wire:?}");
        assert_eq!(notices.len(), 1, "{wire:?}");
        assert_eq!(
            notices[0].wait,
            std::time::Duration::from_secs(1),
            "{wire:?}"
        );
        assert_eq!(server.requests().len(), 2, "{wire:?}");
    }
}

#[tokio::test]
async fn prompted_hermes_puts_the_call_in_the_text() {
    for wire in WIRES {
        let server = TestServer::start(script("prompted_hermes.json"))
            .await
            .expect("server");
        let reply = stream(&server, wire, "sqrt(2) * 10?").await.expect("reply");
        assert!(reply.calls.is_empty());
        let inner = reply
            .text
            .split_once("<tool_call>")
            .and_then(|(_, rest)| rest.split_once("</tool_call>"))
            .map(|(inner, _)| inner)
            .expect("a tool_call tag");
        let call: serde_json::Value = serde_json::from_str(inner.trim()).expect("JSON call");
        assert_eq!(call["name"], "calculator_evaluate");
        assert_eq!(call["arguments"]["expression"], "sqrt(2) * 10");
        let answer = stream(
            &server,
            wire,
            "<tool_response>14.142135623730951</tool_response>",
        )
        .await
        .expect("answer");
        assert!(answer.text.contains("14.142"));
    }
}
