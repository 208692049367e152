//! Parser command: a reply's requests, diagnostics and each request's validation state.

use serde::Serialize;
use tauri::State;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::parser::{self, ParseReport};
use toolscope_engine::ExecutionError;

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Whether a parsed request would run, checked against the registry without running it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RequestCheck {
    pub request_id: String,
    /// `None`: routing, agent-callable and argument validation all pass.
    pub error: Option<ExecutionError>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ParsedReply {
    pub report: ParseReport,
    pub checks: Vec<RequestCheck>,
}

/// Parses `text` (`format` = a protocol id, or none / "auto" to detect).
#[tauri::command]
#[specta::specta]
pub async fn parse_reply(
    state: State<'_, AppState>,
    text: String,
    format: Option<String>,
) -> Result<ParsedReply, CommandError> {
    let report = parser::parse(&state.protocols, &text, format.as_deref())
        .map_err(|e| CommandError::new(CommandErrorKind::UnknownFormat, e.to_string()))?;
    let executor = Executor::new(
        state.registry.clone(),
        ExecutorOptions::from(&state.config()),
    );
    let checks = report
        .requests
        .iter()
        .map(|request| RequestCheck {
            request_id: request.request_id.clone(),
            error: executor.check(request),
        })
        .collect();
    Ok(ParsedReply { report, checks })
}
