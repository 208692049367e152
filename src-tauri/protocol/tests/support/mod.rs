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
