//! History commands: the durable run record, searchable, newest first, exportable as JSONL.
//!
//! The list the Executor shows is paged and carries [`HistorySummary`]s: everything a row,
//! a re-run and an edit need (the request in full), without the result text, which is the bulk
//! of an entry (up to the output cap each) and is not shown in the list. The full entries are
//! in the JSONL export.
//!
//! The unfiltered list (what the Executor re-reads after every run) comes from the rows kept in
//! [`AppState::history_rows`], read on from where the previous list stopped, so a run costs the
//! same after ten thousand runs as after ten. A search reads the whole file: it matches result
//! text, which the rows do not keep.

use serde::Serialize;
use serde_json::{Map, Value};
use tauri::State;
use toolscope_engine::history::{History, HistoryEntry, HistoryTail, SkippedLine};
use toolscope_protocol::result::{ErrorKind, ExecutionStatus};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

/// One recorded run as the history list shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HistorySummary {
    /// The entry's id (what a re-run names as its parent).
    pub id: String,
    pub parent_id: Option<String>,
    /// When the entry was created, unix milliseconds.
    pub timestamp_ms: i64,
    /// Who ran it: `"cli"`, `"app"`, `"cycle"`, ...
    pub origin: String,
    /// Routing name of the call.
    pub tool_name: String,
    /// The call's arguments, in full (re-run and edit send them again).
    pub args: Map<String, Value>,
    pub status: ExecutionStatus,
    /// The classified error of a failed run.
    pub error_kind: Option<ErrorKind>,
    pub duration_ms: f64,
}

impl From<HistoryEntry> for HistorySummary {
    fn from(entry: HistoryEntry) -> Self {
        Self {
            error_kind: entry.result.error_kind(),
            id: entry.id,
            parent_id: entry.parent_id,
            timestamp_ms: entry.timestamp_ms,
            origin: entry.origin,
            tool_name: entry.request.tool_name,
            args: entry.request.args,
            status: entry.result.status,
            duration_ms: entry.result.duration_ms,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HistoryPage {
    /// Newest first: the matching entries from `offset`, at most `limit` of them.
    pub entries: Vec<HistorySummary>,
    /// Entries matching the query (before `offset` and `limit` were applied).
    pub total: u32,
    /// Lines of the file that could not be read (reported, never hidden).
    pub skipped: Vec<SkippedLine>,
}

fn load(state: &AppState) -> Result<toolscope_engine::history::LoadedHistory, CommandError> {
    let history = state.history()?;
    History::load(history.path())
        .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))
}

/// Whether every word of `query` occurs in the entry's tool name, arguments or result.
fn matches(entry: &HistoryEntry, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let haystack = format!(
        "{} {} {} {}",
        entry.request.tool_name,
        serde_json::Value::Object(entry.request.args.clone()),
        entry.result.result,
        entry
            .result
            .error
            .as_ref()
            .map(|e| e.kind.as_str())
            .unwrap_or("success"),
    )
    .to_lowercase();
    words.iter().all(|w| haystack.contains(w))
}

/// The entries matching `query` (every word, case-insensitive, in the name, arguments, result
/// or error kind), newest first, from `offset` (0 when absent), at most `limit` (all when absent).
#[tauri::command]
#[specta::specta]
pub async fn history_list(
    state: State<'_, AppState>,
    query: Option<String>,
    offset: Option<u32>,
    limit: Option<u32>,
) -> Result<HistoryPage, CommandError> {
    list(&state, query.as_deref(), offset, limit)
}

fn list(
    state: &AppState,
    query: Option<&str>,
    offset: Option<u32>,
    limit: Option<u32>,
) -> Result<HistoryPage, CommandError> {
    let words: Vec<String> = query
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let offset = offset.map_or(0, |o| o as usize);
    let limit = limit.map_or(usize::MAX, |l| l as usize);
    if !words.is_empty() {
        return Ok(page(load(state)?, &words, offset, limit));
    }
    let path = state.history()?.path().to_path_buf();
    let mut rows = lock(&state.history_rows);
    let tail = match &mut *rows {
        Some(tail) if tail.path() == path => tail,
        other => other.insert(HistoryTail::new(path)),
    };
    tail.refresh(HistorySummary::from)
        .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
    let all = tail.records();
    Ok(HistoryPage {
        entries: all.iter().rev().skip(offset).take(limit).cloned().collect(),
        total: u32::try_from(all.len()).unwrap_or(u32::MAX),
        skipped: tail.skipped(),
    })
}

fn page(
    loaded: toolscope_engine::history::LoadedHistory,
    words: &[String],
    offset: usize,
    limit: usize,
) -> HistoryPage {
    let mut total = 0_usize;
    let mut entries = Vec::new();
    for entry in loaded.entries.into_iter().rev() {
        if !matches(&entry, words) {
            continue;
        }
        if total >= offset && entries.len() < limit {
            entries.push(HistorySummary::from(entry));
        }
        total += 1;
    }
    HistoryPage {
        entries,
        total: u32::try_from(total).unwrap_or(u32::MAX),
        skipped: loaded.skipped,
    }
}

/// Every readable entry as JSONL (one entry per line, oldest first), for saving or sharing.
#[tauri::command]
#[specta::specta]
pub async fn history_export(state: State<'_, AppState>) -> Result<String, CommandError> {
    let loaded = load(&state)?;
    let mut out = String::new();
    for entry in &loaded.entries {
        let line = serde_json::to_string(entry)
            .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolscope_engine::history::RecordedRequest;
    use toolscope_protocol::request::ParsedToolRequest;
    use toolscope_protocol::result::ToolExecutionResult;

    use super::*;

    fn entry(name: &str) -> HistoryEntry {
        let args = json!({"message": format!("hello {name}")});
        let request = ParsedToolRequest::manual(
            name.to_owned(),
            args.as_object().cloned().unwrap_or_default(),
        );
        let result = ToolExecutionResult {
            request_id: request.request_id.clone(),
            tool_name: name.to_owned(),
            status: ExecutionStatus::Success,
            result: "x".repeat(10_000),
            duration_ms: 1.5,
            error: None,
            truncated: None,
        };
        HistoryEntry::new(None, "app", RecordedRequest::from(&request), result)
    }

    /// A started app whose history holds runs of `names`, oldest first.
    fn with_history(names: &[&str]) -> (tempfile::TempDir, AppState) {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = AppState::default();
        state.start(Ok(dir.path()));
        append(&state, names);
        (dir, state)
    }

    fn append(state: &AppState, names: &[&str]) {
        let history = state.history().expect("history");
        for name in names {
            history.append(&entry(name)).expect("append");
        }
    }

    fn names(page: &HistoryPage) -> Vec<&str> {
        page.entries.iter().map(|e| e.tool_name.as_str()).collect()
    }

    fn listed(
        state: &AppState,
        query: Option<&str>,
        offset: u32,
        limit: Option<u32>,
    ) -> HistoryPage {
        list(state, query, Some(offset), limit).expect("listed")
    }

    #[test]
    fn pages_newest_first_from_an_offset_and_sees_later_runs() {
        let (_dir, state) = with_history(&["a_one", "b_two", "c_three", "d_four", "e_five"]);
        let first = listed(&state, None, 0, Some(2));
        assert_eq!(names(&first), ["e_five", "d_four"]);
        assert_eq!(first.total, 5);
        assert_eq!(
            names(&listed(&state, None, 2, Some(2))),
            ["c_three", "b_two"]
        );
        assert_eq!(names(&listed(&state, None, 4, Some(2))), ["a_one"]);
        let past = listed(&state, None, 9, None);
        assert!(past.entries.is_empty());
        assert_eq!(past.total, 5);

        // Runs appended after the rows were read (by the app or by the CLI) are listed too.
        append(&state, &["f_six"]);
        let again = listed(&state, Some("  "), 0, Some(2));
        assert_eq!(names(&again), ["f_six", "e_five"]);
        assert_eq!(again.total, 6);
    }

    #[test]
    fn the_query_filters_before_paging() {
        let (_dir, state) = with_history(&[
            "calc_eval",
            "echo_echo",
            "calc_eval",
            "echo_echo",
            "calc_eval",
        ]);
        let found = listed(&state, Some("CALC"), 1, Some(5));
        assert_eq!(names(&found), ["calc_eval", "calc_eval"]);
        assert_eq!(found.total, 3);
    }

    #[test]
    fn summaries_keep_the_request_but_not_the_result_text() {
        let (_dir, state) = with_history(&["echo_echo"]);
        let found = listed(&state, None, 0, None);
        let summary = &found.entries[0];
        assert_eq!(summary.args["message"], "hello echo_echo");
        assert_eq!(summary.status, ExecutionStatus::Success);
        assert_eq!(summary.error_kind, None);
        let wire = serde_json::to_string(&found).expect("serialises");
        assert!(
            wire.len() < 1_000,
            "{} bytes: the 10 kB result must stay out",
            wire.len()
        );
    }
}
