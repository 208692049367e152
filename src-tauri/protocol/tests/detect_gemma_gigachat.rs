//! Auto-detect of Gemma 4, FunctionGemma and GigaChat 3: every fixture reply of these formats
//! is detected as its own format (no format named) and yields the calls the named parse yields.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

const FORMATS: &[&str] = &["gemma4", "function_gemma", "gigachat3"];

fn cases(format: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/parser")
        .join(format);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path.display().to_string();
            (name, std::fs::read_to_string(&path).expect("utf-8 fixture"))
        })
        .collect()
}

/// Requests with generated ids blanked, to compare two parses of one reply.
fn requests(report: &ParseReport) -> Value {
    let mut value = serde_json::to_value(&report.requests).expect("serialises");
    if let Some(list) = value.as_array_mut() {
        for request in list {
            request["request_id"] = Value::Null;
        }
    }
    value
}

#[test]
fn each_reply_with_calls_is_detected_as_its_format() {
    let set = ProtocolSet::standard();
    let mut checked = 0;
    for format in FORMATS {
        for (name, text) in cases(format) {
            let named = parser::parse(&set, &text, Some(format)).expect("known format");
            let detected = parser::parse(&set, &text, None).expect("auto-detect never fails");
            if named.requests.is_empty() {
                continue;
            }
            assert_eq!(
                detected.format, *format,
                "{name}: {:?}",
                detected.diagnostics
            );
            assert!(detected.detected, "{name}");
            assert_eq!(requests(&detected), requests(&named), "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} replies with calls");
}

#[test]
fn reasoning_and_prose_are_never_calls() {
    let set = ProtocolSet::standard();
    let thought =
        "<|channel>thought\n<|tool_call>call:rm{path:<|\"|>/<|\"|>}<tool_call|><channel|>Done.";
    let report = parser::parse(&set, thought, None).expect("auto-detect never fails");
    assert!(report.requests.is_empty(), "{report:?}");
    let prose = "Use call:get_weather{city:<escape>Paris<escape>} or a function call in JSON.";
    let report = parser::parse(&set, prose, None).expect("auto-detect never fails");
    assert!(report.requests.is_empty(), "{report:?}");
}
