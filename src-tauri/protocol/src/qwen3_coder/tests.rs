//! Tests of `qwen3_coder`, kept beside it so the module itself stays readable.

use super::*;
use crate::request::Severity;
use serde_json::json;

fn parse(text: &str) -> ParseOutput {
    Qwen3Coder.parse_tool_requests(text)
}

fn calls(out: &ParseOutput) -> Vec<(String, Value)> {
    out.requests
        .iter()
        .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
        .collect()
}

fn codes(out: &ParseOutput) -> Vec<(Severity, DiagnosticCode)> {
    out.diagnostics
        .iter()
        .map(|d| (d.severity, d.code))
        .collect()
}

const WEATHER: &str = "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis, France\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";

#[test]
fn a_call_gives_untyped_text_values() {
    let text = format!("Let me check.\n{WEATHER}");
    let out = parse(&text);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        calls(&out),
        vec![(
            "get_weather".to_owned(),
            json!({"location": "Paris, France", "days": "3"})
        )]
    );
    let request = &out.requests[0];
    assert!(request.untyped_args);
    assert_eq!(request.format, "qwen3_coder");
    assert_eq!(request.raw_block, WEATHER);
    assert_eq!(out.content, "Let me check.");
}

#[test]
fn exactly_one_layout_newline_is_stripped_each_side() {
    let out = parse(
        "<function=f>\n<parameter=a>\n\n  two lines\nhere  \n\n</parameter>\n\
         <parameter=b>inline</parameter><parameter=c>\r\nwin\r\n</parameter></function>",
    );
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        calls(&out),
        vec![(
            "f".to_owned(),
            json!({"a": "\n  two lines\nhere  \n", "b": "inline", "c": "win"})
        )]
    );
}

#[test]
fn a_bare_function_and_several_per_tool_call() {
    let out = parse(
        "<function=a>\n</function> and <tool_call><function=b>\n<parameter=x>\n1\n\
         </parameter>\n</function><function=c></function></tool_call>",
    );
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(
        calls(&out),
        vec![
            ("a".to_owned(), json!({})),
            ("b".to_owned(), json!({"x": "1"})),
            ("c".to_owned(), json!({})),
        ]
    );
    assert_eq!(out.requests[2].raw_block, "<function=c></function>");
    assert_eq!(out.content, "and");
}

#[test]
fn think_is_never_parsed() {
    let out = parse(&format!("<think>maybe {WEATHER}</think>ok"));
    assert!(out.requests.is_empty());
    assert!(out.diagnostics.is_empty());
    assert_eq!(out.content, "ok");
}

#[test]
fn a_missing_parameter_close_is_read_up_to_the_next_tag() {
    let out = parse(
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n\
         <parameter=c>\n3\n</function>\n</tool_call>",
    );
    assert_eq!(
        calls(&out),
        vec![("f".to_owned(), json!({"a": "1", "b": "2", "c": "3"}))]
    );
    assert_eq!(
        codes(&out),
        vec![
            (Severity::Warning, DiagnosticCode::UnclosedValue),
            (Severity::Warning, DiagnosticCode::UnclosedValue)
        ]
    );
}

#[test]
fn a_missing_function_close_is_read_up_to_the_tool_call_close() {
    let out = parse("<tool_call><function=f><parameter=a>1</parameter></tool_call>");
    assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": "1"}))]);
    assert_eq!(
        codes(&out),
        vec![(Severity::Warning, DiagnosticCode::UnclosedBlock)]
    );
}

#[test]
fn duplicate_parameters_warn_and_the_last_wins() {
    let out = parse("<function=f><parameter=a>1</parameter><parameter=a>2</parameter></function>");
    assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": "2"}))]);
    assert_eq!(
        codes(&out),
        vec![(Severity::Warning, DiagnosticCode::DuplicateKey)]
    );
}

#[test]
fn broken_calls_are_skipped_and_their_neighbours_kept() {
    for broken in [
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        "<tool_call>\n<function=>\n</function>\n</tool_call>",
        "<tool_call>\n<function=f>\n<parameter=>\nx\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>\n<function=f\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>",
    ] {
        let out = parse(&format!("{WEATHER}\n{broken}\n{WEATHER}"));
        assert_eq!(out.requests.len(), 2, "{broken}");
        assert!(out.has_errors(), "{broken}");
    }
}

#[test]
fn text_outside_parameters_is_ignored_with_a_warning() {
    // vLLM's and SGLang's `findall` ignore it: a note keeps the parameters around it, a JSON
    // body gives a call without arguments.
    for (body, args) in [
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\nnote\n<parameter=b>\nx\n</parameter>\n</function>\n</tool_call>",
            json!({"a": "1", "b": "x"}),
        ),
        ("<tool_call>\n<function=f>\n{\"a\": 1}\n</function>\n</tool_call>", json!({})),
        ("<function=f>{\"a\": 1}</function>", json!({})),
        ("<function=f>\n<parameter=a>\n1\n</parameter>\ndone</function>", json!({"a": "1"})),
    ] {
        let out = parse(body);
        assert_eq!(calls(&out), vec![("f".to_owned(), args)], "{body}");
        assert_eq!(
            codes(&out),
            vec![(Severity::Warning, DiagnosticCode::StrayText)],
            "{body}"
        );
    }
}

#[test]
fn a_reply_cut_after_the_last_parameter_is_decoded_with_a_warning() {
    for end in ["", "\n</func", "\n</function>\n", "\n</function>\n</tool_c"] {
        let text = format!("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>{end}");
        let out = parse(&text);
        assert_eq!(
            calls(&out),
            vec![("f".to_owned(), json!({"a": "1"}))],
            "{end:?}"
        );
        assert!(!out.has_errors(), "{end:?}: {:?}", out.diagnostics);
        assert_eq!(out.diagnostics.len(), 1, "{end:?}: {:?}", out.diagnostics);
    }
}

#[test]
fn a_reply_cut_inside_a_value_skips_the_call() {
    // The value is cut off (`rm -rf /tmp/build` cut to `rm -rf /`): no call, as in SGLang,
    // which needs `</tool_call>`; the complete call before it stays.
    for cut in [
        "<tool_call>\n<function=f>\n<parameter=a>\npartial val",
        "<function=f>\n<parameter=a>\npartial val",
    ] {
        let out = parse(&format!("{WEATHER}\n{cut}"));
        assert_eq!(out.requests.len(), 1, "{cut}");
        assert!(out.has_errors(), "{cut}: {:?}", out.diagnostics);
    }
}

#[test]
fn a_reply_cut_inside_a_tag_skips_the_call() {
    for cut in [
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<para",
        "<tool_call>\n<function=f>\n<parameter=a",
        "<tool_call>\n<function=get_wea",
    ] {
        let out = parse(&format!("{WEATHER}\n{cut}"));
        assert_eq!(out.requests.len(), 1, "{cut}");
        assert!(out.has_errors(), "{cut}");
    }
}

#[test]
fn results_and_definitions_follow_the_template() {
    let results = Qwen3Coder.format_tool_results(&[ToolExecutionResult {
        request_id: "c1".into(),
        tool_name: "f".into(),
        status: crate::result::ExecutionStatus::Success,
        result: "sunny".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    }]);
    assert_eq!(results, "<tool_response>\nsunny\n</tool_response>\n");
    let tools = [ToolDefinitionInput {
        tool_id: "weather".into(),
        tool_name: "Weather".into(),
        description: String::new(),
        methods: vec![crate::method::MethodMetadata {
            name: "get".into(),
            description: "Weather for a place.".into(),
            parameters: json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1}
            }, "required": ["city"]}),
            agent_callable: true,
            protocol_config: None,
            annotations: Default::default(),
            output_schema: None,
        }],
    }];
    let prompt = Qwen3Coder.generate_tool_definitions(&tools);
    for part in [
        "<tools>\n<function>\n<name>weather_get</name>\n<description>Weather for a place.</description>\n<parameters>\n<parameter>\n<name>city</name>\n<type>string</type>\n<description>City name</description>\n</parameter>",
        "<name>days</name>\n<type>integer</type>\n<minimum>1</minimum>\n</parameter>",
        "<required>[\"city\"]</required>\n</parameters>\n</function>\n</tools>",
        "<tool_call>\n<function=example_function_name>",
    ] {
        assert!(prompt.contains(part), "{part}\n---\n{prompt}");
    }
}

#[test]
fn any_mix_of_its_tags_never_panics_and_spans_hold() {
    const PARTS: [&str; 16] = [
        "<tool_call>",
        "</tool_call>",
        "<function=",
        "</function>",
        "<parameter=",
        "</parameter>",
        "<think>",
        "</think>",
        ">",
        "<",
        "\n",
        " ",
        "f",
        "x_y",
        "é東",
        "🙂",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..20_000 {
        let mut text = String::new();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut bits = seed;
        for _ in 0..(bits % 24) {
            bits = bits.rotate_left(5) ^ 0x9e37_79b9;
            let index = usize::try_from(bits % 16).unwrap_or(0);
            text.push_str(PARTS[index]);
        }
        let out = parse(&text);
        for request in &out.requests {
            assert_eq!(
                text.get(request.span.start..request.span.end),
                Some(request.raw_block.as_str())
            );
        }
        for d in &out.diagnostics {
            assert!(
                text.get(d.span.start..d.span.end).is_some(),
                "{text:?}: {d:?}"
            );
        }
    }
}
