//! The stdio transport: the agent talks to us on stdin/stdout as it would to the server, and
//! the server is our child on its stdin/stdout. Lines are forwarded as they arrive, byte for
//! byte, each flushed at once, both ways concurrently; the server's stderr goes through to
//! ours unchanged (a small tail is kept to explain its death).
//!
//! Endings: the agent closes stdin → the server's stdin is closed, it gets a grace period to
//! exit (then is killed) and the session ends normally. The server's stdout ends or the
//! process exits → every request the agent is still waiting on gets a JSON-RPC error saying
//! so, and the session ends as `server_exited`. A signal → the server is killed and the
//! session ends as `signal`.

use std::collections::VecDeque;
use std::future::Future;
use std::io::BufRead;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::ProxyError;
use crate::record::{EndReason, ExitStatusRecord};
use crate::tap::{Ending, Tap, Verdict};

/// JSON-RPC error code for requests the server died before answering (implementation-defined
/// server error range).
pub const SERVER_EXITED: i64 = -32000;
const TAIL_BYTES: usize = 8 * 1024;
const TAIL_LINES: usize = 10;

/// How to run the upstream server.
#[derive(Debug, Clone)]
pub struct StdioOptions {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// How long the server may take to exit once the agent closed its stdin.
    pub exit_grace: Duration,
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StdioOutcome {
    pub reason: EndReason,
    pub signal: Option<String>,
    pub server_status: Option<ExitStatusRecord>,
    pub pending_answered: usize,
}

/// The agent's side, shared by the tasks that write to it (also the HTTP upstream's).
pub(crate) type AgentOut<W> = Arc<tokio::sync::Mutex<W>>;

/// The agent's lines from this process's stdin, read on a thread of their own (a blocked read
/// never holds up the runtime's shutdown).
pub fn agent_stdin_lines() -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut line = Vec::new();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.blocking_send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// The agent's lines from any reader (tests and benches drive the proxy in-process with it).
pub fn agent_lines_from<R: AsyncRead + Unpin + Send + 'static>(
    reader: R,
) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// The last bytes the server wrote on stderr.
#[derive(Debug, Default)]
struct StderrTail(VecDeque<u8>);

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.0.extend(bytes);
        let excess = self.0.len().saturating_sub(TAIL_BYTES);
        self.0.drain(..excess);
    }

    fn lines(&self) -> Vec<String> {
        let bytes: Vec<u8> = self.0.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<String> = text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
    }
}

enum First {
    Signal(String),
    AgentDone(AgentEnd),
    ServerDone(ServerEnd),
    Exited,
}

enum AgentEnd {
    /// The agent closed its stdin.
    Closed,
    /// Writing to the server failed: it is gone.
    ServerGone,
    /// Writing to the agent failed: it is gone.
    AgentGone,
}

enum ServerEnd {
    Eof,
    AgentGone,
}

/// Writes one line to the agent and flushes it.
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    out: &AgentOut<W>,
    line: &[u8],
) -> std::io::Result<()> {
    write_to(&mut *out.lock().await, line).await
}

/// Writes one line to the agent's writer, held by the caller. A line is recorded and written
/// under one hold of the writer: lines that several tasks send (the server's, the answers the
/// proxy makes up, each HTTP request's stream) then reach the record in the order the agent
/// receives them.
pub(crate) async fn write_to<W: AsyncWrite + Unpin>(
    agent: &mut W,
    line: &[u8],
) -> std::io::Result<()> {
    agent.write_all(line).await?;
    agent.flush().await
}

async fn agent_to_server<W: AsyncWrite + Unpin + Send + 'static>(
    tap: Arc<Tap>,
    mut lines: mpsc::Receiver<Vec<u8>>,
    server_in: ChildStdin,
    out: AgentOut<W>,
) -> AgentEnd {
    // Shared with the delayed forwards of a fault plan, which write when their time comes.
    let server_in = Arc::new(tokio::sync::Mutex::new(server_in));
    while let Some(line) = lines.recv().await {
        let verdict = {
            let mut agent = out.lock().await;
            let verdict = tap.agent_message(&line);
            if let Verdict::Answer(answer) = &verdict {
                if write_to(&mut *agent, answer).await.is_err() {
                    return AgentEnd::AgentGone;
                }
            }
            verdict
        };
        match verdict {
            Verdict::Forward => {
                if send_to_server(&server_in, &line).await.is_err() {
                    return AgentEnd::ServerGone;
                }
            }
            Verdict::Delay(delay) => {
                let server_in = server_in.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    // A server gone by then is noticed by the reading side.
                    let _ = send_to_server(&server_in, &line).await;
                });
            }
            // Written above, with its record.
            Verdict::Answer(_) => {}
            Verdict::AnswerAfter(delay, answer) => {
                let (tap, out) = (tap.clone(), out.clone());
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    let mut agent = out.lock().await;
                    tap.proxy_answer(&answer);
                    // An agent gone by then is noticed by the reading side.
                    let _ = write_to(&mut *agent, &answer).await;
                });
            }
        }
    }
    AgentEnd::Closed
}

async fn send_to_server(
    server_in: &tokio::sync::Mutex<ChildStdin>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut server_in = server_in.lock().await;
    server_in.write_all(line).await?;
    server_in.flush().await
}

async fn server_to_agent<W: AsyncWrite + Unpin>(
    tap: Arc<Tap>,
    server_out: ChildStdout,
    out: AgentOut<W>,
) -> ServerEnd {
    let mut reader = BufReader::with_capacity(64 * 1024, server_out);
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return ServerEnd::Eof,
            Ok(_) => {
                let mut agent = out.lock().await;
                tap.server_message(&line);
                if write_to(&mut *agent, &line).await.is_err() {
                    return ServerEnd::AgentGone;
                }
            }
        }
    }
}

async fn pass_stderr(mut from: impl AsyncRead + Unpin, tail: Arc<Mutex<StderrTail>>) {
    let mut ours = tokio::io::stderr();
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let chunk = buf.get(..n).unwrap_or_default();
        tail.lock().unwrap_or_else(|e| e.into_inner()).push(chunk);
        // Our stderr failing must not stall the server: keep draining its pipe.
        let _ = ours.write_all(chunk).await;
        let _ = ours.flush().await;
    }
}

async fn exit_status(child: &mut Child, grace: Duration) -> Option<ExitStatusRecord> {
    if let Ok(Ok(status)) = tokio::time::timeout(grace, child.wait()).await {
        return Some(ExitStatusRecord::from_status(status));
    }
    let _ = child.start_kill();
    match tokio::time::timeout(Duration::from_secs(2), child.wait()).await {
        Ok(Ok(status)) => Some(ExitStatusRecord::from_status(status)),
        _ => None,
    }
}

async fn settle<T>(task: &mut JoinHandle<T>, within: Duration) {
    if tokio::time::timeout(within, &mut *task).await.is_err() {
        task.abort();
    }
}

/// Runs one session: starts the server, forwards until one side ends, records the end.
pub async fn run_stdio<W, S>(
    tap: Arc<Tap>,
    options: StdioOptions,
    agent_lines: mpsc::Receiver<Vec<u8>>,
    agent_out: W,
    shutdown: S,
) -> Result<StdioOutcome, ProxyError>
where
    W: AsyncWrite + Unpin + Send + 'static,
    S: Future<Output = String>,
{
    let (program, args) = options.argv.split_first().ok_or(ProxyError::NoCommand)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            program: program.clone(),
            source,
        })?;
    let server_in = child.stdin.take().ok_or(ProxyError::MissingPipe("stdin"))?;
    let server_out = child
        .stdout
        .take()
        .ok_or(ProxyError::MissingPipe("stdout"))?;
    let server_err = child
        .stderr
        .take()
        .ok_or(ProxyError::MissingPipe("stderr"))?;
    let out: AgentOut<W> = Arc::new(tokio::sync::Mutex::new(agent_out));
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let mut stderr_task = tokio::spawn(pass_stderr(server_err, tail.clone()));
    let mut server_task = tokio::spawn(server_to_agent(tap.clone(), server_out, out.clone()));
    let mut agent_task = tokio::spawn(agent_to_server(
        tap.clone(),
        agent_lines,
        server_in,
        out.clone(),
    ));
    tokio::pin!(shutdown);

    // Biased: when the agent closes, the server sees its stdin end and may exit before this
    // select runs; both branches are then ready, and the agent's, which caused the other,
    // must decide the ending (a random pick answered the agent's requests with "the server
    // exited" errors it never waits for).
    let first = tokio::select! {
        biased;
        name = &mut shutdown => First::Signal(name),
        end = &mut agent_task => First::AgentDone(end.unwrap_or(AgentEnd::Closed)),
        end = &mut server_task => First::ServerDone(end.unwrap_or(ServerEnd::Eof)),
        _ = child.wait() => First::Exited,
    };
    let mut outcome = StdioOutcome {
        reason: EndReason::ServerExited,
        signal: None,
        server_status: None,
        pending_answered: 0,
    };
    let agent_done = matches!(first, First::AgentDone(_));
    let server_done = matches!(first, First::ServerDone(_));
    let agent_left = matches!(
        first,
        First::AgentDone(AgentEnd::Closed | AgentEnd::AgentGone)
            | First::ServerDone(ServerEnd::AgentGone)
    );
    if !agent_done {
        // Stop taking requests (and, when the agent left, close the server's stdin) before
        // anything else, so every recorded request is accounted for.
        agent_task.abort();
        let _ = (&mut agent_task).await;
    }
    if let First::Signal(name) = first {
        outcome.reason = EndReason::Signal;
        outcome.server_status = exit_status(&mut child, Duration::ZERO).await;
        outcome.signal = Some(name);
    } else if agent_left {
        // The agent is gone and the server's stdin closed with the agent task; the server may
        // still answer what it has in hand before it exits.
        outcome.reason = EndReason::AgentClosed;
        outcome.server_status = exit_status(&mut child, options.exit_grace).await;
        if !server_done {
            settle(&mut server_task, Duration::from_secs(1)).await;
        }
    } else {
        // The server is gone: forward what it wrote before it went, then answer the rest.
        outcome.server_status = exit_status(&mut child, Duration::from_secs(1)).await;
        if !server_done {
            settle(&mut server_task, Duration::from_secs(1)).await;
        }
        settle(&mut stderr_task, Duration::from_millis(500)).await;
        let stderr_tail = tail.lock().unwrap_or_else(|e| e.into_inner()).lines();
        let status = outcome
            .server_status
            .map_or_else(|| "status unknown".to_owned(), |s| s.to_string());
        let mut message = format!("the MCP server exited ({status}) before answering");
        if let Some(last) = stderr_tail.last() {
            message.push_str("; its last stderr line: ");
            message.push_str(last);
        }
        let data = json!({"server_status": outcome.server_status, "stderr_tail": &stderr_tail});
        let answers = tap.answer_pending(SERVER_EXITED, &message, &data);
        outcome.pending_answered = answers.len();
        for answer in answers {
            if write_line(&out, &answer).await.is_err() {
                break;
            }
        }
        tap.end(
            outcome.reason,
            &Ending {
                signal: None,
                server_status: outcome.server_status,
                stderr_tail: &stderr_tail,
                pending_answered: outcome.pending_answered,
            },
        );
        return Ok(outcome);
    }
    settle(&mut stderr_task, Duration::from_millis(200)).await;
    tap.end(
        outcome.reason,
        &Ending {
            signal: outcome.signal.as_deref(),
            server_status: outcome.server_status,
            stderr_tail: &[],
            pending_answered: 0,
        },
    );
    Ok(outcome)
}
