//! MiniCPM 5 XML, Muse Glimmer and Inkling, and the `poolside_v1` alias (GLM-4.5's layout): auto-detect reads
//! each fixture as its own format does, prose that mentions the markers and other formats'
//! fixtures are not claimed, the reference parsers' own cases (`reference_cases.jsonl`) agree,
//! and a megabyte of calls (or of broken calls) parses in one pass.

use serde_json::{json, Value};
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{
    assert_auto_detect_matches_named, assert_other_fixtures_not_claimed, calls, detect,
    fixtures_root,
};

const OURS: [&str; 3] = ["minicpm5_xml", "glimmer", "inkling"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&OURS);
}

#[test]
fn prose_mentioning_the_markers_is_not_claimed() {
    for prose in [
        "MiniCPM 5 calls tools with `<function name=\"x\">` elements.",
        "Inkling ends each block with `<|end_message|>`; a call opens with \
         `<|content_invoke_tool_json|>`.",
        " to=user<|message|>Glimmer wraps calls in `<atem:function_calls>`.<|eot|>",
        "```\nthen <function name=\"get_weather\"><param name=\"city\">Paris</param></function>\n```",
    ] {
        let report = detect(prose);
        // The markers make our formats candidates (one may name the report), but nothing is
        // read and nothing is reported.
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(!report.has_errors(), "{prose}: {:?}", report.diagnostics);
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(&OURS);
}

#[test]
fn poolside_v1_names_the_glm45_format() {
    let set = ProtocolSet::standard();
    let protocol = set.get("poolside_v1").expect("alias resolves");
    assert_eq!(protocol.id(), "glm45");
    let minicpm = set.get("minicpm5").expect("alias resolves");
    assert_eq!(minicpm.id(), "minicpm5_xml");
    let glimmer = set.get("muse_glimmer").expect("alias resolves");
    assert_eq!(glimmer.id(), "glimmer");
}

/// The calls of a case from `reference_cases.jsonl`, typed from its own tools.
fn case_calls(set: &ProtocolSet, case: &Value) -> Vec<(String, Value)> {
    let reply = case["reply"].as_str().unwrap_or_default();
    let mut report = parser::parse(set, reply, case["format"].as_str()).expect("known format");
    let tools = case["tools"].as_array().cloned().unwrap_or_default();
    parser::type_arguments(&mut report, |name| {
        tools
            .iter()
            .find(|t| t["function"]["name"] == name)
            .map(|t| t["function"]["parameters"].clone())
    });
    calls(&report)
}

#[test]
fn the_reference_cases_agree() {
    let set = ProtocolSet::standard();
    let corpus = std::fs::read_to_string(fixtures_root().join("eval/reference_cases.jsonl"))
        .expect("reference corpus");
    let mut checked = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON case");
        let id = case["id"].as_str().unwrap_or_default();
        let ours = ["minicpm5:", "poolside-v1:", "inkling:", "glimmer:"];
        if !ours.iter().any(|prefix| id.contains(prefix)) {
            continue;
        }
        let expected: Vec<(String, Value)> = case["expected"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                let name = c["name"].as_str().unwrap_or_default().to_owned();
                (name, c["arguments"].clone())
            })
            .collect();
        assert_eq!(case_calls(&set, &case), expected, "{id}");
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} cases");
}

/// A reply of about `bytes` made of `unit` repeated.
fn repeated(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len() + 1)
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let set = ProtocolSet::standard();
    let megabyte = 1 << 20;
    let minicpm = "<function name=\"get_weather\"><param name=\"city\">Paris</param></function>\n";
    let report = parser::parse(&set, &repeated(minicpm, megabyte), Some("minicpm5_xml"))
        .expect("known format");
    assert!(report.requests.len() > 10_000);
    assert_eq!(report.requests[0].args["city"], json!("Paris"));
    // Broken calls: an unclosed parameter in each, and calls that never close.
    for broken in [
        "<function name=\"f\"><param name=\"a\">1</function>\n",
        "<function name=\"f\"><param name=\"a\">1</param>\n",
        "<function name=\"f\"><param>1</param></function>\n",
    ] {
        let report = parser::parse(&set, &repeated(broken, megabyte), Some("minicpm5_xml"))
            .expect("known format");
        assert!(report.requests.is_empty());
    }
    let glimmer = "<|start|>assistant to=get_weather<|message|><atem:function_calls>\n\
                   <atem:invoke name=\"get_weather\">\n\
                   <atem:parameter name=\"city\">Paris</atem:parameter>\n\
                   </atem:invoke>\n</atem:function_calls><|eom|>";
    let report =
        parser::parse(&set, &repeated(glimmer, megabyte), Some("glimmer")).expect("known format");
    assert!(report.requests.len() > 5_000);
    for broken in [
        "<|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"f\">\n\
         <atem:parameter name=\"a\">1\n</atem:invoke>\n</atem:function_calls><|eom|>",
        "<|start|>assistant to=user<|message|>see <atem:invoke name=\"f\"></atem:invoke> here<|eot|>",
        "<atem:invoke name=\"f\"><atem:parameter name=\"a\">1",
    ] {
        let report = parser::parse(&set, &repeated(broken, megabyte), Some("glimmer"))
            .expect("known format");
        assert!(report.requests.is_empty(), "{broken}");
    }
    let inkling = "<|message_model|>get_weather<|content_invoke_tool_json|>\
                   {\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}<|end_message|>";
    let report =
        parser::parse(&set, &repeated(inkling, megabyte), Some("inkling")).expect("known format");
    assert!(report.requests.len() > 5_000);
    let broken = "<|content_invoke_tool_json|>{\"name\":\"f\",\"args\":{\"a\":<|end_message|>";
    let report =
        parser::parse(&set, &repeated(broken, megabyte), Some("inkling")).expect("known format");
    assert!(report.requests.is_empty());
}
