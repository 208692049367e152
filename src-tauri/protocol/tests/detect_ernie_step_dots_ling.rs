//! ERNIE 4.5, Step-3.5, dots and Ling 3. Three are the serving stacks' names for formats built
//! in here (`ernie45` → hermes, `step3p5` → qwen3_coder, `ling3` → glm45); dots is a format of
//! its own. The references' own cases (`tests/fixtures/eval/reference_cases.jsonl`) parse as the
//! references expect under those names; dots' fixtures are auto-detected as dots; prose quoting
//! its markers and other formats' fixtures are not claimed; a megabyte of calls, and of broken
//! ones, parses in one pass.

use serde_json::json;
use toolscope_protocol::{parser, ProtocolSet};

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed,
    assert_reference_cases_agree, calls, cases, detect,
};

/// Id prefixes of the reference cases these formats own.
const CASE_SOURCES: [&str; 6] = [
    "vllm-ernie45:",
    "vllm-step3p5:",
    "vllm-dots:",
    "sglang-dots:",
    "vllm-ling3:",
    "sglang-ling3:",
];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&["dots"]);
}

#[test]
fn the_reference_parser_names_resolve_to_their_formats() {
    let set = ProtocolSet::standard();
    for (alias, format) in [
        ("ernie45", "hermes"),
        ("step3p5", "qwen3_coder"),
        ("ling3", "glm45"),
    ] {
        assert_eq!(set.get(alias).map(|p| p.id()), Some(format), "{alias}");
    }
    assert_eq!(set.get("dots").map(|p| p.id()), Some("dots"));
}

#[test]
fn the_reference_cases_parse_as_the_references_expect() {
    assert_reference_cases_agree(&CASE_SOURCES, 35);
}

#[test]
fn prose_quoting_the_markers_is_not_claimed() {
    for prose in [
        "dots wraps calls in `<dots_function_call>` blocks.",
        "Write <dots_function_call> and then </dots_function_call> around the call.",
        "A stray </dots_function_call> closes nothing.",
        "answer <dots_func",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(
            !report
                .diagnostics
                .iter()
                .any(|d| d.severity == toolscope_protocol::request::Severity::Error),
            "{prose}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(&["dots"]);
}

#[test]
fn the_aliased_formats_read_what_the_references_write() {
    // ERNIE 4.5 Thinking: reasoning opened in the prompt, closed before the calls.
    let ernie = detect(
        "Two lookups.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": \
         {\"city\": \"Beijing\"}}\n</tool_call>\n",
    );
    assert_eq!(ernie.format, "hermes");
    assert_eq!(
        calls(&ernie),
        vec![("get_weather".into(), json!({"city": "Beijing"}))]
    );
    // Ling 3: GLM-4.7's layout, the name straight before the first key.
    let ling = detect(
        "<tool_call>weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>",
    );
    assert_eq!(ling.format, "glm45");
    assert_eq!(
        calls(&ling),
        vec![("weather".into(), json!({"city": "Shanghai"}))]
    );
    // dots fixtures exist and are read.
    assert!(cases("dots").len() >= 6);
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let units = [
        "<dots_function_call>\n<invoke name=\"search\">\n<parameter name=\"query\">chairs</parameter>\n</invoke>\n</dots_function_call>\n",
        "<dots_function_call>{\"name\": \"search\", \"arguments\": {\"query\": \"chairs\"}}</dots_function_call>\n",
    ];
    for unit in units {
        let text = unit.repeat(1_000_000 / unit.len());
        let report = detect(&text);
        assert_eq!(report.format, "dots");
        assert_eq!(report.requests.len(), 1_000_000 / unit.len());
    }
    // One block of many invocations, one never closed, and blocks that are never closed.
    let many = format!(
        "<dots_function_call>\n{}</dots_function_call>",
        "<invoke name=\"a\">\n<parameter name=\"k\">v</parameter>\n</invoke>\n".repeat(15_000)
    );
    assert_eq!(detect(&many).requests.len(), 15_000);
    let set = ProtocolSet::standard();
    for broken in [
        "<invoke name=\"a\">\n<parameter name=\"k\">v\n".repeat(20_000),
        "<dots_function_call>\n<invoke name=\"a\">\n".repeat(20_000),
        "<dots_function_call>{\"name\": \"a\", \"arguments\": {".repeat(20_000),
        "</dots_function_call><invoke name=".repeat(30_000),
    ] {
        let report = parser::parse(&set, &broken, Some("dots")).expect("dots");
        assert!(report.requests.len() <= 20_000);
    }
}
