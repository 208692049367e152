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

use serde_json::Value;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::error::ProxyError;
use crate::record::EndReason;
use crate::stdio::{write_to, AgentOut, StdioOutcome};
use crate::tap::{Ending, Tap, Verdict};
use messages::{deliver, pass_on_with, post};

#[path = "http_upstream_legacy.rs"]
mod legacy;
#[path = "http_upstream_messages.rs"]
mod messages;
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
