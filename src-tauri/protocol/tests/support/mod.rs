//! Helpers the auto-detect test files share: reading a format's fixtures, the calls a report
//! holds, and the check that auto-detect reads each fixture as its own format does.
//! Each test file that uses it declares `mod support;`, so not every helper is used by each.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

/// `tests/fixtures` at the workspace root.
pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Every `.txt` reply under `dir`, in name order, with its text.
pub fn replies_in(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("utf-8 fixture");
            (p, text)
        })
        .collect()
}

/// The parser fixtures of one format.
pub fn cases(format: &str) -> Vec<(PathBuf, String)> {
    replies_in(&fixtures_root().join("parser").join(format))
}

/// Each request's tool name and arguments, in order.
pub fn calls(report: &ParseReport) -> Vec<(String, Value)> {
    report
        .requests
        .iter()
        .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
        .collect()
}

/// The reply parsed with no format named.
pub fn detect(text: &str) -> ParseReport {
    parser::parse(&ProtocolSet::standard(), text, None).expect("auto-detect answers")
}

/// With no format named, every fixture of each format yields the calls its own format
/// extracts, and one with calls is detected as that format.
pub fn assert_auto_detect_matches_named(formats: &[&str]) {
    let set = ProtocolSet::standard();
    for &format in formats {
        for (path, text) in cases(format) {
            let named = parser::parse(&set, &text, Some(format)).expect("known format");
            let auto = parser::parse(&set, &text, None).expect("auto-detect answers");
            assert_eq!(
                calls(&auto),
                calls(&named),
                "{}: detected as {}",
                path.display(),
                auto.format
            );
            if !named.requests.is_empty() {
                assert_eq!(auto.format, format, "{}", path.display());
            }
        }
    }
}

/// No fixture of any other format is detected as one of `ours`.
pub fn assert_other_fixtures_not_claimed(ours: &[&str]) {
    let dirs = std::fs::read_dir(fixtures_root().join("parser")).expect("fixtures");
    for dir in dirs.filter_map(|e| e.ok().map(|e| e.path())) {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !dir.is_dir() || ours.contains(&name) {
            continue;
        }
        for (path, text) in replies_in(&dir) {
            let report = detect(&text);
            assert!(
                !ours.contains(&report.format.as_str()),
                "{}: claimed by {}",
                path.display(),
                report.format
            );
        }
    }
}

/// Every case of `reference_cases.jsonl` whose id starts with one of `prefixes` (at least
/// `at_least` of them) yields its expected calls: parsed with its named format (auto-detected
/// when it names none), text values typed from the case's tools as `toolscope eval` does,
/// numbers compared by value.
pub fn assert_reference_cases_agree(prefixes: &[&str], at_least: usize) {
    let set = ProtocolSet::standard();
    let corpus = std::fs::read_to_string(fixtures_root().join("eval/reference_cases.jsonl"))
        .expect("reference corpus");
    let mut checked = 0;
    let mut misses = Vec::new();
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a case");
        let id = case["id"].as_str().unwrap_or_default();
        if !prefixes.iter().any(|prefix| id.starts_with(prefix)) {
            continue;
        }
        checked += 1;
        let reply = case["reply"].as_str().unwrap_or_default();
        let mut report = parser::parse(&set, reply, case["format"].as_str()).expect("known format");
        let tools = case["tools"].as_array().cloned().unwrap_or_default();
        parser::type_arguments(&mut report, |name| {
            tools
                .iter()
                .find(|tool| tool["function"]["name"] == name)
                .map(|tool| tool["function"]["parameters"].clone())
        });
        let found: Vec<Value> = calls(&report)
            .into_iter()
            .map(|(name, arguments)| serde_json::json!({"name": name, "arguments": arguments}))
            .collect();
        let expected = case["expected"].as_array().cloned().unwrap_or_default();
        let agrees = found.len() == expected.len()
            && found.iter().zip(&expected).all(|(f, e)| same_value(f, e));
        if !agrees {
            misses.push(format!(
                "{id}: found {found:?}, expected {expected:?}; {:?}",
                report.diagnostics
            ));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
    assert!(checked >= at_least, "only {checked} cases");
}

/// JSON equality where numbers compare by value (`2` and `2.0` agree).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, v)| y.get(key).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}
