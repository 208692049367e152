//! Auto-detect on the JSON-bodied formats' replies (hermes, llama3_json, mistral, mistral_v11,
//! xml_tag), including the variants models write instead of their template's layout: whatever
//! the named format extracts, auto-detect (no format named) extracts too, and the variants
//! another format owns are detected as that format with the calls the reference parsers find.

use std::path::PathBuf;

use serde_json::{json, Value};
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

const FORMATS: [&str; 5] = ["hermes", "llama3_json", "mistral", "mistral_v11", "xml_tag"];

fn fixtures(format: &str) -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/parser")
        .join(format);
    let mut cases: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("fixture directory exists")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture is text");
            (path.display().to_string(), text)
        })
        .collect();
    cases.sort();
    cases
}

fn parse(text: &str, format: Option<&str>) -> ParseReport {
    parser::parse(&ProtocolSet::standard(), text, format).expect("known format")
}

/// The calls as (name, arguments): what must agree whichever format found them.
fn calls(report: &ParseReport) -> Vec<Value> {
    report
        .requests
        .iter()
        .map(|r| json!([r.tool_name, r.args]))
        .collect()
}

#[test]
fn auto_detect_finds_every_call_the_named_format_finds() {
    let mut checked = 0;
    for format in FORMATS {
        for (path, text) in fixtures(format) {
            let named = parse(&text, Some(format));
            if named.requests.is_empty() {
                continue;
            }
            let detected = parse(&text, None);
            assert_eq!(
                calls(&detected),
                calls(&named),
                "{path}: auto-detect chose '{}'",
                detected.format
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} fixtures with calls");
}

/// Variants the reference parsers read as calls, with the format auto-detect picks for them.
#[test]
fn variants_owned_by_another_format_are_detected_with_the_same_calls() {
    let special = json!([["special_function", {"arg1": 1}]]);
    for (text, format, expected) in [
        // llama.cpp test_hermes_2_pro_parser: bare JSON after prose is a call.
        (
            "This is not a tool call:\n{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}",
            "llama3_json",
            special.clone(),
        ),
        (
            "{\n  \"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}",
            "llama3_json",
            special.clone(),
        ),
        // llama.cpp: `<function=NAME>{…}</function>` without `<tool_call>`.
        (
            "<function=special_function>{\"arg1\": 1}</function>\n<function=python>{\"code\":\"print('hello')\"}</function>",
            "functionary_v31",
            json!([["special_function", {"arg1": 1}], ["python", {"code": "print('hello')"}]]),
        ),
        // llama.cpp and mlx's Qwen2.5-Coder output: `<function_call>` in a fence.
        (
            "```json\n\n                    <function_call> {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}} \n                    </function_call> \n``` ",
            "granite_20b_fc",
            special.clone(),
        ),
        // Qwen3-Coder's XML layout inside `<tool_call>`.
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            "qwen3_coder",
            json!([["get_weather", {"city": "Paris"}]]),
        ),
        // The fences llama.cpp reads around a bare call object (xLAM's fences hold lists only).
        (
            "```json\n  {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n```",
            "llama3_json",
            special.clone(),
        ),
        (
            "```\n{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n```",
            "llama3_json",
            special.clone(),
        ),
    ] {
        let report = parse(text, None);
        assert_eq!(report.format, format, "{text}");
        assert_eq!(json!(calls(&report)), expected, "{text}");
    }
}

#[test]
fn the_new_hermes_tags_are_detected_as_hermes() {
    for text in [
        "<tools>\n  {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n</tools>",
        "<response>\n  {\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n</response>",
        "<function name=\"special_function\">\n{\"arg1\": 1}\n</function>",
        "<tool_call>\n<function=special_function>{\"arg1\": 1}</function>\n</tool_call>",
    ] {
        let report = parse(text, None);
        assert_eq!(report.format, "hermes", "{text}");
        assert_eq!(report.requests.len(), 1, "{text}");
        // functionary_v31 also reads `<function=…>` inside the tag: a warning says so.
        assert!(!report.has_errors(), "{text}: {:?}", report.diagnostics);
    }
}

#[test]
fn json_in_other_formats_is_not_a_bare_call() {
    // An object after a tag, as a key's value or inside a Python call belongs to that
    // document. A list of call objects that is the whole reply is xLAM's: llama3_json named
    // reads it (as vLLM does), but it is no llama3_json evidence for auto-detect.
    for text in [
        "[{\"name\": \"f\", \"arguments\": {}}]",
        "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
        "{\"tool_calls\": [{\"name\": \"f\", \"arguments\": {}}]}",
        "{\"function_call\": {\"name\": \"f\", \"arguments\": \"{}\"}}",
        "[f(x={\"name\": \"g\", \"parameters\": {}})]",
    ] {
        let report = parse(text, Some("llama3_json"));
        assert!(
            text.starts_with(['{', '[']) || report.requests.is_empty(),
            "{text}: {:?}",
            calls(&report)
        );
        let detected = parse(text, None);
        assert_ne!(detected.format, "llama3_json", "{text}");
        assert!(
            !detected
                .diagnostics
                .iter()
                .any(|d| d.message.contains("also parses as llama3_json")),
            "{text}: {:?}",
            detected.diagnostics
        );
    }
}

#[test]
fn a_call_list_is_xlam_only_where_it_starts_the_reply() {
    // llama3_json reads call lists anywhere (as vLLM does), but a `{` inside a list the reply
    // starts with is no evidence for it: that list is xLAM's whole format, which wins the tie.
    let list = "[{\"name\": \"a\", \"parameters\": {\"x\": 1}}, \
                {\"name\": \"b\", \"parameters\": {\"y\": 2}}]";
    let expected = json!([["a", {"x": 1}], ["b", {"y": 2}]]);
    for (text, format) in [
        (list.to_owned(), "xlam"),
        (format!("<think>a list</think>\n{list}"), "xlam"),
        (format!("Here you go:\n{list}"), "llama3_json"),
        (
            "{\"name\": \"a\", \"parameters\": {\"x\": 1}},\n\
             {\"name\": \"b\", \"parameters\": {\"y\": 2}}"
                .to_owned(),
            "llama3_json",
        ),
    ] {
        let report = parse(&text, None);
        assert_eq!(report.format, format, "{text}");
        assert_eq!(json!(calls(&report)), expected, "{text}");
        assert!(
            !report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("also parses as llama3_json")),
            "{text}: {:?}",
            report.diagnostics
        );
    }
}

/// A Llama 3 call restarted inside calls that never close, nested 2,000 deep: only the complete
/// innermost call is read (SGLang `test_invalid_then_valid_json`, vLLM's try-every-`{`), found
/// in one pass over the body rather than one walk per brace.
#[test]
fn a_call_restarted_deep_inside_unclosed_calls_is_read_once() {
    let mut text = String::new();
    for _ in 0..2_000 {
        text.push_str("{\"name\": \"g\", \"parameters\": ");
    }
    text.push_str("{\"name\": \"h\", \"parameters\": {\"q\": \"}{\"}}");
    let report = parse(&text, Some("llama3_json"));
    assert_eq!(calls(&report), vec![json!(["h", {"q": "}{"}])]);
    assert!(
        report.diagnostics.iter().any(|d| d
            .message
            .contains("not complete before another call object")),
        "the broken start is reported: {:?}",
        report.diagnostics
    );
}

/// Where no format finds a call and every candidate reports errors, the label is the first
/// candidate in priority order, not the one that happened to report fewer errors: a broken
/// hermes block (BitNet-2B's second `<tool_call>` where `</tool_call>` belongs) is hermes',
/// whose diagnostics say what is wrong, not qwen3_coder's "no <function=NAME>".
#[test]
fn a_reply_no_format_reads_is_named_by_priority_among_the_failing() {
    let text = "<tool_call>{\"name\": \"available_tools\", \"arguments\": {}}}<tool_call>";
    let report = parse(text, None);
    assert!(report.requests.is_empty());
    assert_eq!(report.format, "hermes");
    // Prose that one candidate reads without an error still goes to that one.
    let prose = parse("[Note] I can't do that (sorry).", None);
    assert!(prose
        .diagnostics
        .iter()
        .all(|d| d.severity != toolscope_protocol::request::Severity::Error));
}

/// A call object whose values are not JSON (`"first Date": get_current_date ()`, DeepSeek-R1
/// distill on Ollama, corpus case `ollama-issue-8517`) is read by no format; the label goes to
/// a format that says why, not to one that reads the reply as prose and says nothing.
#[test]
fn a_broken_call_object_is_explained_rather_than_read_as_prose() {
    let text = "</think>\n\n{\n \"name\": \"date_ difference\",\n \"parameters\": {\n  \"first Date\": get_current_date (),\n  \"last_Date\": birthdate ({user: \"Oliver\"})\n }\n}";
    let report = parse(text, None);
    assert!(report.requests.is_empty());
    assert!(
        report.diagnostics.iter().any(|d| d.code
            == toolscope_protocol::request::DiagnosticCode::InvalidJson
            && d.message.contains("line 4 column 17")),
        "{}: {:?}",
        report.format,
        report.diagnostics
    );
}
