//! Where HTTP tools stop: the endpoint timeout, cancellation, the response body cap, missing
//! environment variables, secret redaction in every error and result, and redirects to another
//! origin (which would carry credentials elsewhere).

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Map};
use support::calls::*;
use support::{closed_port, Reply, TestServer};
use tokio_util::sync::CancellationToken;
use toolscope_engine::{CallContext, Tool, ToolFailure};

#[tokio::test]
async fn the_endpoint_timeout_fails_the_call_and_says_so() {
    let server = TestServer::start(|_| {
        Reply::Delayed(
            Duration::from_secs(20),
            Box::new(Reply::json(200, json!({}))),
        )
    })
    .await;
    let t = tool(
        &server.base,
        json!({"url": "/slow", "timeout_ms": 200}),
        json!({"type": "object"}),
    );
    let started = Instant::now();
    let result = call(&t, json!({})).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(&result, Err(ToolFailure::Transport(_))),
        "{result:?}"
    );
    let text = failure_text(result);
    assert!(text.contains("timed out after 200 ms"), "{text}");
}

#[tokio::test]
async fn cancelling_the_call_context_stops_the_request() {
    let server = TestServer::start(|_| {
        Reply::Delayed(
            Duration::from_secs(20),
            Box::new(Reply::json(200, json!({}))),
        )
    })
    .await;
    let t = tool(
        &server.base,
        json!({"url": "/slow"}),
        json!({"type": "object"}),
    );
    let cancel = CancellationToken::new();
    let ctx = CallContext {
        cancel: cancel.clone(),
        request_id: "r1".into(),
        ..CallContext::default()
    };
    let trigger = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let result = t.call("m", Map::new(), ctx).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let text = failure_text(result);
    assert!(text.ends_with("/slow was cancelled"), "{text}");
    trigger.await.expect("trigger ran");
}

#[tokio::test]
async fn a_huge_response_is_cut_off_at_the_cap_without_reading_it_all() {
    const TOTAL: u64 = 20 * 1024 * 1024;
    let server = TestServer::start(|r| Reply::Flood {
        total: TOTAL,
        declare_length: r.path() == "/declared",
    })
    .await;
    let schema = json!({"type": "object"});
    let streamed = tool(&server.base, json!({"url": "/streamed"}), schema.clone());
    let text = failure_text(call(&streamed, json!({})).await);
    assert!(
        text.contains("response larger than 4194304 bytes"),
        "{text}"
    );
    // The client stopped reading and closed the connection: the server could not write all
    // 20 MiB (socket buffers hold a few MiB at most).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let written = server.flooded.load(std::sync::atomic::Ordering::SeqCst);
    assert!(written < TOTAL, "server wrote {written} of {TOTAL} bytes");

    let declared = tool(
        &server.base,
        json!({"url": "/declared", "response": {"max_bytes": 1000}}),
        schema,
    );
    let text = failure_text(call(&declared, json!({})).await);
    assert!(
        text.contains("response larger than 1000 bytes")
            && text.contains("announced 20971520 bytes"),
        "{text}"
    );
}

#[tokio::test]
async fn a_missing_environment_variable_is_named_and_nothing_is_sent() {
    let server = TestServer::start(|_| Reply::json(200, json!({}))).await;
    let t = tool(
        &server.base,
        json!({"url": "/x", "auth": {"type": "bearer", "token_env": "NOT_SET_ANYWHERE"}}),
        json!({"type": "object"}),
    );
    let text = failure_text(call(&t, json!({})).await);
    assert_eq!(
        text,
        "environment variable NOT_SET_ANYWHERE (needed by auth.token_env) is not set"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn secrets_never_appear_in_errors_or_results() {
    let port = closed_port();
    let refused = tool(
        &format!("http://127.0.0.1:{port}"),
        json!({"url": "/v1?city={city}",
               "auth": {"type": "api_key", "key_env": "TEST_KEY", "query": "api_key"}}),
        json!({"type": "object"}),
    );
    let result = call(&refused, json!({"city": "Oslo"})).await;
    assert!(
        matches!(&result, Err(ToolFailure::Transport(_))),
        "{result:?}"
    );
    let text = failure_text(result);
    assert!(text.contains("api_key=***"), "{text}");
    assert!(
        !text.contains("key%26with") && !text.contains(API_KEY),
        "{text}"
    );

    // A server that echoes the credentials back, in an error and in a success.
    let server = TestServer::start(|r| {
        let echoed = format!("{} {}", r.header("authorization").unwrap_or(""), r.target);
        if r.path() == "/fail" {
            Reply::text(500, &echoed)
        } else {
            Reply::json(200, json!({"echo": echoed, TOKEN: "as a key"}))
        }
    })
    .await;
    for path in ["/fail", "/ok"] {
        let t = tool(
            &server.base,
            json!({"url": path, "auth": {"type": "bearer", "token_env": "TEST_TOKEN"}}),
            json!({"type": "object"}),
        );
        let shown = match call(&t, json!({})).await {
            Ok(value) => value.to_string(),
            Err(failure) => failure.to_string(),
        };
        assert!(shown.contains("Bearer ***"), "{shown}");
        assert!(!shown.contains(TOKEN), "{shown}");
    }
    let basic_auth = tool(
        &server.base,
        json!({"url": "/fail", "auth": {"type": "basic", "username": "u",
                                        "password_env": "TEST_PASSWORD"}}),
        json!({"type": "object"}),
    );
    let text = failure_text(call(&basic_auth, json!({})).await);
    assert!(
        text.contains("Basic ***") && !text.contains(PASSWORD),
        "{text}"
    );
}

#[tokio::test]
async fn redirects_to_another_origin_are_not_followed() {
    let other = TestServer::start(|_| Reply::json(200, json!({"leaked": true}))).await;
    let target = format!("{}/collect", other.base);
    let server = TestServer::start(move |r| match r.path() {
        "/moved" => Reply::redirect("/here"),
        "/here" => Reply::json(200, json!({"same_origin": true})),
        _ => Reply::redirect(&target),
    })
    .await;
    let auth = json!({"type": "api_key", "key_env": "TEST_KEY", "header": "X-Api-Key"});
    let same = tool(
        &server.base,
        json!({"url": "/moved", "auth": auth}),
        json!({"type": "object"}),
    );
    assert_eq!(
        call(&same, json!({})).await,
        Ok(json!({"same_origin": true}))
    );
    let away = tool(
        &server.base,
        json!({"url": "/away", "auth": auth}),
        json!({"type": "object"}),
    );
    let text = failure_text(call(&away, json!({})).await);
    assert!(
        text.contains("HTTP 302 Found") && text.contains("not followed"),
        "{text}"
    );
    assert!(
        other.requests().is_empty(),
        "the other origin got no request"
    );
}
