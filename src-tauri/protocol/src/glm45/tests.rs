//! Tests of `glm45`, kept beside it so the module itself stays readable.

use super::*;
use crate::parser;
use crate::xml_markup::summary;
use crate::ProtocolSet;
use serde_json::{json, Value};

fn parse(text: &str) -> Value {
    summary(&Glm45, text)
}

#[test]
fn name_and_pairs() {
    let v = parse(
        "<think>hmm</think>Sure.\n<tool_call>weather_get\n<arg_key>city</arg_key>\n\
         <arg_value>北京</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
    );
    assert_eq!(v["calls"][0]["name"], "weather_get");
    assert_eq!(v["calls"][0]["args"], json!({"city": "北京", "days": "3"}));
    assert_eq!(v["calls"][0]["untyped"], true);
    assert_eq!(v["diagnostics"], json!([]));
    assert_eq!(v["content"], "Sure.");
}

#[test]
fn glm_47_writes_no_newline_after_the_name() {
    let v = parse("<tool_call>f<arg_key>a</arg_key><arg_value>[1, 2]</arg_value></tool_call><tool_call>g</tool_call>");
    assert_eq!(v["calls"][0]["args"], json!({"a": "[1, 2]"}));
    assert_eq!(v["calls"][1]["name"], "g");
    assert_eq!(v["calls"][1]["args"], json!({}));
}

#[test]
fn json_and_qwen_bodies_are_named() {
    let v = parse("<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][0]["code"], "invalid_json");
    assert_eq!(
        v["diagnostics"][0]["at"],
        "{\"name\": \"f\", \"arguments\": {}}"
    );
    let v = parse("<tool_call>\n<function=f>\n</function>\n</tool_call>");
    assert_eq!(v["calls"], json!([]));
    assert!(v["diagnostics"][0]["at"]
        .as_str()
        .is_some_and(|s| s.starts_with("<function=f>")));
}

#[test]
fn broken_pairs_skip_their_call_only() {
    let v = parse(
        "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>1\n<arg_key>y</arg_key>\n<arg_value>2</arg_value>\n</tool_call>\
         <tool_call>b\n<arg_key>x\n</tool_call>\
         <tool_call>c\n<arg_key>x</arg_key> 5\n</tool_call>\
         <tool_call>\n<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>\
         <tool_call>d\n<arg_key>k</arg_key><arg_value>1</arg_value><arg_key>k</arg_key><arg_value>2</arg_value></tool_call>",
    );
    assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["calls"][0]["name"], "d");
    assert_eq!(v["calls"][0]["args"], json!({"k": "2"}));
    let codes: Vec<&Value> = v["diagnostics"]
        .as_array()
        .map(|d| d.iter().map(|d| &d["code"]).collect())
        .unwrap_or_default();
    assert_eq!(
        codes,
        [
            &json!("unclosed_value"),
            &json!("unclosed_value"),
            &json!("unclosed_value"),
            &json!("missing_tool_name"),
            &json!("duplicate_key"),
        ]
    );
    assert_eq!(
        v["diagnostics"][0]["at"],
        "<arg_key>x</arg_key>\n<arg_value>1\n"
    );
    assert_eq!(v["diagnostics"][1]["at"], "<arg_key>x\n");
    assert_eq!(v["diagnostics"][2]["at"], "<arg_key>x</arg_key>");
}

#[test]
fn a_block_the_reply_ends_in_gives_no_call() {
    // vLLM `test_glm4_moe_tool_parser.py` `test_extract_tool_calls_incomplete_tool_call`:
    // without `</tool_call>` there is no call, even when every value is complete.
    for cut in [
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1",
    ] {
        let v = parse(cut);
        assert_eq!(v["calls"], json!([]), "{cut}");
        assert_eq!(v["diagnostics"][0]["severity"], "error", "{cut}");
    }
}

#[test]
fn auto_detect_tells_glm_from_hermes() {
    let set = ProtocolSet::standard();
    let hermes = "<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hi\"}}\n</tool_call>";
    let report = parser::parse(&set, hermes, None).expect("auto");
    assert_eq!(report.format, "hermes");
    assert_eq!(report.requests.len(), 1);
    let glm =
        "<tool_call>echo_echo\n<arg_key>message</arg_key>\n<arg_value>hi</arg_value>\n</tool_call>";
    let report = parser::parse(&set, glm, None).expect("auto");
    assert_eq!(report.format, "glm45");
    assert_eq!(report.requests.len(), 1);
    assert!(!report.has_errors(), "{:?}", report.diagnostics);
}

#[test]
fn text_before_the_first_pair_skips_the_call_text_after_one_is_ignored() {
    // Before any pair the block may be another format's (or prose): an error, as before.
    let v = parse("<tool_call>get_weather\nfor Paris\n<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    assert_eq!(v["diagnostics"][0]["at"], "for Paris");
    // After one the block is GLM's: a warning, and the call keeps every pair.
    let v = parse("<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>, then <arg_key>b</arg_key>\\n\n<arg_value>2</arg_value>\\n</tool_call>");
    assert_eq!(v["calls"][0]["args"], json!({"a": "1", "b": "2"}));
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["diagnostics"][0]["at"], ", then");
}

#[test]
fn a_lone_close_of_think_ends_reasoning_the_prompt_opened() {
    let v = parse(
        "Maybe <tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>.</think>\
         <tool_call>g<arg_key>a</arg_key><arg_value>2</arg_value></tool_call>",
    );
    assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["calls"][0]["name"], "g");
    // Without `</think>` nothing is reasoning.
    let v = parse("<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>");
    assert_eq!(v["calls"][0]["name"], "f");
}

#[test]
fn a_literal_newline_ends_the_name() {
    // vLLM `test_ling3_tool_call_name_separator[\\n]`: GLM-4.7 and Ling 3 may write the two
    // characters `\n` after the name.
    let v = parse("<tool_call>f\\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>");
    assert_eq!(v["calls"][0]["name"], "f");
    assert_eq!(v["calls"][0]["args"], json!({"a": "1"}));
    assert_eq!(v["diagnostics"], json!([]));
}

#[test]
fn reasoning_never_closed_ends_at_a_call() {
    let v = parse("<think>I should look.\n<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>Done.");
    assert_eq!(v["calls"][0]["name"], "f");
    assert_eq!(v["content"], "Done.");
    // Closed reasoning keeps a call drafted in it.
    let v = parse("<think>Maybe <tool_call>f</tool_call></think>No.");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["content"], "No.");
}

#[test]
fn glm53_flash_json_layout_is_not_a_name() {
    let v = parse("<tool_call>f>{\"a\":1}</tool_call>");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][0]["code"], "missing_tool_name");
}
