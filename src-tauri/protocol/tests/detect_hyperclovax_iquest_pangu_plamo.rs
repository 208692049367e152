//! HyperCLOVA X SEED Think, iQuest Coder, openPangu, PLaMo 3, Solar Open, Step-Audio 2, RWKV, CWM,
//! and the serving stacks' names that are aliases of formats built in here
//! (`hyperclovax_seed_think` and `spark3` → glm45,
//! `iquest_coder` / `qwen35coder` → qwen3_coder, `pangu` / `openpangu_v2` → lfm2,
//! and `granite_pythonic`, a format read only when named). The references' own cases
//! (`tests/fixtures/eval/reference_cases.jsonl`) parse as the references expect under the
//! references' names; the new formats' fixtures are auto-detected as their own format; prose
//! quoting their markers and other formats' fixtures are not claimed; a megabyte of calls, and
//! of broken ones, parses in one pass.

use serde_json::json;
use toolscope_protocol::request::Severity;
use toolscope_protocol::{parser, ProtocolSet};

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed,
    assert_reference_cases_agree, calls, cases, detect,
};

/// The formats added with this file.
const FORMATS: [&str; 7] = [
    "hyperclovax",
    "plamo3",
    "iquest_coder_v2",
    "solar_open",
    "step_audio2",
    "rwkv",
    "cwm",
];

/// Id prefixes of the reference cases these formats and aliases own.
const CASE_SOURCES: [&str; 15] = [
    "vllm-hyperclovax_seed_think:",
    "vllm-hyperclovax_seed_think_14b:",
    "vllm-iquest_coder:",
    "vllm-iquest_coder_v2:",
    "sglang-iquest_q1:",
    "vllm-pangu:",
    "vllm-openpangu_v2:",
    "vllm-plamo3:",
    "vllm-solar_open2:",
    "vllm-granite_pythonic:",
    "vllm-qwen35coder:",
    "vllm-spark3:",
    "vllm-step_audio_2:",
    "vllm-rwkv:",
    "vllm-cwm:",
];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&FORMATS);
    for format in FORMATS {
        assert!(cases(format).len() >= 6, "{format} has too few fixtures");
    }
}

#[test]
fn granite_pythonic_is_read_when_named_and_never_detected() {
    let set = ProtocolSet::standard();
    let fixtures = cases("granite_pythonic");
    assert!(fixtures.len() >= 6);
    for (path, text) in fixtures {
        let report = detect(&text);
        assert_ne!(report.format, "granite_pythonic", "{}", path.display());
    }
    let named = parser::parse(
        &set,
        "Sure.\nget_weather(location=\"London\")",
        Some("granite_pythonic"),
    )
    .expect("known format");
    assert_eq!(
        calls(&named),
        vec![("get_weather".into(), json!({"location": "London"}))]
    );
    assert_eq!(named.content, "Sure.");
}

#[test]
fn the_reference_parser_names_resolve_to_their_formats() {
    let set = ProtocolSet::standard();
    for (alias, format) in [
        ("hyperclovax_seed_think", "glm45"),
        ("hyperclovax_seed_think_14b", "hyperclovax"),
        ("iquest_coder", "qwen3_coder"),
        ("iquest_q1", "iquest_coder_v2"),
        ("qwen35coder", "qwen3_coder"),
        ("pangu", "lfm2"),
        ("openpangu_v2", "lfm2"),
        ("solar_open2", "solar_open"),
        ("spark3", "glm45"),
        ("step_audio_2", "step_audio2"),
    ] {
        assert_eq!(set.get(alias).map(|p| p.id()), Some(format), "{alias}");
    }
    for format in FORMATS.iter().chain(&["granite_pythonic"]) {
        assert_eq!(set.get(format).map(|p| p.id()), Some(*format));
    }
}

#[test]
fn the_reference_cases_parse_as_the_references_expect() {
    assert_reference_cases_agree(&CASE_SOURCES, 70);
}

#[test]
fn prose_quoting_the_markers_is_not_claimed() {
    for prose in [
        "HyperCLOVA X writes `-> tool/function_call` before its call list.",
        "Its turn header reads -> tool/get_weather and then a JSON object.",
        "PLaMo 3 opens calls with `<|plamo:begin_tool_requests:plamo|>`.",
        "iQuest wraps calls in `<iquestcoder_tool_call>` tags.",
        "Solar writes `<|tool_call:start|>` then the name.",
        "answer <|plamo:begin_tool_req",
        "RWKV labels a call **Tool Call:** and then a JSON fence.",
        "CWM writes `<tool: bash>` blocks.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(
            !report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error),
            "{prose}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(&FORMATS);
}

#[test]
fn the_aliased_formats_read_what_the_references_write() {
    // HyperCLOVA X SEED Think: GLM-4.5's pairs after reasoning closed with </think>.
    let think = detect(
        "thinking aloud</think>\n\nokay, calling:<tool_call>get_current_weather\n\
         <arg_key>location</arg_key>\n<arg_value>Seoul</arg_value>\n</tool_call>",
    );
    assert_eq!(think.format, "glm45");
    assert_eq!(
        calls(&think),
        vec![("get_current_weather".into(), json!({"location": "Seoul"}))]
    );
    // openPangu: LFM2's tokens around a JSON call list.
    let pangu = detect(
        "I will call the tool now. <|tool_call_start|>[{\"name\": \"get_weather\", \
         \"arguments\": {\"city\": \"Boston\"}}]<|tool_call_end|>",
    );
    assert_eq!(pangu.format, "lfm2");
    assert_eq!(
        calls(&pangu),
        vec![("get_weather".into(), json!({"city": "Boston"}))]
    );
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let units = [
        (
            "hyperclovax",
            "<|im_start|>assistant -> tool/function_call\n[{\"name\": \"search\", \"arguments\": {\"q\": \"chairs\"}}]<|im_end|>\n",
        ),
        (
            "plamo3",
            "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>search<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{\"q\": \"chairs\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>\n",
        ),
        (
            "iquest_coder_v2",
            "<iquestcoder_tool_call>search<arg_key>q</arg_key><arg_value>chairs</arg_value></iquestcoder_tool_call>\n",
        ),
        (
            "solar_open",
            "<|tool_call:start|>search\n<|tool_arg:start|>q<|tool_arg:value|>chairs<|tool_arg:end|>\n<|tool_call:end|>\n",
        ),
        (
            "step_audio2",
            "<tool_call>function\nsearch\n{\"q\": \"chairs\"}</tool_call>\n",
        ),
        (
            "rwkv",
            "**Tool Call:**\n```json\n{\"name\": \"search\", \"arguments\": {\"q\": \"chairs\"}}\n```\n",
        ),
        ("cwm", "<tool: bash>\nterminal ls -la\n</tool>\n"),
    ];
    for (format, unit) in units {
        let text = unit.repeat(1_000_000 / unit.len());
        let report = detect(&text);
        assert_eq!(report.format, format);
        assert_eq!(report.requests.len(), 1_000_000 / unit.len(), "{format}");
    }
    // One group of many requests, one call of many arguments.
    let many = format!(
        "<|plamo:begin_tool_requests:plamo|>{}<|plamo:end_tool_requests:plamo|>",
        "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>a<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
            .repeat(5_000)
    );
    assert_eq!(detect(&many).requests.len(), 5_000);
    let wide = format!(
        "<|tool_call:start|>a\n{}<|tool_call:end|>",
        (0..20_000)
            .map(|i| format!("<|tool_arg:start|>k{i}<|tool_arg:value|>v<|tool_arg:end|>"))
            .collect::<String>()
    );
    assert_eq!(detect(&wide).requests.len(), 1);
    let set = ProtocolSet::standard();
    for (format, broken) in [
        ("hyperclovax", "-> tool/function_call\n[{\"name\": \"a\", \"arguments\": {".repeat(20_000)),
        ("plamo3", "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>a".repeat(20_000)),
        ("plamo3", format!("<|plamo:begin_tool_requests:plamo|>{}<|plamo:end_tool_requests:plamo|>", "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>a".repeat(20_000))),
        ("iquest_coder_v2", "<iquestcoder_tool_call>a<arg_key>k</arg_key><arg_value>v".repeat(20_000)),
        ("iquest_coder_v2", format!("<iquestcoder_tool_call>a{}</iquestcoder_tool_call>", "<arg_key>k</arg_key><arg_value>v".repeat(20_000))),
        ("solar_open", "<|tool_call:start|>a\n<|tool_arg:start|>k<|tool_arg:value|>v".repeat(20_000)),
        ("solar_open", format!("<|tool_call:start|>a\n{}<|tool_call:end|>", "<|tool_arg:start|>k".repeat(20_000))),
        ("step_audio2", "<tool_call>function\na\n{\"k\": ".repeat(20_000)),
        ("rwkv", "**Tool Call:**\n```json\n{\"name\": \"a\", \"arguments\": {".repeat(20_000)),
        ("cwm", "<tool: bash>\nterminal ".repeat(20_000)),
    ] {
        let report = parser::parse(&set, &broken, Some(format)).expect("known format");
        assert!(report.requests.len() <= 20_000, "{format}");
    }
}
