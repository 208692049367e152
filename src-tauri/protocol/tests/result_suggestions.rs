//! A failed call's suggestion reaches the model in every format's result block (seed 001:
//! the error, then what to do about it), and a result without one renders as before.

use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult};
use toolscope_protocol::ProtocolSet;

const SUGGESTION: &str = "There is no tool named weather_curent. Did you mean: weather_current?";

fn failed(suggestion: Option<&str>) -> ToolExecutionResult {
    let message = "no tool with id weather_curent is registered";
    ToolExecutionResult {
        request_id: "call_1".to_owned(),
        tool_name: "weather_curent".to_owned(),
        status: ExecutionStatus::Error,
        result: message.to_owned(),
        duration_ms: 0.0,
        error: Some(
            ExecutionError::new(ErrorKind::ToolNotFound, message)
                .with_suggestion(suggestion.map(str::to_owned)),
        ),
        truncated: None,
    }
}

#[test]
fn every_format_tells_the_suggestion_after_the_error() {
    let protocols = ProtocolSet::standard();
    let mut missing = Vec::new();
    for protocol in protocols.iter() {
        let text = protocol.format_tool_results(&[failed(Some(SUGGESTION))]);
        let error_at = text.find("no tool with id weather_curent");
        let suggestion_at = text.find(SUGGESTION);
        match (error_at, suggestion_at) {
            (Some(error), Some(suggestion)) if error < suggestion => {}
            _ => missing.push(format!("{}: {text}", protocol.id())),
        }
        let without = protocol.format_tool_results(&[failed(None)]);
        assert!(
            !without.contains("uggestion"),
            "{}: {without}",
            protocol.id()
        );
    }
    assert!(missing.is_empty(), "{}", missing.join("\n\n"));
}

#[test]
fn text_slots_use_the_seeds_suggestion_line_and_json_slots_a_key() {
    let protocols = ProtocolSet::standard();
    let result = [failed(Some(SUGGESTION))];
    let anthropic = protocols
        .get("anthropic")
        .expect("anthropic")
        .format_tool_results(&result);
    assert!(
        anthropic.contains(&format!("is registered\\n\\nSuggestion: {SUGGESTION}")),
        "{anthropic}"
    );
    let hermes = protocols
        .get("hermes")
        .expect("hermes")
        .format_tool_results(&result);
    assert!(
        hermes.contains(&format!(r#""kind":"tool_not_found","message":"no tool with id weather_curent is registered","suggestion":"{SUGGESTION}""#)),
        "{hermes}"
    );
    let vcp = protocols
        .get("vcp")
        .expect("vcp")
        .format_tool_results(&result);
    assert!(
        vcp.contains(&format!("suggestion:「始」{SUGGESTION}「末」")),
        "{vcp}"
    );
}
