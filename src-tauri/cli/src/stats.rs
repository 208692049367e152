//! `toolscope stats`: what the recorded runs add up to (seed 002's metrics), read from the same
//! history file the other commands append to.
//!
//! `--since` / `--until` take a duration before now (`30m`, `2h`, `7d`), an RFC 3339 time or a
//! date (`YYYY-MM-DD`, UTC; as `--until` it includes that day). Text output is one aligned
//! table (per tool, then its methods), the failures by kind and a one-line activity chart;
//! `--json` prints the engine's `Metrics`. Unreadable history lines are counted on stderr.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;
use toolscope_engine::metrics::{
    self, format_utc, parse_time_bound, CallStats, Metrics, MetricsError, MetricsQuery, TimeBound,
};
use toolscope_engine::registry::split_routing_name;

use crate::output::outln;
use crate::setup::{self, SetupError};
use crate::{exit, render, GlobalArgs};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Only calls at or after WHEN: a duration before now (30m, 2h, 7d), an RFC 3339 time
    /// (2025-06-01T12:00:00Z) or a date (2025-06-01, midnight UTC).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only calls before WHEN (same forms; a date includes that whole day).
    #[arg(long, value_name = "WHEN")]
    until: Option<String>,
    /// Only calls to this tool id (e.g. calculator).
    #[arg(long, value_name = "ID")]
    tool: Option<String>,
}

pub fn stats(global: &GlobalArgs, args: &StatsArgs) -> Result<u8, SetupError> {
    let now = now_ms();
    let bound = |flag: &str, text: &Option<String>, bound: TimeBound| {
        text.as_deref()
            .map(|text| parse_time_bound(text, now, bound))
            .transpose()
            .map_err(|e| SetupError::usage(format!("{flag}: {e}")))
    };
    let query = MetricsQuery {
        since_ms: bound("--since", &args.since, TimeBound::Start)?,
        until_ms: bound("--until", &args.until, TimeBound::End)?,
        tool: args.tool.clone(),
    };
    if let (Some(since), Some(until)) = (query.since_ms, query.until_ms) {
        // The engine accepts an empty range; on the command line it is a mistake.
        if since >= until {
            return Err(SetupError::usage(format!(
                "--since ({}) must be before --until ({})",
                format_utc(since),
                format_utc(until)
            )));
        }
    }
    let path = setup::history_path(global);
    let read = metrics::from_history(&path, &query).map_err(|e| match e {
        MetricsError::ReversedRange { .. } => SetupError::usage(e.to_string()),
        MetricsError::History(e) => SetupError::environment(e.to_string()),
    })?;
    if !read.skipped.is_empty() {
        eprintln!(
            "warning: {} unreadable line{} of '{}' left out",
            read.skipped.len(),
            if read.skipped.len() == 1 { "" } else { "s" },
            path.display()
        );
    }
    if global.json {
        render::json(&read.metrics);
    } else {
        text(&read.metrics, &path);
    }
    Ok(exit::OK)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn text(metrics: &Metrics, path: &Path) {
    let query = &metrics.query;
    let since = query
        .since_ms
        .map_or_else(|| "start of history".to_owned(), format_utc);
    let until = query.until_ms.map_or_else(|| "now".to_owned(), format_utc);
    outln!("history: {}", path.display());
    match &query.tool {
        Some(tool) => outln!("range:   {since} .. {until}, tool {tool}"),
        None => outln!("range:   {since} .. {until}"),
    }
    let totals = &metrics.totals;
    let (Some(first), Some(last)) = (totals.first_ms, totals.last_ms) else {
        outln!("no calls recorded in this range");
        if let Some(name) = query.tool.as_deref() {
            if let Some((tool, _)) = split_routing_name(name) {
                outln!("(--tool takes a tool id: if '{name}' is a method, try --tool {tool})");
            }
        }
        return;
    };
    outln!(
        "calls:   {} ({} failed) from {} to {}",
        totals.calls,
        totals.failures,
        format_utc(first),
        format_utc(last)
    );
    outln!();
    table(metrics);
    failures(metrics);
    activity(metrics);
}

const HEADERS: [&str; 8] = [
    "calls",
    "fail",
    "p50 ms",
    "p95 ms",
    "max ms",
    "bytes in",
    "bytes out",
    "",
];

fn table(metrics: &Metrics) {
    let mut rows: Vec<(String, &CallStats)> = Vec::new();
    for tool in &metrics.tools {
        rows.push((tool.tool_id.clone(), &tool.stats));
        for method in &tool.methods {
            rows.push((format!("  {}", method.routing_name), &method.stats));
        }
    }
    rows.push(("total".to_owned(), &metrics.totals));
    let cells: Vec<(String, [String; 7])> = rows
        .into_iter()
        .map(|(name, stats)| (name, figures(stats)))
        .collect();
    let name_width = cells
        .iter()
        .map(|(name, _)| name.chars().count())
        .chain(["tool / method".len()])
        .max()
        .unwrap_or(0);
    let mut widths = [0usize; 7];
    for (i, width) in widths.iter_mut().enumerate() {
        *width = cells
            .iter()
            .map(|(_, figures)| figures[i].len())
            .chain([HEADERS[i].len()])
            .max()
            .unwrap_or(0);
    }
    let line = |name: &str, figures: [&str; 7]| {
        let mut text = format!("{name:<name_width$}");
        for (figure, width) in figures.iter().zip(widths) {
            text.push_str(&format!("  {figure:>width$}"));
        }
        outln!("{}", text.trim_end());
    };
    line(
        "tool / method",
        [
            HEADERS[0], HEADERS[1], HEADERS[2], HEADERS[3], HEADERS[4], HEADERS[5], HEADERS[6],
        ],
    );
    for (name, figures) in &cells {
        line(name, figures.each_ref().map(String::as_str));
    }
}

fn figures(stats: &CallStats) -> [String; 7] {
    let (p50, p95, max) = match stats.durations {
        Some(d) => (millis(d.p50_ms), millis(d.p95_ms), millis(d.max_ms)),
        None => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
    };
    [
        stats.calls.to_string(),
        stats.failures.to_string(),
        p50,
        p95,
        max,
        bytes(stats.bytes_in),
        bytes(stats.bytes_out),
    ]
}

fn millis(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 1000.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Failure kinds, most frequent first (then by name).
fn kinds(stats: &CallStats) -> String {
    let mut kinds: Vec<(&String, &u64)> = stats.failures_by_kind.iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    kinds
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn failures(metrics: &Metrics) {
    if metrics.totals.failures == 0 {
        return;
    }
    outln!();
    outln!("failures: {}", kinds(&metrics.totals));
    let failing: Vec<_> = metrics
        .tools
        .iter()
        .flat_map(|tool| &tool.methods)
        .filter(|method| method.stats.failures > 0)
        .collect();
    let width = failing
        .iter()
        .map(|method| method.routing_name.chars().count())
        .max()
        .unwrap_or(0);
    for method in failing {
        outln!(
            "  {:<width$}  {}",
            method.routing_name,
            kinds(&method.stats)
        );
    }
}

/// The series as one line of block characters, scaled to the busiest bucket.
fn activity(metrics: &Metrics) {
    let series = &metrics.series;
    let peak = series.buckets.iter().map(|b| b.calls).max().unwrap_or(0);
    let Some(first) = series.buckets.first() else {
        return;
    };
    if peak == 0 {
        return;
    }
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let line: String = series
        .buckets
        .iter()
        .map(|bucket| {
            if bucket.calls == 0 {
                '·'
            } else {
                let level = (bucket.calls * 8).div_ceil(peak).saturating_sub(1);
                LEVELS[usize::try_from(level).unwrap_or(7).min(7)]
            }
        })
        .collect();
    outln!();
    outln!(
        "activity: {line}  ({} per mark from {}, busiest {peak})",
        width_label(series.bucket_ms),
        format_utc(first.start_ms)
    );
}

fn width_label(ms: i64) -> String {
    const MINUTE: i64 = 60_000;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;
    if ms % DAY == 0 {
        format!("{} d", ms / DAY)
    } else if ms % HOUR == 0 {
        format!("{} h", ms / HOUR)
    } else if ms % MINUTE == 0 {
        format!("{} min", ms / MINUTE)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_short() {
        assert_eq!(millis(0.1234), "0.12");
        assert_eq!(millis(42.04), "42.0");
        assert_eq!(millis(1520.4), "1520");
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(width_label(300_000), "5 min");
        assert_eq!(width_label(21_600_000), "6 h");
        assert_eq!(width_label(7 * 86_400_000), "7 d");
    }
}
