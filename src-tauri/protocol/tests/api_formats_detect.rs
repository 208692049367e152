//! Auto-detect of the API and seed-003 formats (json_strict, xml_tag, openai_chat, anthropic,
//! openai_responses, gemini): each is picked for its own replies, and adding them changes
//! nothing for the replies of the formats that were there before.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

const API_FORMATS: &[&str] = &[
    "json_strict",
    "xml_tag",
    "openai_chat",
    "anthropic",
    "openai_responses",
    "gemini",
    // llama.cpp's generic JSON object: its {"tool_calls": [...]} replies are json_strict's.
    "llama_cpp_generic",
];

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/parser")
}

fn cases(format: &str) -> Vec<(String, String)> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures_root().join(format))
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            let text = std::fs::read_to_string(&path).expect("fixture is utf-8");
            (name, text)
        })
        .collect()
}

fn detect(set: &ProtocolSet, text: &str) -> ParseReport {
    parser::parse(set, text, None).expect("auto-detect never fails")
}

/// The standard set without the formats under test: what detection was before them.
fn without_api_formats() -> ProtocolSet {
    ProtocolSet::from_protocols(
        ProtocolSet::standard()
            .iter()
            .filter(|p| !API_FORMATS.contains(&p.id()))
            .cloned()
            .collect(),
    )
}

/// A report with generated request ids blanked, for comparing two parses of one reply.
fn comparable(report: &ParseReport) -> Value {
    let mut value = serde_json::to_value(report).expect("serialises");
    if let Some(requests) = value["requests"].as_array_mut() {
        for request in requests {
            request["request_id"] = Value::Null;
        }
    }
    value
}

#[test]
fn every_api_format_is_registered_and_detectable() {
    let set = ProtocolSet::standard();
    for id in API_FORMATS {
        let protocol = set.get(id).unwrap_or_else(|| panic!("{id} is registered"));
        let signature = protocol.signature();
        assert!(
            !signature.markers.is_empty() || !signature.prefixes.is_empty(),
            "{id} has a signature, or auto-detect never finds it"
        );
    }
}

/// Fixtures whose calls another format claims in auto-detect.
const DETECTED_AS_OTHER: &[(&str, &str, &str)] = &[
    // An OpenAI message in the json_strict directory, to show json_strict rejecting it.
    (
        "json_strict",
        "08_openai_message_is_not_json_strict.txt",
        "openai_chat",
    ),
    // llama.cpp's parallel-call shape is JSON_Strict's, read with the same calls.
    (
        "llama_cpp_generic",
        "02_tool_calls_with_ids.txt",
        "json_strict",
    ),
    ("llama_cpp_generic", "06_parallel_calls.txt", "json_strict"),
    (
        "llama_cpp_generic",
        "07_bad_call_keeps_neighbours.txt",
        "json_strict",
    ),
];

#[test]
fn each_format_is_detected_on_its_own_replies_with_calls() {
    let set = ProtocolSet::standard();
    let mut checked = 0;
    for format in API_FORMATS {
        for (name, text) in cases(format) {
            let named = parser::parse(&set, &text, Some(format)).expect("known format");
            let expected = DETECTED_AS_OTHER
                .iter()
                .find(|(f, n, _)| f == format && *n == name)
                .map_or(*format, |(_, _, other)| *other);
            if named.requests.is_empty() && expected == *format {
                continue;
            }
            let report = detect(&set, &text);
            assert_eq!(
                report.format, expected,
                "{format}/{name}: detected as {} ({:?})",
                report.format, report.diagnostics
            );
            assert!(report.detected);
            if expected == *format {
                assert_eq!(
                    comparable(&report)["requests"],
                    comparable(&named)["requests"],
                    "{format}/{name}: detection found other calls than the named format"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} fixtures with calls");
}

#[test]
fn replies_without_calls_are_read_as_their_api_format() {
    let set = ProtocolSet::standard();
    for (format, file, content) in [
        (
            "openai_chat",
            "06_plain_text_no_calls.txt",
            "The capital of France is Paris. No tool is needed for that.",
        ),
        (
            "anthropic",
            "06_plain_text_no_calls.txt",
            "Paris is the capital of France.\n\nNo tool call was needed.",
        ),
        (
            "openai_responses",
            "06_plain_message_no_calls.txt",
            "Nothing to call: 2 + 2 = 4.",
        ),
        (
            "gemini",
            "06_text_only_no_calls.txt",
            "The Eiffel Tower is 330 m tall. No function was needed.",
        ),
    ] {
        let text = cases(format)
            .into_iter()
            .find(|(name, _)| name == file)
            .map(|(_, text)| text)
            .unwrap_or_else(|| panic!("{format}/{file} exists"));
        let report = detect(&set, &text);
        assert_eq!(report.format, format, "{format}/{file}");
        assert!(report.requests.is_empty());
        assert!(
            !report.has_errors(),
            "{format}/{file}: {:?}",
            report.diagnostics
        );
        assert_eq!(report.content, content, "{format}/{file}");
    }
    // Plain prose is no format at all.
    let prose = detect(&set, "The answer is 4.");
    assert_eq!(prose.format, "none");
}

#[test]
fn the_formats_that_were_there_before_detect_as_before() {
    let before = without_api_formats();
    let after = ProtocolSet::standard();
    let mut formats: Vec<String> = std::fs::read_dir(fixtures_root())
        .expect("fixtures directory exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|f| !API_FORMATS.contains(&f.as_str()))
        .collect();
    formats.sort();
    let mut checked = 0;
    for format in &formats {
        for (name, text) in cases(format) {
            let old = detect(&before, &text);
            let new = detect(&after, &text);
            assert_eq!(
                comparable(&new),
                comparable(&old),
                "{format}/{name}: auto-detect changed with the API formats registered"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} fixtures of earlier formats");
    // The ones the brief names, explicitly.
    for (format, sample) in [
        (
            "hermes",
            "<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hi\"}}\n</tool_call>",
        ),
        (
            "mistral",
            "[TOOL_CALLS][{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hi\"}}]",
        ),
        (
            "llama3_json",
            "{\"name\": \"echo_echo\", \"parameters\": {\"message\": \"hi\"}}",
        ),
        (
            "llama3_json",
            "<|python_tag|>{\"name\": \"echo_echo\", \"parameters\": {\"message\": \"hi\"}}",
        ),
    ] {
        let report = detect(&after, sample);
        assert_eq!(report.format, format, "{sample}");
        assert_eq!(report.requests.len(), 1);
        assert!(
            report.diagnostics.is_empty(),
            "{sample}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn formats_sharing_a_marker_are_told_apart() {
    let set = ProtocolSet::standard();
    // "tool_calls": the flat seed-003 shape is json_strict, OpenAI's nested shape openai_chat.
    let strict = detect(
        &set,
        r#"{"tool_calls": [{"id": "c1", "name": "echo_echo", "arguments": {"message": "hi"}}]}"#,
    );
    assert_eq!(strict.format, "json_strict");
    assert!(strict.diagnostics.is_empty(), "{:?}", strict.diagnostics);
    let openai = detect(
        &set,
        r#"{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "echo_echo", "arguments": "{\"message\": \"hi\"}"}}]}"#,
    );
    assert_eq!(openai.format, "openai_chat");
    assert!(openai.diagnostics.is_empty(), "{:?}", openai.diagnostics);
    // "function_call": a Responses item is not a Chat Completions legacy call.
    let responses = detect(
        &set,
        r#"{"object": "response", "output": [{"type": "function_call", "call_id": "c2", "name": "echo_echo", "arguments": "{}"}]}"#,
    );
    assert_eq!(responses.format, "openai_responses");
    assert_eq!(responses.requests[0].request_id, "c2");
    let legacy = detect(
        &set,
        r#"{"role": "assistant", "content": null, "function_call": {"name": "echo_echo", "arguments": "{}"}}"#,
    );
    assert_eq!(legacy.format, "openai_chat");
    // <tool_code> is xml_tag's alone.
    let xml = detect(
        &set,
        "Calling.\n<tool_code>{\"name\": \"echo_echo\", \"arguments\": {}}</tool_code>",
    );
    assert_eq!(xml.format, "xml_tag");
    // A text-format call holding API-looking JSON stays that format's.
    let hermes = detect(
        &set,
        "<tool_call>\n{\"type\": \"function\", \"function\": {\"name\": \"echo_echo\", \"arguments\": \"{}\"}}\n</tool_call>",
    );
    assert_eq!(hermes.format, "hermes");
    assert!(hermes.diagnostics.is_empty(), "{:?}", hermes.diagnostics);
}

#[test]
fn reasoning_never_yields_calls_in_any_api_format() {
    let set = ProtocolSet::standard();
    for (format, text) in [
        (
            "anthropic",
            r#"{"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}], "stop_reason": "end_turn"}"#,
        ),
        (
            "gemini",
            r#"{"candidates": [{"content": {"parts": [{"text": "{\"functionCall\": {\"name\": \"f\"}}", "thought": true}]}}]}"#,
        ),
        (
            "openai_responses",
            r#"{"object": "response", "output": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": "\"function_call\""}]}]}"#,
        ),
        (
            "json_strict",
            "<think>{\"tool_calls\": [{\"name\": \"f\", \"arguments\": {}}]}</think>Nothing to do.",
        ),
    ] {
        let report = parser::parse(&set, text, Some(format)).expect("known");
        assert!(
            report.requests.is_empty(),
            "{format}: {:?}",
            report.requests
        );
        assert!(!report.has_errors(), "{format}: {:?}", report.diagnostics);
    }
}

/// Every reply cut at every character: no panic, spans inside the reply on character
/// boundaries, raw blocks equal to the text at their spans, and, for the JSON document formats,
/// only calls the whole reply has (a cut never invents a call: the calls completed before the
/// cut are the ones recovered). xml_tag is exempt from the last: like hermes, it decodes a tag
/// the reply ends in, which a later tag would have shown to be unclosed.
#[test]
fn every_prefix_of_every_reply_parses_safely() {
    let set = ProtocolSet::standard();
    for format in API_FORMATS {
        let protocol = set.get(format).expect("registered");
        for (name, text) in cases(format) {
            let whole: Vec<(String, Value)> = protocol
                .parse_tool_requests(&text)
                .requests
                .into_iter()
                .map(|r| (r.tool_name, Value::Object(r.args)))
                .collect();
            for (cut, _) in text.char_indices() {
                let prefix = &text[..cut];
                let out = protocol.parse_tool_requests(prefix);
                for request in &out.requests {
                    let span = request.span;
                    assert!(
                        span.start <= span.end
                            && span.end <= prefix.len()
                            && prefix.is_char_boundary(span.start)
                            && prefix.is_char_boundary(span.end),
                        "{format}/{name} cut at {cut}: bad span {span:?}"
                    );
                    assert_eq!(prefix[span.start..span.end], request.raw_block);
                    let call = (
                        request.tool_name.clone(),
                        Value::Object(request.args.clone()),
                    );
                    assert!(
                        *format == "xml_tag" || whole.contains(&call),
                        "{format}/{name} cut at {cut}: {call:?} is not a call of the whole reply"
                    );
                }
                for diagnostic in &out.diagnostics {
                    let span = diagnostic.span;
                    assert!(
                        span.start <= span.end && span.end <= prefix.len(),
                        "{format}/{name} cut at {cut}: bad diagnostic span {span:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn definitions_and_results_are_the_api_payloads() {
    use serde_json::json;
    use toolscope_protocol::method::MethodMetadata;
    use toolscope_protocol::result::{ExecutionStatus, ToolExecutionResult};
    use toolscope_protocol::ToolDefinitionInput;
    let tools = vec![ToolDefinitionInput {
        tool_id: "files".into(),
        tool_name: "Files".into(),
        description: "File tools".into(),
        methods: vec![MethodMetadata {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            agent_callable: true,
            protocol_config: None,
            annotations: Default::default(),
            output_schema: None,
        }],
    }];
    let executed = vec![ToolExecutionResult {
        request_id: "call_7".into(),
        tool_name: "files_read".into(),
        status: ExecutionStatus::Success,
        result: "hello".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    }];
    let set = ProtocolSet::standard();
    let payload = |id: &str| {
        let protocol = set.get(id).expect("registered");
        let definitions: Value =
            serde_json::from_str(&protocol.generate_tool_definitions(&tools)).expect("JSON");
        let results: Value =
            serde_json::from_str(&protocol.format_tool_results(&executed)).expect("JSON");
        (definitions, results)
    };
    let (definitions, results) = payload("openai_chat");
    assert_eq!(definitions[0]["function"]["name"], json!("files_read"));
    assert_eq!(
        results,
        json!([{"role": "tool", "tool_call_id": "call_7", "content": "hello"}])
    );
    let (definitions, results) = payload("anthropic");
    assert_eq!(definitions[0]["name"], json!("files_read"));
    assert_eq!(definitions[0]["input_schema"]["type"], json!("object"));
    assert_eq!(results["content"][0]["tool_use_id"], json!("call_7"));
    assert_eq!(results["content"][0]["is_error"], json!(false));
    let (definitions, results) = payload("openai_responses");
    assert_eq!(definitions[0]["name"], json!("files_read"));
    assert_eq!(
        results,
        json!([{"type": "function_call_output", "call_id": "call_7", "output": "hello"}])
    );
    let (definitions, results) = payload("gemini");
    assert_eq!(
        definitions[0]["functionDeclarations"][0]["name"],
        json!("files_read")
    );
    assert_eq!(
        results["parts"][0]["functionResponse"]["response"],
        json!({"output": "hello"})
    );
    for id in ["json_strict", "xml_tag"] {
        let protocol = set.get(id).expect("registered");
        let prompt = protocol.generate_tool_definitions(&tools);
        assert!(prompt.contains("files_read"), "{id}: {prompt}");
        let line: Value = serde_json::from_str(protocol.format_tool_results(&executed).trim())
            .expect("one JSON line");
        assert_eq!(
            line,
            json!({"tool_call_result": {"toolCallId": "call_7", "result": "hello"}})
        );
    }
}
