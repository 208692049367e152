//! Auto-detect for the ReAct and Glaive formats: every fixture of theirs, with no format
//! named, yields the calls its own format extracts; a reply with `Action:` and an
//! `Action Input:` line is ReAct, and prose that merely says "Action:" is not.

use serde_json::json;
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{assert_auto_detect_matches_named, calls, detect};

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&["react", "glaive"]);
}

#[test]
fn an_action_with_an_action_input_line_is_react() {
    let report = detect(
        "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}",
    );
    assert_eq!(report.format, "react");
    assert_eq!(
        calls(&report),
        vec![("get_weather".to_owned(), json!({"city": "Paris"}))]
    );
}

#[test]
fn prose_that_merely_says_action_is_not_react() {
    for prose in [
        "Action: none needed, the build is green.",
        "Next steps.\nAction: review the logs tomorrow.\nThe summary is above.",
        "We took Action: {\"city\": \"Paris\"} was the input.",
        "The form has an Action Input: field and a Submit button.",
        "Thought: easy.\nFinal Answer: 4",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(
            report.diagnostics.is_empty(),
            "{prose}: {:?}",
            report.diagnostics
        );
        if !prose.contains("Action Input") {
            // Not even a candidate: "Action:" alone is no evidence.
            assert_ne!(report.format, "react", "{prose}");
        }
    }
}

#[test]
fn a_glaive_call_is_detected_and_its_arguments_string_decoded() {
    let report = detect(
        "<functioncall> {\"name\": \"get_news_headlines\", \"arguments\": '{\"country\": \"United States\"}'} <|endoftext|>",
    );
    assert_eq!(report.format, "glaive");
    assert_eq!(
        calls(&report),
        vec![(
            "get_news_headlines".to_owned(),
            json!({"country": "United States"})
        )]
    );
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn a_megabyte_of_react_steps_parses_in_one_pass() {
    let step = "Thought: next.\nAction: get_weather\nAction Input: {\"city\": \"Paris\", \"days\": [1, 2, 3]}\nObservation: sunny\n";
    let text = step.repeat(1_000_000 / step.len());
    let started = std::time::Instant::now();
    let report = detect(&text);
    assert_eq!(report.requests.len(), 1_000_000 / step.len());
    // Generous: a quadratic walk would take minutes, a linear one milliseconds.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn unclosed_inputs_do_not_make_the_walk_quadratic() {
    let step = "Action: f\nAction Input: {\"a\": [\n";
    let text = step.repeat(1_000_000 / step.len());
    let started = std::time::Instant::now();
    let report = parser::parse(&ProtocolSet::standard(), &text, Some("react")).expect("named");
    assert!(report.requests.is_empty());
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}
