//! The reader's pieces and the prompt Continue's format writes.

use serde_json::json;

use super::read::{after_label, argument_value, find_label, lines};
use super::*;
use crate::method::MethodMetadata;

#[test]
fn labels_match_in_any_case_with_or_without_the_underscore() {
    assert_eq!(
        after_label("TOOL_NAME: read_file", "tool_name:"),
        Some("read_file")
    );
    assert_eq!(after_label("toolname: x", "tool_name:"), Some("x"));
    assert_eq!(after_label("Begin_Arg:  path ", "begin_arg:"), Some("path"));
    assert!(find_label("see endarg here", "end_arg").is_some());
    assert!(find_label("END", "end_arg").is_none());
}

#[test]
fn raw_line_feeds_in_json_strings_are_escaped() {
    assert_eq!(argument_value("[\n\"a\nb\"\n]"), json!(["a\nb"]));
    assert_eq!(argument_value("\"x\""), json!("x"));
    assert_eq!(argument_value("{not json"), json!("{not json"));
    assert_eq!(argument_value(" 12 "), json!(12));
}

#[test]
fn lines_cover_the_region() {
    let text = "a\nbc\n\nd";
    let found: Vec<_> = lines(text, 0, text.len()).collect();
    assert_eq!(found, vec![(0, 1, 2), (2, 4, 5), (5, 5, 6), (6, 7, 7)]);
}

#[test]
fn definitions_follow_continues_tool_definition_blocks() {
    let tools = [ToolDefinitionInput {
        tool_id: "weather".into(),
        tool_name: "Weather".into(),
        description: String::new(),
        methods: vec![MethodMetadata {
            name: "get".into(),
            description: "Current weather.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"},
                               "days": {"type": "integer"}},
                "required": ["city"]
            }),
            agent_callable: true,
            protocol_config: None,
            annotations: Default::default(),
            output_schema: None,
        }],
    }];
    let text = ContinueTool.generate_tool_definitions(&tools);
    assert!(
        text.contains(
            "```tool_definition\nTOOL_NAME: weather_get\nTOOL_DESCRIPTION:\nCurrent weather.\n\
             TOOL_ARG: city (string, required)\nCity name\nEND_ARG\n\
             TOOL_ARG: days (integer, optional)\nEND_ARG\n```"
        ),
        "{text}"
    );
    // Of the prompt's blocks only its example call is a call: the definitions quote their
    // TOOL_NAME: lines inside ```tool_definition blocks.
    let names: Vec<String> = ContinueTool
        .parse_tool_requests(&text)
        .requests
        .into_iter()
        .map(|r| r.tool_name)
        .collect();
    assert_eq!(names, vec!["example_tool".to_owned()]);
}
