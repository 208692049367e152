//! Auto-detect on the token and XML-family formats' fixtures: with no format named, each reply
//! must give the calls (names and arguments) its own format gives, so a reply in one of these
//! formats is read right without the user choosing the format.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser;
use toolscope_protocol::request::Severity;
use toolscope_protocol::ProtocolSet;

const FORMATS: &[&str] = &[
    "qwen3_coder",
    "deepseek_v3",
    "deepseek_v31",
    "deepseek_v32",
    "kimi_k2",
    "glm45",
    "minimax_m2",
    "seed_oss",
    "step3",
    "vcp",
];

/// Replies that mix two formats on purpose: auto-detect may read them either way.
/// `qwen3_coder/05` interleaves Qwen3-Coder XML calls with Hermes JSON bodies (also
/// `<function=…>{json}` inside `<tool_call>`, which Hermes reads with its arguments and
/// Qwen3-Coder, as vLLM does, with `{}`), so which format wins is a judgement call, not a rule.
const MIXED: &[&str] = &["05_malformed_between_valid.txt"];

fn fixtures(format: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/parser")
        .join(format);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| {
            format != "qwen3_coder"
                || !p
                    .file_name()
                    .is_some_and(|n| MIXED.iter().any(|m| n.to_str() == Some(m)))
        })
        .collect();
    cases.sort();
    cases
}

fn calls(report: &parser::ParseReport) -> Vec<(String, Value)> {
    report
        .requests
        .iter()
        .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
        .collect()
}

#[test]
fn auto_detect_gives_each_fixture_the_calls_of_its_format() {
    let set = ProtocolSet::standard();
    let mut failures = Vec::new();
    for format in FORMATS {
        for case in fixtures(format) {
            let text = std::fs::read_to_string(&case).expect("fixture is utf-8");
            let named = parser::parse(&set, &text, Some(format)).expect("known format");
            let detected = parser::parse(&set, &text, None).expect("auto-detect runs");
            // A clean reply reads one way only: no "also parses as" doubt about it.
            let clean = !named
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error);
            let doubted = detected
                .diagnostics
                .iter()
                .any(|d| d.message.contains("also parses as"));
            if clean && doubted {
                failures.push(format!(
                    "{}: a clean reply is ambiguous ({})",
                    case.display(),
                    detected.format
                ));
            }
            if calls(&named) != calls(&detected) {
                failures.push(format!(
                    "{}: detected as '{}' with {:?}, its format gives {:?}",
                    case.display(),
                    detected.format,
                    calls(&detected),
                    calls(&named)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A harmony reply with no call is still gpt-oss's: its channel token names the format, so a
/// final answer that is a JSON object (corpus case `vllm-issue-23694`) or a message to a tool
/// outside `functions.` (`lmstudio-issue-1545`) is not labelled a Llama 3 reply.
#[test]
fn harmony_replies_without_a_call_are_labelled_gpt_oss() {
    let set = ProtocolSet::standard();
    for text in [
        "<|channel|>analysis<|message|>Nothing to call.<|end|><|start|>assistant<|channel|>final<|message|>{\"issues\":[]}<|return|>",
        "<|channel|>commentary to=exec<|constrain|>json<|message|>{\"command\":\"ls\"}",
        "<|channel|>analysis<|message|>The user greets.<|end|><|start|>assistant<|channel|>final<|message|>Hello!",
    ] {
        let report = parser::parse(&set, text, None).expect("auto-detect");
        assert_eq!(report.format, "gpt_oss", "{text}");
        assert!(report.requests.is_empty(), "{text}");
    }
}
