//! The `GET` stream of an HTTP upstream's server-initiated messages (notifications such as
//! `list_changed`, and the server's own requests), kept open for the whole session. Servers and
//! the proxies in front of them end long-lived streams now and then; a client that does not
//! open it again silently stops hearing the server. So when it ends it is opened again after
//! the delay the server asked for (`retry:`, else one second, doubling on failures up to 30 s),
//! with `Last-Event-ID` when its events carried ids, so a server that keeps them can send what
//! was missed (the MCP spec's resumability). It stops for good when the server says it has no
//! such stream (405), that the session is gone (404), after a few failures in a row, or when
//! the agent is gone.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWrite;

use super::{pass_on_with, Upstream};
use crate::llm::sse::SseReader;
use crate::stdio::AgentOut;
use crate::tap::Tap;

/// The wait before reopening when the server did not ask for one.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between two attempts.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// Failed attempts in a row before the proxy gives up on the stream (about a minute).
const MAX_FAILURES: u32 = 6;

/// Why the stream could not be opened.
pub(super) enum Refused {
    /// The server answered with this status.
    Status(u16),
    /// No answer (the connection failed, or signing in did).
    Unreachable,
}

/// Opens the stream, resuming after `last_id` when given.
pub(super) async fn open(
    upstream: &Upstream,
    last_id: Option<&str>,
) -> Result<reqwest::Response, Refused> {
    let response = upstream
        .send(|| {
            let request = upstream.request(reqwest::Method::GET, "text/event-stream");
            match last_id {
                Some(id) => request.header("last-event-id", id),
                None => request,
            }
        })
        .await
        .map_err(|_| Refused::Unreachable)?;
    if response.status().is_success() {
        Ok(response)
    } else {
        Err(Refused::Status(response.status().as_u16()))
    }
}

/// Passes the stream's messages on to the agent, opening it again each time it ends.
pub(super) async fn keep_listening<W: AsyncWrite + Unpin + Send + 'static>(
    upstream: Arc<Upstream>,
    tap: Arc<Tap>,
    out: AgentOut<W>,
    first: reqwest::Response,
) {
    let mut reader = SseReader::default();
    let mut stream = first;
    loop {
        if !pass_on_with(&upstream, &tap, &out, stream, &mut reader).await {
            return;
        }
        let mut wait = reader
            .retry_ms()
            .map_or(DEFAULT_RETRY, Duration::from_millis)
            .min(MAX_RETRY);
        let mut failures = 0;
        let mut stop = upstream.stop.subscribe();
        stream = loop {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = stop.wait_for(|stopped| *stopped) => return,
            }
            // As an EventSource does, the last id holds across connections until a new one
            // (the reader was flushed when the stream ended, so no half event carries over).
            let last_id = reader.last_id().map(str::to_owned);
            match open(&upstream, last_id.as_deref()).await {
                Ok(stream) => break stream,
                Err(Refused::Status(status @ (404 | 405))) => {
                    eprintln!(
                        "toolscope proxy: the server's message stream ended and cannot be \
                         opened again (HTTP {status})"
                    );
                    return;
                }
                Err(refused) => {
                    failures += 1;
                    if failures >= MAX_FAILURES {
                        let why = match refused {
                            Refused::Status(status) => format!("HTTP {status}"),
                            Refused::Unreachable => "no answer".to_owned(),
                        };
                        eprintln!(
                            "toolscope proxy: gave up reopening the server's message stream \
                             after {failures} attempts ({why}); its notifications no longer \
                             reach the agent"
                        );
                        return;
                    }
                    wait = (wait * 2).min(MAX_RETRY);
                }
            }
        };
    }
}
