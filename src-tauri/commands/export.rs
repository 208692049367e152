//! Export commands: a call (from the history or the Parser) as cURL, JSON-RPC or a wire
//! format's result message, and a run reply as a `toolscope eval` case.

use serde::Deserialize;
use tauri::State;
use toolscope_engine::cycle::CycleOutcome;
use toolscope_engine::export::{self, CallToExport, ExportError, ExportKind};
use toolscope_engine::history::History;
use toolscope_protocol::result::ToolExecutionResult;

use crate::commands::parser::{optional_request_tools, RequestToolsChoice};
use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Which call to export.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum ExportSource {
    /// A recorded run, by its history entry id.
    History { id: String },
    /// A call the pane holds (a parsed request), with its result once it ran.
    Call {
        call: CallToExport,
        result: Option<Box<ToolExecutionResult>>,
    },
}

fn export_error(error: ExportError) -> CommandError {
    let kind = match error {
        ExportError::UnknownFormat(_) => CommandErrorKind::UnknownFormat,
        _ => CommandErrorKind::InvalidInput,
    };
    CommandError::new(kind, error.to_string())
}

/// The call of `source` in the form `kind` asks for, ready to copy.
#[tauri::command]
#[specta::specta]
pub async fn export_call(
    state: State<'_, AppState>,
    kind: ExportKind,
    source: ExportSource,
) -> Result<String, CommandError> {
    let (call, result) = match source {
        ExportSource::Call { call, result } => (call, result.map(|r| *r)),
        ExportSource::History { id } => {
            let history = state.history()?;
            let loaded = History::load(history.path())
                .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
            let entry = loaded
                .entries
                .into_iter()
                .find(|entry| entry.id == id)
                .ok_or_else(|| {
                    CommandError::new(
                        CommandErrorKind::InvalidInput,
                        format!("no history entry '{id}'"),
                    )
                })?;
            let call = CallToExport {
                request_id: entry.request.request_id,
                tool_name: entry.request.tool_name,
                args: entry.request.args,
            };
            (call, Some(entry.result))
        }
    };
    export::export_call(
        &state.registry,
        &state.protocols(),
        &kind,
        &call,
        result.as_ref(),
    )
    .map_err(export_error)
}

/// A run reply as one line of a `toolscope eval` cases file, its values typed by the tools it
/// ran against (the request's, when the run had them).
#[tauri::command]
#[specta::specta]
pub async fn export_test_case(
    state: State<'_, AppState>,
    reply: String,
    outcome: CycleOutcome,
    request_tools: Option<RequestToolsChoice>,
) -> Result<String, CommandError> {
    let tools = optional_request_tools(&state, request_tools.as_ref())?;
    let case = export::test_case(&reply, &outcome, &state.registry, tools.as_ref());
    serde_json::to_string(&case)
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))
}
