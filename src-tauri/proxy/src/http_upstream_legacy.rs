//! The older HTTP+SSE transport (MCP 2024-11-05), for `--url` servers that predate streamable
//! HTTP: the client holds a `GET` SSE stream open, whose first event (`endpoint`) names where to
//! `POST` messages; every answer and server message then arrives on that stream, each `POST`
//! being answered only `202 Accepted`. As the spec's backwards-compatibility section asks of
//! clients, the proxy tries streamable HTTP first and falls back to this when its `initialize`
//! `POST` is refused with 400, 404 or 405. When the agent ends the session, the proxy waits
//! (up to its grace period) for the answers still due on the stream, then closes it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncWrite;

use super::{deliver, Upstream};
use crate::llm::sse::SseReader;
use crate::stdio::AgentOut;
use crate::tap::Tap;

/// How long the server may take to name its endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(30);

/// Whether a refused `initialize` may mean an older server (the spec's list).
pub(super) fn may_be_older(status: u16) -> bool {
    matches!(status, 400 | 404 | 405)
}

/// Opens the stream at the configured URL, learns the endpoint, keeps passing the stream's
/// messages on to the agent in a task of its own (kept in the upstream, ended with the
/// session), and sends `body` (the agent's `initialize`) to the endpoint.
pub(super) async fn start<W: AsyncWrite + Unpin + Send + 'static>(
    upstream: &Arc<Upstream>,
    tap: &Arc<Tap>,
    out: &AgentOut<W>,
    body: bytes::Bytes,
) -> Result<(), String> {
    let response = upstream
        .send(|| upstream.request(reqwest::Method::GET, "text/event-stream"))
        .await
        .map_err(|_| "its event stream could not be opened".to_owned())?;
    if !response.status().is_success() {
        return Err(format!(
            "its event stream answered HTTP {}",
            response.status().as_u16()
        ));
    }
    let mut stream = response.bytes_stream();
    let mut reader = SseReader::default();
    let mut events: Vec<(String, String)> = Vec::new();
    let endpoint = tokio::time::timeout(ENDPOINT_WAIT, async {
        loop {
            if let Some((_, data)) = events.iter().find(|(kind, _)| kind == "endpoint") {
                return Some(data.clone());
            }
            events.clear();
            match stream.next().await {
                Some(Ok(piece)) => reader.push_typed(&piece, &mut events),
                _ => return None,
            }
        }
    })
    .await
    .ok()
    .flatten()
    .ok_or("its event stream named no endpoint to post to")?;
    let endpoint = url::Url::parse(&upstream.options.url)
        .and_then(|base| base.join(endpoint.trim()))
        .map_err(|e| format!("its endpoint '{endpoint}' is not an address: {e}"))?;
    upstream.session().legacy_endpoint = Some(endpoint.to_string());
    eprintln!(
        "toolscope proxy: {} speaks the older HTTP+SSE transport; posting to {}",
        upstream.options.url,
        endpoint.path()
    );

    // Messages that came with the endpoint event are the session's first.
    let early: Vec<String> = events
        .into_iter()
        .filter(|(kind, data)| kind == "message" && !data.trim().is_empty())
        .map(|(_, data)| data)
        .collect();
    let (task_upstream, task_tap, task_out) = (upstream.clone(), tap.clone(), out.clone());
    let listener = tokio::spawn(async move {
        for data in early {
            if deliver(&task_upstream, &task_tap, &task_out, data.as_bytes())
                .await
                .is_err()
            {
                return;
            }
        }
        let mut events = Vec::new();
        let mut stop = task_upstream.stop.subscribe();
        loop {
            let piece = tokio::select! {
                piece = stream.next() => piece,
                _ = stop.wait_for(|stopped| *stopped) => return,
            };
            let Some(Ok(piece)) = piece else { break };
            reader.push_typed(&piece, &mut events);
            for (kind, data) in events.drain(..) {
                if kind == "message"
                    && !data.trim().is_empty()
                    && deliver(&task_upstream, &task_tap, &task_out, data.as_bytes())
                        .await
                        .is_err()
                {
                    return;
                }
            }
        }
        eprintln!("toolscope proxy: the server closed its event stream; the session is over");
    });
    *upstream
        .legacy_listener
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(listener);

    let sent = upstream
        .send(|| {
            upstream
                .request(reqwest::Method::POST, "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(body.clone())
        })
        .await
        .map_err(|_| "its endpoint could not be reached".to_owned())?;
    if !sent.status().is_success() {
        return Err(format!(
            "its endpoint answered HTTP {}",
            sent.status().as_u16()
        ));
    }
    Ok(())
}
