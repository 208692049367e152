//! The Metrics view's command over a history file written here: ranges read as the CLI reads
//! them, the tool filter and its choices, failures by kind, unreadable lines counted, and the
//! errors a person can make typing a range.

use serde_json::{json, Value};
use toolscope_engine::history::HistoryEntry;

use super::*;

/// 2025-06-01T12:00:00Z.
const NOW: i64 = 1_748_779_200_000;
const HOUR: i64 = 3_600_000;

fn entry(at: i64, name: &str, error: Option<&str>, output: &str) -> HistoryEntry {
    let mut result = json!({
        "request_id": "r",
        "tool_name": name,
        "status": if error.is_some() { "error" } else { "success" },
        "result": output,
        "duration_ms": 2.5,
    });
    if let Some(kind) = error {
        result["error"] = json!({"kind": kind, "message": output});
    }
    serde_json::from_value(json!({
        "id": format!("{name}-{at}"),
        "timestamp_ms": at,
        "origin": "test",
        "request": {"request_id": "r", "tool_name": name, "args": {"x": 1}, "format": "manual"},
        "result": result,
    }))
    .expect("a history entry")
}

/// A history of four calls: two a few minutes ago, one 3 h ago, one 2 days ago, and a line that
/// is not an entry.
fn history(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("history.jsonl");
    let (history, _) = History::open(&path).expect("open");
    for entry in [
        entry(NOW - 2 * 24 * HOUR, "echo_echo", None, "old"),
        entry(NOW - 3 * HOUR, "calculator_evaluate", None, "42"),
        entry(
            NOW - 5 * 60_000,
            "calculator_evaluate",
            Some("invalid_args"),
            "bad",
        ),
        entry(NOW - 60_000, "devtools_sleep", Some("timeout"), "late"),
    ] {
        history.append(&entry).expect("append");
    }
    drop(history);
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{\"not\": \"an entry\"}\n");
    std::fs::write(&path, text).expect("write");
    path
}

fn range(since: Option<&str>, until: Option<&str>, tool: Option<&str>) -> MetricsRange {
    MetricsRange {
        since: since.map(str::to_owned),
        until: until.map(str::to_owned),
        tool: tool.map(str::to_owned),
    }
}

#[test]
fn the_last_hour_counts_its_calls_failures_and_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = history(&dir);
    let report = report(&path, &range(Some("1h"), None, None), NOW).expect("report");
    let totals = &report.metrics.totals;
    assert_eq!((totals.calls, totals.failures), (2, 2));
    assert_eq!(
        serde_json::to_value(&totals.failures_by_kind).expect("json"),
        json!({"invalid_args": 1, "timeout": 1})
    );
    assert_eq!(totals.bytes_in, 2 * br#"{"x":1}"#.len() as u64);
    assert_eq!(totals.bytes_out, ("bad".len() + "late".len()) as u64);
    assert_eq!(report.metrics.query.since_ms, Some(NOW - HOUR));
    assert_eq!(report.tool_ids, ["calculator", "devtools"]);
    assert_eq!(report.skipped_lines, 1);
    assert_eq!(report.now_ms, NOW);
    let series = &report.metrics.series;
    assert_eq!(
        series.buckets.iter().map(|b| b.calls).sum::<u64>(),
        2,
        "the chart's buckets hold the calls"
    );
    assert_eq!(series.buckets.iter().map(|b| b.failures).sum::<u64>(), 2);
}

#[test]
fn all_of_the_history_and_a_tool_filter() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = history(&dir);
    let all = report(&path, &MetricsRange::default(), NOW).expect("report");
    assert_eq!(all.metrics.totals.calls, 4);
    assert_eq!(all.metrics.query, MetricsQuery::default());
    let calculator =
        report(&path, &range(Some(" "), Some(""), Some("calculator")), NOW).expect("report");
    assert_eq!(calculator.metrics.totals.calls, 2);
    assert_eq!(calculator.metrics.tools.len(), 1);
    let method = &calculator.metrics.tools[0].methods[0];
    assert_eq!(method.routing_name, "calculator_evaluate");
    let durations = method.stats.durations.expect("durations");
    assert_eq!(
        (durations.p50_ms, durations.p95_ms, durations.max_ms),
        (2.5, 2.5, 2.5)
    );
    assert_eq!(
        calculator.tool_ids,
        ["calculator", "devtools", "echo"],
        "the filter's choices do not shrink to the filtered tool"
    );
}

#[test]
fn dates_and_rfc_3339_times_bound_the_range_like_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = history(&dir);
    let day = report(
        &path,
        &range(Some("2025-06-01"), Some("2025-06-01"), None),
        NOW,
    )
    .expect("report");
    assert_eq!(day.metrics.totals.calls, 3, "since D until D is day D");
    let before =
        report(&path, &range(None, Some("2025-06-01T00:00:00Z"), None), NOW).expect("report");
    assert_eq!(before.metrics.totals.calls, 1);
}

#[test]
fn a_mistyped_range_names_its_field() {
    let cases = [
        (range(Some("yesterday"), None, None), "since"),
        (range(Some("5"), None, None), "since"),
        (range(None, Some("2025-13-01"), None), "until"),
        (range(Some("1h"), Some("2h"), None), "until"),
        (range(Some("2025-06-01"), Some("2025-05-31"), None), "until"),
    ];
    for (range, field) in cases {
        let error = query(&range, NOW).expect_err("refused");
        assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{range:?}");
        assert_eq!(
            error.details.as_ref().and_then(|d| d.get("field")),
            Some(&Value::from(field)),
            "{range:?}: {}",
            error.message
        );
        assert!(error.message.starts_with(field) || error.message.contains("empty"));
    }
}

#[test]
fn a_missing_history_is_an_empty_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = report(
        &dir.path().join("none.jsonl"),
        &range(Some("24h"), None, None),
        NOW,
    )
    .expect("report");
    assert_eq!(report.metrics.totals.calls, 0);
    assert!(report.tool_ids.is_empty());
    assert_eq!(report.skipped_lines, 0);
}

#[tokio::test]
async fn the_apps_history_is_what_is_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::default();
    state.start(Ok(dir.path()));
    let history = state.history().expect("open");
    let now = now_ms();
    history
        .append(&entry(now, "calculator_evaluate", None, "42"))
        .expect("append");
    let report = report(history.path(), &range(Some("24h"), None, None), now_ms()).expect("report");
    assert_eq!(report.metrics.totals.calls, 1);
    assert_eq!(report.tool_ids, ["calculator"]);
}
