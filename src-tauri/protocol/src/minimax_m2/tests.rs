//! Tests of `minimax_m2`, kept beside it so the module itself stays readable.

use super::*;
use crate::xml_markup::{summary, Finder};
use serde_json::json;
use serde_json::Value;

fn parse(text: &str) -> Value {
    summary(&MinimaxM2, text)
}

#[test]
fn several_invokes_in_one_block() {
    let text = "Checking.\n<minimax:tool_call>\n<invoke name=\"a_b\">\n\
                <parameter name=\"x\">1</parameter>\n<parameter name='y'>\ntwo\nlines\n</parameter>\n\
                </invoke>\n<invoke name=c_d>\n</invoke>\n</minimax:tool_call>";
    let v = parse(text);
    assert_eq!(v["calls"][0]["name"], "a_b");
    assert_eq!(v["calls"][0]["args"], json!({"x": "1", "y": "two\nlines"}));
    assert_eq!(v["calls"][0]["untyped"], true);
    assert_eq!(v["calls"][1]["name"], "c_d");
    assert_eq!(v["calls"][1]["args"], json!({}));
    assert_eq!(v["calls"][1]["raw"], "<invoke name=c_d>\n</invoke>");
    assert_eq!(v["diagnostics"], json!([]));
    assert_eq!(v["content"], "Checking.");
}

#[test]
fn a_value_may_hold_angle_brackets_and_surrounding_whitespace_is_stripped() {
    // vLLM's MiniMax-M2 parser `.strip()`s each value; inner blank lines stay.
    let text = "<minimax:tool_call><invoke name=\"f\"><parameter name=\"code\">\n\n  if a < b:\n\n    x = \"<p>\"\n\n</parameter></invoke></minimax:tool_call>";
    let v = parse(text);
    assert_eq!(
        v["calls"][0]["args"]["code"],
        "if a < b:\n\n    x = \"<p>\""
    );
    assert_eq!(v["diagnostics"], json!([]));
}

#[test]
fn an_unclosed_invoke_is_reported_and_the_next_one_kept() {
    let text = "<minimax:tool_call>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n\
                <invoke name=\"b\">\n<parameter name=\"y\">2</parameter>\n</invoke>\n</minimax:tool_call>";
    let v = parse(text);
    assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["calls"][0]["name"], "b");
    assert_eq!(v["diagnostics"][0]["code"], "unclosed_block");
    assert_eq!(
        v["diagnostics"][0]["at"],
        "<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n"
    );
}

#[test]
fn an_unclosed_parameter_skips_only_its_call() {
    let text = "<minimax:tool_call><invoke name=\"a\"><parameter name=\"x\">1<parameter name=\"y\">2</parameter></invoke>\
                <invoke name=\"b\"></invoke></minimax:tool_call>";
    let v = parse(text);
    assert_eq!(v["calls"][0]["name"], "b");
    assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["diagnostics"][0]["code"], "unclosed_value");
    assert_eq!(v["diagnostics"][0]["at"], "<parameter name=\"x\">1");
}

#[test]
fn names_keys_and_duplicates() {
    let text = "<minimax:tool_call><invoke name=\"\"></invoke><invoke name=\"f\"><parameter>1</parameter></invoke>\
                <invoke name=\"g\"><parameter name=\"k\">1</parameter><parameter name=\"k\">2</parameter></invoke>\
                </minimax:tool_call>";
    let v = parse(text);
    assert_eq!(v["calls"][0]["name"], "g");
    assert_eq!(v["calls"][0]["args"], json!({"k": "2"}));
    let codes: Vec<&Value> = v["diagnostics"]
        .as_array()
        .map(|d| d.iter().map(|d| &d["code"]).collect())
        .unwrap_or_default();
    assert_eq!(
        codes,
        [
            &json!("missing_tool_name"),
            &json!("unknown_key"),
            &json!("duplicate_key")
        ]
    );
    assert_eq!(
        v["diagnostics"][2]["at"],
        "<parameter name=\"k\">2</parameter>"
    );
}

#[test]
fn stray_text_and_empty_blocks() {
    let v = parse("<minimax:tool_call>\n</minimax:tool_call>");
    assert_eq!(v["diagnostics"][0]["severity"], "warning");
    let v = parse("<minimax:tool_call>{\"name\": \"f\"}</minimax:tool_call>");
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    let v = parse("<minimax:tool_call>junk<invoke name=\"f\">x<parameter name=\"a\">1</parameter>y</invoke>z</minimax:tool_call>");
    assert_eq!(v["calls"][0]["args"], json!({"a": "1"}));
    let at: Vec<&Value> = v["diagnostics"]
        .as_array()
        .map(|d| d.iter().map(|d| &d["at"]).collect())
        .unwrap_or_default();
    assert_eq!(at, [&json!("junk"), &json!("x"), &json!("y"), &json!("z")]);
}

#[test]
fn cut_off_replies() {
    // Every parameter closed: the call is decoded, the scanner warns.
    let v =
        parse("<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n");
    assert_eq!(v["calls"][0]["args"], json!({"a": "1"}));
    assert_eq!(v["diagnostics"][0]["severity"], "warning");
    // Inside a value: the value may be incomplete, the call is not run.
    let v = parse("<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][1]["code"], "unclosed_value");
    // Inside the tag.
    let v = parse("<minimax:tool_call>\n<invoke name=\"f");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][1]["at"], "<invoke name=\"f");
}

#[test]
fn malformed_tags_point_at_the_byte() {
    let v = parse("<minimax:tool_call><invoke name=\"f\" <parameter name=\"a\">1</parameter></invoke></minimax:tool_call>");
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][0]["at"], "<");
    let v = parse("<minimax:tool_call><invoke f></invoke></minimax:tool_call>");
    assert_eq!(v["diagnostics"][0]["at"], "f");
}

#[test]
fn finder_is_monotonic_and_skips_longer_words() {
    let text = "<parameters> <parameter x> <parameter\ny>";
    let mut f = Finder::new(text, text.len(), "<parameter");
    assert_eq!(f.find_tag(0), Some(13));
    assert_eq!(f.find_tag(13), Some(13));
    assert_eq!(f.find_tag(14), Some(27));
    assert_eq!(f.find_tag(28), None);
    assert_eq!(f.find(40), None);
}

#[test]
fn results_and_definitions() {
    let results = MinimaxM2.format_tool_results(&[]);
    assert_eq!(results, "]~b]tool[e~[\n");
    let defs = MinimaxM2.generate_tool_definitions(&[]);
    assert!(defs.contains("<minimax:tool_call>\n<invoke name=\"tool-name-1\">"));
}
