//! The streamable-HTTP upstream (`toolscope proxy mcp --url URL`): the agent still talks to us
//! on stdin/stdout, one JSON-RPC message per line, and each of its messages is `POST`ed to the
//! server as the MCP spec's streamable HTTP transport says. The answer (a JSON body, or an SSE
//! stream of messages that ends with the response) is written back to the agent one message
//! per line; server-initiated messages also come on the `GET` stream the proxy opens once the
//! session is initialized. `Mcp-Session-Id` and `MCP-Protocol-Version` are the proxy's to keep,
//! as they are transport, not messages.
//!
//! Messages are recorded exactly as sent. A body that spans lines (pretty-printed JSON) is
//! written to the agent on one line, re-encoded without its line breaks: stdio allows nothing
//! else. When the server refuses a request (an HTTP error) or cannot be reached, the agent gets
//! a JSON-RPC error for that request, recorded as the proxy's own; the session goes on, as an
//! HTTP server may answer the next request.
//!
//! A server behind OAuth refuses with `401` (or `403 insufficient_scope`). With an
//! [`UpstreamAuth`] the proxy signs in as the front end lends it (the CLI: its MCP client's
//! sign-in, with the sign-ins it stored), sends the token with every request, and sends the
//! refused request again once. Tokens are headers, so they are never in the records.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::error::ProxyError;
use crate::llm::sse::SseReader;
use crate::message::on_one_line;
use crate::record::EndReason;
use crate::stdio::{write_to, AgentOut, StdioOutcome};
use crate::tap::{Ending, Tap, Verdict};

#[path = "http_upstream_legacy.rs"]
mod legacy;
#[path = "http_upstream_stream.rs"]
mod server_stream;

/// JSON-RPC error code for requests the HTTP server refused or could not be sent.
pub const UPSTREAM_FAILED: i64 = -32000;

/// Where and how to reach the server.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub url: String,
    /// Sent with every request (`Authorization: Bearer …`); never recorded.
    pub headers: Vec<(String, String)>,
    /// How long requests still in flight may take once the agent closed the session.
    pub exit_grace: Duration,
    /// Signs in when the server refuses for want of authorization; `None` passes the refusal
    /// on to the agent.
    pub auth: Option<Arc<dyn UpstreamAuth>>,
}

/// A future the auth hooks return (the proxy is not tied to one OAuth implementation).
pub type AuthFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Signing in to the upstream server on the proxy's behalf.
pub trait UpstreamAuth: Send + Sync + std::fmt::Debug {
    /// The access token to send now (renewed when due); `None` before any sign-in.
    fn token(&self) -> AuthFuture<'_, Option<String>>;
    /// Sign-ins made so far: a refusal seen before another request signed in is only retried.
    fn sign_ins(&self) -> AuthFuture<'_, u32>;
    /// Answers a refusal with its `WWW-Authenticate` challenge: signs in (a browser, a person),
    /// or says why it could not.
    fn refused<'a>(
        &'a self,
        challenge: &'a str,
        sign_ins_seen: u32,
    ) -> AuthFuture<'a, Result<(), String>>;
}

/// Why a request got no answer from the server.
enum SendError {
    Unreachable(reqwest::Error),
    SignIn(String),
}

/// What the transport keeps between requests.
#[derive(Debug, Default)]
struct Session {
    id: Option<String>,
    protocol_version: Option<String>,
    /// The id of the agent's `initialize` request, to read the version from its answer.
    initialize_id: Option<Value>,
    /// The `initialize` answer arrived: later requests may be sent concurrently.
    initialized: bool,
    /// Where to post with the older HTTP+SSE transport, once the server said ([`legacy`]).
    legacy_endpoint: Option<String>,
}

struct Upstream {
    client: reqwest::Client,
    options: HttpOptions,
    session: Mutex<Session>,
    /// The older transport's event stream, read until the session ends.
    legacy_listener: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Set when the session ends: streams being read stop between two messages, so none is
    /// recorded without reaching the agent (an abort could fall between the two).
    stop: tokio::sync::watch::Sender<bool>,
}

impl Upstream {
    fn session(&self) -> std::sync::MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn request(&self, method: reqwest::Method, accept: &str) -> reqwest::RequestBuilder {
        let legacy = self.session().legacy_endpoint.clone();
        let url = match legacy {
            Some(endpoint) if method == reqwest::Method::POST => endpoint,
            _ => self.options.url.clone(),
        };
        let mut request = self.client.request(method, url).header("accept", accept);
        for (name, value) in &self.options.headers {
            request = request.header(name, value);
        }
        let session = self.session();
        if let Some(id) = &session.id {
            request = request.header("mcp-session-id", id);
        }
        if let Some(version) = &session.protocol_version {
            request = request.header("mcp-protocol-version", version);
        }
        request
    }

    /// Sends the request `make` builds, with the token when signed in; a refusal for want of
    /// authorization is answered by signing in, then the request is sent once more.
    async fn send(
        &self,
        make: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, SendError> {
        self.send_signing_in(make, true).await
    }

    /// As [`Self::send`]; without `may_sign_in` a refusal is returned as it is (the session's
    /// closing `DELETE` must not open a browser).
    async fn send_signing_in(
        &self,
        make: impl Fn() -> reqwest::RequestBuilder,
        may_sign_in: bool,
    ) -> Result<reqwest::Response, SendError> {
        let Some(auth) = &self.options.auth else {
            return make().send().await.map_err(SendError::Unreachable);
        };
        let mut retried = false;
        loop {
            let seen = auth.sign_ins().await;
            let mut request = make();
            if let Some(token) = auth.token().await {
                request = request.bearer_auth(token);
            }
            let response = request.send().await.map_err(SendError::Unreachable)?;
            let challenge = response
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let refused = response.status() == reqwest::StatusCode::UNAUTHORIZED
                || (response.status() == reqwest::StatusCode::FORBIDDEN
                    && challenge.contains("insufficient_scope"));
            if !refused || retried || !may_sign_in {
                return Ok(response);
            }
            retried = true;
            auth.refused(&challenge, seen)
                .await
                .map_err(SendError::SignIn)?;
        }
    }

    /// Notes what the transport needs from a message the server sent.
    fn observe_server(&self, message: &Value) {
        let mut session = self.session();
        if session.initialize_id.is_some() && message.get("id") == session.initialize_id.as_ref() {
            if let Some(version) = message["result"]["protocolVersion"].as_str() {
                session.protocol_version = Some(version.to_owned());
            }
        }
    }
}

/// Runs one session against an HTTP server until the agent closes stdin or a signal arrives.
pub async fn run_http<W, S>(
    tap: Arc<Tap>,
    options: HttpOptions,
    mut agent_lines: mpsc::Receiver<Vec<u8>>,
    agent_out: W,
    shutdown: S,
) -> Result<StdioOutcome, ProxyError>
where
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = String>,
{
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| ProxyError::Usage(format!("cannot set up the HTTP client: {e}")))?;
    let grace = options.exit_grace;
    let upstream = Arc::new(Upstream {
        client,
        options,
        session: Mutex::new(Session::default()),
        legacy_listener: Mutex::new(None),
        stop: tokio::sync::watch::Sender::new(false),
    });
    let out: AgentOut<W> = Arc::new(tokio::sync::Mutex::new(agent_out));
    let mut in_flight = JoinSet::new();
    let mut listener: Option<tokio::task::JoinHandle<()>> = None;
    tokio::pin!(shutdown);
    let signal = loop {
        let line = tokio::select! {
            name = &mut shutdown => break Some(name),
            line = agent_lines.recv() => line,
        };
        let Some(line) = line else { break None };
        let verdict = {
            // An answer of the proxy's own is recorded and written under one hold of the
            // writer (see `write_to`).
            let mut agent = out.lock().await;
            let verdict = tap.agent_message(&line);
            if let Verdict::Answer(answer) = &verdict {
                if write_to(&mut *agent, answer).await.is_err() {
                    break None;
                }
            }
            verdict
        };
        match verdict {
            Verdict::Answer(_) => {}
            Verdict::AnswerAfter(delay, answer) => {
                let (tap, out) = (tap.clone(), out.clone());
                in_flight.spawn(async move {
                    tokio::time::sleep(delay).await;
                    let mut agent = out.lock().await;
                    tap.proxy_answer(&answer);
                    // An agent gone by then is noticed by the reading side.
                    let _ = write_to(&mut *agent, &answer).await;
                });
            }
            Verdict::Delay(delay) => {
                let message = serde_json::from_slice(&line).ok();
                let post = post(upstream.clone(), tap.clone(), out.clone(), line, message);
                in_flight.spawn(async move {
                    tokio::time::sleep(delay).await;
                    post.await;
                });
            }
            Verdict::Forward => {
                let message: Option<Value> = serde_json::from_slice(&line).ok();
                let is_initialize = message
                    .as_ref()
                    .is_some_and(|m| m["method"] == "initialize");
                if is_initialize {
                    upstream.session().initialize_id =
                        message.as_ref().and_then(|m| m.get("id").cloned());
                }
                let initialized_note = message
                    .as_ref()
                    .is_some_and(|m| m["method"] == "notifications/initialized");
                // Server-initiated messages come on the GET stream once the session is set up.
                // It is opened before `initialized` goes on, so nothing the server says in
                // reply to it (a list_changed) is sent before anyone listens.
                let legacy = upstream.session().legacy_endpoint.is_some();
                if listener.is_none() && initialized_note && !legacy {
                    if let Ok(stream) = server_stream::open(&upstream, None).await {
                        let (upstream, tap, out) = (upstream.clone(), tap.clone(), out.clone());
                        listener = Some(tokio::spawn(server_stream::keep_listening(
                            upstream, tap, out, stream,
                        )));
                    }
                }
                let post = post(upstream.clone(), tap.clone(), out.clone(), line, message);
                // Until the session exists, messages go one at a time: the next one needs its id.
                if upstream.session().initialized {
                    in_flight.spawn(post);
                } else {
                    post.await;
                    if is_initialize {
                        upstream.session().initialized = true;
                    }
                }
            }
        }
    };
    let legacy = upstream
        .legacy_listener
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    // Streams still being read end between two messages once told to, else are cut.
    let stop_reading = |in_flight: &mut JoinSet<()>| {
        upstream.stop.send_replace(true);
        let mut in_flight = std::mem::take(in_flight);
        async move {
            let ended = async { while in_flight.join_next().await.is_some() {} };
            if tokio::time::timeout(Duration::from_secs(1), ended)
                .await
                .is_err()
            {
                in_flight.abort_all();
            }
        }
    };
    let reason = if signal.is_some() {
        stop_reading(&mut in_flight).await;
        EndReason::Signal
    } else {
        // Requests in flight may still be answered: on their own streams, or with the older
        // transport on its event stream (where each POST is done once accepted).
        let answered = async {
            while in_flight.join_next().await.is_some() {}
            while legacy.is_some() && tap.unanswered() > 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        let _ = tokio::time::timeout(grace, answered).await;
        stop_reading(&mut in_flight).await;
        // The spec asks clients to end the session they no longer need (the older transport
        // ends it by closing its stream, below).
        if upstream.session().id.is_some() && legacy.is_none() {
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                upstream
                    .send_signing_in(|| upstream.request(reqwest::Method::DELETE, "*/*"), false),
            )
            .await;
        }
        EndReason::AgentClosed
    };
    for mut reading in listener.into_iter().chain(legacy) {
        if tokio::time::timeout(Duration::from_secs(1), &mut reading)
            .await
            .is_err()
        {
            reading.abort();
        }
    }
    tap.end(
        reason,
        &Ending {
            signal: signal.as_deref(),
            ..Ending::default()
        },
    );
    Ok(StdioOutcome {
        reason,
        signal,
        server_status: None,
        pending_answered: 0,
    })
}

/// Sends one agent message and passes on what comes back.
async fn post<W: AsyncWrite + Unpin + Send + 'static>(
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
async fn pass_on_with<W: AsyncWrite + Unpin>(
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

async fn deliver<W: AsyncWrite + Unpin>(
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
