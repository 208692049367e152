//! The Metrics view's command: what the durable history adds up to over a time range (seed
//! 002), computed by the engine in one streaming pass over the history file
//! ([`toolscope_engine::metrics`]), so the view always agrees with `toolscope stats` and there
//! is no second store to drift. This module only reads the range the way the CLI's `--since`
//! and `--until` do and maps errors.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tauri::State;
use toolscope_engine::history::History;
use toolscope_engine::metrics::{
    format_utc, parse_time_bound, Metrics, MetricsBuilder, MetricsError, MetricsQuery, TimeBound,
};
use toolscope_engine::registry::split_routing_name;

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Which calls to count. The ends take what `toolscope stats --since/--until` take: a duration
/// before now (`30m`, `24h`, `7d`), an RFC 3339 time or a date (`2025-06-01`, UTC).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, specta::Type)]
pub struct MetricsRange {
    /// From this time on; none or blank: from the start of the history.
    pub since: Option<String>,
    /// Before this time (a date includes that day); none or blank: up to now.
    pub until: Option<String>,
    /// Only calls to this tool id; none or blank: every tool.
    pub tool: Option<String>,
}

/// The metrics of a range, with what the view needs around them.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct MetricsReport {
    /// The engine's figures; `metrics.query` holds the range as resolved milliseconds.
    pub metrics: Metrics,
    /// Tool ids with calls in the range, whatever the tool filter: the filter's choices.
    pub tool_ids: Vec<String>,
    /// History lines that could not be read and are left out of the figures.
    pub skipped_lines: u32,
    /// When the range was read (unix milliseconds): the end of a range left open.
    pub now_ms: i64,
}

fn invalid(field: &str, message: String) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, message)
        .with_details(json!({ "field": field }))
}

/// Blank text means "not given", as an empty CLI flag would.
fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

/// The engine's query for `range`, ends resolved against `now_ms`.
pub fn query(range: &MetricsRange, now_ms: i64) -> Result<MetricsQuery, CommandError> {
    let bound = |field: &str, text: &Option<String>, bound: TimeBound| {
        given(text)
            .map(|text| parse_time_bound(text, now_ms, bound))
            .transpose()
            .map_err(|e| invalid(field, format!("{field}: {e}")))
    };
    let query = MetricsQuery {
        since_ms: bound("since", &range.since, TimeBound::Start)?,
        until_ms: bound("until", &range.until, TimeBound::End)?,
        tool: given(&range.tool).map(str::to_owned),
    };
    if let (Some(since), Some(until)) = (query.since_ms, query.until_ms) {
        // The engine takes an empty range; typed by a person it is a mistake.
        if since >= until {
            return Err(invalid(
                "until",
                format!(
                    "the range is empty: since ({}) must be before until ({})",
                    format_utc(since),
                    format_utc(until)
                ),
            ));
        }
    }
    Ok(query)
}

/// Reads the history at `path` once: the metrics of `range` and the tool ids it has calls to.
pub fn report(
    path: &Path,
    range: &MetricsRange,
    now_ms: i64,
) -> Result<MetricsReport, CommandError> {
    let query = query(range, now_ms)?;
    let (since, until) = (query.since_ms, query.until_ms);
    let mut builder = MetricsBuilder::new(query).map_err(|e| match e {
        MetricsError::ReversedRange { .. } => invalid("until", e.to_string()),
        MetricsError::History(e) => CommandError::new(CommandErrorKind::History, e.to_string()),
    })?;
    let mut tool_ids = BTreeSet::new();
    let skipped = History::for_each_entry(path, |entry| {
        let at = entry.timestamp_ms;
        if since.is_none_or(|since| at >= since) && until.is_none_or(|until| at < until) {
            let name = entry.request.tool_name.as_str();
            let tool = split_routing_name(name).map_or(name, |(tool, _)| tool);
            if !tool_ids.contains(tool) {
                tool_ids.insert(tool.to_owned());
            }
        }
        builder.add(&entry);
    })
    .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
    Ok(MetricsReport {
        metrics: builder.finish(),
        tool_ids: tool_ids.into_iter().collect(),
        skipped_lines: u32::try_from(skipped.len()).unwrap_or(u32::MAX),
        now_ms,
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Calls, failures by kind, bytes and durations per tool and method over `range`, with a time
/// series for the chart, from the run history.
#[tauri::command]
#[specta::specta]
pub async fn metrics_report(
    state: State<'_, AppState>,
    range: MetricsRange,
) -> Result<MetricsReport, CommandError> {
    let path = state.history()?.path().to_path_buf();
    // A long history takes a moment to stream: off the async workers.
    tauri::async_runtime::spawn_blocking(move || report(&path, &range, now_ms()))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))?
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
