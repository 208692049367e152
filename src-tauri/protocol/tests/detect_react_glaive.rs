//! Auto-detect for the ReAct and Glaive formats: every fixture of theirs, with no format
//! named, yields the calls its own format extracts; a reply with `Action:` and an
//! `Action Input:` line is ReAct, and prose that merely says "Action:" is not.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

fn cases(format: &str) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/parser")
        .join(format);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("utf-8 fixture");
            (p, text)
        })
        .collect()
}

fn calls(report: &parser::ParseReport) -> Vec<(String, Value)> {
    report
        .requests
        .iter()
        .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
        .collect()
}

fn detect(text: &str) -> parser::ParseReport {
    parser::parse(&ProtocolSet::standard(), text, None).expect("auto-detect answers")
}

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    let set = ProtocolSet::standard();
    for format in ["react", "glaive"] {
        for (path, text) in cases(format) {
            let named = parser::parse(&set, &text, Some(format)).expect("known format");
            let auto = detect(&text);
            assert_eq!(calls(&auto), calls(&named), "{}", path.display());
            if !named.requests.is_empty() {
                assert_eq!(auto.format, format, "{}", path.display());
            }
        }
    }
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
