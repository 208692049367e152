use serde_json::json;

use super::*;
use crate::xml_markup::summary;

const CALL: &str =
    r#"{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}}"#;

#[test]
fn both_headers_with_and_without_content() {
    for text in [
        format!("I'll check that for you.{MESSAGE_SEP}{CALL_HEADER}\n{CALL}"),
        format!("I'll check that for you.{CALL_TOKEN}{CALL}</s>"),
    ] {
        let v = summary(&GigaChat3, &text);
        assert_eq!(v["calls"][0]["name"], "manage_user_memory", "{text}");
        assert_eq!(
            v["calls"][0]["args"],
            json!({"action": "create", "id": "preferences"})
        );
        assert_eq!(v["diagnostics"], json!([]), "{text}");
        assert_eq!(v["content"], "I'll check that for you.");
    }
}

#[test]
fn broken_and_cut_off_calls_are_errors() {
    let v = summary(
        &GigaChat3,
        &format!(
            "{CALL_HEADER}\n{{\"name\": \"a\", \"arguments\": {{\"x\": }}}}{CALL_TOKEN}{CALL}"
        ),
    );
    assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    let v = summary(
        &GigaChat3,
        &format!("{CALL_HEADER}\n{{\"name\": \"a\", \"argu"),
    );
    assert_eq!(v["calls"], json!([]));
    assert_eq!(v["diagnostics"][0]["severity"], "error");
}

#[test]
fn tools_as_a_typescript_namespace_and_results_as_turns() {
    let tools = [crate::ToolDefinitionInput {
        tool_id: "weather".into(),
        tool_name: "Weather".into(),
        description: String::new(),
        methods: vec![crate::method::MethodMetadata {
            name: "get".into(),
            description: "Current weather.\nIn Celsius.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                    "days": {"type": "array", "items": {"type": "integer"}, "maxItems": 7}
                },
                "required": ["city"]
            }),
            agent_callable: true,
            protocol_config: None,
            annotations: Default::default(),
            output_schema: None,
        }],
    }];
    assert_eq!(
        GigaChat3.generate_tool_definitions(&tools),
        "function descriptions<|role_sep|>\nnamespace functions {\n// Current weather.\n\
         // In Celsius.\ntype weather_get = (_: {\n  // City name\n  city: string,\n  \
         unit?: \"c\" | \"f\", // default: \"c\"\n  // maxItems: 7\n  days?: number[],\n}) => any;\n\n\
         } // namespace functions\n\n<|message_sep|>\n\n"
    );
    let result = ToolExecutionResult {
        request_id: "1".into(),
        tool_name: "weather_get".into(),
        status: crate::result::ExecutionStatus::Success,
        result: "{\"t\": 3}".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    };
    assert_eq!(
        GigaChat3.format_tool_results(&[result]),
        "function result<|role_sep|>\n{\"t\": 3}<|message_sep|>\n\n"
    );
}
