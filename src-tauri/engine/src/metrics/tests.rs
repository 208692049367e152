//! Tests of `metrics`, with hand-built history entries.

use super::*;
use crate::history::RecordedRequest;
use serde_json::{json, Map, Value};
use toolscope_protocol::result::{
    ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult, Truncation,
};

/// 2025-06-01T00:00:00Z.
const T0: i64 = 1_748_736_000_000;

fn entry(
    at: i64,
    name: &str,
    args: Value,
    output: &str,
    ms: f64,
    error: Option<ErrorKind>,
) -> HistoryEntry {
    let args: Map<String, Value> = match args {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    HistoryEntry {
        id: format!("id-{at}-{name}"),
        parent_id: None,
        timestamp_ms: at,
        origin: "test".to_owned(),
        request: RecordedRequest {
            request_id: "r".to_owned(),
            tool_name: name.to_owned(),
            args,
            format: "manual".to_owned(),
        },
        result: ToolExecutionResult {
            request_id: "r".to_owned(),
            tool_name: name.to_owned(),
            status: if error.is_some() {
                ExecutionStatus::Error
            } else {
                ExecutionStatus::Success
            },
            result: output.to_owned(),
            duration_ms: ms,
            error: error.map(|kind| ExecutionError::new(kind, output)),
            truncated: None,
        },
    }
}

fn ok(at: i64, name: &str, ms: f64) -> HistoryEntry {
    entry(at, name, json!({}), "", ms, None)
}

fn failed(at: i64, name: &str, kind: ErrorKind) -> HistoryEntry {
    entry(at, name, json!({}), "", 1.0, Some(kind))
}

fn all(entries: &[HistoryEntry]) -> Metrics {
    compute(entries, &MetricsQuery::default()).expect("valid query")
}

fn durations(p50_ms: f64, p95_ms: f64, max_ms: f64) -> Option<DurationStats> {
    Some(DurationStats {
        p50_ms,
        p95_ms,
        max_ms,
    })
}

#[test]
fn nearest_rank_percentiles() {
    // 1..=100 ms, shuffled: p50 is the 50th value, p95 the 95th.
    let entries: Vec<_> = (0..100)
        .map(|i| ok(T0 + i, "calc_eval", f64::from(((i * 37) % 100 + 1) as u32)))
        .collect();
    assert_eq!(all(&entries).totals.durations, durations(50.0, 95.0, 100.0));

    // [1, 2, 3, 4]: rank ceil(0.5 * 4) = 2 and ceil(0.95 * 4) = 4.
    let four: Vec<_> = [4.0, 1.0, 3.0, 2.0]
        .iter()
        .enumerate()
        .map(|(i, &ms)| ok(T0 + i as i64, "calc_eval", ms))
        .collect();
    assert_eq!(all(&four).totals.durations, durations(2.0, 4.0, 4.0));

    // One call: every figure is that call; 21 calls: p95 is rank 20, below the max.
    assert_eq!(
        all(&[ok(T0, "calc_eval", 7.5)]).totals.durations,
        durations(7.5, 7.5, 7.5)
    );
    let many: Vec<_> = (1..=21)
        .map(|i| ok(T0 + i, "calc_eval", f64::from(i as u32)))
        .collect();
    assert_eq!(all(&many).totals.durations, durations(11.0, 20.0, 21.0));
    assert_eq!(all(&[]).totals.durations, None);
}

#[test]
fn percentiles_per_method_tool_and_total() {
    let mut entries = Vec::new();
    for ms in [1.0, 2.0, 3.0] {
        entries.push(ok(T0, "calc_eval", ms));
    }
    for ms in [10.0, 20.0] {
        entries.push(ok(T0, "calc_parse", ms));
    }
    entries.push(ok(T0, "echo_echo", 100.0));
    let metrics = all(&entries);
    let calc = &metrics.tools[0];
    assert_eq!(calc.tool_id, "calc");
    assert_eq!(calc.methods[0].stats.durations, durations(2.0, 3.0, 3.0));
    assert_eq!(calc.methods[1].stats.durations, durations(10.0, 20.0, 20.0));
    // [1, 2, 3, 10, 20]: ranks 3 and 5.
    assert_eq!(calc.stats.durations, durations(3.0, 20.0, 20.0));
    // [1, 2, 3, 10, 20, 100]: ranks 3 and 6.
    assert_eq!(metrics.totals.durations, durations(3.0, 100.0, 100.0));
}

#[test]
fn counts_failures_by_kind_bytes_and_timestamps() {
    let mut big = entry(
        T0 + 5,
        "calc_eval",
        json!({"expression": "6*7"}),
        "42",
        2.0,
        None,
    );
    big.result.truncated = Some(Truncation {
        original_bytes: 100,
        kept_bytes: 2,
    });
    let mut unclassified = failed(T0 + 9, "calc_eval", ErrorKind::ToolError);
    unclassified.result.error = None;
    let entries = vec![
        big,
        entry(
            T0 + 1,
            "calc_eval",
            json!({"expression": "1/0"}),
            "division by zero",
            1.0,
            Some(ErrorKind::ToolError),
        ),
        failed(T0 + 3, "calc_eval", ErrorKind::Timeout),
        failed(T0 + 7, "calc_eval", ErrorKind::ToolError),
        unclassified,
    ];
    let metrics = all(&entries);
    let stats = &metrics.tools[0].methods[0].stats;
    assert_eq!(stats.calls, 5);
    assert_eq!(stats.successes, 1);
    assert_eq!(stats.failures, 4);
    let kinds: Vec<(&str, u64)> = stats
        .failures_by_kind
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        kinds,
        [("timeout", 1), ("tool_error", 2), (UNCLASSIFIED, 1)]
    );
    assert_eq!(stats.truncated, 1);
    // {"expression":"6*7"} and {"expression":"1/0"} are 20 bytes each, {} is 2.
    assert_eq!(stats.bytes_in, 20 + 20 + 2 * 3);
    assert_eq!(stats.bytes_out, 2 + 16);
    assert_eq!(
        (stats.first_ms, stats.last_ms),
        (Some(T0 + 1), Some(T0 + 9))
    );
    assert_eq!(metrics.totals, *stats);
    assert_eq!(metrics.tools[0].stats, *stats);
}

#[test]
fn bytes_count_utf8_and_escapes() {
    let e = entry(T0, "echo_echo", json!({"m": "é\n"}), "héllo", 1.0, None);
    let stats = all(&[e]).totals;
    // {"m":"é\n"}: é is 2 bytes, the newline is escaped as 2.
    assert_eq!(stats.bytes_in, 12);
    assert_eq!(stats.bytes_out, 6);
}

#[test]
fn tool_ids_with_underscores_split_at_the_last_one() {
    let entries = vec![
        ok(T0, "my_weather_get-forecast", 1.0),
        ok(T0, "my_weather_get-forecast", 1.0),
        ok(T0, "my_weather_now", 1.0),
        ok(T0, "my_other", 1.0),
        failed(T0, "nounderscore", ErrorKind::InvalidName),
    ];
    let metrics = all(&entries);
    let ids: Vec<(&str, u64)> = metrics
        .tools
        .iter()
        .map(|t| (t.tool_id.as_str(), t.stats.calls))
        .collect();
    assert_eq!(ids, [("my_weather", 3), ("my", 1), ("nounderscore", 1)]);
    let methods: Vec<(&str, Option<&str>)> = metrics.tools[0]
        .methods
        .iter()
        .map(|m| (m.routing_name.as_str(), m.method.as_deref()))
        .collect();
    assert_eq!(
        methods,
        [
            ("my_weather_get-forecast", Some("get-forecast")),
            ("my_weather_now", Some("now"))
        ]
    );
    assert_eq!(metrics.tools[2].methods[0].method, None);

    let only = compute(
        &entries,
        &MetricsQuery {
            tool: Some("my_weather".to_owned()),
            ..MetricsQuery::default()
        },
    )
    .expect("query");
    assert_eq!(only.totals.calls, 3);
    assert_eq!(only.tools.len(), 1);
    // The filter is a tool id, not a prefix: "my" does not take "my_weather"'s calls.
    let my = compute(
        &entries,
        &MetricsQuery {
            tool: Some("my".to_owned()),
            ..MetricsQuery::default()
        },
    )
    .expect("query");
    assert_eq!(my.totals.calls, 1);
}

#[test]
fn ordering_is_deterministic() {
    let entries = vec![
        ok(T0, "b_x", 1.0),
        ok(T0, "a_y", 1.0),
        ok(T0, "c_z", 1.0),
        ok(T0, "c_z", 1.0),
        ok(T0, "c_a", 1.0),
        ok(T0, "c_b", 1.0),
    ];
    let forward = all(&entries);
    let mut reversed = entries.clone();
    reversed.reverse();
    assert_eq!(forward, all(&reversed));
    let order: Vec<&str> = forward.tools.iter().map(|t| t.tool_id.as_str()).collect();
    assert_eq!(order, ["c", "a", "b"]);
    let methods: Vec<&str> = forward.tools[0]
        .methods
        .iter()
        .map(|m| m.routing_name.as_str())
        .collect();
    assert_eq!(methods, ["c_z", "c_a", "c_b"]);
}

#[test]
fn range_is_since_inclusive_until_exclusive() {
    let entries: Vec<_> = (0..10)
        .map(|i| ok(T0 + i * 1000, "calc_eval", 1.0))
        .collect();
    let query = MetricsQuery {
        since_ms: Some(T0 + 2000),
        until_ms: Some(T0 + 5000),
        tool: None,
    };
    let metrics = compute(&entries, &query).expect("query");
    assert_eq!(metrics.totals.calls, 3);
    assert_eq!(metrics.totals.first_ms, Some(T0 + 2000));
    assert_eq!(metrics.totals.last_ms, Some(T0 + 4000));
    assert_eq!(metrics.query, query);

    let since_only = MetricsQuery {
        since_ms: Some(T0 + 8000),
        ..MetricsQuery::default()
    };
    assert_eq!(compute(&entries, &since_only).expect("q").totals.calls, 2);
    let until_only = MetricsQuery {
        until_ms: Some(T0 + 1),
        ..MetricsQuery::default()
    };
    assert_eq!(compute(&entries, &until_only).expect("q").totals.calls, 1);

    let empty = MetricsQuery {
        since_ms: Some(T0),
        until_ms: Some(T0),
        tool: None,
    };
    let metrics = compute(&entries, &empty).expect("an empty range is valid");
    assert_eq!(metrics.totals, CallStats::default());
    assert!(metrics.tools.is_empty());
    assert!(metrics.series.buckets.is_empty());

    let reversed = MetricsQuery {
        since_ms: Some(T0 + 1),
        until_ms: Some(T0),
        tool: None,
    };
    let err = compute(&entries, &reversed).expect_err("reversed");
    assert!(matches!(err, MetricsError::ReversedRange { .. }));
    assert!(err.to_string().contains("2025-06-01T00:00:00Z"), "{err}");
}

#[test]
fn bucket_widths_are_round_and_at_most_sixty() {
    const M: i64 = MINUTE_MS;
    assert_eq!(bucket_width(T0, T0 + 1), M);
    assert_eq!(bucket_width(T0, T0 + 60 * M), M);
    // 60 minutes that straddle 61 minute boundaries need the next width.
    assert_eq!(bucket_width(T0 + 1, T0 + 60 * M + 1), 5 * M);
    assert_eq!(bucket_width(T0, T0 + 2 * HOUR_MS), 5 * M);
    assert_eq!(bucket_width(T0, T0 + 12 * HOUR_MS), 15 * M);
    assert_eq!(bucket_width(T0, T0 + 2 * DAY_MS), HOUR_MS);
    assert_eq!(bucket_width(T0, T0 + 7 * DAY_MS), 6 * HOUR_MS);
    assert_eq!(bucket_width(T0, T0 + 30 * DAY_MS), DAY_MS);
    assert_eq!(bucket_width(T0, T0 + 365 * DAY_MS), 7 * DAY_MS);
    assert_eq!(bucket_width(T0, T0 + 3 * YEAR_MS), 30 * DAY_MS);
    assert_eq!(bucket_width(0, 50 * YEAR_MS), YEAR_MS);
    let width = bucket_width(0, 200 * YEAR_MS);
    assert_eq!(width % YEAR_MS, 0);
    assert!(200 * YEAR_MS / width <= MAX_BUCKETS);
    // Extremes neither panic nor exceed the cap.
    let width = bucket_width(i64::MIN, i64::MAX);
    let wide = i128::from(width);
    let count = ceil_div(i128::from(i64::MAX), wide) - i128::from(i64::MIN).div_euclid(wide);
    assert!(count <= i128::from(MAX_BUCKETS), "{width}");
}

#[test]
fn series_covers_the_query_range_with_aligned_buckets() {
    let entries = vec![
        ok(T0 + 10 * MINUTE_MS + 5, "calc_eval", 1.0),
        failed(T0 + 12 * MINUTE_MS, "calc_eval", ErrorKind::Timeout),
        ok(T0 + 59 * MINUTE_MS, "calc_eval", 1.0),
        ok(T0 + 3 * HOUR_MS, "calc_eval", 1.0),
    ];
    // Since 17:00 the day before, open-ended: the range ends after the last call.
    let query = MetricsQuery {
        since_ms: Some(T0 - 7 * HOUR_MS + 3),
        ..MetricsQuery::default()
    };
    let series = compute(&entries, &query).expect("q").series;
    // 10 hours: 15-minute buckets, starting at the boundary at or before `since`.
    assert_eq!(series.bucket_ms, 15 * MINUTE_MS);
    assert_eq!(series.buckets[0].start_ms, T0 - 7 * HOUR_MS);
    assert_eq!(series.buckets.len(), 7 * 4 + 3 * 4 + 1);
    for pair in series.buckets.windows(2) {
        assert_eq!(pair[1].start_ms - pair[0].start_ms, series.bucket_ms);
    }
    let midnight = 7 * 4;
    assert_eq!(series.buckets[midnight].start_ms, T0);
    let at = |i: usize| (series.buckets[i].calls, series.buckets[i].failures);
    assert_eq!(at(midnight), (2, 1));
    assert_eq!(at(midnight + 3), (1, 0));
    assert_eq!(at(series.buckets.len() - 1), (1, 0));
    let calls: u64 = series.buckets.iter().map(|b| b.calls).sum();
    assert_eq!(calls, 4);

    // No range given: the calls' own span, here 3 hours in 5-minute buckets.
    let series = all(&entries).series;
    assert_eq!(series.bucket_ms, 5 * MINUTE_MS);
    assert_eq!(series.buckets[0].start_ms, T0 + 10 * MINUTE_MS);
    assert_eq!(series.buckets.len(), 35);
    assert!(series.buckets.len() as i64 <= MAX_BUCKETS);

    // A closed range with no calls still has its (empty) buckets; an open one has none.
    let day = MetricsQuery {
        since_ms: Some(T0 + DAY_MS),
        until_ms: Some(T0 + 2 * DAY_MS),
        tool: None,
    };
    let series = compute(&entries, &day).expect("q").series;
    assert_eq!(series.bucket_ms, HOUR_MS);
    assert_eq!(series.buckets.len(), 24);
    assert!(series.buckets.iter().all(|b| b.calls == 0));
    assert!(all(&[]).series.buckets.is_empty());
}

#[test]
fn timestamps_before_the_epoch_bucket_correctly() {
    let entries = vec![ok(-90_000, "a_b", 1.0), ok(30_000, "a_b", 1.0)];
    let series = all(&entries).series;
    assert_eq!(series.bucket_ms, MINUTE_MS);
    let starts: Vec<(i64, u64)> = series
        .buckets
        .iter()
        .map(|b| (b.start_ms, b.calls))
        .collect();
    assert_eq!(starts, [(-120_000, 1), (-60_000, 0), (0, 1)]);
}

#[test]
fn reads_a_history_file_in_one_pass_and_reports_skipped_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.jsonl");
    let (history, _) = History::open(&path).expect("open");
    history.append(&ok(T0, "calc_eval", 3.0)).expect("append");
    history
        .append(&failed(T0 + 1, "echo_echo", ErrorKind::Denied))
        .expect("append");
    drop(history);
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("{not json}\n");
    text.push_str(&std::fs::read_to_string(&path).expect("read"));
    std::fs::write(&path, text).expect("write");

    let read = from_history(&path, &MetricsQuery::default()).expect("metrics");
    assert_eq!(read.skipped.len(), 1);
    assert_eq!(read.skipped[0].line, 3);
    assert_eq!(read.metrics.totals.calls, 4);
    assert_eq!(read.metrics.totals.failures_by_kind.get("denied"), Some(&2));

    let missing = from_history(dir.path().join("none.jsonl"), &MetricsQuery::default())
        .expect("a missing history is empty");
    assert_eq!(missing.metrics.totals.calls, 0);
    assert!(missing.skipped.is_empty());

    let err = from_history(dir.path(), &MetricsQuery::default()).expect_err("a directory");
    assert!(matches!(err, MetricsError::History(_)));
}

#[test]
fn serialises_for_the_cli_and_the_app() {
    let metrics = all(&[failed(T0, "calc_eval", ErrorKind::Timeout)]);
    let value = serde_json::to_value(&metrics).expect("json");
    assert_eq!(value["totals"]["failures_by_kind"]["timeout"], 1);
    assert_eq!(value["tools"][0]["methods"][0]["method"], "eval");
    assert_eq!(value["series"]["buckets"][0]["calls"], 1);
    assert_eq!(value["query"]["since_ms"], Value::Null);
    let back: Metrics = serde_json::from_value(value).expect("round trip");
    assert_eq!(back, metrics);
}

mod when {
    use super::super::*;
    use super::T0;

    const NOW: i64 = T0 + 12 * HOUR_MS;

    fn start(text: &str) -> Result<i64, TimeBoundError> {
        parse_time_bound(text, NOW, TimeBound::Start)
    }

    #[test]
    fn relative_durations_count_back_from_now() {
        assert_eq!(start("30m"), Ok(NOW - 30 * MINUTE_MS));
        assert_eq!(start("2h"), Ok(NOW - 2 * HOUR_MS));
        assert_eq!(start(" 7d "), Ok(NOW - 7 * DAY_MS));
        assert_eq!(start("1w"), Ok(NOW - 7 * DAY_MS));
        assert_eq!(start("90s"), Ok(NOW - 90_000));
        assert_eq!(start("0m"), Ok(NOW));
    }

    #[test]
    fn dates_and_rfc3339_times() {
        assert_eq!(start("2025-06-01"), Ok(T0));
        assert_eq!(
            parse_time_bound("2025-06-01", NOW, TimeBound::End),
            Ok(T0 + DAY_MS)
        );
        assert_eq!(start("2025-06-01T12:00:00Z"), Ok(T0 + 12 * HOUR_MS));
        assert_eq!(start("2025-06-01T14:00:00+02:00"), Ok(T0 + 12 * HOUR_MS));
        assert_eq!(start("2025-06-01T00:00:00.250Z"), Ok(T0 + 250));
        assert_eq!(format_utc(T0 + 12 * HOUR_MS), "2025-06-01T12:00:00Z");
        assert_eq!(format_utc(i64::MAX), format!("{} ms", i64::MAX));
    }

    #[test]
    fn bad_values_say_what_is_wrong() {
        let message = |text: &str| start(text).expect_err(text).to_string();
        assert!(matches!(start(""), Err(TimeBoundError::Empty)));
        assert!(message("30").contains("no unit"));
        assert!(message("30x").contains("unknown unit 'x'"));
        assert!(message("3 days").contains("is not a time"));
        assert!(message("yesterday").contains("30m, 2h, 7d"));
        assert!(message("2025-13-01").contains("is not a date"));
        assert!(message("2025-06-01T12:00:00").contains("needs a date, a time and a zone"));
        assert!(message("99999999999999999999d").contains("too far"));
        assert!(message("9999999999999999d").contains("too far"));
        assert!(message("-2h").contains("is not a time"));
    }
}
