//! GigaChat 3.5 (GCML), GLM-5.3-Flash, K2 Horizon (`k2_v3`, IFM tokens), DeepSeek V4.1 (spaced DSML tags,
//! read by `deepseek_v32`), the `mimo` alias (Qwen3-Coder's layout) and the `trinity` alias
//! (hermes): auto-detect reads each fixture as its own format does, prose that mentions the
//! markers and other formats' fixtures are not claimed, the reference parsers' own cases
//! (`reference_cases.jsonl`) agree, and a megabyte of calls (or of broken calls) parses in one
//! pass.

use serde_json::json;
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed,
    assert_reference_cases_agree, detect,
};

/// Formats whose fixtures this file checks (deepseek_v32 for its V4.1 fixtures).
const CHECKED: [&str; 4] = ["gigachat35", "glm53_flash", "k2_v3", "deepseek_v32"];
/// Formats added here: no other format's fixture may be detected as one of them.
const NEW: [&str; 3] = ["gigachat35", "glm53_flash", "k2_v3"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&CHECKED);
}

#[test]
fn prose_mentioning_the_markers_is_not_claimed() {
    for prose in [
        "GigaChat 3.5 opens its calls with `<｜GCML｜tool_calls>`.",
        "GLM-5.3-Flash writes `<tool_call>name>{\"key\": 1}` for a call.",
        "K2 Horizon calls tools in `<ifm|tool_call>` blocks inside `<ifm|tool_calls>`.",
        "DeepSeek V4.1 writes `<｜DSML｜ calls>` and `<｜DSML｜ invoke name=\"f\">` tags.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(!report.has_errors(), "{prose}: {:?}", report.diagnostics);
    }
    // In a fence, special tokens count mid-line too: a model emits them as token ids, not as
    // code it types, and the reference parsers read them wherever they are.
    let fenced = "```\nlike <｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"></｜GCML｜invoke></｜GCML｜tool_calls>\n```";
    assert_eq!(detect(fenced).requests.len(), 1);
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(&NEW);
}

#[test]
fn aliases_name_their_formats() {
    let set = ProtocolSet::standard();
    for (alias, id) in [
        ("mimo", "qwen3_coder"),
        ("deepseek_v41", "deepseek_v32"),
        ("deepseekv41", "deepseek_v32"),
        ("gigachat35", "gigachat35"),
        ("k2_horizon", "k2_v3"),
        ("trinity", "hermes"),
    ] {
        let protocol = set.get(alias).expect("alias resolves");
        assert_eq!(protocol.id(), id, "{alias}");
    }
}

#[test]
fn the_reference_cases_agree() {
    assert_reference_cases_agree(
        &[
            "vllm-mimov2-flash:",
            "sglang-mimo:",
            "vllm-gigachat35:",
            "sglang-deepseekv41:",
            "sglang-k2-v3:",
            "vllm-k2-horizon:",
            "sglang-trinity:",
            "sglang-glm53-flash:",
        ],
        30,
    );
}

/// A reply of about `bytes` made of `unit` repeated.
fn repeated(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len() + 1)
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let set = ProtocolSet::standard();
    let megabyte = 1 << 20;
    let gcml = "<｜GCML｜tool_calls><｜GCML｜invoke name=\"get_weather\">\
                <｜GCML｜parameter name=\"city\" string=\"true\">Paris</｜GCML｜parameter>\
                </｜GCML｜invoke></｜GCML｜tool_calls>\n";
    let report =
        parser::parse(&set, &repeated(gcml, megabyte), Some("gigachat35")).expect("known format");
    assert!(report.requests.len() > 5_000);
    assert_eq!(report.requests[0].args["city"], json!("Paris"));
    // One block holding many invokes.
    let invoke = "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"n\" string=\"false\">1\
                  </｜GCML｜parameter></｜GCML｜invoke>\n";
    let one_block = format!("<｜GCML｜tool_calls>{}", repeated(invoke, megabyte));
    let report = parser::parse(&set, &one_block, Some("gigachat35")).expect("known format");
    assert!(report.requests.len() > 5_000);
    for broken in [
        "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" \
         string=\"true\">1</｜GCML｜invoke></｜GCML｜tool_calls>\n",
        "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\">\n",
        "<｜GCML｜invoke name=\"f\"></｜GCML｜invoke>",
    ] {
        let report = parser::parse(&set, &repeated(broken, megabyte), Some("gigachat35"))
            .expect("known format");
        // An invoke cut off by the next block's opener is kept only as an incomplete call.
        assert!(report.requests.iter().all(|r| r.incomplete), "{broken}");
    }
    let k2 = "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key>\
              <ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call>\n\
              <ifm|tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 1}}</ifm|tool_call>\
              </ifm|tool_calls>\n";
    let report = parser::parse(&set, &repeated(k2, megabyte), Some("k2_v3")).expect("known format");
    assert!(report.requests.len() > 5_000);
    assert_eq!(report.requests[0].args["city"], json!("Paris"));
    for broken in [
        "<ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key></ifm|tool_call>\n",
        "<ifm|tool_call>f<ifm|arg_key>a<ifm|arg_value>1</ifm|arg_value></ifm|tool_call>\n",
        "<ifm|tool_call>{\"name\": \"f\", \"arguments\": {</ifm|tool_call>\n",
        "<ifm|tool_call>f<ifm|arg_key>a",
    ] {
        let report =
            parser::parse(&set, &repeated(broken, megabyte), Some("k2_v3")).expect("known format");
        assert!(report.requests.is_empty(), "{broken}");
    }
    let glm = "<tool_call>get_weather>{\"city\": \"Paris\"}<tool_call>Clock/get_time\n{}\n";
    let report =
        parser::parse(&set, &repeated(glm, megabyte), Some("glm53_flash")).expect("known format");
    assert!(report.requests.len() > 10_000);
    assert_eq!(report.requests[0].args["city"], json!("Paris"));
    for broken in [
        "<tool_call>f>{\"a\": [1, {\"b\": ",
        "<tool_call>f<arg_key>a</arg_key><arg_value>1\n",
        "<tool_call>f<arg_key>a</arg_key>\n",
        "<tool_call>{\"name\": \"f\"}</tool_call>",
    ] {
        let report = parser::parse(&set, &repeated(broken, megabyte), Some("glm53_flash"))
            .expect("known format");
        assert!(report.requests.is_empty(), "{broken}");
    }
    let v41 = "\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"get_weather\">\n\
               <｜DSML｜ parameter name=\"city\" string=\"true\">Paris</｜DSML｜ parameter>\n\
               </｜DSML｜ invoke>\n</｜DSML｜ calls>";
    let report =
        parser::parse(&set, &repeated(v41, megabyte), Some("deepseek_v41")).expect("known format");
    assert!(report.requests.len() > 5_000);
    let broken = "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"f\">\n\
                  <｜DSML｜ parameter name=\"a\" string=\"true\">1\n</｜DSML｜ invoke>\n";
    let report = parser::parse(&set, &repeated(broken, megabyte), Some("deepseek_v41"))
        .expect("known format");
    assert!(report.requests.is_empty());
}
