//! Gemini end to end, and rate-limit retries against servers that refuse first.

use std::time::Instant;

use super::*;

/// A refusal with a JSON body and any extra headers (`retry-after: 1\r\n`).
fn refusal(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}content-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

const GEMINI_LIMIT: &str = r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#;

fn gemini_reply() -> String {
    sse(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Checking.","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":21,"totalTokenCount":21}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"One moment."},{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":21,"candidatesTokenCount":11,"thoughtsTokenCount":5,"totalTokenCount":37}}"#,
    ])
}

#[tokio::test]
async fn a_gemini_stream_names_the_model_in_the_url_and_ends_with_the_connection() {
    let (url, server) = serve_once(gemini_reply(), 9, false).await;
    let mut seen = Vec::new();
    let reply = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": [{"role": "user", "parts": [{"text": "weather?"}]}]}),
        &CancellationToken::new(),
        |event| seen.push(event.clone()),
    )
    .await
    .expect("streamed reply");
    assert_eq!(reply.reasoning, "Checking.");
    assert_eq!(reply.text, "One moment.");
    assert_eq!(reply.calls[0].id, "call_0");
    assert_eq!(reply.calls[0].arguments, r#"{"city":"Oslo"}"#);
    assert_eq!(reply.finish_reason.as_deref(), Some("STOP"));
    assert_eq!(reply.usage.map(|u| u.output_tokens), Some(16));
    assert_eq!(seen.len(), 6, "{seen:?}");
    let request = server.await.expect("server");
    assert!(
        request.starts_with("POST /v1beta/models/tiny:streamGenerateContent?alt=sse HTTP/1.1"),
        "{request}"
    );
    let lower = request.to_ascii_lowercase();
    assert!(lower.contains("x-goog-api-key: sk-test"), "{request}");
    assert!(!lower.contains("authorization:"), "{request}");
    let body = &request[request.find("\r\n\r\n").expect("body") + 4..];
    assert!(
        !body.contains("\"model\"") && !body.contains("\"stream\""),
        "{body}"
    );
}

#[tokio::test]
async fn a_gemini_stream_closed_before_a_finish_reason_is_cut() {
    let response =
        sse(&[r#"{"candidates":[{"content":{"parts":[{"text":"Half a"}],"role":"model"}}]}"#]);
    let (url, _server) = serve_once(response, 16, false).await;
    let error = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("cut");
    assert!(
        matches!(&error, ClientError::Cut { partial } if partial.text == "Half a"),
        "{error}"
    );
}

#[tokio::test]
async fn gemini_lists_its_models_without_the_models_prefix() {
    let body = r#"{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash"},{"name":"models/gemma-3-4b-it"}],"nextPageToken":""}"#;
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let (url, server) = serve_once(response, 32, false).await;
    let models = list_models(&reqwest::Client::new(), &endpoint(Wire::Gemini, url))
        .await
        .expect("models");
    assert_eq!(models, ["gemini-2.5-flash", "gemma-3-4b-it"]);
    let request = server.await.expect("server");
    assert!(
        request.starts_with("GET /v1beta/models?pageSize=1000 "),
        "{request}"
    );
    assert!(request
        .to_ascii_lowercase()
        .contains("x-goog-api-key: sk-test"));
}

#[tokio::test]
async fn an_overload_and_a_rate_limit_are_retried_after_the_asked_wait_and_shown() {
    let (url, server) = serve(
        vec![
            refusal(
                "503 Service Unavailable",
                "retry-after: 0\r\n",
                r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
            ),
            refusal("429 Too Many Requests", "retry-after: 1\r\n", GEMINI_LIMIT),
            gemini_reply(),
        ],
        64,
        false,
    )
    .await;
    let mut notices = Vec::new();
    let started = Instant::now();
    let reply = stream_reply_with_retries(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &CancellationToken::new(),
        |_| {},
        |notice| notices.push(notice.clone()),
    )
    .await
    .expect("the third attempt streams");
    assert_eq!(reply.text, "One moment.");
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited 1 s"
    );
    assert_eq!(notices.len(), 2);
    assert_eq!((notices[0].attempt, notices[0].of), (1, 2));
    assert_eq!(notices[0].wait, Duration::ZERO);
    assert!(notices[0].reason.contains("HTTP 503"), "{:?}", notices[0]);
    assert_eq!(
        notices[1],
        RetryNotice {
            attempt: 2,
            of: 2,
            wait: Duration::from_secs(1),
            reason: "rate limited (HTTP 429), retry after 1 s: Resource has been exhausted (e.g. check quota).".to_owned(),
        }
    );
    assert_eq!(server.await.expect("server").len(), 3);
}

#[tokio::test]
async fn retries_run_out_and_the_error_counts_the_attempts() {
    let limit = refusal("429 Too Many Requests", "retry-after: 0\r\n", GEMINI_LIMIT);
    let (url, _server) = serve(vec![limit; 3], 64, false).await;
    let mut notices = 0;
    let error = stream_reply_with_retries(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &CancellationToken::new(),
        |_| {},
        |_| notices += 1,
    )
    .await
    .expect_err("still refused");
    assert_eq!(notices, 2);
    assert!(
        matches!(error, ClientError::GaveUp { attempts: 3, .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("gave up after 3 attempt(s): rate limited (HTTP 429)"),
        "{error}"
    );
}

#[tokio::test]
async fn an_overload_without_a_retry_after_is_not_retried() {
    let overloaded = refusal(
        "503 Service Unavailable",
        "",
        r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
    );
    let (url, _server) = serve(vec![overloaded], 64, false).await;
    let error = stream_reply(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &CancellationToken::new(),
        |_| {},
    )
    .await
    .expect_err("refused");
    assert!(
        matches!(
            error,
            ClientError::Refused(EndpointError::Server { status: 503, .. })
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_wait_longer_than_the_cap_is_reported_not_waited() {
    let limit = refusal(
        "429 Too Many Requests",
        "retry-after: 3600\r\n",
        GEMINI_LIMIT,
    );
    let (url, _server) = serve(vec![limit], 64, false).await;
    let started = Instant::now();
    let mut notices = 0;
    let error = stream_reply_with_retries(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &CancellationToken::new(),
        |_| {},
        |_| notices += 1,
    )
    .await
    .expect_err("not waited");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(notices, 0);
    assert!(
        matches!(
            error,
            ClientError::GaveUp {
                attempts: 1,
                refused_wait: Some(wait),
                ..
            } if wait == Duration::from_secs(3600)
        ),
        "{error}"
    );
}

#[tokio::test]
async fn cancelling_ends_a_retry_wait_at_once() {
    let limit = refusal("429 Too Many Requests", "retry-after: 30\r\n", GEMINI_LIMIT);
    let (url, _server) = serve(vec![limit], 64, false).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let started = Instant::now();
    let mut notices = Vec::new();
    let error = stream_reply_with_retries(
        &reqwest::Client::new(),
        &endpoint(Wire::Gemini, url),
        json!({"contents": []}),
        &cancel,
        |_| {},
        |notice| {
            notices.push(notice.clone());
            // Cancelled while the 30 s wait runs, as a person pressing Stop would.
            let trigger = trigger.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                trigger.cancel();
            });
        },
    )
    .await
    .expect_err("cancelled");
    assert!(matches!(error, ClientError::Cancelled { .. }), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].wait, Duration::from_secs(30));
}
