//! Messages to and from an HTTP upstream: each agent message `POST`ed, and what comes back (a
//! JSON body, or an SSE stream of messages ending with the response) written to the agent one
//! message per line, recorded first; a refused or unreachable request answered with the
//! proxy's own JSON-RPC error.

use std::sync::Arc;

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;

use super::{legacy, SendError, Upstream, UPSTREAM_FAILED};
use crate::llm::sse::SseReader;
use crate::message::on_one_line;
use crate::stdio::{write_to, AgentOut};
use crate::tap::Tap;

/// Sends one agent message and passes on what comes back.
pub(super) async fn post<W: AsyncWrite + Unpin + Send + 'static>(
    upstream: Arc<Upstream>,
    tap: Arc<Tap>,
    out: AgentOut<W>,
    line: Vec<u8>,
    message: Option<Value>,
) {
    let request_id = message
        .as_ref()
        .filter(|m| m.get("method").is_some())
        .and_then(|m| m.get("id").cloned());
    let body = bytes::Bytes::copy_from_slice(line.strip_suffix(b"\n").unwrap_or(&line));
    let sent = upstream
        .send(|| {
            upstream
                .request(reqwest::Method::POST, "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(body.clone())
        })
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(error) => {
            let text = match error {
                SendError::Unreachable(error) => format!(
                    "the Toolscope proxy could not reach the MCP server at {}: {error}",
                    upstream.options.url
                ),
                SendError::SignIn(why) => format!(
                    "the MCP server at {} requires signing in, and the Toolscope proxy could \
                     not: {why}",
                    upstream.options.url
                ),
            };
            fail(&tap, &out, request_id.as_ref(), &text, &json!({})).await;
            return;
        }
    };
    if let Some(id) = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        upstream.session().id.get_or_insert_with(|| id.to_owned());
    }
    let status = response.status();
    let is_initialize = message
        .as_ref()
        .is_some_and(|m| m["method"] == "initialize");
    if is_initialize && legacy::may_be_older(status.as_u16()) {
        match legacy::start(&upstream, &tap, &out, body).await {
            // Its answer comes on the event stream.
            Ok(()) => return,
            Err(why) => eprintln!(
                "toolscope proxy: HTTP {} to initialize, and not the older HTTP+SSE transport \
                 either: {why}",
                status.as_u16()
            ),
        }
    }
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        let excerpt: String = body.chars().take(500).collect();
        let text = format!(
            "the MCP server answered HTTP {}{}",
            status.as_u16(),
            if excerpt.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", excerpt.trim())
            }
        );
        fail(
            &tap,
            &out,
            request_id.as_ref(),
            &text,
            &json!({"http_status": status.as_u16()}),
        )
        .await;
        return;
    }
    pass_on(&upstream, &tap, &out, response).await;
}

/// Writes each message of a JSON or SSE answer to the agent, recorded first.
async fn pass_on<W: AsyncWrite + Unpin>(
    upstream: &Upstream,
    tap: &Tap,
    out: &AgentOut<W>,
    response: reqwest::Response,
) {
    pass_on_with(upstream, tap, out, response, &mut SseReader::default()).await;
}

/// As [`pass_on`], reading an SSE answer with `reader` (whose last event id and retry delay
/// the `GET` stream needs to reconnect); false once the agent is gone.
pub(super) async fn pass_on_with<W: AsyncWrite + Unpin>(
    upstream: &Upstream,
    tap: &Tap,
    out: &AgentOut<W>,
    response: reqwest::Response,
    reader: &mut SseReader,
) -> bool {
    let streamed = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streamed {
        // `202 Accepted` answers a notification or a response (the older transport: every
        // message) and carries no message; some servers still say "Accepted" in its body.
        if response.status() == reqwest::StatusCode::ACCEPTED {
            return true;
        }
        if let Ok(body) = response.bytes().await {
            if serde_json::from_slice::<Value>(&body).is_ok() {
                return deliver(upstream, tap, out, &body).await.is_ok();
            }
            if !body.iter().all(u8::is_ascii_whitespace) {
                // Not a message: on the agent's stdout it would break its JSON-RPC reader.
                let excerpt: String = String::from_utf8_lossy(&body).chars().take(200).collect();
                eprintln!(
                    "toolscope proxy: the server answered with something not JSON: {excerpt}"
                );
            }
        }
        return true;
    }
    let mut events = Vec::new();
    let mut body = response.bytes_stream();
    let mut stop = upstream.stop.subscribe();
    loop {
        let piece = tokio::select! {
            piece = body.next() => piece,
            _ = stop.wait_for(|stopped| *stopped) => return true,
        };
        let Some(Ok(piece)) = piece else { break };
        reader.push(&piece, &mut events);
        for data in events.drain(..) {
            if !data.trim().is_empty()
                && deliver(upstream, tap, out, data.as_bytes()).await.is_err()
            {
                return false;
            }
        }
    }
    reader.finish(&mut events);
    for data in events.drain(..).filter(|d| !d.trim().is_empty()) {
        if deliver(upstream, tap, out, data.as_bytes()).await.is_err() {
            return false;
        }
    }
    true
}

pub(super) async fn deliver<W: AsyncWrite + Unpin>(
    upstream: &Upstream,
    tap: &Tap,
    out: &AgentOut<W>,
    message: &[u8],
) -> std::io::Result<()> {
    let trimmed = message.trim_ascii();
    let parsed = serde_json::from_slice::<Value>(trimmed).ok();
    let mut line = match &parsed {
        Some(value) => on_one_line(trimmed, value),
        None => trimmed.to_vec(),
    };
    if let Some(value) = &parsed {
        upstream.observe_server(value);
    }
    line.push(b'\n');
    let mut agent = out.lock().await;
    tap.server_message(&line);
    write_to(&mut *agent, &line).await
}

async fn fail<W: AsyncWrite + Unpin>(
    tap: &Tap,
    out: &AgentOut<W>,
    request_id: Option<&Value>,
    message: &str,
    data: &Value,
) {
    match request_id {
        Some(id) => {
            let mut agent = out.lock().await;
            let answer = tap.answer_request(id, UPSTREAM_FAILED, message, data);
            let _ = write_to(&mut *agent, &answer).await;
        }
        // A notification or a response has no one to answer: the record and stderr say it.
        None => eprintln!("toolscope proxy: {message}"),
    }
}
