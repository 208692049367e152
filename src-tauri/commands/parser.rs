//! Parser command: a reply's requests, diagnostics and each request's validation state, against
//! the registry or against the tools of the request the reply answered.

use serde::{Deserialize, Serialize};
use tauri::State;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::request_tools::{RequestCheck, RequestTools};
use toolscope_engine::strict;
use toolscope_imported::{read_request_tools, Finding};
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::stream::{self, StreamReplay};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Where the tools of the request a reply answered come from.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RequestToolsChoice {
    /// Definitions pasted as JSON, in any shape an import reads; nothing runs behind them.
    Pasted { text: String },
    /// An imported set: its calls run against the set's mocks.
    ImportedSet { name: String },
}

/// What the request's tools were, for the pane to say what the checks were made against.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RequestToolsInfo {
    pub count: u32,
    /// Entries of pasted definitions that were refused or rewritten.
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ParsedReply {
    /// Its `content` (the reply's prose) and each request's `raw_block` are left empty: the
    /// pane shows the reply itself and finds a block by its span, and those copies of the text
    /// were most of the answer's bytes (a 5 MB reply's answer was 2 MB), sent and decoded for
    /// nothing.
    pub report: ParseReport,
    pub checks: Vec<RequestCheck>,
    /// Set when the checks were made against the request's tools instead of the registry.
    pub request_tools: Option<RequestToolsInfo>,
}

/// The request's tools of a choice; pasted definitions that give none are an input error.
pub(crate) fn load_request_tools(
    state: &AppState,
    choice: &RequestToolsChoice,
) -> Result<(RequestTools, RequestToolsInfo), CommandError> {
    let invalid = |message: String| CommandError::new(CommandErrorKind::InvalidInput, message);
    let (tools, findings) = match choice {
        RequestToolsChoice::Pasted { text } if text.trim().is_empty() => {
            return Err(invalid(
                "paste the request's tools first (its tools array or the whole request body)"
                    .to_owned(),
            ));
        }
        RequestToolsChoice::Pasted { text } => {
            read_request_tools(text).map_err(|e| invalid(format!("the request's tools: {e}")))?
        }
        RequestToolsChoice::ImportedSet { name } => {
            let set = state
                .sources()?
                .imported
                .get(name)
                .ok_or_else(|| invalid(format!("no imported set '{name}'")))?;
            (set.request_tools(), Vec::new())
        }
    };
    let count = u32::try_from(tools.len()).unwrap_or(u32::MAX);
    Ok((tools, RequestToolsInfo { count, findings }))
}

/// The request's tools of a run or an export, when it names any.
pub(crate) fn optional_request_tools(
    state: &AppState,
    choice: Option<&RequestToolsChoice>,
) -> Result<Option<RequestTools>, CommandError> {
    choice
        .map(|choice| load_request_tools(state, choice).map(|(tools, _)| tools))
        .transpose()
}

/// Parses `text` (`format` = a protocol id, or none / "auto" to detect), checked against the
/// request's tools when given, else against the registry. `strict` drops what a serving stack
/// would not return (cut-off calls, calls to tools not defined), each with a diagnostic.
#[tauri::command]
#[specta::specta]
pub async fn parse_reply(
    state: State<'_, AppState>,
    text: String,
    format: Option<String>,
    request_tools: Option<RequestToolsChoice>,
    strict: bool,
) -> Result<ParsedReply, CommandError> {
    let mut report = parser::parse(&state.protocols(), &text, format.as_deref())
        .map_err(|e| CommandError::new(CommandErrorKind::UnknownFormat, e.to_string()))?;
    if let Some(choice) = &request_tools {
        let (tools, info) = load_request_tools(&state, choice)?;
        let checks = if strict {
            tools.check_strict(&mut report)
        } else {
            tools.check(&mut report)
        };
        return Ok(ParsedReply {
            report: without_copies(report),
            checks,
            request_tools: Some(info),
        });
    }
    if strict {
        strict::against_registry(&mut report, &state.registry);
    }
    // Show text-format values as the method will receive them (typed from its schema).
    parser::type_arguments(&mut report, |name| state.registry.parameters_of(name));
    let executor = Executor::new(
        state.registry.clone(),
        ExecutorOptions::from(&state.config()),
    );
    let checks = report
        .requests
        .iter()
        .zip(executor.check_all(&report.requests))
        .map(|(request, error)| RequestCheck {
            request_id: request.request_id.clone(),
            error,
            routing_name: None,
        })
        .collect();
    Ok(ParsedReply {
        report: without_copies(report),
        checks,
        request_tools: None,
    })
}

/// The report without the text it copies from the reply (see [`ParsedReply::report`]).
fn without_copies(mut report: ParseReport) -> ParseReport {
    report.content = String::new();
    for request in &mut report.requests {
        request.raw_block = String::new();
    }
    report
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
    let protocols = state.protocols();
    let id = match format
        .as_deref()
        .filter(|f| !f.eq_ignore_ascii_case("auto"))
    {
        Some(id) => id.to_owned(),
        None => {
            let detected =
                parser::parse(&protocols, &text, None).map_err(|e| unknown(e.to_string()))?;
            if detected.format == "none" {
                return Err(unknown(
                    "no tool-call format detected in this reply; choose a format to replay it"
                        .to_owned(),
                ));
            }
            detected.format
        }
    };
    let protocol = parser::named(&protocols, &id).map_err(|error| unknown(error.to_string()))?;
    let delta = usize::try_from(delta_bytes).unwrap_or(usize::MAX);
    tokio::task::spawn_blocking(move || stream::replay(protocol, &text, delta))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))
}
