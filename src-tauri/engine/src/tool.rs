//! The interface every tool provider implements (built-in, HTTP, MCP, WASM).
//!
//! Kept object-safe and free of async-trait so the registry can hold `Arc<dyn Tool>` and the
//! executor can drive any provider the same way: timeout, cancellation and panics are handled
//! once, in the executor, not by each tool.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::types::ToolInfo;

/// A boxed, sendable future; the return type of [`Tool::call`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How far a long call has got, as its tool reports it (an MCP progress notification).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallProgress {
    pub request_id: String,
    /// Grows with every report; its unit is the tool's.
    pub progress: f64,
    /// The value `progress` reaches when done, when the tool knows it.
    pub total: Option<f64>,
    pub message: Option<String>,
    /// Set when the tool runs the call as a task of its own (an MCP task-augmented
    /// `tools/call`): the UI shows a running task and where it stands.
    pub task: Option<TaskProgress>,
}

/// A call its tool runs as a task (MCP tasks): the task's id on the tool's side and its status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TaskProgress {
    pub task_id: String,
    pub status: TaskStatus,
}

/// Where a task stands, in MCP's words; the last three are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

/// Where progress reports of running calls go (the app streams them to the UI).
pub trait ProgressSink: Send + Sync {
    fn report(&self, progress: CallProgress);
}

/// A sink that keeps every report in order, for whoever reads them after the call (tests, a
/// summary at the end of a run).
#[derive(Debug, Default)]
pub struct ProgressRecorder(Mutex<Vec<CallProgress>>);

impl ProgressRecorder {
    /// The reports so far, oldest first.
    pub fn reports(&self) -> Vec<CallProgress> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ProgressSink for ProgressRecorder {
    fn report(&self, progress: CallProgress) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(progress);
    }
}

/// What a running call can see besides its arguments.
#[derive(Clone, Default)]
pub struct CallContext {
    /// Cancelled when the run is cancelled or times out. Tools with side effects outside the
    /// process (a remote server) watch it to propagate the cancel; in-process tools may ignore it
    /// because the executor drops their future anyway.
    pub cancel: CancellationToken,
    /// Id of the request being executed, for tools that log or correlate.
    pub request_id: String,
    /// Set when someone is listening for progress of this call.
    pub progress: Option<Arc<dyn ProgressSink>>,
    /// When the executor stops the call (its per-call timeout). A tool that would wait for
    /// something of its own (a rate-limit slot) checks it, so it can give up in time with
    /// its real reason instead of being cut off as a plain timeout.
    pub deadline: Option<tokio::time::Instant>,
}

impl CallContext {
    /// Whether reporting progress reaches anyone (a tool can skip asking a server for it).
    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Reports progress of this call, if anyone listens.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(sink) = &self.progress {
            sink.report(CallProgress {
                request_id: self.request_id.clone(),
                progress,
                total,
                message,
                task: None,
            });
        }
    }
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("request_id", &self.request_id)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("progress", &self.progress.is_some())
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// A failure reported by the tool itself.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolFailure {
    /// The tool ran and failed (file missing, bad expression, ...).
    #[error("{0}")]
    Failed(String),
    /// The tool could not be reached (process died, connection refused, ...).
    #[error("{0}")]
    Transport(String),
    /// The tool does not have this method although its metadata listed it.
    #[error("method '{0}' is not implemented by this tool")]
    UnknownMethod(String),
    /// The tool's own output limit was reached (a sandboxed module kept asking for a larger
    /// buffer than it may have); classified like the executor's own output cap.
    #[error("{0}")]
    OutputTooLarge(String),
    /// A sandboxed tool hit its memory cap.
    #[error("{0}")]
    MemoryLimit(String),
    /// The tool's own rate limit had no free slot before the call's deadline. `retry_after`
    /// is how long from now until a call could start, for the suggestion.
    #[error("{message}")]
    RateLimited {
        message: String,
        retry_after: Duration,
    },
}

impl ToolFailure {
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }
}

/// A call as it goes on the wire to the tool's backend, for a person to replay it outside
/// Toolscope.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireCall {
    /// A shell command: an HTTP tool's request as cURL, its secrets as `"${VAR}"` references.
    Curl { command: String },
    /// A JSON-RPC request: an MCP server's `tools/call` with the server's own tool name.
    JsonRpc { message: Value },
}

/// A registered unit with methods.
pub trait Tool: Send + Sync {
    /// Identity and metadata. Called at registration; the registry keeps a snapshot.
    fn info(&self) -> ToolInfo;

    /// Runs `method` with validated `args`. Returns a JSON value: a string is used verbatim,
    /// anything else is serialised as JSON for the model.
    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>>;

    /// The request `call` would send for these arguments, for tools that send one over a wire
    /// (HTTP, MCP); in-process tools have none.
    fn wire_call(
        &self,
        method: &str,
        args: &Map<String, Value>,
    ) -> Result<Option<WireCall>, ToolFailure> {
        let _ = (method, args);
        Ok(None)
    }
}
