//! The server: accepts connections on 127.0.0.1, answers each model request with the script's
//! next turn (decided in [`crate::answer`]), sends streamed answers event by event with the
//! scripted faults, and records every request so a test can check what the client sent.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::answer::{json_type, lock, Answer, State};
use crate::http::{read_request, write_complete, StreamedBody};
use crate::script::{Fault, Framing, Script};
use crate::wire::{error_body, SseEvent, Wire};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("could not listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
}

/// How to start a server.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `0` picks a free port.
    pub port: u16,
    /// Log each request and its answer to stderr.
    pub log: bool,
}

/// A request the server received, as it arrived.
#[derive(Debug, Clone)]
pub struct ReceivedRequest {
    pub method: String,
    /// The target without its query.
    pub path: String,
    /// The target's query (`alt=sse`), empty when there is none.
    pub query: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` when empty or not JSON).
    pub body: Value,
    pub raw_body: String,
    pub received_at: SystemTime,
    /// The script turn that answered it (none for model lists and refusals before a turn).
    pub turn: Option<usize>,
}

impl ReceivedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// A running scripted model server; it stops when dropped.
#[derive(Debug)]
pub struct TestServer {
    address: SocketAddr,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts serving `script` on a free port of 127.0.0.1 (needs a tokio runtime).
    pub async fn start(script: Script) -> Result<Self, ServerError> {
        Self::start_with(script, Options::default()).await
    }

    /// Starts serving `script` with `options`.
    pub async fn start_with(script: Script, options: Options) -> Result<Self, ServerError> {
        let listener = TcpListener::bind(("127.0.0.1", options.port))
            .await
            .map_err(|source| ServerError::Bind {
                port: options.port,
                source,
            })?;
        let address = listener.local_addr().map_err(|source| ServerError::Bind {
            port: options.port,
            source,
        })?;
        let state = Arc::new(State {
            script,
            log: options.log,
            cursor: Mutex::new(0),
            requests: Mutex::new(Vec::new()),
        });
        let task = tokio::spawn(accept_loop(listener, Arc::clone(&state)));
        Ok(Self {
            address,
            state,
            task,
        })
    }

    /// `http://127.0.0.1:PORT`: the base URL of an Anthropic or Gemini endpoint.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL of an OpenAI endpoint (Chat and Responses).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<ReceivedRequest> {
        lock(&self.state.requests).clone()
    }

    /// How many turns have been used up (a `repeat` turn counts once it is reached).
    pub fn turns_used(&self) -> usize {
        *lock(&self.state.cursor)
    }

    /// Stops the server and closes every connection (dropping it does the same).
    pub fn shutdown(self) {}
}

impl Drop for TestServer {
    fn drop(&mut self) {
        // The accept loop owns the connections' JoinSet: aborting it aborts them all.
        self.task.abort();
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => {
                    connections.spawn(serve_connection(Arc::clone(&state), socket));
                }
                Err(error) => {
                    state.say(&format!("accept failed: {error}"));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// What to do with the connection after an answer.
enum After {
    KeepAlive,
    Close,
    Stall,
}

async fn serve_connection(state: Arc<State>, socket: TcpStream) {
    // Each event is its own write; without this, small writes would wait for each other.
    let _ = socket.set_nodelay(true);
    let (read, mut writer) = socket.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let request = match read_request(&mut reader).await {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(error) => {
                state.say(&format!("unreadable request: {error}"));
                let body = error_body(Wire::Chat, 400, &error.to_string(), None, None);
                let _ = write_complete(&mut writer, 400, &json_type(), &body, true).await;
                return;
            }
        };
        let answer = state.decide(&request);
        let after = match send(&mut writer, answer, state.script.delay_ms).await {
            Ok(after) => after,
            Err(_) => return,
        };
        match after {
            After::KeepAlive if !request.wants_close() => {}
            After::Stall => {
                // Hold the connection (the reader too) until the server is dropped.
                std::future::pending::<()>().await;
            }
            _ => {
                let _ = writer.shutdown().await;
                return;
            }
        }
    }
}

async fn send(
    writer: &mut OwnedWriteHalf,
    answer: Answer,
    delay_ms: u64,
) -> std::io::Result<After> {
    let (events, fault, framing) = match answer {
        Answer::Json {
            status,
            headers,
            body,
        } => {
            write_complete(writer, status, &headers, &body, false).await?;
            return Ok(After::KeepAlive);
        }
        Answer::Stream {
            events,
            fault,
            framing,
        } => (events, fault, framing),
    };
    let mut body = StreamedBody::start(writer, framing).await?;
    for index in 0..=events.len() {
        let last = index == events.len();
        let due = |n: usize| n == index || (last && n > index);
        match fault {
            Some(Fault::CutAfter(n)) if due(n) => return Ok(After::Close),
            Some(Fault::StallAfter(n)) if due(n) => return Ok(After::Stall),
            Some(Fault::InvalidChunkAfter(n)) if due(n) => {
                let name = events.get(index).and_then(|e| e.event.clone());
                let garbage = SseEvent {
                    event: name,
                    data: "{not json".to_owned(),
                };
                body.send(&garbage.encode()).await?;
                body.finish().await?;
                return Ok(After::Close);
            }
            _ => {}
        }
        let Some(event) = events.get(index) else {
            break;
        };
        if index > 0 && delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        }
        body.send(&event.encode()).await?;
    }
    body.finish().await?;
    Ok(match framing {
        Framing::Chunked => After::KeepAlive,
        Framing::Close => After::Close,
    })
}
