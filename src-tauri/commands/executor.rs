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
use toolscope_engine::{BoxFuture, ParsedToolRequest, ToolExecutionResult};

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
    let history = state.history()?;
    let run = state.begin_run(&run_id)?;
    let request = ParsedToolRequest::manual(call.tool_name, call.args);
    let result = executor(&state, &on_event, &run.token)
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
    run_id: String,
    on_event: Channel<RunEvent>,
) -> Result<CycleOutcome, CommandError> {
    let history = state.history()?;
    let run = state.begin_run(&run_id)?;
    let config = state.config();
    let executor = executor(&state, &on_event, &run.token);
    let options = CycleOptions {
        format: format.as_deref(),
        max_calls: usize::try_from(config.max_total_tool_calls).unwrap_or(usize::MAX),
        origin: "app",
        strict_unknown_tool: config.strict_unknown_tool,
    };
    let observer = |index: usize, result: &ToolExecutionResult| {
        let _ = on_event.send(RunEvent::ResultReady {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            result: result.clone(),
        });
    };
    let outcome = run_cycle_observed(
        &text,
        &options,
        &state.protocols,
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
    let waiting = lock(&state.confirmations).remove(&confirmation_id);
    Ok(waiting.is_some_and(|answer| answer.send(approve).is_ok()))
}
