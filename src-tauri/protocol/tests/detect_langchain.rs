//! Auto-detect for LangChain's text agents: every fixture of `langchain_json` and
//! `langchain_xml`, with no format named, yields the calls its own format extracts; a blob or
//! tags quoted in prose are not claimed, and neither are other formats' replies that use
//! `<tool>` or a bare JSON object; megabytes of steps parse in one pass.

use serde_json::json;

mod support;
use support::{assert_auto_detect_matches_named, assert_other_fixtures_not_claimed, calls, detect};

const OURS: &[&str] = &["langchain_json", "langchain_xml"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(OURS);
}

#[test]
fn a_fenced_blob_after_action_is_the_json_agent() {
    let report = detect(
        "Thought: I should search.\nAction:\n```json\n{\"action\": \"search\", \"action_input\": {\"q\": \"rust\"}}\n```",
    );
    assert_eq!(report.format, "langchain_json");
    assert_eq!(
        calls(&report),
        vec![("search".to_owned(), json!({"q": "rust"}))]
    );
}

#[test]
fn tool_tags_with_an_input_are_the_xml_agent_not_hermes() {
    let report = detect("<tool>search</tool><tool_input>weather in SF");
    assert_eq!(report.format, "langchain_xml");
    assert_eq!(
        calls(&report),
        vec![("search".to_owned(), json!({"input": "weather in SF"}))]
    );
}

#[test]
fn prose_is_not_claimed() {
    for prose in [
        "Answer with {\"action\": ..., \"action_input\": ...} when you need a tool.",
        "The `<tool_input>` tag holds the query.",
        "A JSON object like {\"action\": \"none\"} was returned by the API.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", calls(&report));
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    assert_other_fixtures_not_claimed(OURS);
}

#[test]
fn a_megabyte_of_steps_parses_in_one_pass() {
    let blob = "Action:\n```\n{\"action\": \"search\", \"action_input\": \"x\"}\n```\n";
    let text = blob.repeat((1 << 20) / blob.len());
    let report = detect(&text);
    assert_eq!(report.format, "langchain_json");
    assert_eq!(report.requests.len(), (1 << 20) / blob.len());

    let step = "<tool>search</tool><tool_input>x</tool_input>\n";
    let text = step.repeat((1 << 20) / step.len());
    let report = detect(&text);
    assert_eq!(report.format, "langchain_xml");
    assert_eq!(report.requests.len(), (1 << 20) / step.len());

    // Unclosed tags and blobs: each must end the scan for its block, not restart it.
    let broken = "<tool>search<tool_input>{\"action\": \"s\", \"action_input\": ";
    let text = broken.repeat((1 << 20) / broken.len());
    let _ = detect(&text);
}
