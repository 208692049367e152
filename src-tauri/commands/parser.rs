//! Parser command: a reply's requests, diagnostics and each request's validation state.

use serde::Serialize;
use tauri::State;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::result::ExecutionError;
use toolscope_protocol::stream::{self, StreamReplay};

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
    let mut report = parser::parse(&state.protocols, &text, format.as_deref())
        .map_err(|e| CommandError::new(CommandErrorKind::UnknownFormat, e.to_string()))?;
    // Show text-format values as the method will receive them (typed from its schema).
    parser::type_arguments(&mut report, |name| state.registry.parameters_of(name));
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

/// Streams `text` through the parser in deltas of `delta_bytes` and returns when each call and
/// diagnostic appeared, for the Parser pane's "replay as stream" view. With no format (or
/// "auto") the format auto-detect picks is replayed.
#[tauri::command]
#[specta::specta]
pub async fn replay_stream(
    state: State<'_, AppState>,
    text: String,
    format: Option<String>,
    delta_bytes: u32,
) -> Result<StreamReplay, CommandError> {
    let unknown = |e: String| CommandError::new(CommandErrorKind::UnknownFormat, e);
    let id = match format
        .as_deref()
        .filter(|f| !f.eq_ignore_ascii_case("auto"))
    {
        Some(id) => id.to_owned(),
        None => {
            let detected =
                parser::parse(&state.protocols, &text, None).map_err(|e| unknown(e.to_string()))?;
            if detected.format == "none" {
                return Err(unknown(
                    "no tool-call format detected in this reply; choose a format to replay it"
                        .to_owned(),
                ));
            }
            detected.format
        }
    };
    let protocol = state.protocols.get(&id).ok_or_else(|| {
        unknown(format!(
            "unknown format '{id}' (known: {})",
            state.protocols.ids().join(", ")
        ))
    })?;
    let delta = usize::try_from(delta_bytes).unwrap_or(usize::MAX);
    tokio::task::spawn_blocking(move || stream::replay(protocol, &text, delta))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))
}
