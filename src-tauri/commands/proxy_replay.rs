//! Replaying a proxied MCP session from the Live pane: the recorded agent messages are sent
//! again to the recorded command line or URL through a new proxy session (recorded in the
//! app's data directory, so it shows up in the list), and each answer is compared with the
//! recorded one (`toolscope_proxy::replay`, the same as `toolscope proxy replay`).
//!
//! Running the recorded command line is the person's explicit choice: the pane shows it and
//! asks before it calls this.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tauri::State;
use toolscope_proxy::http_upstream::HttpOptions;
use toolscope_proxy::recorder::sessions_root;
use toolscope_proxy::replay::{replay, ReplayPlan, Target};
use toolscope_proxy::stdio::StdioOptions;
use toolscope_proxy::{session_id, Recorder, SessionInfo, Tap};

use super::proxy_sessions::{session_path, session_roots};
use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// How long each replayed request may wait for its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// One request of a replay, compared with the recording.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ReplayedRequest {
    pub id: Value,
    pub method: String,
    pub tool: Option<String>,
    /// `same`, `different`, `no_answer` or `not_recorded`.
    pub verdict: String,
    /// JSON pointers where the answer differs.
    pub paths: Vec<String>,
}

/// What a replay found, and the session it was recorded as.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProxyReplayReport {
    pub session_id: String,
    pub requests: Vec<ReplayedRequest>,
    pub same: u32,
    pub different: u32,
    pub unanswered: u32,
}

fn failed(kind: CommandErrorKind, message: impl Into<String>) -> CommandError {
    CommandError::new(kind, message.into())
}

/// Replays session `id` of server `name` against the server it recorded.
#[tauri::command]
#[specta::specta]
pub async fn proxy_session_replay(
    state: State<'_, AppState>,
    name: String,
    id: String,
) -> Result<ProxyReplayReport, CommandError> {
    let data_dir = state.data_dir()?.to_path_buf();
    let roots = session_roots(&data_dir, state.cli_data_dir());
    let path = session_path(&roots, &name, &id)?;
    let plan = tokio::task::spawn_blocking(move || ReplayPlan::load(&path))
        .await
        .map_err(|e| failed(CommandErrorKind::History, e.to_string()))?
        .map_err(|e| failed(CommandErrorKind::InvalidInput, e))?;
    let target = match plan.argv.split_first() {
        Some((flag, [url])) if flag == "--url" => Target::Http(HttpOptions {
            url: url.clone(),
            headers: Vec::new(),
            exit_grace: Duration::from_secs(2),
            auth: None,
        }),
        Some(_) => Target::Stdio(StdioOptions {
            argv: plan.argv.clone(),
            exit_grace: Duration::from_secs(2),
        }),
        None => {
            return Err(failed(
                CommandErrorKind::InvalidInput,
                "the session records no command line to replay against",
            ))
        }
    };
    let replay_id = session_id();
    let recorder = Recorder::create(&sessions_root(&data_dir), &name, &replay_id)
        .map_err(|e| failed(CommandErrorKind::History, e.to_string()))?;
    let info = SessionInfo {
        name: name.clone(),
        argv: plan.argv.clone(),
        enforce: false,
    };
    let tap = Tap::start(recorder, &replay_id, &info)
        .map_err(|e| failed(CommandErrorKind::History, e.to_string()))?;
    let report = replay(plan, Arc::new(tap), target, ANSWER_TIMEOUT)
        .await
        .map_err(|e| failed(CommandErrorKind::Source, e.to_string()))?;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(ProxyReplayReport {
        session_id: replay_id,
        same: count(report.same),
        different: count(report.different),
        unanswered: count(report.unanswered),
        requests: report
            .requests
            .into_iter()
            .map(|r| ReplayedRequest {
                id: r.id,
                method: r.method,
                tool: r.tool,
                verdict: r.verdict.to_owned(),
                paths: r.paths,
            })
            .collect(),
    })
}
