//! History commands: the durable run record, searchable, newest first, exportable as JSONL.

use serde::Serialize;
use tauri::State;
use toolscope_engine::history::{History, HistoryEntry, SkippedLine};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HistoryPage {
    /// Newest first.
    pub entries: Vec<HistoryEntry>,
    /// Entries matching the query before `limit` was applied.
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

#[tauri::command]
#[specta::specta]
pub async fn history_list(
    state: State<'_, AppState>,
    query: Option<String>,
    limit: Option<u32>,
) -> Result<HistoryPage, CommandError> {
    let loaded = load(&state)?;
    let words: Vec<String> = query
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let mut entries: Vec<HistoryEntry> = loaded
        .entries
        .into_iter()
        .rev()
        .filter(|e| matches(e, &words))
        .collect();
    let total = u32::try_from(entries.len()).unwrap_or(u32::MAX);
    entries.truncate(limit.map_or(usize::MAX, |l| l as usize));
    Ok(HistoryPage {
        entries,
        total,
        skipped: loaded.skipped,
    })
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
