//! Auto-detect of Nemotron Nano v2, Apertus, Command R7B / Command A and llama.cpp's generic
//! JSON: with no format named, every fixture reply of these formats yields the calls the named
//! format reads (same names, arguments and ids, in order), detected as the format itself or,
//! for llama.cpp's `{"tool_calls": [...]}` shape, as `json_strict`, which reads it the same.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

const FORMATS: &[&str] = &["nemotron_v2", "apertus", "command_a", "llama_cpp_generic"];

fn fixtures(format: &str) -> Vec<(String, String)> {
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
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_owned();
            (name, std::fs::read_to_string(&p).expect("fixture is utf-8"))
        })
        .collect()
}

/// The calls of a report as (name, arguments, id written in the reply or "").
fn calls(report: &ParseReport, text: &str) -> Vec<(String, Value, String)> {
    report
        .requests
        .iter()
        .map(|r| {
            let id = if text.contains(&r.request_id) {
                r.request_id.clone()
            } else {
                String::new()
            };
            (r.tool_name.clone(), Value::Object(r.args.clone()), id)
        })
        .collect()
}

#[test]
fn auto_detect_reads_the_same_calls_as_the_named_format() {
    let set = ProtocolSet::standard();
    let mut with_calls = 0;
    for format in FORMATS {
        let cases = fixtures(format);
        assert!(cases.len() >= 6, "{format}: {} fixtures", cases.len());
        for (name, text) in cases {
            let named = parser::parse(&set, &text, Some(format)).expect("registered format");
            let detected = parser::parse(&set, &text, None).expect("auto-detect never fails");
            assert_eq!(
                calls(&detected, &text),
                calls(&named, &text),
                "{format}/{name}: detected as {}",
                detected.format
            );
            if named.requests.is_empty() {
                continue;
            }
            with_calls += 1;
            let generic_list = *format == "llama_cpp_generic" && text.contains("\"tool_calls\"");
            let expected = if generic_list { "json_strict" } else { format };
            assert_eq!(detected.format, expected, "{format}/{name}");
            assert!(
                !detected
                    .diagnostics
                    .iter()
                    .any(|d| d.message.contains("also parses as")),
                "{format}/{name}: {:?}",
                detected.diagnostics
            );
        }
    }
    assert!(with_calls >= 30, "only {with_calls} fixtures with calls");
}

#[test]
fn the_reference_replies_detect_as_their_format() {
    let set = ProtocolSet::standard();
    for (text, format, name) in [
        (
            "<TOOLCALL>[{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}]</TOOLCALL>",
            "nemotron_v2",
            "special_function",
        ),
        (
            "<|tools_prefix|>[{\"special_function\": {\"arg1\": 1}}]<|tools_suffix|>",
            "apertus",
            "special_function",
        ),
        (
            "<|START_THINKING|><|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \
             \"tool_name\": \"special_function\", \"parameters\": {\"arg1\": 1}}\n]<|END_ACTION|>",
            "command_a",
            "special_function",
        ),
        (
            "{\"tool_call\": {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}}",
            "llama_cpp_generic",
            "special_function",
        ),
    ] {
        let report = parser::parse(&set, text, None).expect("auto-detect never fails");
        assert_eq!(report.format, format, "{text}");
        assert_eq!(report.requests.len(), 1, "{text}");
        assert_eq!(report.requests[0].tool_name, name);
        assert_eq!(report.requests[0].args["arg1"], 1);
    }
    // A whole-reply answer object is llama.cpp's generic answer, not a call.
    let answer = parser::parse(&set, "{\n  \"response\": \"Hi there\"\n}", None).expect("parses");
    assert_eq!(answer.format, "llama_cpp_generic");
    assert!(answer.requests.is_empty());
    assert_eq!(answer.content, "Hi there");
}
