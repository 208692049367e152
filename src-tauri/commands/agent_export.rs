//! A recorded turn taken out of the app: its reply as a parser fixture (what the Parser pane
//! and `toolscope parse` read), as a case `toolscope eval` replays, and its request as a cURL
//! command that sends it again.

use serde::Serialize;
use tauri::State;
use toolscope_engine::agent::native;
use toolscope_engine::agent::record::Record;
use toolscope_engine::agent::{ModelInfo, ToolMode};
use toolscope_engine::eval::{EvalCase, ExpectedCall};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// One turn, ready to copy or save.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TurnExport {
    /// The reply as a parser reads it: the text (prompted tools) or the Chat Completions
    /// document the streamed calls amount to (native tools).
    pub reply: String,
    /// The format that reads `reply`.
    pub format: String,
    /// The request body as it was sent, pretty-printed.
    pub request: String,
    /// A cURL command sending the request again; the key is an environment variable.
    pub curl: String,
    /// The turn as one line of a `toolscope eval` cases file: the reply, its format, the calls
    /// the recording read from it as the expected ones (the person exporting vouches for them),
    /// and the request's tools.
    pub eval_case: String,
}

#[tauri::command]
#[specta::specta]
pub async fn conversation_turn_export(
    state: State<'_, AppState>,
    id: String,
    turn: u32,
) -> Result<TurnExport, CommandError> {
    let conversation = state
        .conversations()?
        .load(&id)
        .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
    turn_export(&id, &conversation.records, turn)
}

pub(crate) fn turn_export(
    conversation_id: &str,
    records: &[toolscope_engine::agent::record::TimedRecord],
    turn: u32,
) -> Result<TurnExport, CommandError> {
    // A proxied conversation has no tool mode: its turn is exported as native calls when the
    // reply has them, else as text in the format its recorded reading found.
    let mut start: Option<(&ModelInfo, Option<&ToolMode>)> = None;
    let mut body = None;
    let mut reply = None;
    let mut read_as = None;
    for timed in records {
        match &timed.record {
            Record::Started {
                model, settings, ..
            } => start = Some((model, Some(&settings.tools))),
            Record::Proxied { model, .. } => start = Some((model, None)),
            Record::Parsed { turn: t, report } if *t == turn => read_as = Some(report),
            Record::Request { turn: t, body: b } if *t == turn => body = Some(b),
            Record::Reply {
                turn: t, reply: r, ..
            } if *t == turn => reply = Some(r),
            _ => {}
        }
    }
    let missing = |what: &str| {
        CommandError::new(
            CommandErrorKind::InvalidInput,
            format!("turn {turn} has no recorded {what}"),
        )
    };
    let (model, mode) = start.ok_or_else(|| missing("start"))?;
    let reply = reply.ok_or_else(|| missing("reply"))?;
    let body = body.ok_or_else(|| missing("request"))?;
    let (text, format) = match mode {
        Some(ToolMode::Prompted { format }) => (reply.text.clone(), format.clone()),
        None if reply.calls.is_empty() => (
            reply.text.clone(),
            read_as
                .map(|report| report.format.clone())
                .unwrap_or_else(|| "auto".to_owned()),
        ),
        Some(ToolMode::Native) | None => (native::document(reply), "openai_chat".to_owned()),
    };
    let expected = match read_as {
        Some(report) => report
            .requests
            .iter()
            .map(|request| ExpectedCall {
                name: request.tool_name.clone(),
                arguments: request.args.clone(),
            })
            .collect(),
        None => reply
            .calls
            .iter()
            .map(|call| ExpectedCall {
                name: call.name.clone(),
                // Arguments cut off or not JSON are what the case is about: the person fills
                // in what was meant.
                arguments: serde_json::from_str(&call.arguments).unwrap_or_default(),
            })
            .collect(),
    };
    let case = EvalCase {
        id: Some(format!("{conversation_id}#{turn}")),
        format: (format != "auto").then(|| format.clone()),
        reply: text.clone(),
        expected,
        tools: body.get("tools").filter(|t| !t.is_null()).cloned(),
        results: None,
    };
    Ok(TurnExport {
        reply: text,
        format,
        request: serde_json::to_string_pretty(body).unwrap_or_default(),
        curl: toolscope_llm::model::curl_command(model, body),
        eval_case: serde_json::to_string(&case).unwrap_or_default(),
    })
}
