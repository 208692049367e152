//! Executor commands: run one call or a whole reply, stream results and confirmation requests
//! over a per-run channel, cancel, answer confirmations. Every run is recorded in the history.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tauri::ipc::Channel;
use tauri::State;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use toolscope_engine::cycle::{run_cycle_observed, CycleOptions, CycleOutcome};
use toolscope_engine::executor::{
    ConfirmationHook, ConfirmationRequest, Executor, ExecutorOptions,
};
use toolscope_engine::history::{HistoryEntry, RecordedRequest};
use toolscope_engine::request_tools::RequestTools;
use toolscope_engine::{BoxFuture, CallProgress, ProgressSink};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ToolExecutionResult;

use crate::commands::parser::{optional_request_tools, RequestToolsChoice};
use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

/// A call typed by hand in the Executor pane.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct ManualCall {
    pub tool_name: String,
    pub args: Map<String, Value>,
    /// History id of the run this one re-runs or edits, if any.
    pub parent_id: Option<String>,
}

/// What a run reports while it is going.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// A call needs the user's approval: answer with `answer_confirmation`.
    ConfirmationNeeded {
        confirmation_id: String,
        request: ConfirmationRequest,
    },
    /// One request of the run ended.
    ResultReady {
        index: u32,
        result: ToolExecutionResult,
    },
    /// A running call reported progress (MCP progress notifications).
    Progress { progress: CallProgress },
}

/// Passes progress reports of the run's calls to its channel.
struct ChannelProgress(Channel<RunEvent>);

impl ProgressSink for ChannelProgress {
    fn report(&self, progress: CallProgress) {
        let _ = self.0.send(RunEvent::Progress { progress });
    }
}

/// Asks the UI through the run's channel and waits for `answer_confirmation`.
struct ChannelConfirmation {
    channel: Channel<RunEvent>,
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<bool>>>>,
    cancel: CancellationToken,
}

impl ConfirmationHook for ChannelConfirmation {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let confirmation_id = uuid::Uuid::new_v4().to_string();
            let (answer, answered) = oneshot::channel();
            lock(&self.pending).insert(confirmation_id.clone(), answer);
            let asked = self.channel.send(RunEvent::ConfirmationNeeded {
                confirmation_id: confirmation_id.clone(),
                request: request.clone(),
            });
            let approved = if asked.is_err() {
                false
            } else {
                tokio::select! {
                    answer = answered => answer.unwrap_or(false),
                    () = self.cancel.cancelled() => false,
                }
            };
            lock(&self.pending).remove(&confirmation_id);
            approved
        })
    }
}

fn executor(state: &AppState, channel: &Channel<RunEvent>, cancel: &CancellationToken) -> Executor {
    Executor::new(
        state.registry.clone(),
        ExecutorOptions::from(&state.config()),
    )
    .with_confirmation(Arc::new(ChannelConfirmation {
        channel: channel.clone(),
        pending: Arc::clone(&state.confirmations),
        cancel: cancel.clone(),
    }))
    .with_progress(Arc::new(ChannelProgress(channel.clone())))
}

fn history_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(
        CommandErrorKind::History,
        format!("the run finished but could not be recorded: {error}"),
    )
}

/// Runs one method by routing name. `run_id` (chosen by the UI) is what `cancel_run` takes.
#[tauri::command]
#[specta::specta]
pub async fn execute_call(
    state: State<'_, AppState>,
    call: ManualCall,
    run_id: String,
    on_event: Channel<RunEvent>,
) -> Result<ToolExecutionResult, CommandError> {
    call_method(&state, call, &run_id, &on_event).await
}

async fn call_method(
    state: &AppState,
    call: ManualCall,
    run_id: &str,
    on_event: &Channel<RunEvent>,
) -> Result<ToolExecutionResult, CommandError> {
    let history = state.history()?;
    let run = state.begin_run(run_id)?;
    let request = ParsedToolRequest::manual(call.tool_name, call.args);
    let result = executor(state, on_event, &run.token)
        .execute(&request, &run.token)
        .await;
    let _ = on_event.send(RunEvent::ResultReady {
        index: 0,
        result: result.clone(),
    });
    let entry = HistoryEntry::new(
        call.parent_id,
        "app",
        RecordedRequest::from(&request),
        result.clone(),
    );
    history.append(&entry).map_err(history_error)?;
    Ok(result)
}

/// The whole cycle on a reply: parse, run every request, format the results block.
#[tauri::command]
#[specta::specta]
pub async fn run_reply(
    state: State<'_, AppState>,
    text: String,
    format: Option<String>,
    request_tools: Option<RequestToolsChoice>,
    run_id: String,
    on_event: Channel<RunEvent>,
) -> Result<CycleOutcome, CommandError> {
    let tools = optional_request_tools(&state, request_tools.as_ref())?;
    run_cycle_for(
        &state,
        &text,
        format.as_deref(),
        tools.as_ref(),
        &run_id,
        &on_event,
    )
    .await
}

async fn run_cycle_for(
    state: &AppState,
    text: &str,
    format: Option<&str>,
    request_tools: Option<&RequestTools>,
    run_id: &str,
    on_event: &Channel<RunEvent>,
) -> Result<CycleOutcome, CommandError> {
    let history = state.history()?;
    let run = state.begin_run(run_id)?;
    let config = state.config();
    let executor = executor(state, on_event, &run.token);
    let options = CycleOptions {
        format,
        max_calls: usize::try_from(config.max_total_tool_calls).unwrap_or(usize::MAX),
        origin: "app",
        strict_unknown_tool: config.strict_unknown_tool,
        request_tools,
    };
    let observer = |index: usize, result: &ToolExecutionResult| {
        let _ = on_event.send(RunEvent::ResultReady {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            result: result.clone(),
        });
    };
    let outcome = run_cycle_observed(
        text,
        &options,
        &state.protocols(),
        &executor,
        Some(&history),
        &run.token,
        &observer,
    )
    .await
    .map_err(|e| CommandError::new(CommandErrorKind::UnknownFormat, e.to_string()))?;
    if let Some(error) = outcome.history_errors.first() {
        return Err(history_error(error));
    }
    Ok(outcome)
}

/// Cancels a run in flight; false when no run has this id (it already ended).
#[tauri::command]
#[specta::specta]
pub async fn cancel_run(state: State<'_, AppState>, run_id: String) -> Result<bool, CommandError> {
    Ok(state.cancel_run(&run_id))
}

/// Answers a `confirmation_needed` event; false when nobody is waiting for it any more.
#[tauri::command]
#[specta::specta]
pub async fn answer_confirmation(
    state: State<'_, AppState>,
    confirmation_id: String,
    approve: bool,
) -> Result<bool, CommandError> {
    Ok(answer(&state, &confirmation_id, approve))
}

fn answer(state: &AppState, confirmation_id: &str, approve: bool) -> bool {
    let waiting = lock(&state.confirmations).remove(confirmation_id);
    waiting.is_some_and(|answer| answer.send(approve).is_ok())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use tauri::ipc::InvokeResponseBody;
    use toolscope_engine::history::History;
    use toolscope_protocol::result::ErrorKind;

    use super::*;

    /// A channel whose events land in a shared list, like the UI's `onmessage`.
    fn recording_channel() -> (Channel<RunEvent>, Arc<Mutex<Vec<Value>>>) {
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&events);
        let channel = Channel::new(move |body| {
            if let InvokeResponseBody::Json(text) = body {
                if let Ok(value) = serde_json::from_str(&text) {
                    lock(&sink).push(value);
                }
            }
            Ok(())
        });
        (channel, events)
    }

    fn started() -> (tempfile::TempDir, Arc<AppState>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = Arc::new(AppState::default());
        state.start(Ok(dir.path()));
        (dir, state)
    }

    fn call(tool_name: &str, args: Value) -> ManualCall {
        ManualCall {
            tool_name: tool_name.into(),
            args: args.as_object().cloned().unwrap_or_default(),
            parent_id: Some("parent-1".into()),
        }
    }

    /// Answers the first confirmation request that shows up.
    async fn answer_when_asked(state: &AppState, events: &Mutex<Vec<Value>>, approve: bool) {
        for _ in 0..500 {
            let id = lock(events)
                .iter()
                .find(|e| e["event"] == "confirmation_needed")
                .and_then(|e| e["confirmation_id"].as_str().map(str::to_owned));
            if let Some(id) = id {
                assert!(answer(state, &id, approve));
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no confirmation was requested");
    }

    #[tokio::test]
    async fn a_call_streams_its_result_and_is_recorded() {
        let (_dir, state) = started();
        let (channel, events) = recording_channel();
        let result = call_method(
            &state,
            call("calculator_evaluate", json!({"expression": "6*7"})),
            "run-1",
            &channel,
        )
        .await
        .expect("runs");
        assert!(result.is_success(), "{}", result.result);
        assert_eq!(lock(&events)[0]["event"], "result_ready");
        let history = History::load(state.history().expect("open").path()).expect("load");
        assert_eq!(history.entries.len(), 1);
        assert_eq!(history.entries[0].parent_id.as_deref(), Some("parent-1"));
        assert_eq!(history.entries[0].origin, "app");
    }

    #[tokio::test]
    async fn destructive_calls_ask_through_the_channel() {
        let (_dir, state) = started();
        for (approve, expected) in [
            (false, Some(ErrorKind::Denied)),
            (true, Some(ErrorKind::ToolError)),
        ] {
            let (channel, events) = recording_channel();
            let running = {
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    call_method(
                        &state,
                        call("workspace_delete", json!({"path": "missing.txt"})),
                        "run-d",
                        &channel,
                    )
                    .await
                })
            };
            answer_when_asked(&state, &events, approve).await;
            let result = running.await.expect("joins").expect("runs");
            // Approved, the delete really runs and fails on the missing file.
            assert_eq!(result.error_kind(), expected, "{}", result.result);
            let asked = lock(&events)
                .iter()
                .find(|e| e["event"] == "confirmation_needed")
                .cloned()
                .expect("asked");
            assert_eq!(asked["request"]["routing_name"], "workspace_delete");
            assert_eq!(asked["request"]["reason"], "destructive");
        }
        assert!(!answer(&state, "no-such-confirmation", true));
    }

    #[tokio::test]
    async fn a_run_can_be_cancelled_by_id() {
        let (_dir, state) = started();
        let (channel, _events) = recording_channel();
        let reply = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」devtools_sleep「末」\ndurationMs:「始」60000「末」\n<<<[END_TOOL_REQUEST]>>>";
        let running = {
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                run_cycle_for(&state, reply, None, None, "run-c", &channel).await
            })
        };
        for _ in 0..500 {
            if state.cancel_run("run-c") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let outcome = running.await.expect("joins").expect("cycle runs");
        assert_eq!(outcome.results[0].error_kind(), Some(ErrorKind::Cancelled));
        assert!(outcome.formatted_results.contains("cancelled"));
        assert!(
            !state.cancel_run("run-c"),
            "the run is forgotten when it ends"
        );
    }
}
