//! Auto-detect on the second sweep's misreadings: Anthropic XML calls (`anthropic_xml`, not
//! OLMo 3's `<function_calls>` Python lines), OpenHands' bare `<function=…>` with
//! `<parameter=…>` (Qwen3-Coder's layout, not Functionary v3.1's JSON body), MiniCPM3's fenced
//! Python between LFM2's tokens and Gemma's `default_api.` namespace.
mod support;

use serde_json::json;
use support::{assert_auto_detect_matches_named, calls, cases, detect};

const FORMATS: &[&str] = &["anthropic_xml", "olmo3", "lfm2", "gemma"];

#[test]
fn auto_detect_reads_each_fixture_as_its_own_format() {
    assert_auto_detect_matches_named(&["anthropic_xml", "lfm2", "gemma"]);
}

#[test]
fn anthropic_xml_is_not_olmo3_and_olmo3_is_not_anthropic_xml() {
    let xml =
        "<function_calls>\n<invoke name=\"Bash\">\n<parameter name=\"command\">ls</parameter>\n\
               </invoke>\n</function_calls>";
    let report = detect(xml);
    assert_eq!(report.format, "anthropic_xml");
    assert_eq!(
        calls(&report),
        vec![("Bash".to_owned(), json!({"command": "ls"}))]
    );
    assert!(!report.has_errors(), "{:?}", report.diagnostics);

    // Named, OLMo 3 skips such a block with one warning instead of an error per line.
    let set = toolscope_protocol::ProtocolSet::standard();
    let named = toolscope_protocol::parser::parse(&set, xml, Some("olmo3")).expect("known");
    assert!(
        named.requests.is_empty() && !named.has_errors(),
        "{:?}",
        named.diagnostics
    );

    let olmo = "<function_calls>\nget_weather(city=\"Paris\")\n</function_calls>";
    let report = detect(olmo);
    assert_eq!(report.format, "olmo3");
    assert_eq!(report.requests.len(), 1);
    // Every OLMo 3 fixture with calls stays OLMo 3's (the one with XML invokes has none).
    let set = toolscope_protocol::ProtocolSet::standard();
    for (path, text) in cases("olmo3") {
        let named = toolscope_protocol::parser::parse(&set, &text, Some("olmo3")).expect("known");
        if !named.requests.is_empty() {
            assert_eq!(detect(&text).format, "olmo3", "{}", path.display());
        }
    }
}

#[test]
fn minimax_replies_stay_minimax() {
    assert_auto_detect_matches_named(&["minimax_m2"]);
    for (path, text) in cases("minimax_m2") {
        let report = detect(&text);
        assert!(
            report.format != "anthropic_xml" || report.requests.is_empty(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn openhands_parameter_calls_go_to_qwen3_coder_and_json_bodies_to_functionary() {
    let openhands = "Sure! Let me first check the current directory:\n<function=execute_bash>\n\
                     <parameter=command>\npwd && ls\n</parameter>\n</function>";
    let report = detect(openhands);
    assert_eq!(report.format, "qwen3_coder");
    assert_eq!(
        calls(&report),
        vec![("execute_bash".to_owned(), json!({"command": "pwd && ls"}))]
    );
    let functionary = "<function=get_weather>{\"city\": \"Paris\"}</function>";
    assert_eq!(detect(functionary).format, "functionary_v31");
}

#[test]
fn a_cut_off_parameter_call_is_reported_by_qwen3_coder_not_functionary() {
    // continuedev/continue issue 13057: Qwen3-Coder stopped inside its last parameter, with no
    // closing tags. No format reads a call; the report must still be the layout's own.
    let report = detect(
        "I'll create it.\n<function=create_new_file>\n<parameter=filepath> test.txt\n<parameter=contents> hello",
    );
    assert_eq!(report.format, "qwen3_coder");
    assert!(report.requests.is_empty());
}

#[test]
fn prose_mentioning_the_markers_is_not_claimed() {
    for text in [
        "Claude writes `<function_calls>` with `<invoke name=\"X\">` inside.",
        "Use <|tool_call_start|> only in `code`.",
        "The `default_api.get_weather(city=\"Paris\")` helper is documented.",
    ] {
        let report = detect(text);
        assert!(report.requests.is_empty(), "{text}: {:?}", report.format);
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed_as_anthropic_xml() {
    let root = support::fixtures_root().join("parser");
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return;
    };
    for dir in dirs.filter_map(Result::ok) {
        let name = dir.file_name().to_string_lossy().into_owned();
        if FORMATS.contains(&name.as_str()) || !dir.path().is_dir() {
            continue;
        }
        for (path, text) in support::replies_in(&dir.path()) {
            let report = detect(&text);
            assert!(
                report.format != "anthropic_xml" || report.requests.is_empty(),
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn a_megabyte_of_calls_and_of_broken_calls_parses() {
    let call = "<invoke name=\"Bash\">\n<parameter name=\"command\">ls</parameter>\n</invoke>\n";
    let calls_reply = format!("<function_calls>\n{}</function_calls>", call.repeat(14_000));
    assert_eq!(detect(&calls_reply).requests.len(), 14_000);
    let broken = "<invoke name=\"Bash\">\n<parameter name=\"command\">ls\n".repeat(20_000);
    let _ = detect(&format!("<function_calls>\n{broken}"));
    let _ = detect(&broken);
    let fenced = format!(
        "<|tool_call_start|>\n```python\n{}```\n<|tool_call_end|>",
        "get_weather(city=\"Paris\")\n".repeat(40_000)
    );
    assert_eq!(detect(&fenced).requests.len(), 40_000);
}
