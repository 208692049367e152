//! Auto-detect for ChatGLM3, GLM-4-9B-chat and Gorilla OpenFunctions: each fixture of theirs,
//! with no format named, yields the calls its own format extracts; their weak evidence (a word
//! line over a JSON object, a bare Python call) never claims prose, another format's fixtures
//! or the reference corpora; and a megabyte of calls parses in one pass.

use serde_json::{json, Value};
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{assert_auto_detect_matches_named, calls, detect, fixtures_root, replies_in};

const OURS: [&str; 3] = ["chatglm3", "glm4_chat", "gorilla_openfunctions"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&OURS);
}

#[test]
fn the_sweep_shapes_are_detected() {
    let glm4 = detect("get_weather\n{\"location\": \"Beijing, China\"}");
    assert_eq!(glm4.format, "glm4_chat");
    assert_eq!(
        calls(&glm4),
        vec![("get_weather".into(), json!({"location": "Beijing, China"}))]
    );
    let chatglm3 = detect("get_weather\n ```python\ntool_call(location='Beijing')\n```");
    assert_eq!(chatglm3.format, "chatglm3");
    let hosted = detect("f(a='x, y'), g(b=2)");
    assert_eq!(hosted.format, "gorilla_openfunctions");
    assert_eq!(hosted.requests.len(), 2);
}

#[test]
fn prose_is_not_claimed() {
    for prose in [
        "Here is the result:\n{\"city\": \"Paris\"}",
        "Sure! The payload is\n{\"city\": \"Paris\"}\nSend it as is.",
        "json\n{\"city\": \"Paris\"}",
        "Result\n{\"city\": \"Paris\"} was returned.",
        "Use get_weather\n{\"city\": \"Paris\"}",
        "Call f(a=1) to start.",
        "print(x) prints x.",
        "(see above)",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(!OURS.contains(&report.format.as_str()), "{prose}");
    }
    // ChatGLM3's own word in prose makes it a candidate (so it may name the report), but
    // nothing is read and nothing is reported.
    for prose in [
        "The function tool_call(a=1) is how ChatGLM3 calls tools.",
        "Run this:\n```python\ntool_call(a=1)\n```",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(
            report.diagnostics.is_empty(),
            "{prose}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn calls_joined_by_prose_are_not_read() {
    let report = detect("f(a=1) and then g(b=2)");
    assert!(report.requests.is_empty(), "{:?}", report.requests);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    let dirs = std::fs::read_dir(fixtures_root().join("parser")).expect("fixtures");
    for dir in dirs.filter_map(|e| e.ok().map(|e| e.path())) {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !dir.is_dir() || OURS.contains(&name) {
            continue;
        }
        for (path, text) in replies_in(&dir) {
            let report = detect(&text);
            assert!(
                !OURS.contains(&report.format.as_str()),
                "{} detected as {}",
                path.display(),
                report.format
            );
        }
    }
}

/// Id prefixes of the real-output cases written in these formats (GLM-4-9B-0414's markerless
/// `name` line then JSON, quoted in ml-explore/mlx-swift-lm issue 491, is glm4_chat's own).
const OUR_CASE_SOURCES: [&str; 4] = ["gorilla-", "chatglm3-", "glm4-", "mlx-swift-lm-issue-491:"];

/// Real outputs of other models written in one of these formats' shapes, which no format reads
/// a call from: the label is the shape's, and there is no call to claim. DeepSeek-R1 1.5B wrote
/// `schedule_meeting("…", …))`, Gorilla's bare call with positional arguments (an error there).
const IN_OUR_SHAPE: [&str; 1] = ["tool-calling-benchmark:deepseek_r1_1_5b_positional_pseudo_call"];

/// Real outputs of other models that are, byte for byte, one of these formats' replies and read
/// as the same calls: Granite 3.3's bare `get_weather(location=…)` line (vLLM's
/// `granite_pythonic`, which auto-detect never picks) is Gorilla's whole-reply call too. The
/// eval tests check the calls; the label is the shape's.
const SAME_CALLS_IN_OUR_SHAPE: [&str; 1] = ["vllm-issue-43104:granite33_bare_python_call_line"];

#[test]
fn reference_corpora_are_not_claimed() {
    for corpus in ["reference_cases.jsonl", "real_outputs.jsonl"] {
        let text =
            std::fs::read_to_string(fixtures_root().join("eval").join(corpus)).expect("corpus");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let case: Value = serde_json::from_str(line).expect("a case");
            let id = case["id"].as_str().unwrap_or_default();
            // The real outputs of these formats themselves.
            if OUR_CASE_SOURCES.iter().any(|source| id.starts_with(source)) {
                continue;
            }
            if SAME_CALLS_IN_OUR_SHAPE.contains(&id) {
                continue;
            }
            if IN_OUR_SHAPE.contains(&id) {
                assert!(detect(case["reply"].as_str().unwrap_or_default())
                    .requests
                    .is_empty());
                continue;
            }
            let reply = case["reply"].as_str().unwrap_or_default();
            let report = detect(reply);
            assert!(
                !OURS.contains(&report.format.as_str()),
                "{corpus} {} detected as {}",
                case["id"],
                report.format
            );
        }
    }
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let replies = [
        (
            "chatglm3",
            "<|assistant|>get_weather\n```python\ntool_call(city='Paris', days=[1, 2])\n```\n",
        ),
        (
            "glm4_chat",
            "<|assistant|>get_weather\n{\"city\": \"Paris\"}",
        ),
        (
            "gorilla_openfunctions",
            "<<function>>get_weather(city='Paris')",
        ),
    ];
    for (format, unit) in replies {
        let text = unit.repeat(1_000_000 / unit.len());
        let started = std::time::Instant::now();
        let report = detect(&text);
        assert_eq!(report.format, format);
        assert_eq!(report.requests.len(), 1_000_000 / unit.len(), "{format}");
        // Generous: a quadratic walk would take minutes, a linear one milliseconds.
        assert!(
            started.elapsed().as_secs() < 20,
            "{format}: {:?}",
            started.elapsed()
        );
    }
    // Bare calls and unclosed shapes, named.
    let set = ProtocolSet::standard();
    for (format, unit) in [
        ("gorilla_openfunctions", "f(a='x'), "),
        ("glm4_chat", "<|assistant|>f\n{\"a\": [\n"),
        ("chatglm3", "<|assistant|>f\n```python\ntool_call(a=[\n"),
    ] {
        let text = unit.repeat(1_000_000 / unit.len());
        let started = std::time::Instant::now();
        let report = parser::parse(&set, &text, Some(format)).expect("named");
        assert!(report.requests.len() <= 1_000_000 / unit.len(), "{format}");
        assert!(
            started.elapsed().as_secs() < 20,
            "{format}: {:?}",
            started.elapsed()
        );
    }
}
