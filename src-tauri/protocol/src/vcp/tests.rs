use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::method::MethodMetadata;
use crate::result::{ErrorKind, ExecutionError};

fn codes(out: &ParseOutput) -> Vec<DiagnosticCode> {
    out.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn parses_the_seed_example() {
    let text = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」directory-tree_listFiles「末」\npath:「始」src/tools「末」\nrecursive:「始」false「末」\n<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(out.requests.len(), 1);
    let request = &out.requests[0];
    assert_eq!(request.tool_name, "directory-tree_listFiles");
    assert_eq!(
        Value::Object(request.args.clone()),
        json!({"path": "src/tools", "recursive": "false"})
    );
    assert_eq!(request.span, Span::new(0, text.len()));
    assert_eq!(request.raw_block, text);
    assert!(request.untyped_args);
    assert!(request.request_id.starts_with("call_"));
}

#[test]
fn keeps_explicit_request_id_and_multiline_values() {
    let text = "<<<[TOOL_REQUEST]>>>\nrequest_id:「始」 r-1 「末」\ntool_name:「始」workspace_write「末」\ncontent:「始」\nline one\n  line two\n「末」\n<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    let request = &out.requests[0];
    assert_eq!(request.request_id, "r-1");
    assert_eq!(request.args["content"], json!("line one\n  line two"));
}

#[test]
fn several_blocks_with_prose_around() {
    let text = "Let me check.\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」a_x「末」\n<<<[END_TOOL_REQUEST]>>>\nand then 日本語 prose\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」b_y「末」\nq:「始」1「末」\n<<<[END_TOOL_REQUEST]>>>\nDone.";
    let out = parse(text);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let names: Vec<_> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
    assert_eq!(names, ["a_x", "b_y"]);
    for request in &out.requests {
        assert_eq!(
            &text[request.span.start..request.span.end],
            request.raw_block
        );
        assert!(request.raw_block.starts_with(REQUEST_START));
        assert!(request.raw_block.ends_with(REQUEST_END));
    }
    assert_ne!(out.requests[0].request_id, out.requests[1].request_id);
}

#[test]
fn unclosed_value_skips_only_its_block() {
    let text = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」a_x「末」\npath:「始」oops\n<<<[END_TOOL_REQUEST]>>>\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」b_y「末」\n<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    assert_eq!(out.requests.len(), 1);
    assert_eq!(out.requests[0].tool_name, "b_y");
    assert_eq!(codes(&out), [DiagnosticCode::UnclosedValue]);
    let diag = &out.diagnostics[0];
    assert_eq!(diag.severity, Severity::Error);
    assert!(text[diag.span.start..diag.span.end].starts_with("path:「始」oops"));
    assert!(diag.message.contains("'path'"));
}

#[test]
fn unclosed_block_is_reported_and_later_blocks_parse() {
    let text = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」a_x「末」\n\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」b_y「末」\n<<<[END_TOOL_REQUEST]>>>\ntrailing <<<[TOOL_REQUEST]>>> tool_name:「始」c_z「末」";
    let out = parse(text);
    let names: Vec<_> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
    assert_eq!(names, ["b_y"]);
    assert_eq!(
        codes(&out),
        [DiagnosticCode::UnclosedBlock, DiagnosticCode::UnclosedBlock]
    );
    assert_eq!(out.diagnostics[0].span.start, 0);
    assert_eq!(out.diagnostics[1].span.end, text.len());
}

#[test]
fn missing_tool_name_and_stray_markers() {
    let text = "<<<[TOOL_REQUEST]>>>\npath:「始」x「末」\n<<<[END_TOOL_REQUEST]>>><<<[TOOL_REQUEST]>>>\ntool_name:「始」a_b「末」\n:「始」nokey「末」\n<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    // The keyless pair is ignored with a warning; its request still stands.
    let names: Vec<_> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
    assert_eq!(names, ["a_b"]);
    assert!(out.requests[0].args.is_empty());
    assert_eq!(
        codes(&out),
        [DiagnosticCode::MissingToolName, DiagnosticCode::StrayText]
    );
    let stray = &out.diagnostics[1];
    assert_eq!(stray.severity, Severity::Warning);
    assert_eq!(
        &text[stray.span.start..stray.span.end],
        ":「始」nokey「末」"
    );
    // Without a close it is an unclosed value and the request is skipped.
    let unclosed =
        parse("<<<[TOOL_REQUEST]>>>tool_name:「始」a_b「末」 「始」x<<<[END_TOOL_REQUEST]>>>");
    assert!(unclosed.requests.is_empty());
    assert_eq!(codes(&unclosed), [DiagnosticCode::UnclosedValue]);
}

#[test]
fn lazy_value_reports_swallowed_key() {
    // Regex semantics: 'b' has no close, so its value runs to c's close; warn about it.
    let text = "<<<[TOOL_REQUEST]>>>\ntool_name:「始」a_b「末」\nb:「始」2\nc:「始」3「末」\n<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    assert_eq!(out.requests[0].args["b"], json!("2\nc:「始」3"));
    assert_eq!(codes(&out), [DiagnosticCode::UnclosedValue]);
    assert_eq!(out.diagnostics[0].severity, Severity::Warning);
}

#[test]
fn duplicate_keys_warn_and_last_wins() {
    let text = "<<<[TOOL_REQUEST]>>>tool_name:「始」a_b「末」x:「始」1「末」x:「始」2「末」<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    assert_eq!(out.requests[0].args["x"], json!("2"));
    assert_eq!(codes(&out), [DiagnosticCode::DuplicateKey]);
}

#[test]
fn key_is_the_run_before_the_colon() {
    let text = "<<<[TOOL_REQUEST]>>>tool_name:「始」a_b「末」 note: my-key_2:「始」v「末」<<<[END_TOOL_REQUEST]>>>";
    let out = parse(text);
    assert_eq!(out.requests[0].args["my-key_2"], json!("v"));
    assert_eq!(codes(&out), [DiagnosticCode::StrayText]);
}

#[test]
fn no_blocks_means_nothing() {
    let out = parse("plain prose with 「始」 and 「末」 and <<<[END_TOOL_REQUEST]>>>");
    assert!(out.requests.is_empty());
    assert!(out.diagnostics.is_empty());
}

#[test]
fn definitions_use_vcp_command_and_parse_back_as_examples() {
    let method = MethodMetadata {
        name: "evaluate".into(),
        description: "Evaluates.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"expression": {"type": "string", "examples": ["1+2"]}},
            "required": ["expression"]
        }),
        agent_callable: true,
        protocol_config: Some(crate::method::ProtocolConfig {
            vcp_command: Some("Calculate".into()),
        }),
        annotations: Default::default(),
        output_schema: None,
    };
    let mut plain = method.clone();
    plain.name = "other".into();
    plain.protocol_config = None;
    let prompt = VcpProtocol.generate_tool_definitions(&[ToolDefinitionInput {
        tool_id: "calculator".into(),
        tool_name: "Calculator".into(),
        description: String::new(),
        methods: vec![method, plain],
    }]);
    assert_eq!(prompt.matches(DEFINITION_START).count(), 2);
    assert!(prompt.contains("command:「始」Calculate「末」"));
    assert!(prompt.contains("command:「始」other「末」"));
    assert!(prompt.contains("\"required\":true"));
    // The examples are real request blocks that this parser accepts.
    let out = parse(&prompt);
    let names: Vec<_> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "toolId_methodName",
            "calculator_evaluate",
            "calculator_other"
        ]
    );
    assert_eq!(out.requests[1].args["expression"], json!("1+2"));
}

#[test]
fn result_blocks_carry_status_and_error_kind() {
    let ok = ToolExecutionResult {
        request_id: "r1".into(),
        tool_name: "echo_echo".into(),
        status: ExecutionStatus::Success,
        result: "hi".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    };
    let failed = ToolExecutionResult {
        request_id: "r2".into(),
        status: ExecutionStatus::Error,
        result: "boom".into(),
        error: Some(ExecutionError::new(ErrorKind::Timeout, "boom")),
        ..ok.clone()
    };
    let text = VcpProtocol.format_tool_results(&[ok, failed]);
    assert_eq!(text.matches(RESULT_START).count(), 2);
    assert!(text.contains("request_id:「始」r1「末」\ntool_name:「始」echo_echo「末」\nstatus:「始」success「末」\nresult:「始」hi「末」"));
    assert!(text.contains("status:「始」error「末」\nerror_kind:「始」timeout「末」"));
}

fn vcp_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(REQUEST_START.to_owned()),
        Just(REQUEST_END.to_owned()),
        Just(VALUE_OPEN.to_owned()),
        Just(VALUE_CLOSE.to_owned()),
        Just("tool_name:".to_owned()),
        Just("request_id:".to_owned()),
        Just(":".to_owned()),
        Just("\n".to_owned()),
        "[a-z_-]{0,6}",
        "\\PC{0,4}",
    ]
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC*") {
        let _ = parse(&text);
    }

    #[test]
    fn spans_are_valid_for_marker_soup(parts in proptest::collection::vec(vcp_fragment(), 0..40)) {
        let text = parts.concat();
        let out = parse(&text);
        for request in &out.requests {
            prop_assert!(request.span.end <= text.len());
            prop_assert_eq!(&text[request.span.start..request.span.end], request.raw_block.as_str());
            prop_assert!(!request.tool_name.is_empty());
        }
        for diag in &out.diagnostics {
            prop_assert!(diag.span.start <= diag.span.end && diag.span.end <= text.len());
            prop_assert!(text.is_char_boundary(diag.span.start) && text.is_char_boundary(diag.span.end));
        }
    }

    #[test]
    fn generated_requests_round_trip(
        name in "[a-z]{1,8}_[a-zA-Z]{1,8}",
        args in proptest::collection::btree_map("[a-z][a-z0-9]{0,6}", "[^「」]{0,20}", 0..5),
        prose in "[^<「」]{0,30}",
    ) {
        let args: Map<String, Value> = args
            .into_iter()
            .filter(|(k, _)| k != "tool_name" && k != "request_id")
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let text = format!("{prose}{}{prose}", request_block(&name, &args));
        let out = parse(&text);
        prop_assert_eq!(out.requests.len(), 1);
        prop_assert_eq!(&out.requests[0].tool_name, &name);
        let expected: Map<String, Value> = args
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(trim_value(v.as_str().unwrap_or_default()).to_owned())))
            .collect();
        prop_assert_eq!(&out.requests[0].args, &expected);
    }
}
