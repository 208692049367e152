//! Task-augmented `tools/call` (MCP 2025-11-25 tasks, SEP-1686): the call creates a task on the
//! server, Toolscope follows it, then fetches its result.
//!
//! The flow the spec gives a requestor: send `tools/call` with a `task` field and get the task
//! back at once; poll `tasks/get` at the server's `pollInterval` and show each status and
//! status message (as progress, marked as a task, so the Executor shows a running task); on
//! `input_required` or a final status call `tasks/result`, which blocks until the task ends and
//! is where servers deliver the elicitations the task waits for, and keep polling meanwhile; on
//! abandonment (cancel, timeout, the call dropped) send `tasks/cancel` so the work stops.
//!
//! rmcp 3.x speaks the later tasks extension (2026-07-28, `resultType: "task"`) and has no
//! types for this one, so the requests go out as custom requests with the spec's JSON, and
//! answers are read as JSON (its `tasks/get` type would drop `pollInterval`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, ServerResult};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use rmcp::RoleClient;
use serde_json::{json, Map, Value};
use toolscope_engine::{BoxFuture, CallContext, ProgressSink, TaskStatus};

use crate::connection::Connection;
use crate::task_progress::TaskSink;
use crate::tool::AbandonGuard;

/// Used when the server suggests no poll interval.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// Bounds on a server's suggestion: no busy loop, no wait longer than a person would.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(30);
/// How long an explicit cancel waits for the server to acknowledge `tasks/cancel`.
const CANCEL_WAIT: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error)]
pub(crate) enum TaskError {
    /// The request itself failed (refused, transport gone); the caller words it.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The server refused to create the task (`401`, or `403` for lack of scope): nothing
    /// runs yet, so a sign-in may answer it and the call be sent again.
    #[error(transparent)]
    Refused(ServiceError),
    #[error("{0}")]
    Failed(String),
}

/// A failure before the task exists: a refusal is told apart from other failures.
fn at_creation(error: ServiceError) -> TaskError {
    if error.auth_challenge().is_some() {
        TaskError::Refused(error)
    } else {
        TaskError::Service(error)
    }
}

/// A task as the server last described it.
#[derive(Debug, Clone, PartialEq)]
struct TaskState {
    id: String,
    status: TaskStatus,
    message: Option<String>,
    poll: Option<Duration>,
}

fn status(text: &str) -> Option<TaskStatus> {
    Some(match text {
        "working" => TaskStatus::Working,
        "input_required" => TaskStatus::InputRequired,
        "completed" => TaskStatus::Completed,
        "failed" => TaskStatus::Failed,
        "cancelled" => TaskStatus::Cancelled,
        _ => return None,
    })
}

fn is_final(status: TaskStatus) -> bool {
    matches!(
        status,
        TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
    )
}

fn describe(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "waiting for input",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
    }
}

/// Reads a `Task` object (the spec's shape: `taskId`, `status`, `statusMessage`, `pollInterval`).
fn parse_task(value: &Value) -> Option<TaskState> {
    Some(TaskState {
        id: value.get("taskId")?.as_str()?.to_owned(),
        status: status(value.get("status")?.as_str()?)?,
        message: value
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned),
        poll: value
            .get("pollInterval")
            .and_then(Value::as_u64)
            .map(Duration::from_millis),
    })
}

fn as_json(result: &ServerResult) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// Sends one request under `method` with the spec's JSON as its params.
async fn send(
    peer: &Peer<RoleClient>,
    method: &str,
    params: Value,
) -> Result<rmcp::service::RequestHandle<RoleClient>, ServiceError> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    peer.send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
}

/// Sends a request and waits for its answer; dropped early, the server hears it was cancelled.
async fn ask(
    peer: Peer<RoleClient>,
    method: &str,
    params: Value,
) -> Result<ServerResult, ServiceError> {
    let handle = send(&peer, method, params).await?;
    let mut guard = AbandonGuard::new(handle.peer.clone(), handle.id.clone());
    let answer = handle.await_response().await;
    guard.disarm();
    answer
}

/// Runs `name` as a task and returns the tool result `tasks/result` gave.
pub(crate) async fn call_as_task(
    connection: &Connection,
    name: &str,
    args: Map<String, Value>,
    ctx: &CallContext,
) -> Result<CallToolResult, TaskError> {
    let sink = ctx
        .progress
        .clone()
        .map(|inner| Arc::new(TaskSink::wrap(inner, &ctx.request_id)));
    let task_ctx = CallContext {
        progress: sink.clone().map(|s| s as Arc<dyn ProgressSink>),
        ..ctx.clone()
    };
    let peer = connection.peer.clone();
    let params = json!({"name": name, "arguments": args, "task": {}});
    let handle = send(&peer, "tools/call", params)
        .await
        .map_err(at_creation)?;
    // The call's progress token stays valid for the task's whole life (spec: task progress).
    let route = connection
        .progress
        .open(handle.progress_token.clone(), &task_ctx);
    let mut abandoned = AbandonGuard::new(handle.peer.clone(), handle.id.clone());
    let created = handle.await_response().await;
    abandoned.disarm();
    let task = match created.map_err(at_creation)? {
        // A server may run the call at once after all; that is its answer.
        ServerResult::CallToolResult(result) => return Ok(result),
        ServerResult::CreateTaskResult(_) => {
            return Err(TaskError::Failed(
                "the server answered with a task of the 2026-07-28 tasks extension, which \
                 Toolscope does not follow yet"
                    .into(),
            ))
        }
        other => {
            let value = as_json(&other);
            value.get("task").and_then(parse_task).ok_or_else(|| {
                TaskError::Failed(format!(
                    "the server answered the task-augmented tools/call with something else: {value}"
                ))
            })?
        }
    };
    let mut cancel_guard = CancelGuard {
        peer: Some(peer.clone()),
        task_id: task.id.clone(),
    };
    let mut ended = false;
    let outcome = follow(&peer, task, sink.as_deref(), ctx, &mut ended).await;
    if ended {
        cancel_guard.peer = None;
    } else if ctx.cancel.is_cancelled() {
        // Cancelled rather than dropped: there is time to hear the server acknowledge it.
        if let Some(peer) = cancel_guard.peer.take() {
            let _ = tokio::time::timeout(
                CANCEL_WAIT,
                ask(
                    peer,
                    "tasks/cancel",
                    json!({"taskId": cancel_guard.task_id}),
                ),
            )
            .await;
        }
    }
    if let Some(route) = route {
        route.settle().await;
    }
    outcome
}

/// Polls until `tasks/result` answers (started once the task waits for input or has ended);
/// `ended` says whether it did, i.e. the task is over on the server's side.
async fn follow(
    peer: &Peer<RoleClient>,
    mut task: TaskState,
    sink: Option<&TaskSink>,
    ctx: &CallContext,
    ended: &mut bool,
) -> Result<CallToolResult, TaskError> {
    let show = |task: &TaskState| {
        if let Some(sink) = sink {
            sink.status(&task.id, task.status, task.message.as_deref());
        }
    };
    show(&task);
    let mut result: Option<BoxFuture<'static, Result<ServerResult, ServiceError>>> = None;
    loop {
        if result.is_none() && (is_final(task.status) || task.status == TaskStatus::InputRequired) {
            result = Some(Box::pin(ask(
                peer.clone(),
                "tasks/result",
                json!({"taskId": task.id}),
            )));
        }
        let pause = task.poll.unwrap_or(DEFAULT_POLL).clamp(MIN_POLL, MAX_POLL);
        let polling = !is_final(task.status);
        let fetching = result.is_some();
        tokio::select! {
            () = ctx.cancel.cancelled() => {
                return Err(TaskError::Failed(format!("task {} was cancelled in Toolscope", task.id)));
            }
            answer = async { match result.as_mut() {
                Some(call) => call.await,
                None => std::future::pending().await,
            } } => {
                *ended = true;
                return finish(answer, &task, sink);
            }
            () = tokio::time::sleep(pause), if polling => {
                match ask(peer.clone(), "tasks/get", json!({"taskId": task.id})).await {
                    Ok(answer) => {
                        let value = as_json(&answer);
                        let Some(next) = parse_task(&value) else {
                            return Err(TaskError::Failed(format!(
                                "the server's tasks/get answer is not a task: {value}"
                            )));
                        };
                        // A later answer may leave out the interval (or rmcp's model dropped it).
                        let poll = next.poll.or(task.poll);
                        task = TaskState { poll, ..next };
                        show(&task);
                    }
                    // While tasks/result is out, its answer says how the task ended.
                    Err(_) if fetching => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
}

/// What `tasks/result` answered, as the tool's result.
fn finish(
    answer: Result<ServerResult, ServiceError>,
    task: &TaskState,
    sink: Option<&TaskSink>,
) -> Result<CallToolResult, TaskError> {
    let ended = |status| {
        if let Some(sink) = sink {
            sink.status(&task.id, status, None);
        }
    };
    match answer {
        Ok(ServerResult::CallToolResult(result)) => {
            ended(TaskStatus::Completed);
            Ok(result)
        }
        Ok(other) => {
            let value = as_json(&other);
            match serde_json::from_value::<CallToolResult>(value.clone()) {
                Ok(result) => {
                    ended(TaskStatus::Completed);
                    Ok(result)
                }
                Err(_) => Err(TaskError::Failed(format!(
                    "the server's tasks/result answer is not a tool result: {value}"
                ))),
            }
        }
        Err(ServiceError::McpError(error)) => {
            let status = match task.status {
                TaskStatus::Cancelled => TaskStatus::Cancelled,
                _ => TaskStatus::Failed,
            };
            ended(status);
            Err(TaskError::Failed(format!(
                "task {} {}: {} (code {})",
                task.id,
                describe(status),
                error.message,
                error.code.0
            )))
        }
        Err(e) => Err(e.into()),
    }
}

/// Sends `tasks/cancel` if the call is dropped before the task ended (Esc, timeout).
struct CancelGuard {
    peer: Option<Peer<RoleClient>>,
    task_id: String,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else { return };
        let params = json!({"taskId": self.task_id});
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = ask(peer, "tasks/cancel", params).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_read_in_the_specs_shape() {
        let value = json!({"taskId": "t-1", "status": "input_required", "statusMessage": "which one?",
                           "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
                           "ttl": 60000, "pollInterval": 250});
        assert_eq!(
            parse_task(&value),
            Some(TaskState {
                id: "t-1".into(),
                status: TaskStatus::InputRequired,
                message: Some("which one?".into()),
                poll: Some(Duration::from_millis(250)),
            })
        );
        assert_eq!(
            parse_task(&json!({"taskId": "t", "status": "sleeping"})),
            None
        );
    }
}
