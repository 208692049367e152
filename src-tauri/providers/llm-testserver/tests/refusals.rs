//! Refusals: each scripted status is classified by `toolscope_llm::status` as the vendors'
//! real ones are, and the server's own refusals (wrong key, `expect` not met, script
//! exhausted, not streamed) say exactly why.

mod common;

use std::time::Duration;

use common::{body, endpoint, stream, stream_with, WIRES};
use toolscope_llm::client::{ClientError, Wire};
use toolscope_llm::EndpointError;
use toolscope_llm_testserver::{ErrorReply, Expect, Reply, Script, TestServer, Turn};

fn error(status: u16) -> ErrorReply {
    ErrorReply {
        status,
        ..ErrorReply::default()
    }
}

async fn refusal(turn: ErrorReply, wire: Wire) -> EndpointError {
    let server = TestServer::start(Script::new(vec![Turn::error(turn)]))
        .await
        .expect("server");
    // Retries off: each refusal is classified as it came.
    let mut endpoint = endpoint(&server, wire, None);
    endpoint.max_retries = 0;
    match stream_with(&endpoint, body(wire, "hi")).await.0 {
        Err(ClientError::Refused(error)) => error,
        other => panic!("{wire:?}: expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn each_scripted_status_is_classified_as_the_vendors_are() {
    for wire in WIRES {
        let limited = ErrorReply {
            retry_after: Some("1".to_owned()),
            ..error(429)
        };
        assert_eq!(
            refusal(limited, wire).await,
            EndpointError::RateLimited {
                retry_after: Some(Duration::from_secs(1)),
                message: "scripted error 429 Too Many Requests".to_owned()
            },
            "{wire:?}"
        );
        let context = ErrorReply {
            message: Some(
                "This model's maximum context length is 4096 tokens. However, you requested \
                 5120 tokens (5000 in the messages, 120 in the completion). Please reduce the \
                 length of the messages or completion."
                    .to_owned(),
            ),
            code: Some("context_length_exceeded".to_owned()),
            ..error(400)
        };
        assert!(
            matches!(
                refusal(context, wire).await,
                EndpointError::ContextLength { status: 400, .. }
            ),
            "{wire:?}"
        );
        let missing = ErrorReply {
            message: Some("The model `toolscope-test` does not exist".to_owned()),
            code: Some("model_not_found".to_owned()),
            ..error(404)
        };
        assert!(matches!(
            refusal(missing, wire).await,
            EndpointError::ModelNotFound { status: 404, .. }
        ));
        assert!(matches!(
            refusal(error(403), wire).await,
            EndpointError::Unauthorized { status: 403, .. }
        ));
        assert!(matches!(
            refusal(error(529), wire).await,
            EndpointError::Server { status: 529, .. }
        ));
        assert!(matches!(
            refusal(error(422), wire).await,
            EndpointError::Rejected { status: 422, .. }
        ));
        let proxy = ErrorReply {
            body: Some("<html><body>502 Bad Gateway</body></html>".to_owned()),
            ..error(502)
        };
        assert!(
            matches!(refusal(proxy, wire).await, EndpointError::Server { status: 502, message } if message.contains("Bad Gateway"))
        );
    }
}

#[tokio::test]
async fn error_bodies_have_the_vendor_s_shape() {
    let script = Script::new(vec![Turn {
        repeat: true,
        ..Turn::error(ErrorReply {
            message: Some("slow down".to_owned()),
            retry_after: Some("1".to_owned()),
            ..error(429)
        })
    }]);
    let server = TestServer::start(script).await.expect("server");
    let client = reqwest::Client::new();
    let post = |url: String| client.post(url).json(&serde_json::json!({"stream": true}));
    let openai = post(format!("{}/chat/completions", server.openai_base_url()))
        .send()
        .await
        .expect("send");
    assert_eq!(openai.status(), 429);
    assert_eq!(openai.headers()["retry-after"], "1");
    let openai: serde_json::Value = openai.json().await.expect("json");
    assert_eq!(openai["error"]["message"], "slow down");
    assert!(openai["error"]["type"].is_string() && openai["error"].get("code").is_some());
    let anthropic: serde_json::Value = post(format!("{}/v1/messages", server.base_url()))
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    assert_eq!(
        anthropic,
        serde_json::json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})
    );
}

#[tokio::test]
async fn gemini_error_bodies_have_google_s_shape_and_say_how_long_to_wait() {
    let script = Script::new(vec![Turn {
        repeat: true,
        ..Turn::error(ErrorReply {
            message: Some("slow down".to_owned()),
            code: Some("RATE_LIMIT_EXCEEDED".to_owned()),
            retry_after: Some("3".to_owned()),
            ..error(429)
        })
    }]);
    let server = TestServer::start(script).await.expect("server");
    let url = format!(
        "{}/v1beta/models/toolscope-test:streamGenerateContent?alt=sse",
        server.base_url()
    );
    let response = reqwest::Client::new()
        .post(url)
        .json(&body(Wire::Gemini, "hi"))
        .send()
        .await
        .expect("send");
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "3");
    let gemini: serde_json::Value = response.json().await.expect("json");
    assert_eq!(
        gemini,
        serde_json::json!({"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED", "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED", "domain": "googleapis.com"},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"},
        ]}})
    );
    // Without the header, the client still finds the wait in the body.
    let body_only = ErrorReply {
        body: Some(gemini.to_string()),
        ..error(429)
    };
    assert!(matches!(
        refusal(body_only, Wire::Gemini).await,
        EndpointError::RateLimited {
            retry_after: Some(wait),
            ..
        } if wait == Duration::from_secs(3)
    ));
    let context = ErrorReply {
        message: Some(
            "The input token count (1200293) exceeds the maximum number of tokens allowed \
             (1048576)."
                .to_owned(),
        ),
        ..error(400)
    };
    assert!(matches!(
        refusal(context, Wire::Gemini).await,
        EndpointError::ContextLength { status: 400, .. }
    ));
    let key = ErrorReply {
        code: Some("API_KEY_INVALID".to_owned()),
        ..error(400)
    };
    assert!(matches!(
        refusal(key, Wire::Gemini).await,
        EndpointError::Unauthorized { status: 400, .. }
    ));
}

/// The status a refused key gets: 401 on the OpenAI wires and Anthropic; on Gemini, as Google
/// answers it, 403 `PERMISSION_DENIED` without a key and 400 `API_KEY_INVALID` with a wrong one.
fn key_status(wire: Wire, key: Option<&str>) -> u16 {
    match (wire, key) {
        (Wire::Gemini, None) => 403,
        (Wire::Gemini, Some(_)) => 400,
        _ => 401,
    }
}

#[tokio::test]
async fn a_wrong_or_missing_key_is_refused_in_the_vendor_s_shape() {
    for wire in WIRES {
        let mut script = Script::new(vec![Turn::reply(Reply {
            text: Some("ok".to_owned()),
            ..Reply::default()
        })]);
        script.api_key = Some("sk-right".to_owned());
        let server = TestServer::start(script).await.expect("server");
        for key in [None, Some("sk-wrong")] {
            let (result, _) =
                stream_with(&endpoint(&server, wire, key), common::body(wire, "hi")).await;
            assert!(
                matches!(
                    result,
                    Err(ClientError::Refused(EndpointError::Unauthorized { status, .. }))
                        if status == key_status(wire, key)
                ),
                "{wire:?} {key:?}: {result:?}"
            );
        }
        let (result, _) = stream_with(
            &endpoint(&server, wire, Some("sk-right")),
            common::body(wire, "hi"),
        )
        .await;
        assert_eq!(result.expect("accepted").text, "ok", "{wire:?}");
        assert_eq!(server.turns_used(), 1, "refusals use up no turn");
    }
}

#[tokio::test]
async fn an_unmet_expectation_is_a_400_that_names_what_is_missing() {
    let turn = Turn {
        expect: Some(Expect {
            contains: vec!["call_weather_1".to_owned()],
            pointers: [("/messages/0/role".to_owned(), serde_json::json!("user"))].into(),
        }),
        ..Turn::reply(Reply::default())
    };
    let server = TestServer::start(Script::new(vec![turn.clone(), turn]))
        .await
        .expect("server");
    match stream(&server, Wire::OpenAiChat, "no tool result here").await {
        Err(ClientError::Refused(EndpointError::Rejected {
            status: 400,
            message,
        })) => {
            assert_eq!(
                message,
                "script turn 0 expected the request to have the text \"call_weather_1\""
            );
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    let met = stream(&server, Wire::OpenAiChat, "result of call_weather_1: 12 °C").await;
    assert!(met.is_ok(), "{met:?}");
}

#[tokio::test]
async fn an_exhausted_script_and_an_unstreamed_request_are_refused() {
    let server = TestServer::start(Script::new(vec![Turn::reply(Reply {
        text: Some("only once".to_owned()),
        ..Reply::default()
    })]))
    .await
    .expect("server");
    let unstreamed = reqwest::Client::new()
        .post(format!("{}/chat/completions", server.openai_base_url()))
        .json(&serde_json::json!({"model": "m", "messages": []}))
        .send()
        .await
        .expect("send");
    assert_eq!(unstreamed.status(), 400);
    // Gemini: the unstreamed method, and the streamed one without `alt=sse` (which would be a
    // JSON array, not SSE).
    for target in [
        "toolscope-test:generateContent",
        "toolscope-test:streamGenerateContent",
    ] {
        let unstreamed = reqwest::Client::new()
            .post(format!("{}/v1beta/models/{target}", server.base_url()))
            .json(&body(Wire::Gemini, "hi"))
            .send()
            .await
            .expect("send");
        assert_eq!(unstreamed.status(), 400, "{target}");
        let error: serde_json::Value = unstreamed.json().await.expect("json");
        assert_eq!(error["error"]["status"], "INVALID_ARGUMENT", "{target}");
    }
    assert_eq!(server.turns_used(), 0);
    assert!(stream(&server, Wire::Anthropic, "hi").await.is_ok());
    match stream(&server, Wire::Anthropic, "hi").await {
        Err(ClientError::Refused(EndpointError::Rejected {
            status: 400,
            message,
        })) => {
            assert_eq!(message, "script exhausted after 1 turns");
        }
        other => panic!("expected a 400, got {other:?}"),
    }
}
