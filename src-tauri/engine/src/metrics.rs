//! Metrics (seed 002): calls, failures by error kind, bytes in and out and durations per tool
//! and per method over a time range, plus a time series for a chart, all computed from the
//! durable [`history`](crate::history). There is no second store: a summary is one streaming
//! pass over the history file ([`from_history`]) or over entries already in memory
//! ([`compute`]), and it is always exactly what the history says.
//!
//! Memory during a pass is proportional to the number of distinct methods, plus one `f64` per
//! call kept for the percentiles, plus one counter pair per minute that saw a call (the
//! series is gathered by minute and widened at the end, so the bucket width can follow the
//! data when the range is open).
//!
//! Definitions:
//! * a **call** is one history entry whose `timestamp_ms` is in `[since_ms, until_ms)`;
//! * a **failure** is a call with status `error`, counted under its [`ErrorKind`] string
//!   (`"unclassified"` when an old record has no classified error);
//! * **bytes in** is the length of the arguments as compact JSON, **bytes out** the length in
//!   bytes of the result text (after the output cap; `truncated` counts the calls it cut);
//! * durations are summarised with **nearest-rank** percentiles (see [`DurationStats`]).
//!
//! [`ErrorKind`]: toolscope_protocol::result::ErrorKind

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::history::{History, HistoryEntry, HistoryError, SkippedLine};
use crate::registry::split_routing_name;

mod when;

pub use when::{format_utc, parse_time_bound, TimeBound, TimeBoundError};

/// The failure kind counted for a failed call recorded without a classified error.
pub const UNCLASSIFIED: &str = "unclassified";

/// The most buckets [`TimeSeries`] holds; the width is the smallest round one that fits.
pub const MAX_BUCKETS: i64 = 60;

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
const DAY_MS: i64 = 24 * HOUR_MS;
const YEAR_MS: i64 = 365 * DAY_MS;

/// Bucket widths in order of preference; past the last, whole multiples of 365 days.
const BUCKET_WIDTHS_MS: [i64; 9] = [
    MINUTE_MS,
    5 * MINUTE_MS,
    15 * MINUTE_MS,
    HOUR_MS,
    6 * HOUR_MS,
    DAY_MS,
    7 * DAY_MS,
    30 * DAY_MS,
    YEAR_MS,
];

/// What to summarise. Every field is optional; the default is everything in the history.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MetricsQuery {
    /// Only calls at or after this time, unix milliseconds (inclusive).
    #[serde(default)]
    pub since_ms: Option<i64>,
    /// Only calls before this time, unix milliseconds (exclusive).
    #[serde(default)]
    pub until_ms: Option<i64>,
    /// Only calls to this tool id (the part of the routing name before its last `_`).
    #[serde(default)]
    pub tool: Option<String>,
}

/// Durations of a set of calls, in milliseconds.
///
/// Percentiles are **nearest-rank**: over the `n` durations sorted ascending, the p-th
/// percentile is the value at 1-based rank `ceil(p / 100 * n)`. It is always a duration that
/// was actually measured (no interpolation), so p50 of `[1, 2, 3, 4]` is 2 and p95 of fewer
/// than 20 calls is their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DurationStats {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// The figures of one method, one tool, or all calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallStats {
    pub calls: u64,
    pub successes: u64,
    pub failures: u64,
    /// Failures per [`ErrorKind`](toolscope_protocol::result::ErrorKind) string (`"timeout"`,
    /// `"tool_error"`, ...; [`UNCLASSIFIED`] for an unclassified one), by name.
    pub failures_by_kind: BTreeMap<String, u64>,
    /// Calls whose output was cut by the output cap.
    pub truncated: u64,
    /// Sum of the arguments' compact JSON lengths.
    pub bytes_in: u64,
    /// Sum of the result texts' lengths in bytes.
    pub bytes_out: u64,
    /// `None` when there were no calls.
    pub durations: Option<DurationStats>,
    /// Timestamp of the earliest call, unix milliseconds.
    pub first_ms: Option<i64>,
    /// Timestamp of the latest call, unix milliseconds.
    pub last_ms: Option<i64>,
}

/// One method, by routing name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MethodMetrics {
    /// `{toolId}_{methodName}`, as recorded.
    pub routing_name: String,
    /// The part after the last `_`; `None` when the recorded name has no `_` to split at (a
    /// call refused as `invalid_name`), which is then also its tool id.
    pub method: Option<String>,
    pub stats: CallStats,
}

/// One tool and its methods (by calls, most first, then by routing name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolMetrics {
    pub tool_id: String,
    pub stats: CallStats,
    pub methods: Vec<MethodMetrics>,
}

/// Calls and failures in one bucket of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Bucket {
    /// Start of the bucket, unix milliseconds; it covers `[start_ms, start_ms + bucket_ms)`.
    pub start_ms: i64,
    pub calls: u64,
    pub failures: u64,
}

/// Calls over time, for a chart: consecutive buckets (empty ones included) covering the range.
///
/// The range is the query's `since_ms..until_ms`, an open end taken from the first or last
/// call. The width is the smallest of 1 min, 5 min, 15 min, 1 h, 6 h, 1 day, 7 days, 30 days,
/// 365 days (then whole multiples of 365 days) that covers the range in at most
/// [`MAX_BUCKETS`] buckets. Buckets are aligned to whole multiples of their width since the
/// unix epoch, in UTC (so day buckets start at midnight UTC; 30 and 365 days are fixed lengths,
/// not calendar months or years).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TimeSeries {
    pub bucket_ms: i64,
    /// Empty when there were no calls and the query left an end of the range open.
    pub buckets: Vec<Bucket>,
}

/// The summary of the calls a [`MetricsQuery`] selects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Metrics {
    /// The query this answers.
    pub query: MetricsQuery,
    pub totals: CallStats,
    /// By calls, most first, then by tool id.
    pub tools: Vec<ToolMetrics>,
    pub series: TimeSeries,
}

/// [`Metrics`] read from a history file, with the lines that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct HistoryMetrics {
    pub metrics: Metrics,
    /// Lines of the file that are not valid entries (left out of the figures).
    pub skipped: Vec<SkippedLine>,
}

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("the time range is reversed: since ({}) is after until ({})", format_utc(*.since_ms), format_utc(*.until_ms))]
    ReversedRange { since_ms: i64, until_ms: i64 },
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// Summarises the history file at `path` in one streaming pass (a missing file is an empty
/// history). Lines that are not valid entries are left out and returned in `skipped`.
pub fn from_history(
    path: impl AsRef<Path>,
    query: &MetricsQuery,
) -> Result<HistoryMetrics, MetricsError> {
    let mut builder = MetricsBuilder::new(query.clone())?;
    let skipped = History::for_each_entry(path, |entry| builder.add(&entry))?;
    Ok(HistoryMetrics {
        metrics: builder.finish(),
        skipped,
    })
}

/// Summarises entries already in memory (in any order).
pub fn compute<'a>(
    entries: impl IntoIterator<Item = &'a HistoryEntry>,
    query: &MetricsQuery,
) -> Result<Metrics, MetricsError> {
    let mut builder = MetricsBuilder::new(query.clone())?;
    for entry in entries {
        builder.add(entry);
    }
    Ok(builder.finish())
}

/// Accumulates entries one at a time; [`MetricsBuilder::finish`] produces the [`Metrics`].
#[derive(Debug)]
pub struct MetricsBuilder {
    query: MetricsQuery,
    /// By routing name.
    methods: HashMap<String, MethodAcc>,
    /// Calls and failures by minute (`timestamp_ms` divided by 60 000, rounded down).
    minutes: HashMap<i64, Counts>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    calls: u64,
    failures: u64,
}

/// Running figures of one method.
#[derive(Debug, Default)]
struct MethodAcc {
    calls: u64,
    failures: u64,
    /// Few distinct kinds per method: a linear scan beats a map.
    kinds: Vec<(&'static str, u64)>,
    truncated: u64,
    bytes_in: u64,
    bytes_out: u64,
    durations: Vec<f64>,
    first_ms: i64,
    last_ms: i64,
}

impl MetricsBuilder {
    /// Refuses a range whose `since_ms` is after its `until_ms` (an equal pair is a valid,
    /// empty range).
    pub fn new(query: MetricsQuery) -> Result<Self, MetricsError> {
        if let (Some(since_ms), Some(until_ms)) = (query.since_ms, query.until_ms) {
            if since_ms > until_ms {
                return Err(MetricsError::ReversedRange { since_ms, until_ms });
            }
        }
        Ok(Self {
            query,
            methods: HashMap::new(),
            minutes: HashMap::new(),
        })
    }

    /// Counts `entry` if the query selects it.
    pub fn add(&mut self, entry: &HistoryEntry) {
        let at = entry.timestamp_ms;
        if self.query.since_ms.is_some_and(|since| at < since)
            || self.query.until_ms.is_some_and(|until| at >= until)
        {
            return;
        }
        let name = entry.request.tool_name.as_str();
        if let Some(tool) = &self.query.tool {
            if tool_id_of(name) != tool {
                return;
            }
        }
        let acc = match self.methods.get_mut(name) {
            Some(acc) => acc,
            None => self.methods.entry(name.to_owned()).or_insert(MethodAcc {
                first_ms: at,
                last_ms: at,
                ..MethodAcc::default()
            }),
        };
        let result = &entry.result;
        let failed = !result.is_success();
        acc.calls += 1;
        if failed {
            acc.failures += 1;
            let kind = result
                .error_kind()
                .map_or(UNCLASSIFIED, |kind| kind.as_str());
            match acc.kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, count)) => *count += 1,
                None => acc.kinds.push((kind, 1)),
            }
        }
        if result.truncated.is_some() {
            acc.truncated += 1;
        }
        acc.bytes_in += json_len(&entry.request.args);
        acc.bytes_out += result.result.len() as u64;
        acc.durations.push(result.duration_ms);
        acc.first_ms = acc.first_ms.min(at);
        acc.last_ms = acc.last_ms.max(at);

        let minute = self.minutes.entry(at.div_euclid(MINUTE_MS)).or_default();
        minute.calls += 1;
        minute.failures += u64::from(failed);
    }

    /// The summary of everything added.
    pub fn finish(self) -> Metrics {
        let mut by_tool: BTreeMap<String, Vec<(String, MethodAcc)>> = BTreeMap::new();
        for (name, acc) in self.methods {
            by_tool
                .entry(tool_id_of(&name).to_owned())
                .or_default()
                .push((name, acc));
        }
        let mut all_durations: Vec<f64> = Vec::new();
        let mut tools: Vec<ToolMetrics> = Vec::with_capacity(by_tool.len());
        let mut totals = CallStats::default();
        let mut scratch: Vec<f64> = Vec::new();
        for (tool_id, accs) in by_tool {
            let mut stats = CallStats::default();
            let mut methods = Vec::with_capacity(accs.len());
            for (routing_name, mut acc) in accs {
                let method_stats = acc.stats();
                merge(&mut stats, &method_stats);
                scratch.append(&mut acc.durations);
                methods.push(MethodMetrics {
                    method: split_routing_name(&routing_name).map(|(_, m)| m.to_owned()),
                    routing_name,
                    stats: method_stats,
                });
            }
            methods.sort_by(|a, b| {
                b.stats
                    .calls
                    .cmp(&a.stats.calls)
                    .then_with(|| a.routing_name.cmp(&b.routing_name))
            });
            stats.durations = duration_stats(&mut scratch);
            merge(&mut totals, &stats);
            all_durations.append(&mut scratch);
            tools.push(ToolMetrics {
                tool_id,
                stats,
                methods,
            });
        }
        // Stable: equal call counts keep the tool-id order of the BTreeMap.
        tools.sort_by_key(|tool| std::cmp::Reverse(tool.stats.calls));
        totals.durations = duration_stats(&mut all_durations);
        let series = series(&self.query, &totals, &self.minutes);
        Metrics {
            query: self.query,
            totals,
            tools,
            series,
        }
    }
}

impl MethodAcc {
    fn stats(&mut self) -> CallStats {
        CallStats {
            calls: self.calls,
            successes: self.calls - self.failures,
            failures: self.failures,
            failures_by_kind: self
                .kinds
                .iter()
                .map(|(kind, count)| ((*kind).to_owned(), *count))
                .collect(),
            truncated: self.truncated,
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            durations: duration_stats(&mut self.durations),
            first_ms: Some(self.first_ms),
            last_ms: Some(self.last_ms),
        }
    }
}

/// Adds `part`'s counters into `sum` (durations are summarised separately).
fn merge(sum: &mut CallStats, part: &CallStats) {
    sum.calls += part.calls;
    sum.successes += part.successes;
    sum.failures += part.failures;
    for (kind, count) in &part.failures_by_kind {
        *sum.failures_by_kind.entry(kind.clone()).or_default() += count;
    }
    sum.truncated += part.truncated;
    sum.bytes_in += part.bytes_in;
    sum.bytes_out += part.bytes_out;
    sum.first_ms = min_opt(sum.first_ms, part.first_ms);
    sum.last_ms = sum.last_ms.max(part.last_ms);
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The tool id of a routing name: the part before its last `_`, or the whole name when it
/// cannot be split.
fn tool_id_of(routing_name: &str) -> &str {
    split_routing_name(routing_name).map_or(routing_name, |(tool, _)| tool)
}

/// The 0-based index of the nearest-rank `percent`-th percentile among `n > 0` sorted values.
fn nearest_rank(percent: usize, n: usize) -> usize {
    (percent * n).div_ceil(100).max(1) - 1
}

/// p50, p95 and max of `values` (reordered in place), in linear time.
fn duration_stats(values: &mut [f64]) -> Option<DurationStats> {
    if values.is_empty() {
        return None;
    }
    let n = values.len();
    let (r50, r95) = (nearest_rank(50, n), nearest_rank(95, n));
    let (_, p95, above) = values.select_nth_unstable_by(r95, f64::total_cmp);
    let p95 = *p95;
    let max_ms = above
        .iter()
        .copied()
        .fold(p95, |a, b| if b.total_cmp(&a).is_gt() { b } else { a });
    let p50_ms = if r50 < r95 {
        *values[..r95].select_nth_unstable_by(r50, f64::total_cmp).1
    } else {
        p95
    };
    Some(DurationStats {
        p50_ms,
        p95_ms: p95,
        max_ms,
    })
}

/// Counts bytes without keeping them.
struct ByteCount(u64);

impl io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Length of `value` as compact JSON, without building the string.
fn json_len(value: &impl Serialize) -> u64 {
    let mut count = ByteCount(0);
    // A JSON value with string keys always serialises, and this writer never fails; should it
    // ever, what was counted so far stands.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The smallest round width covering `[start, end)` in at most [`MAX_BUCKETS`] aligned buckets.
fn bucket_width(start: i64, end: i64) -> i64 {
    let count = |width: i64| -> i128 {
        let width = i128::from(width);
        ceil_div(i128::from(end), width) - i128::from(start).div_euclid(width)
    };
    if let Some(width) = BUCKET_WIDTHS_MS
        .iter()
        .copied()
        .find(|&w| count(w) <= i128::from(MAX_BUCKETS))
    {
        return width;
    }
    let span = i128::from(end) - i128::from(start);
    let per_bucket = i128::from(YEAR_MS) * i128::from(MAX_BUCKETS - 1);
    let mut years = i64::try_from(ceil_div(span, per_bucket)).unwrap_or(i64::MAX / YEAR_MS);
    loop {
        let width = years.saturating_mul(YEAR_MS);
        if count(width) <= i128::from(MAX_BUCKETS) || width == i64::MAX {
            return width;
        }
        years += 1;
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -(-a).div_euclid(b)
}

/// The chart's buckets: the query's range, open ends closed by the calls seen.
fn series(query: &MetricsQuery, totals: &CallStats, minutes: &HashMap<i64, Counts>) -> TimeSeries {
    let start = query.since_ms.or(totals.first_ms);
    let end = query
        .until_ms
        .or_else(|| totals.last_ms.map(|last| last.saturating_add(1)));
    let (Some(start), Some(end)) = (start, end) else {
        return TimeSeries {
            bucket_ms: MINUTE_MS,
            buckets: Vec::new(),
        };
    };
    if start >= end {
        return TimeSeries {
            bucket_ms: MINUTE_MS,
            buckets: Vec::new(),
        };
    }
    let width = bucket_width(start, end);
    let wide = i128::from(width);
    let first = i128::from(start).div_euclid(wide);
    let count = ceil_div(i128::from(end), wide) - first;
    let mut buckets: Vec<Bucket> = (0..count)
        .map(|i| Bucket {
            start_ms: clamp_i64((first + i) * wide),
            calls: 0,
            failures: 0,
        })
        .collect();
    for (&minute, counts) in minutes {
        let index = (i128::from(minute) * i128::from(MINUTE_MS)).div_euclid(wide) - first;
        // Widths are whole minutes aligned like the minutes, and only calls inside the range
        // were counted, so every minute falls in a bucket; the clamp only guards the index.
        let index = usize::try_from(index.clamp(0, count - 1)).unwrap_or(0);
        if let Some(bucket) = buckets.get_mut(index) {
            bucket.calls += counts.calls;
            bucket.failures += counts.failures;
        }
    }
    TimeSeries {
        bucket_ms: width,
        buckets,
    }
}

fn clamp_i64(value: i128) -> i64 {
    i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests;
