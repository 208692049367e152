//! `toolscope stats`: metrics from the history the other commands write, through the real binary.

mod support;

use serde_json::Value;
use support::{stderr, Sandbox};

/// Three calculator calls (one failing in the tool, one with invalid arguments) and an echo.
fn record_some_calls(sandbox: &Sandbox) {
    let calls: [(&str, &str, i32); 4] = [
        ("calculator_evaluate", r#"{"expression":"6*7"}"#, 0),
        ("calculator_evaluate", r#"{"expression":"1/0"}"#, 1),
        ("calculator_evaluate", r#"{"nope":1}"#, 1),
        ("echo_echo", r#"{"message":"hi"}"#, 0),
    ];
    for (name, args, code) in calls {
        let output = sandbox.run(&["call", name, "--args", args]);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{name} {args}: {}",
            stderr(&output)
        );
    }
}

fn kinds(stats: &Value) -> Vec<(String, u64)> {
    stats["failures_by_kind"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(kind, count)| (kind.clone(), count.as_u64().unwrap_or(0)))
        .collect()
}

#[test]
fn stats_sums_up_the_recorded_calls() {
    let sandbox = Sandbox::new();
    record_some_calls(&sandbox);
    let (code, metrics) = sandbox.json(&["stats", "--json"]);
    assert_eq!(code, 0);
    let totals = &metrics["totals"];
    assert_eq!(totals["calls"], 4);
    assert_eq!(totals["successes"], 2);
    assert_eq!(totals["failures"], 2);
    assert_eq!(
        kinds(totals),
        [("invalid_args".to_owned(), 1), ("tool_error".to_owned(), 1)]
    );
    // {"expression":"6*7"} and {"expression":"1/0"} are 20 bytes, {"nope":1} 10, {"message":"hi"} 16.
    assert_eq!(totals["bytes_in"], 20 + 20 + 10 + 16);
    assert!(totals["bytes_out"].as_u64().unwrap_or(0) > 0);
    let durations = &totals["durations"];
    let (p50, p95, max) = (
        durations["p50_ms"].as_f64().unwrap_or(-1.0),
        durations["p95_ms"].as_f64().unwrap_or(-1.0),
        durations["max_ms"].as_f64().unwrap_or(-1.0),
    );
    assert!(0.0 <= p50 && p50 <= p95 && p95 <= max, "{durations}");
    assert!(totals["first_ms"].as_i64() <= totals["last_ms"].as_i64());

    let tools = metrics["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["tool_id"], "calculator", "most calls first");
    assert_eq!(tools[0]["stats"]["calls"], 3);
    assert_eq!(
        tools[0]["methods"][0]["routing_name"],
        "calculator_evaluate"
    );
    assert_eq!(tools[0]["methods"][0]["method"], "evaluate");
    assert_eq!(tools[1]["tool_id"], "echo");
    assert_eq!(tools[1]["stats"]["failures"], 0);

    let buckets = metrics["series"]["buckets"].as_array().expect("buckets");
    assert!(!buckets.is_empty() && buckets.len() <= 60);
    let calls: u64 = buckets.iter().filter_map(|b| b["calls"].as_u64()).sum();
    assert_eq!(calls, 4);
    let failures: u64 = buckets.iter().filter_map(|b| b["failures"].as_u64()).sum();
    assert_eq!(failures, 2);
}

#[test]
fn stats_filters_by_time_and_tool() {
    let sandbox = Sandbox::new();
    record_some_calls(&sandbox);
    let (code, recent) = sandbox.json(&["stats", "--since", "1h", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(recent["totals"]["calls"], 4);
    assert!(recent["query"]["since_ms"].is_i64());

    let (_, future) = sandbox.json(&["stats", "--since", "2999-01-01", "--json"]);
    assert_eq!(future["totals"]["calls"], 0);
    assert_eq!(future["tools"], Value::Array(Vec::new()));

    let (_, past) = sandbox.json(&[
        "stats",
        "--since",
        "2000-01-01T00:00:00Z",
        "--until",
        "2000-12-31",
        "--json",
    ]);
    assert_eq!(past["totals"]["calls"], 0);
    assert_eq!(past["series"]["bucket_ms"], 7 * 86_400_000_i64);

    let (_, echo) = sandbox.json(&["stats", "--tool", "echo", "--json"]);
    assert_eq!(echo["totals"]["calls"], 1);
    assert_eq!(echo["query"]["tool"], "echo");
    assert_eq!(echo["tools"][0]["tool_id"], "echo");
}

#[test]
fn stats_text_is_an_aligned_table() {
    let sandbox = Sandbox::new();
    record_some_calls(&sandbox);
    let output = sandbox.run(&["stats"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|line| line.starts_with("tool / method"))
        .expect("a header");
    for column in [
        "calls",
        "fail",
        "p50 ms",
        "p95 ms",
        "max ms",
        "bytes in",
        "bytes out",
    ] {
        assert!(
            lines[header].contains(column),
            "{column} in {}",
            lines[header]
        );
    }
    let names: Vec<String> = lines[header + 1..header + 6]
        .iter()
        .map(|line| {
            let indent = line.len() - line.trim_start().len();
            let name = line.split_whitespace().next().unwrap_or_default();
            format!("{}{name}", " ".repeat(indent))
        })
        .collect();
    assert_eq!(
        names,
        [
            "calculator",
            "  calculator_evaluate",
            "echo",
            "  echo_echo",
            "total"
        ]
    );
    // Right-aligned figures: every row ends where the header does.
    let width = lines[header].chars().count();
    for line in &lines[header + 1..header + 6] {
        assert_eq!(line.chars().count(), width, "{line}");
    }
    assert!(text.contains("calls:   4 (2 failed) from "), "{text}");
    assert!(text.contains("range:   start of history .. now"), "{text}");
    assert!(
        text.contains("failures: invalid_args 1, tool_error 1"),
        "{text}"
    );
    assert!(
        text.contains("  calculator_evaluate  invalid_args 1, tool_error 1"),
        "{text}"
    );
    assert!(text.contains("activity: "), "{text}");

    let none = sandbox.run(&["stats", "--tool", "calculator_evaluate"]);
    let text = String::from_utf8_lossy(&none.stdout);
    assert!(text.contains("no calls recorded in this range"), "{text}");
    assert!(text.contains("try --tool calculator"), "{text}");
}

#[test]
fn stats_refuses_bad_times_as_usage_errors() {
    let sandbox = Sandbox::new();
    for (args, message) in [
        (
            &["stats", "--since", "30x"][..],
            "--since: '30x': unknown unit 'x'",
        ),
        (&["stats", "--since", "yesterday"][..], "30m, 2h, 7d"),
        (
            &["stats", "--until", "2025-02-30"][..],
            "--until: '2025-02-30' is not a date",
        ),
        (&["stats", "--since", "2025-06-01T10:00"][..], "RFC 3339"),
        (&["stats", "--since", "30"][..], "has no unit"),
        (
            &[
                "stats",
                "--since",
                "2025-06-02",
                "--until",
                "2025-06-01T12:00:00Z",
            ][..],
            "must be before --until",
        ),
    ] {
        let output = sandbox.run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(message),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn stats_counts_unreadable_lines_on_stderr() {
    let sandbox = Sandbox::new();
    let (code, empty) = sandbox.json(&["stats", "--json"]);
    assert_eq!(code, 0, "no history yet is an empty summary");
    assert_eq!(empty["totals"]["calls"], 0);

    record_some_calls(&sandbox);
    let history = sandbox.path().join("history.jsonl");
    let mut text = std::fs::read_to_string(&history).expect("history");
    text.push_str("{not an entry}\n{\"v\": 99}\n");
    std::fs::write(&history, text).expect("write");
    let output = sandbox.run(&["stats", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stderr(&output).contains("2 unreadable lines"),
        "{}",
        stderr(&output)
    );
    let metrics: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(metrics["totals"]["calls"], 4);

    // --history points the command at another file; a directory is an environment error.
    let other = sandbox.path().join("other.jsonl");
    let (_, none) = sandbox.json(&["stats", "--json", "--history", &other.to_string_lossy()]);
    assert_eq!(none["totals"]["calls"], 0);
    let dir = sandbox.run(&["stats", "--history", &sandbox.path().to_string_lossy()]);
    assert_eq!(dir.status.code(), Some(4), "{}", stderr(&dir));
}
