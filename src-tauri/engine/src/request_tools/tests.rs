use serde_json::json;
use toolscope_protocol::ProtocolSet;

use super::*;

fn weather_tools() -> RequestTools {
    RequestTools::new([
        RequestTool {
            name: "get_weather".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer", "minimum": 1}
                },
                "required": ["city"]
            }),
            routing_name: Some("Weather_get-weather".into()),
        },
        RequestTool {
            name: "get_time".into(),
            parameters: json!({"type": "object", "properties": {}}),
            routing_name: None,
        },
    ])
}

fn parsed(reply: &str) -> ParseReport {
    parser::parse(&ProtocolSet::standard(), reply, None).expect("auto-detect always answers")
}

#[test]
fn text_values_are_typed_from_the_request_schema_and_validated() {
    let tools = weather_tools();
    let mut report = parsed(
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n\
         <parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(report.format, "qwen3_coder");
    let checks = tools.check(&mut report);
    assert_eq!(report.requests[0].args["days"], json!(3));
    assert_eq!(checks[0].error, None);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}

#[test]
fn invalid_arguments_are_reported_with_their_paths() {
    let tools = weather_tools();
    let mut report =
        parsed(r#"<tool_call>{"name": "get_weather", "arguments": {"days": 0}}</tool_call>"#);
    let checks = tools.check(&mut report);
    let error = checks[0].error.as_ref().expect("invalid");
    assert_eq!(error.kind, ErrorKind::InvalidArgs);
    let paths: Vec<&str> = error.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths.len(), 2, "{error:?}");
    assert!(paths.contains(&"/days") && paths.contains(&"/"));
}

#[test]
fn a_call_to_a_tool_outside_the_request_stays_with_a_warning_and_suggestions() {
    let tools = weather_tools();
    let mut report = parsed(
        "<tool_call>{\"name\": \"get_wether\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>\n\
         <tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>",
    );
    let checks = tools.check(&mut report);
    assert_eq!(report.requests.len(), 2, "the unknown call is kept");
    let error = checks[0].error.as_ref().expect("unknown");
    assert_eq!(error.kind, ErrorKind::ToolNotFound);
    assert!(
        error.message.contains("closest: get_weather"),
        "{}",
        error.message
    );
    assert_eq!(checks[1].error, None);
    let warning = &report.diagnostics[0];
    assert_eq!(
        (warning.code, warning.severity),
        (DiagnosticCode::UnknownTool, Severity::Warning)
    );
    assert_eq!(warning.span, report.requests[0].span);
    assert!(
        !report.has_errors(),
        "an unknown tool is a warning, not a parse error"
    );
}

#[test]
fn calls_route_to_the_set_method_they_stand_for() {
    let tools = weather_tools();
    let report = parsed(
        r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>
<tool_call>{"name": "get_time", "arguments": {}}</tool_call>"#,
    );
    let mut checked = report.clone();
    let checks = tools.check(&mut checked);
    assert_eq!(
        checks[0].routing_name.as_deref(),
        Some("Weather_get-weather")
    );
    assert_eq!(checks[1].routing_name, None);
    let routed = tools.routed(&report.requests[0]).expect("routable");
    assert_eq!(routed.tool_name, "Weather_get-weather");
    assert_eq!(routed.args, report.requests[0].args);
    assert!(
        tools.routed(&report.requests[1]).is_none(),
        "no method behind it"
    );
}

#[test]
fn the_first_definition_of_a_name_wins_and_a_broken_schema_is_an_error_not_a_panic() {
    let tools = RequestTools::new([
        RequestTool {
            name: "f".into(),
            parameters: json!({"type": "object", "properties": {"x": {"type": 12}}}),
            routing_name: None,
        },
        RequestTool {
            name: "f".into(),
            parameters: json!({"type": "object"}),
            routing_name: None,
        },
    ]);
    assert_eq!(tools.len(), 1);
    let mut report = parsed(r#"<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>"#);
    let checks = tools.check(&mut report);
    let error = checks[0].error.as_ref().expect("schema error");
    assert!(
        error.message.contains("schema of 'f' is invalid"),
        "{}",
        error.message
    );
}

#[test]
fn no_tools_says_so() {
    let tools = RequestTools::new([]);
    let mut report = parsed(r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#);
    let checks = tools.check(&mut report);
    let message = &checks[0].error.as_ref().expect("unknown").message;
    assert!(message.contains("defines none"), "{message}");
}
