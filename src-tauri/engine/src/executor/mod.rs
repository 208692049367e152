//! The executor (seed 000 §4.5, seed 001): from a parsed request to a classified result.
//!
//! Order of checks: routing name → tool → method → agent-callable (checked again here even
//! though discovery hides such methods: a model can type any name) → coerce and validate the
//! arguments → confirmation → run with timeout, cancellation and panic isolation → cap the
//! output. Every path ends in a [`ToolExecutionResult`]; nothing here returns `Err` or panics.

mod check;
mod confirm;
mod failure;
pub mod schema_hint;
pub mod suggest;
pub mod validate;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::config::{ParallelExecution, ToolCallConfig};
use crate::registry::{RegisteredMethod, RegisteredTool, Registry};
use crate::tool::{CallContext, ProgressSink, ToolFailure};
use toolscope_protocol::coerce;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{
    ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult, Truncation,
};

pub use confirm::{ApproveAll, ConfirmReason, ConfirmationHook, ConfirmationRequest};
use failure::{panic_text, Failure};

/// What to do with output longer than the cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OversizePolicy {
    /// Keep the first `max_output_bytes` (at a character boundary) and say so.
    #[default]
    Truncate,
    /// Fail the run with `output_too_large`.
    Fail,
}

#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    pub timeout: Duration,
    pub max_output_bytes: usize,
    pub oversize: OversizePolicy,
    pub schedule: ParallelExecution,
    /// Ask before every call, not only destructive ones.
    pub require_confirmation: bool,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        Self::from(&ToolCallConfig::default())
    }
}

impl From<&ToolCallConfig> for ExecutorOptions {
    fn from(config: &ToolCallConfig) -> Self {
        Self {
            timeout: Duration::from_millis(config.timeout_ms),
            max_output_bytes: usize::try_from(config.max_tool_output_bytes).unwrap_or(usize::MAX),
            oversize: OversizePolicy::Truncate,
            schedule: config.parallel_execution,
            require_confirmation: config.require_confirmation,
        }
    }
}

#[derive(Clone)]
pub struct Executor {
    registry: Arc<Registry>,
    options: ExecutorOptions,
    confirmation: Option<Arc<dyn ConfirmationHook>>,
    progress: Option<Arc<dyn ProgressSink>>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("options", &self.options)
            .field("confirmation", &self.confirmation.is_some())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Executor {
    /// An executor with no confirmation hook: calls that need approval are denied.
    pub fn new(registry: Arc<Registry>, options: ExecutorOptions) -> Self {
        Self {
            registry,
            options,
            confirmation: None,
            progress: None,
        }
    }

    pub fn with_confirmation(mut self, hook: Arc<dyn ConfirmationHook>) -> Self {
        self.confirmation = Some(hook);
        self
    }

    /// Passes the progress that tools report (tagged with the request id) to `sink`.
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    pub fn options(&self) -> &ExecutorOptions {
        &self.options
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Runs one request to a result.
    pub async fn execute(
        &self,
        request: &ParsedToolRequest,
        cancel: &CancellationToken,
    ) -> ToolExecutionResult {
        let started = Instant::now();
        let outcome = self.run(request, cancel).await;
        let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut result = ToolExecutionResult {
            request_id: request.request_id.clone(),
            tool_name: request.tool_name.clone(),
            status: ExecutionStatus::Success,
            result: String::new(),
            duration_ms,
            error: None,
            truncated: None,
        };
        match outcome {
            Ok(value) => self.fill_output(&mut result, value),
            Err(failure) => {
                result.status = ExecutionStatus::Error;
                result.result = failure.message.clone();
                result.error = Some(failure.into_error());
            }
        }
        result
    }

    /// Runs a batch according to the schedule; results come back in request order.
    pub async fn execute_all(
        &self,
        requests: &[ParsedToolRequest],
        cancel: &CancellationToken,
    ) -> Vec<ToolExecutionResult> {
        self.execute_all_observed(requests, cancel, &|_, _| {})
            .await
    }

    /// Like [`Self::execute_all`], calling `observe(index, result)` as each run ends (in
    /// completion order), so a UI can show results while the batch is still running.
    pub async fn execute_all_observed(
        &self,
        requests: &[ParsedToolRequest],
        cancel: &CancellationToken,
        observe: &(dyn Fn(usize, &ToolExecutionResult) + Sync),
    ) -> Vec<ToolExecutionResult> {
        let run = |index: usize| async move {
            let result = self.execute(&requests[index], cancel).await;
            observe(index, &result);
            result
        };
        match self.options.schedule {
            ParallelExecution::Serial => {
                let mut results = Vec::with_capacity(requests.len());
                for index in 0..requests.len() {
                    results.push(run(index).await);
                }
                results
            }
            ParallelExecution::Parallel => join_all((0..requests.len()).map(run)).await,
            ParallelExecution::Smart => {
                let mut results = Vec::with_capacity(requests.len());
                for group in self.smart_groups(requests) {
                    results.extend(join_all(group.map(run)).await);
                }
                results
            }
        }
    }

    /// Consecutive read-only requests form one parallel group; anything else stands alone.
    fn smart_groups(&self, requests: &[ParsedToolRequest]) -> Vec<std::ops::Range<usize>> {
        let mut groups = Vec::new();
        let mut start = 0;
        for (i, request) in requests.iter().enumerate() {
            if !self.is_read_only(&request.tool_name) {
                if start < i {
                    groups.push(start..i);
                }
                groups.push(i..i + 1);
                start = i + 1;
            }
        }
        if start < requests.len() {
            groups.push(start..requests.len());
        }
        groups
    }

    fn is_read_only(&self, routing_name: &str) -> bool {
        self.registry
            .resolve(routing_name)
            .is_ok_and(|(_, method)| method.meta.annotations.is_read_only())
    }

    async fn run(
        &self,
        request: &ParsedToolRequest,
        cancel: &CancellationToken,
    ) -> Result<Value, Failure> {
        if cancel.is_cancelled() {
            return Err(Failure::new(
                ErrorKind::Cancelled,
                "cancelled before it started",
            ));
        }
        let (tool, method) = self
            .registry
            .resolve(&request.tool_name)
            .map_err(|e| Failure::unresolved(&request.tool_name, e, &self.registry))?;
        if !method.meta.agent_callable {
            return Err(Failure::not_agent_callable(&method));
        }
        let args = Self::prepare_args(request, &method)?;
        self.confirm(request, &method, &args).await?;
        self.invoke(tool, &method, args, request, cancel).await
    }

    fn prepare_args(
        request: &ParsedToolRequest,
        method: &RegisteredMethod,
    ) -> Result<Map<String, Value>, Failure> {
        let schema = &method.meta.parameters;
        let mut args = request.args.clone();
        if request.untyped_args {
            // As the format's reference parser types text (the same as `parse --tools` and eval).
            coerce::ValueTyping::of(&request.format).apply(&mut args, Some(schema));
        }
        coerce::apply_defaults(&mut args, schema);
        let validator = method
            .validator()
            .map_err(|message| Failure::new(ErrorKind::ToolError, message))?;
        let args = Value::Object(args);
        let issues = validate::validate_args(&validator, &args);
        if !issues.is_empty() {
            return Err(Failure {
                kind: ErrorKind::InvalidArgs,
                message: validate::format_issues(&issues),
                suggestion: Some(suggest::invalid_args(&issues, Some(schema))),
                issues,
            });
        }
        match args {
            Value::Object(args) => Ok(args),
            _ => Err(
                Failure::new(ErrorKind::InvalidArgs, "arguments must be an object")
                    .suggesting(suggest::invalid_args(&[], Some(schema))),
            ),
        }
    }

    async fn invoke(
        &self,
        tool: Arc<RegisteredTool>,
        method: &RegisteredMethod,
        args: Map<String, Value>,
        request: &ParsedToolRequest,
        cancel: &CancellationToken,
    ) -> Result<Value, Failure> {
        let call_cancel = cancel.child_token();
        let timeout = self.options.timeout;
        // One instant for the tool and the timer below, so a tool that gives up before its
        // deadline always does so before the executor's own timeout fires.
        // (None: a timeout too large to add to a clock, i.e. none in practice.)
        let deadline = tokio::time::Instant::now().checked_add(timeout);
        let timer = match deadline {
            Some(at) => tokio::time::sleep_until(at),
            None => tokio::time::sleep(timeout),
        };
        let ctx = CallContext {
            cancel: call_cancel.clone(),
            request_id: request.request_id.clone(),
            progress: self.progress.clone(),
            deadline,
        };
        let method_name = method.meta.name.clone();
        // A task of its own: a panicking tool fails this run only.
        let implementation = Arc::clone(&tool.tool);
        let mut task =
            tokio::spawn(async move { implementation.call(&method_name, args, ctx).await });
        let cancelled = || {
            Failure::new(
                ErrorKind::Cancelled,
                format!("'{}' was cancelled", method.routing_name),
            )
        };
        // Biased, cancellation first: the tool sees the same cancellation through its child
        // token and may finish in the same instant; the run was still cancelled.
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                call_cancel.cancel();
                task.abort();
                return Err(cancelled());
            }
            () = timer => {
                call_cancel.cancel();
                task.abort();
                return Err(Failure::new(
                    ErrorKind::Timeout,
                    format!("'{}' did not finish within {} ms", method.routing_name, timeout.as_millis()),
                )
                .suggesting(suggest::timeout(timeout)));
            }
            joined = &mut task => joined,
        };
        // A tool that stopped with an error because the run was cancelled meanwhile.
        if cancel.is_cancelled() && !matches!(outcome, Ok(Ok(_))) {
            return Err(cancelled());
        }
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(ToolFailure::Failed(message))) => {
                Err(Failure::new(ErrorKind::ToolError, message))
            }
            Ok(Err(ToolFailure::Transport(message))) => {
                Err(Failure::new(ErrorKind::Transport, message))
            }
            Ok(Err(ToolFailure::OutputTooLarge(message))) => {
                Err(Failure::new(ErrorKind::OutputTooLarge, message))
            }
            Ok(Err(ToolFailure::MemoryLimit(message))) => {
                Err(Failure::new(ErrorKind::MemoryLimit, message))
            }
            Ok(Err(ToolFailure::RateLimited {
                message,
                retry_after,
            })) => Err(Failure::new(ErrorKind::RateLimited, message)
                .suggesting(suggest::rate_limited(Some(retry_after)))),
            Ok(Err(failure @ ToolFailure::UnknownMethod(_))) => {
                Err(Failure::new(ErrorKind::MethodNotFound, failure.to_string()))
            }
            Err(join_error) => Err(Failure::new(
                ErrorKind::ToolError,
                if join_error.is_panic() {
                    format!(
                        "'{}' panicked: {}",
                        method.routing_name,
                        panic_text(join_error)
                    )
                } else {
                    format!("'{}' was aborted", method.routing_name)
                },
            )),
        }
    }

    fn fill_output(&self, result: &mut ToolExecutionResult, value: Value) {
        let text = match value {
            Value::String(s) => s,
            other => {
                serde_json::to_string(&other).unwrap_or_else(|e| format!("<unserialisable: {e}>"))
            }
        };
        let limit = self.options.max_output_bytes;
        if text.len() <= limit {
            result.result = text;
            return;
        }
        let original = text.len() as u64;
        match self.options.oversize {
            OversizePolicy::Fail => {
                let message =
                    format!("output of {original} bytes exceeds the cap of {limit} bytes");
                result.status = ExecutionStatus::Error;
                result.result = message.clone();
                result.error = Some(
                    ExecutionError::new(ErrorKind::OutputTooLarge, message)
                        .with_suggestion(Some(suggest::output_too_large(Some(limit)))),
                );
            }
            OversizePolicy::Truncate => {
                let mut cut = limit;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                // A fresh string, not `text` truncated: that would keep the whole original
                // allocation (50 MB for a flood) alive for as long as the result lives.
                let note = format!("\n[output truncated: {cut} of {original} bytes shown]");
                let mut kept = String::with_capacity(cut + note.len());
                kept.push_str(&text[..cut]);
                kept.push_str(&note);
                result.result = kept;
                result.truncated = Some(Truncation {
                    original_bytes: original,
                    kept_bytes: cut as u64,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
