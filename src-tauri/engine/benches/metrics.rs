//! Metrics benchmarks (figures, not assertions): a summary over 100,000 history entries, from
//! entries in memory (the computation alone) and from a history file (reading and parsing
//! every line too, which is what `toolscope stats` and the app pay).
//! Run: `cargo bench -p toolscope-engine --bench metrics`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Map};
use toolscope_engine::history::{History, HistoryEntry, RecordedRequest};
use toolscope_engine::metrics::{self, MetricsQuery};
use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult};

const ENTRIES: usize = 100_000;
/// 2025-06-01T00:00:00Z.
const T0: i64 = 1_748_736_000_000;

const TOOLS: [&str; 8] = [
    "calculator_evaluate",
    "echo_echo",
    "time_now",
    "time_shift",
    "workspace_read",
    "my_weather_get-forecast",
    "my_weather_now",
    "github_search-issues",
];
const KINDS: [ErrorKind; 4] = [
    ErrorKind::ToolError,
    ErrorKind::Timeout,
    ErrorKind::InvalidArgs,
    ErrorKind::Transport,
];

/// A deterministic spread: 8 tools, one call every ~26 s over a month, one in 9 failing,
/// durations from 0.05 ms to ~2 s.
fn synthetic(n: usize) -> Vec<HistoryEntry> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|i| {
            let r = next();
            let name = TOOLS[(r % TOOLS.len() as u64) as usize];
            let failed = r % 9 == 0;
            let mut args = Map::new();
            args.insert(
                "expression".to_owned(),
                json!(format!("{} * {}", i, r % 97)),
            );
            args.insert("options".to_owned(), json!({"precise": r % 2 == 0}));
            let duration_ms = 0.05 + ((r >> 8) % 2_000_000) as f64 / 1000.0;
            HistoryEntry {
                id: format!("entry-{i}"),
                parent_id: None,
                timestamp_ms: T0 + i as i64 * 26_000,
                origin: "bench".to_owned(),
                request: RecordedRequest {
                    request_id: format!("r{i}"),
                    tool_name: name.to_owned(),
                    args,
                    format: "manual".to_owned(),
                },
                result: ToolExecutionResult {
                    request_id: format!("r{i}"),
                    tool_name: name.to_owned(),
                    status: if failed {
                        ExecutionStatus::Error
                    } else {
                        ExecutionStatus::Success
                    },
                    result: "x".repeat((r % 300) as usize),
                    duration_ms,
                    error: failed.then(|| {
                        ExecutionError::new(
                            KINDS[((r >> 16) % KINDS.len() as u64) as usize],
                            "failed",
                        )
                    }),
                    truncated: None,
                },
            }
        })
        .collect()
}

fn metrics_benches(c: &mut Criterion) {
    let entries = synthetic(ENTRIES);
    let mut group = c.benchmark_group("metrics");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ENTRIES as u64));

    group.bench_function("compute_100k_entries", |b| {
        b.iter(|| metrics::compute(&entries, &MetricsQuery::default()).map(|m| m.totals.calls))
    });
    group.bench_function("compute_100k_entries_one_tool_last_week", |b| {
        let query = MetricsQuery {
            since_ms: Some(T0 + ENTRIES as i64 * 26_000 - 7 * 86_400_000),
            until_ms: None,
            tool: Some("my_weather".to_owned()),
        };
        b.iter(|| metrics::compute(&entries, &query).map(|m| m.totals.calls))
    });

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.jsonl");
    {
        let (history, _) = History::open(&path).expect("open history");
        for entry in &entries {
            history.append(entry).expect("append");
        }
    }
    group.bench_function("from_history_file_100k_lines", |b| {
        b.iter(|| {
            metrics::from_history(&path, &MetricsQuery::default()).map(|m| m.metrics.totals.calls)
        })
    });
    group.finish();

    // The shape of what was summarised, once.
    if let Ok(summary) = metrics::compute(&entries, &MetricsQuery::default()) {
        eprintln!(
            "metrics input: {} calls, {} tools, {} buckets of {} ms",
            summary.totals.calls,
            summary.tools.len(),
            summary.series.buckets.len(),
            summary.series.bucket_ms
        );
    }
}

criterion_group!(benches, metrics_benches);
criterion_main!(benches);
