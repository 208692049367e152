//! The MCP proxy as an HTTP endpoint (`toolscope proxy mcp --listen 127.0.0.1:PORT -- COMMAND`),
//! for agents that only speak streamable HTTP. The server is still a stdio child run by
//! [`run_stdio`](crate::stdio::run_stdio), which records, enforces and answers for a dead
//! server as it does for a stdio agent: this module only turns HTTP into the agent's lines and
//! the lines meant for the agent back into HTTP answers.
//!
//! * `POST /mcp` with requests: answered with an SSE stream that carries the response to each,
//!   and what belongs to it (its progress), then ends. Notifications and responses: `202`.
//! * `GET /mcp`: the stream of everything else the server sends (its own requests, such as an
//!   elicitation, and notifications). Without one, such messages go on an open request's stream,
//!   or wait for the next stream to open.
//! * `DELETE /mcp`: the agent ends the session; the server's stdin is closed as when a stdio
//!   agent closes it.
//!
//! One session per proxy run, as a stdio server serves one client: its `Mcp-Session-Id` is
//! handed out with the `initialize` answer and required afterwards. The door (loopback, `Host`,
//! `Origin`, a bearer token) is checked before anything else.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::door::{check_loopback, new_token, Door};
use crate::error::ProxyError;
use crate::message::on_one_line;

/// The path agents are given.
pub const PATH: &str = "/mcp";
const MAX_BODY: usize = 64 * 1024 * 1024;

type Body = UnsyncBoxBody<Bytes, Infallible>;
type Lines = mpsc::UnboundedSender<Vec<u8>>;

/// Where the lines meant for the agent go.
#[derive(Debug, Default)]
struct Routes {
    /// The open request streams, by the request id's JSON text.
    requests: HashMap<String, Lines>,
    /// Progress tokens to the request that announced them.
    progress: HashMap<String, String>,
    /// The most recently opened request stream, for messages no request claims.
    latest: Option<String>,
    stream: Option<Lines>,
    /// Messages nobody could take yet.
    waiting: VecDeque<Vec<u8>>,
    session: Option<String>,
}

/// The shared state of the listener and the agent-side writer.
#[derive(Debug)]
struct Shared {
    door: Door,
    routes: Mutex<Routes>,
    /// The agent's lines into `run_stdio`; taken (closing it) when the agent ends the session.
    agent: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
}

impl Shared {
    fn routes(&self) -> MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a line meant for the agent to the stream it belongs on.
    fn route(&self, line: Vec<u8>) {
        let message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        let first = match &message {
            Value::Array(batch) => batch.first().cloned().unwrap_or(Value::Null),
            _ => message,
        };
        let mut routes = self.routes();
        let is_response = first.get("method").is_none() && first.get("id").is_some();
        if is_response {
            let id = first["id"].to_string();
            if let Some(stream) = routes.requests.remove(&id) {
                // Dropping the sender ends that request's stream after this message.
                let _ = stream.send(line);
                routes.progress.retain(|_, request| *request != id);
                return;
            }
        }
        if first["method"] == "notifications/progress" {
            let token = first["params"]["progressToken"].to_string();
            if let Some(stream) = routes
                .progress
                .get(&token)
                .and_then(|id| routes.requests.get(id))
            {
                let _ = stream.send(line);
                return;
            }
        }
        deliver_elsewhere(&mut routes, line);
    }
}

/// A message no request stream claims: the GET stream, else the latest request stream, else
/// it waits.
fn deliver_elsewhere(routes: &mut Routes, line: Vec<u8>) {
    if let Some(stream) = &routes.stream {
        if stream.send(line.clone()).is_ok() {
            return;
        }
        routes.stream = None;
    }
    let latest = routes
        .latest
        .as_ref()
        .and_then(|id| routes.requests.get(id));
    match latest {
        Some(stream) => {
            let _ = stream.send(line);
        }
        None => routes.waiting.push_back(line),
    }
}

/// The agent side of `run_stdio`: every line written here is routed to its HTTP stream.
pub struct AgentWriter {
    shared: Arc<Shared>,
    pending: Vec<u8>,
}

impl AsyncWrite for AgentWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.shared.route(line);
        }
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A bound `--listen` endpoint.
pub struct McpListener {
    listener: TcpListener,
    address: SocketAddr,
    shared: Arc<Shared>,
}

impl McpListener {
    /// Binds `address` (loopback only); `token` or a fresh one is what agents must send.
    /// Returns the listener, the agent's lines for `run_stdio`, and the writer it answers to.
    pub async fn bind(
        address: SocketAddr,
        token: Option<String>,
    ) -> Result<(Self, mpsc::Receiver<Vec<u8>>, AgentWriter), ProxyError> {
        check_loopback(address).map_err(ProxyError::Usage)?;
        let listener = TcpListener::bind(address)
            .await
            .map_err(|source| ProxyError::Listen { address, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| ProxyError::Listen { address, source })?;
        let (lines, agent_lines) = mpsc::channel(64);
        let shared = Arc::new(Shared {
            door: Door::new(token.unwrap_or_else(new_token), bound.port()),
            routes: Mutex::new(Routes::default()),
            agent: Mutex::new(Some(lines)),
        });
        let writer = AgentWriter {
            shared: shared.clone(),
            pending: Vec::new(),
        };
        Ok((
            Self {
                listener,
                address: bound,
                shared,
            },
            agent_lines,
            writer,
        ))
    }

    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.address)
    }

    pub fn token(&self) -> &str {
        self.shared.door.token()
    }

    /// Serves until the task is dropped (the session's end drops it).
    pub async fn serve(self) {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let shared = self.shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| handle(shared.clone(), request));
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let header = |name: &str| crate::door::header(request.headers(), name);
    if let Err(refusal) = shared.door.admit_bearer(
        header("host").as_deref(),
        header("origin").as_deref(),
        header("authorization").as_deref(),
    ) {
        return Ok(plain(refusal.status(), &refusal.to_string()));
    }
    if request.uri().path() != PATH {
        return Ok(plain(404, &format!("the MCP endpoint is {PATH}")));
    }
    let session = shared.routes().session.clone();
    let given = header("mcp-session-id");
    if session.is_some() && given.is_some() && given != session {
        return Ok(plain(
            404,
            "no such session (this proxy serves one session at a time)",
        ));
    }
    match *request.method() {
        Method::POST => Ok(post(shared, request.into_body(), session.is_none()).await),
        Method::GET => Ok(listen(&shared)),
        Method::DELETE => {
            // Closing the agent's lines ends the session as a stdio agent closing stdin does.
            shared
                .agent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            Ok(plain(200, "session ended"))
        }
        _ => Ok(plain(405, "POST, GET or DELETE")),
    }
}

async fn post(shared: Arc<Shared>, body: Incoming, first: bool) -> Response<Body> {
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => return plain(400, &format!("the body could not be read: {error}")),
    };
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return jsonrpc_error(-32700, "Parse error: the body is not JSON");
    };
    let requests: Vec<&Value> = match &message {
        Value::Array(batch) => batch.iter().collect(),
        single => vec![single],
    }
    .into_iter()
    .filter(|m| m.get("method").is_some() && m.get("id").is_some())
    .collect();
    let is_initialize = requests.iter().any(|m| m["method"] == "initialize");
    let (answers, stream) = mpsc::unbounded_channel();
    let session = if is_initialize && first {
        let id = uuid::Uuid::new_v4().simple().to_string();
        shared.routes().session = Some(id.clone());
        Some(id)
    } else {
        None
    };
    {
        let mut routes = shared.routes();
        for request in &requests {
            let id = request["id"].to_string();
            if let Some(token) = request["params"]["_meta"].get("progressToken") {
                routes.progress.insert(token.to_string(), id.clone());
            }
            routes.requests.insert(id.clone(), answers.clone());
            routes.latest = Some(id);
        }
        if !requests.is_empty() {
            while let Some(line) = routes.waiting.pop_front() {
                let _ = answers.send(line);
            }
        }
    }
    // Only the routes hold the senders now: the stream ends once every answer went out.
    drop(answers);
    let mut line = on_one_line(&body, &message);
    line.push(b'\n');
    let agent = shared
        .agent
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let Some(agent) = agent else {
        return plain(404, "the session has ended");
    };
    if agent.send(line).await.is_err() {
        return plain(404, "the session has ended");
    }
    if requests.is_empty() {
        return plain(202, "");
    }
    let mut response = sse(stream);
    if let Some(id) = session {
        if let Ok(value) = id.parse() {
            response.headers_mut().insert("mcp-session-id", value);
        }
    }
    response
}

fn listen(shared: &Shared) -> Response<Body> {
    let (lines, stream) = mpsc::unbounded_channel();
    {
        let mut routes = shared.routes();
        if routes.stream.as_ref().is_some_and(|s| !s.is_closed()) {
            return plain(409, "a GET stream is already open for this session");
        }
        while let Some(line) = routes.waiting.pop_front() {
            let _ = lines.send(line);
        }
        routes.stream = Some(lines);
    }
    sse(stream)
}

fn sse(lines: mpsc::UnboundedReceiver<Vec<u8>>) -> Response<Body> {
    let events = futures_util::stream::unfold(lines, |mut lines| async move {
        let line = lines.recv().await?;
        let text = String::from_utf8_lossy(&line);
        let event = format!("event: message\ndata: {}\n\n", text.trim_end());
        Some((Ok::<_, Infallible>(Frame::data(Bytes::from(event))), lines))
    });
    let mut response = Response::new(StreamBody::new(events.boxed()).boxed_unsync());
    response.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    response.headers_mut().insert(
        "cache-control",
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    response
}

fn jsonrpc_error(code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let mut response = plain(400, &body.to_string());
    response.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn plain(status: u16, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed_unsync());
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    response
}
