//! Shared by the integration tests: endpoints pointing at a test server, a one-call way to
//! stream a reply through the real `toolscope-llm` client, and the fixtures' directory.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use toolscope_llm::client::{stream_reply, ClientError, Endpoint, Wire};
use toolscope_llm::{AssembledReply, ReplyEvent};
use toolscope_llm_testserver::TestServer;

pub const WIRES: [Wire; 4] = [
    Wire::OpenAiChat,
    Wire::OpenAiResponses,
    Wire::Anthropic,
    Wire::Gemini,
];

pub fn endpoint(server: &TestServer, wire: Wire, key: Option<&str>) -> Endpoint {
    let base_url = match wire {
        Wire::Anthropic | Wire::Gemini => server.base_url(),
        Wire::OpenAiChat | Wire::OpenAiResponses => server.openai_base_url(),
    };
    Endpoint::new(
        wire,
        base_url,
        "toolscope-test".to_owned(),
        key.map(str::to_owned),
        Duration::from_secs(5),
    )
}

/// A minimal request body in the wire's shape, with `extra` text in the last user message.
pub fn body(wire: Wire, extra: &str) -> Value {
    match wire {
        Wire::OpenAiResponses => json!({"input": [{"role": "user", "content": extra}]}),
        Wire::Anthropic => {
            json!({"max_tokens": 256, "messages": [{"role": "user", "content": extra}]})
        }
        Wire::OpenAiChat => json!({"messages": [{"role": "user", "content": extra}]}),
        Wire::Gemini => json!({"contents": [{"role": "user", "parts": [{"text": extra}]}]}),
    }
}

/// Streams one reply and also returns the events the client reported.
pub async fn stream_with(
    endpoint: &Endpoint,
    body: Value,
) -> (Result<AssembledReply, ClientError>, Vec<ReplyEvent>) {
    let mut events = Vec::new();
    let result = stream_reply(
        &reqwest::Client::new(),
        endpoint,
        body,
        &CancellationToken::new(),
        |event| events.push(event.clone()),
    )
    .await;
    (result, events)
}

pub async fn stream(
    server: &TestServer,
    wire: Wire,
    text: &str,
) -> Result<AssembledReply, ClientError> {
    stream_with(&endpoint(server, wire, None), body(wire, text))
        .await
        .0
}

/// `tests/fixtures/llm` at the repository's root.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/llm")
}

/// The arguments the client assembled, as the script wrote them: the exact text on the wires
/// that stream the text, the same JSON on Gemini (which sends `args` as an object, so the
/// client sees its compact serialization).
pub fn assert_arguments(wire: Wire, got: &str, scripted: &str) {
    if wire == Wire::Gemini {
        let got: Value = serde_json::from_str(got).unwrap_or_else(|e| panic!("{e}: {got}"));
        let scripted: Value = serde_json::from_str(scripted).expect("scripted JSON");
        assert_eq!(got, scripted, "{wire:?}");
    } else {
        assert_eq!(got, scripted, "{wire:?}");
    }
}
