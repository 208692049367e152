//! Replies that arrive whole: what llama-cpp-python's server does with a call the model chose
//! itself (an event stream closed before its first event), and a server that ignores `stream`.

use super::*;

/// The llama-cpp-python 0.3.36 answer to a streamed `tool_choice: "auto"` request whose model
/// chose a call: the event stream starts, then ends empty.
fn empty_stream() -> String {
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\nconnection: close\r\n\r\n"
        .to_owned()
}

/// Its non-streamed answer to the same request (ids shortened).
const WHOLE: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call__0_calculator_evaluate_cmpl-1","type":"function","function":{"name":"calculator_evaluate","arguments":"{ \"expression\": \"12 * 7\" }"}}],"function_call":{"name":"calculator_evaluate","arguments":"{ \"expression\": \"12 * 7\" }"}}}],"usage":{"completion_tokens":12,"prompt_tokens":25,"total_tokens":37}}"#;

fn json_response(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn check_whole(reply: &AssembledReply) {
    assert_eq!(reply.calls.len(), 1);
    assert_eq!(reply.calls[0].id, "call__0_calculator_evaluate_cmpl-1");
    assert_eq!(reply.calls[0].name, "calculator_evaluate");
    assert_eq!(reply.calls[0].arguments, r#"{ "expression": "12 * 7" }"#);
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        reply.usage,
        Some(crate::reply::Usage {
            input_tokens: 25,
            output_tokens: 12
        })
    );
}

#[tokio::test]
async fn a_stream_closed_before_its_first_event_is_asked_again_whole() {
    let (url, server) = serve(vec![empty_stream(), json_response(WHOLE)], 64, false).await;
    let mut sent = Vec::new();
    let mut retries = Vec::new();
    let mut raw = Vec::new();
    let reply = stream_observed(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, format!("{url}/v1")),
        json!({"messages": [], "tool_choice": "auto", "stream_options": {"include_usage": true}}),
        &CancellationToken::new(),
        |notice| match notice {
            ClientNotice::Sent { body } => sent.push(body.clone()),
            ClientNotice::Retry(retry) => retries.push(retry.reason.clone()),
            ClientNotice::Raw { data } => raw.push(data.to_owned()),
            ClientNotice::Event(_) => {}
        },
    )
    .await
    .expect("the whole reply");
    check_whole(&reply);
    assert_eq!(retries, [UNSTREAMED_REASON]);
    assert_eq!(sent.len(), 2, "both requests are told: {sent:?}");
    assert_eq!(sent[0]["stream"], true);
    assert_eq!(sent[1]["stream"], false);
    assert!(
        sent[1].get("stream_options").is_none(),
        "only with streaming"
    );
    assert_eq!(raw, [WHOLE], "the document is the turn's one chunk");
    let requests = server.await.expect("server");
    assert!(requests[1].contains("\"stream\":false"), "{}", requests[1]);
}

#[tokio::test]
async fn a_json_answer_to_a_streamed_request_is_read_as_one_document() {
    let (url, server) = serve_once(json_response(WHOLE), 16, false).await;
    let mut events = 0;
    let reply = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, format!("{url}/v1")),
        json!({"messages": []}),
        &CancellationToken::new(),
        |_| events += 1,
    )
    .await
    .expect("the document");
    check_whole(&reply);
    assert_eq!(events, 4, "call started, its arguments, finished, usage");
    assert!(server.await.expect("server").contains("\"stream\":true"));
}

#[tokio::test]
async fn other_wires_still_report_an_empty_stream_as_cut() {
    let (url, _server) = serve(vec![empty_stream()], 64, false).await;
    let error = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::Anthropic, url),
        json!({"messages": []}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("nothing arrived");
    assert!(matches!(error, ClientError::Cut { .. }), "{error:?}");
}

#[tokio::test]
async fn an_error_document_is_reported_with_its_message() {
    let error = r#"{"error":{"message":"'dict object' has no attribute 'content'","type":"internal_server_error"}}"#;
    let (url, _server) = serve(vec![empty_stream(), json_response(error)], 64, false).await;
    let failure = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, format!("{url}/v1")),
        json!({"messages": []}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("an error document");
    assert!(
        failure.to_string().contains("has no attribute 'content'"),
        "{failure}"
    );
}
