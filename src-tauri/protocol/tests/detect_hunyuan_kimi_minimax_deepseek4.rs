//! Auto-detect for Tencent Hy3 / Hy4 (`hunyuan_v3`, `hunyuan_v4`), Kimi K3 (`kimi_k3`),
//! MiniMax-M3 (`minimax_m3`) and the `deepseek_v4` alias: each fixture, with no format named,
//! yields the calls its own format extracts; the two Hunyuan layouts never claim each other's
//! replies; prose quoting their tokens and other formats' fixtures are not claimed; and a
//! megabyte of calls (or of broken calls) parses in one pass.

use serde_json::json;
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed,
    assert_reference_cases_agree, calls, cases, detect,
};

const OURS: [&str; 4] = ["hunyuan_v3", "hunyuan_v4", "kimi_k3", "minimax_m3"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&OURS);
}

#[test]
fn hy3_and_hy4_layouts_are_told_apart() {
    let hy3 = detect(
        "<tool_calls:opensource>\n<tool_call:opensource>get_weather<tool_sep:opensource>\n\
         <arg_key:opensource>city</arg_key:opensource>\n\
         <arg_value:opensource>Paris</arg_value:opensource>\n</tool_call:opensource>\n\
         </tool_calls:opensource>",
    );
    assert_eq!(hy3.format, "hunyuan_v3");
    assert_eq!(
        calls(&hy3),
        vec![("get_weather".into(), json!({"city": "Paris"}))]
    );
    let hy4 = detect(
        "<tool_calls:opensource><tool_call:opensource>get_weather\
         <arg_key:opensource>city</arg_key:opensource>\
         <arg_value:opensource>Paris</arg_value:opensource></tool_call:opensource>\
         </tool_calls:opensource>",
    );
    assert_eq!(hy4.format, "hunyuan_v4");
    assert_eq!(
        calls(&hy4),
        vec![("get_weather".into(), json!({"city": "Paris"}))]
    );
    // Without the suffix, Hy4's inner call is also GLM-4.7's layout: Hy4's group wins.
    let bare = detect(
        "<tool_calls><tool_call>get_weather<arg_key>city</arg_key>\
         <arg_value>Paris</arg_value></tool_call></tool_calls>",
    );
    assert_eq!(bare.format, "hunyuan_v4");
    // Neither reads the other's fixtures as calls (except the malformed ones, which hold a
    // call in the other layout on purpose).
    let set = ProtocolSet::standard();
    for (own, other) in [("hunyuan_v3", "hunyuan_v4"), ("hunyuan_v4", "hunyuan_v3")] {
        for (path, text) in cases(own) {
            if path.to_string_lossy().contains("malformed") {
                continue;
            }
            let report = parser::parse(&set, &text, Some(other)).expect("known format");
            assert!(
                report.requests.is_empty(),
                "{} read as {other}: {:?}",
                path.display(),
                calls(&report)
            );
        }
    }
}

#[test]
fn deepseek_v4_is_the_dsml_format() {
    let set = ProtocolSet::standard();
    let reply = "Let me check. <｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n\
                 <｜DSML｜parameter name=\"location\" string=\"true\">Beijing</｜DSML｜parameter>\n\
                 </｜DSML｜invoke>\n</｜DSML｜tool_calls>";
    let named = parser::parse(&set, reply, Some("deepseek_v4")).expect("alias is known");
    assert_eq!(named.format, "deepseek_v32");
    assert_eq!(
        calls(&named),
        vec![("get_weather".into(), json!({"location": "Beijing"}))]
    );
    assert_eq!(detect(reply).format, "deepseek_v32");
}

#[test]
fn prose_is_not_claimed() {
    for prose in [
        "Hy3 opens a group with <tool_calls:opensource> and closes it later.",
        "The tokens `<tool_call:opensource>` and `<arg_key:opensource>` structure a call.",
        "Write <tool_calls> then a list: that is how jamba works.",
        "A <tool_sep> token separates the name.",
        "K3 writes `<|open|>tools<|sep|>` before its calls.",
        "The token ]<]minimax[>[ leaked into the text, and so did `]<]minimax[>[<tool_call>`.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(&OURS);
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let set = ProtocolSet::standard();
    let hy3_call = "<tool_call:opensource>f<tool_sep:opensource>\n\
                    <arg_key:opensource>a</arg_key:opensource>\n\
                    <arg_value:opensource>x</arg_value:opensource>\n</tool_call:opensource>\n";
    let hy4_call = "<tool_call:opensource>f<arg_key:opensource>a</arg_key:opensource>\
                    <arg_value:opensource>x</arg_value:opensource></tool_call:opensource>";
    let k3_call = "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" \
                   type=\"integer\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>";
    let m3_call = "]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>]<]minimax[>[<item>1\
                   ]<]minimax[>[</item>]<]minimax[>[</a>]<]minimax[>[</invoke>\n";
    for (format, unit, open, close) in [
        (
            "hunyuan_v3",
            hy3_call,
            "<tool_calls:opensource>",
            "</tool_calls:opensource>",
        ),
        (
            "hunyuan_v4",
            hy4_call,
            "<tool_calls:opensource>",
            "</tool_calls:opensource>",
        ),
        (
            "kimi_k3",
            k3_call,
            "<|open|>tools<|sep|>",
            "<|close|>tools<|sep|>",
        ),
        (
            "minimax_m3",
            m3_call,
            "]<]minimax[>[<tool_call>",
            "]<]minimax[>[</tool_call>",
        ),
    ] {
        let count = 1_000_000 / unit.len();
        let text = format!("{open}{}{close}", unit.repeat(count));
        let report = detect(&text);
        assert_eq!(report.format, format);
        assert_eq!(report.requests.len(), count, "{format}");
    }
    // Broken calls: unclosed keys, values and calls, and calls with no name, named.
    for (format, unit) in [
        ("hunyuan_v3", "<tool_call:opensource>f<tool_sep:opensource><arg_key:opensource>a"),
        ("hunyuan_v3", "<tool_call:opensource>f<arg_value:opensource>"),
        ("hunyuan_v4", "<tool_call:opensource>f<arg_key:opensource>a</arg_key:opensource><arg_value:opensource>x"),
        ("hunyuan_v4", "<tool_call:opensource><tool_calls:opensource></arg_key:opensource>"),
        ("kimi_k3", "<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\"<|sep|>x"),
        (
            "kimi_k3",
            "<|open|>tools<|sep|><|open|>call tool=\"f\"<|open|>argument<|close|>json<|sep|>",
        ),
        ("minimax_m3", "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>"),
        ("minimax_m3", "]<]minimax[>[<a>]<]minimax[>[<b>x</c>]<]minimax[>[</d>"),
    ] {
        let text = unit.repeat(1_000_000 / unit.len());
        let report = parser::parse(&set, &text, Some(format)).expect("named");
        assert!(report.requests.len() <= 1_000_000 / unit.len(), "{format}");
    }
}

/// Id prefixes of the reference cases these formats own (`tests/fixtures/eval`).
const OUR_CASES: [&str; 5] = [
    "vllm-hy-v3:",
    "vllm-hy-v4:",
    "vllm-kimi-k3:",
    "vllm-minimax-m3:",
    "vllm-deepseekv4:",
];

#[test]
fn the_reference_cases_of_these_formats_agree() {
    assert_reference_cases_agree(&OUR_CASES, 40);
}
