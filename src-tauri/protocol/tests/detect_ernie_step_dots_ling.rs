//! ERNIE 4.5, Step-3.5, dots and Ling 3. Three are the serving stacks' names for formats built
//! in here (`ernie45` → hermes, `step3p5` → qwen3_coder, `ling3` → glm45); dots is a format of
//! its own. The references' own cases (`tests/fixtures/eval/reference_cases.jsonl`) parse as the
//! references expect under those names; dots' fixtures are auto-detected as dots; prose quoting
//! its markers and other formats' fixtures are not claimed; a megabyte of calls, and of broken
//! ones, parses in one pass.

use serde_json::{json, Map, Value};
use toolscope_protocol::{parser, ProtocolSet};

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed, calls, cases, detect,
    fixtures_root,
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

/// The schema of `name` among a case's tools (`{"type": "function", "function": {…}}`).
fn schema_in(tools: &Value, name: &str) -> Option<Value> {
    tools.as_array()?.iter().find_map(|tool| {
        let function = tool.get("function")?;
        (function.get("name")?.as_str()? == name).then(|| {
            function
                .get("parameters")
                .cloned()
                .unwrap_or_else(|| json!({}))
        })
    })
}

/// JSON equality where numbers compare by value (`2` and `2.0` agree).
fn agree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| agree(x, y))
        }
        (Value::Object(x), Value::Object(y)) => objects_agree(x, y),
        _ => a == b,
    }
}

fn objects_agree(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(key, value)| y.get(key).is_some_and(|other| agree(value, other)))
}

#[test]
fn the_reference_cases_parse_as_the_references_expect() {
    let set = ProtocolSet::standard();
    let corpus = std::fs::read_to_string(fixtures_root().join("eval/reference_cases.jsonl"))
        .expect("reference corpus");
    let mut seen = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a case");
        let id = case["id"].as_str().unwrap_or_default();
        if !CASE_SOURCES.iter().any(|source| id.starts_with(source)) {
            continue;
        }
        seen += 1;
        let format = case["format"]
            .as_str()
            .expect("our cases name their format");
        let reply = case["reply"].as_str().unwrap_or_default();
        let mut report = parser::parse(&set, reply, Some(format)).expect("a known name");
        let tools = case.get("tools").cloned().unwrap_or(Value::Null);
        parser::type_arguments(&mut report, |name| schema_in(&tools, name));
        let found: Vec<Value> = calls(&report)
            .into_iter()
            .map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
            .collect();
        let expected = case["expected"].as_array().cloned().unwrap_or_default();
        let agrees =
            found.len() == expected.len() && found.iter().zip(&expected).all(|(f, e)| agree(f, e));
        assert!(
            agrees,
            "{id}: found {found:?}, expected {expected:?}; {:?}",
            report.diagnostics
        );
    }
    assert!(seen >= 35, "only {seen} cases of ours");
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
