//! Against a real HTTP server on 127.0.0.1 that answers with canned bytes, written in small
//! pieces so SSE events and JSON chunks are split where a real network splits them.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

/// Serves one connection: reads the request, records it, writes `response` in `piece`-byte
/// writes with a pause between them, then closes (or holds the connection open when `hold`).
async fn serve_once(
    response: String,
    piece: usize,
    hold: bool,
) -> (String, tokio::task::JoinHandle<String>) {
    let (url, task) = serve(vec![response], piece, hold).await;
    let task = tokio::spawn(async move { task.await.expect("server").pop().expect("one request") });
    (url, task)
}

/// Serves one connection per response, in order (each response closes its connection), and
/// records every request.
async fn serve(
    responses: Vec<String>,
    piece: usize,
    hold: bool,
) -> (String, tokio::task::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        let mut requests = Vec::new();
        for response in responses {
            let (socket, _) = listener.accept().await.expect("accept");
            requests.push(answer(socket, response, piece, hold).await);
        }
        requests
    });
    (url, task)
}

async fn answer(
    mut socket: tokio::net::TcpStream,
    response: String,
    piece: usize,
    hold: bool,
) -> String {
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    // Headers, then the body by Content-Length.
    loop {
        let n = socket.read(&mut buffer).await.expect("read");
        request.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&request).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if request.len() >= end + 4 + length {
                break;
            }
        }
        if n == 0 {
            break;
        }
    }
    for chunk in response.as_bytes().chunks(piece) {
        if socket.write_all(chunk).await.is_err() {
            break;
        }
        let _ = socket.flush().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    if hold {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    String::from_utf8_lossy(&request).into_owned()
}

fn sse(events: &[&str]) -> String {
    let mut body = String::new();
    for data in events {
        body.push_str(&format!("data: {data}\n\n"));
    }
    format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{body}")
}

fn endpoint(wire: Wire, url: String) -> Endpoint {
    Endpoint {
        wire,
        base_url: url,
        model: "tiny".to_owned(),
        api_key: Some("sk-test".to_owned()),
        idle_timeout: Duration::from_millis(500),
        max_retries: Endpoint::DEFAULT_MAX_RETRIES,
    }
}

#[tokio::test]
async fn an_openai_stream_split_in_tiny_pieces_assembles_and_reports_each_event() {
    let response = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"On it."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"get_weather","arguments":"{\"city\""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": \"Oslo\"}"}}]},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    let (url, server) = serve_once(response, 7, false).await;
    let mut seen = 0;
    let reply = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, format!("{url}/v1")),
        json!({"messages": [{"role": "user", "content": "weather?"}]}),
        &CancellationToken::new(),
        |_| seen += 1,
    )
    .await
    .expect("streamed reply");
    assert_eq!(reply.text, "On it.");
    assert_eq!(reply.calls[0].name, "get_weather");
    assert_eq!(reply.calls[0].arguments, "{\"city\": \"Oslo\"}");
    assert_eq!(seen, 5);
    let request = server.await.expect("server");
    assert!(
        request.starts_with("POST /v1/chat/completions"),
        "{request}"
    );
    assert!(request
        .to_ascii_lowercase()
        .contains("authorization: bearer sk-test"));
    assert!(request.contains("\"stream\":true") && request.contains("\"model\":\"tiny\""));
}

#[tokio::test]
async fn a_refusal_is_classified_with_its_retry_after() {
    let response = "HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 52\r\n\r\n{\"error\":{\"message\":\"slow down\",\"type\":\"requests\"}}".to_owned();
    let (url, _server) = serve_once(response, 64, false).await;
    // With retries off, the refusal is returned as it came.
    let mut once = endpoint(Wire::Anthropic, url);
    once.max_retries = 0;
    let error = stream_reply(
        &reqwest::Client::new(),
        &once,
        json!({"messages": [], "max_tokens": 16}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "rate limited (HTTP 429), retry after 3 s: slow down"
    );
}

#[tokio::test]
async fn a_stream_cut_before_the_finish_keeps_what_arrived() {
    let response = sse(&[
        r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}"#,
    ]);
    let (url, _server) = serve_once(response, 11, false).await;
    let error = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::Anthropic, url),
        json!({"messages": [], "max_tokens": 16}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("cut");
    match error {
        ClientError::Cut { partial } => assert_eq!(partial.calls[0].arguments, "{\"path\": \"a"),
        other => panic!("expected a cut stream, got {other}"),
    }
}

#[tokio::test]
async fn a_silent_stream_stalls_and_cancelling_ends_at_once() {
    let partial = sse(&[r#"{"choices":[{"index":0,"delta":{"content":"Hm"}}]}"#]);
    let (url, _server) = serve_once(partial.clone(), 64, true).await;
    let stalled = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, url),
        json!({"messages": []}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("stalled");
    assert!(matches!(stalled, ClientError::Stalled { .. }), "{stalled}");

    let (url, _server) = serve_once(partial, 64, true).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let mut slow = endpoint(Wire::OpenAiChat, url);
    slow.idle_timeout = Duration::from_secs(30);
    let cancelled = stream_reply(&reqwest::Client::new(), &slow, json!({}), &cancel, |_| {})
        .await
        .expect_err("cancelled");
    // The server holds the stream for 5 s and then closes it (a cut): only the cancel ends
    // it as cancelled.
    assert!(
        matches!(cancelled, ClientError::Cancelled { .. }),
        "{cancelled}"
    );
}

#[tokio::test]
async fn test_connection_lists_the_served_models_or_says_why_not() {
    let body = r#"{"object":"list","data":[{"id":"smollm2-135m","object":"model"},{"id":"other","object":"model"}]}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let (url, server) = serve_once(response, 16, false).await;
    let models = list_models(
        &reqwest::Client::new(),
        &endpoint(Wire::OpenAiChat, format!("{url}/v1")),
    )
    .await
    .expect("models");
    assert_eq!(models, ["smollm2-135m", "other"]);
    assert!(server.await.expect("server").starts_with("GET /v1/models"));

    let refused = "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: 63\r\n\r\n{\"type\":\"error\",\"error\":{\"type\":\"x\",\"message\":\"invalid x-api-key\"}}".to_owned();
    let (url, _server) = serve_once(refused, 16, false).await;
    let error = list_models(&reqwest::Client::new(), &endpoint(Wire::Anthropic, url))
        .await
        .expect_err("refused");
    assert!(
        matches!(
            error,
            ClientError::Refused(EndpointError::Unauthorized { .. })
        ),
        "{error}"
    );
}

mod gemini_and_retries;
mod unstreamed;
