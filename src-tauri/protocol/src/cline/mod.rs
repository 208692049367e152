//! Cline's and Roo Code's XML tool use: `<read_file>\n<path>src/main.js</path>\n</read_file>`.
//! The tool is a tag named after it, each parameter a child tag named after the parameter, and
//! every value is text. Two formats, `cline` and `roo_code`, one reader ([`scan`]) with two
//! vocabularies ([`vocab`]).
//!
//! References: Cline `src/core/assistant-message/parse-assistant-message.ts`
//! (`parseAssistantMessageV2`), its tag lists (`index.ts` `toolParamNames`, `src/shared/tools.ts`
//! `ClineDefaultTool`) and the system prompt's examples (`src/core/prompts/system-prompt/`
//! snapshots); Roo Code `src/core/assistant-message/parseAssistantMessageV2.ts` /
//! `AssistantMessageParser.ts` with `packages/types/src/tool.ts` `toolNames` and
//! `src/shared/tools.ts` `toolParamNames`, and its tests
//! (`__tests__/parseAssistantMessage.spec.ts`), as of the last release before Roo removed XML
//! tool calls (January 2026).
//!
//! The grammar both parsers share:
//! - only a known tool name is a tool tag, only a known parameter name a parameter tag, and
//!   only in their exact form `<name>` (no attributes, no spaces); anything else is text;
//! - a tool may open anywhere (after prose on the same line too); any parameter tag opens a
//!   parameter inside any tool; a value runs to the first matching closing tag and nothing
//!   inside it is a tag (`<command>echo '<read_file>…'</command>` is one command); text in a
//!   tool's body outside the parameters is ignored; a parameter given twice keeps the last;
//! - `write_to_file`'s `content` runs from the first `<content>` to the last `</content>` of
//!   the tool's body, so a file that quotes `</content>` is kept whole;
//! - a tool the reply ends in is a partial tool use with the parameters read so far (a value
//!   the reply ends in runs to the end);
//! - values are trimmed, except that Roo Code keeps a `content` value's whitespace and drops one
//!   leading and one trailing line feed: the one difference in the grammar, and the reason the
//!   two agents are two formats rather than one with both vocabularies.
//!
//! Values stay text (`requires_approval` is `"false"`), typed later from the tool's schema.
//!
//! Deliberate differences:
//! - a tool tag that is followed by neither a parameter tag nor its own closing tag before the
//!   reply ends is prose that names the tool (the references open a tool there and swallow the
//!   rest of the reply); so is a tool tag right after a backtick (inline code);
//! - `<thinking>…</thinking>` and `<think>…</think>` outside a tool are reasoning: a tool
//!   drafted there is not a call (the references read tags everywhere) and the text is not
//!   content;
//! - `use_mcp_tool` is read as a call of the MCP tool it names, `SERVER_TOOL`, with its
//!   `<arguments>` JSON object as the arguments (the references keep the three strings; the
//!   agent's MCP handler then parses the JSON and calls that server's tool): the tool definitions list each tool as an MCP server whose
//!   tools are its methods, so the call routes to the method. Arguments that are not a JSON
//!   object are an error and the call is skipped (the agent answers the model with an error);
//!   a call without a server or tool name likewise;
//! - a parameter given twice keeps the last value, as in the references, with a warning;
//! - a tag in a tool's body that is not one of the agent's parameters (`<mode>` for Cline,
//!   `<task_progress>` for Roo) is an error: the agent drops it silently and runs the tool
//!   without it. This is also what tells the two formats apart when a reply uses a tool both
//!   know, as auto-detect prefers the reading with fewer errors.

mod scan;
mod vocab;

use serde_json::Value;

use crate::detect::Signature;
use crate::prompt::{pretty, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

use scan::{ContentValue, Dialect, USE_MCP_TOOL};

const CLINE: Dialect = Dialect {
    id: "cline",
    agent: "Cline",
    tools: vocab::CLINE_TOOLS,
    params: vocab::CLINE_PARAMS,
    content: ContentValue::Trimmed,
};

const ROO_CODE: Dialect = Dialect {
    id: "roo_code",
    agent: "Roo Code",
    tools: vocab::ROO_TOOLS,
    params: vocab::ROO_PARAMS,
    content: ContentValue::OneNewlineStripped,
};

/// Cline's XML tool use.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cline;

/// Roo Code's XML tool use (the same grammar, its own tools, `content` kept as written).
#[derive(Debug, Clone, Copy, Default)]
pub struct RooCode;

impl Protocol for Cline {
    fn id(&self) -> &'static str {
        CLINE.id
    }

    fn label(&self) -> &'static str {
        "Cline XML tool use (<read_file><path>…</path></read_file>)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        tool_use_prompt("Cline", tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        tool_results(results)
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        scan::parse(&CLINE, text)
    }

    fn signature(&self) -> Signature {
        Signature {
            markers: vocab::CLINE_TOOL_TAGS.to_vec(),
            ..Signature::default()
        }
    }
}

impl Protocol for RooCode {
    fn id(&self) -> &'static str {
        ROO_CODE.id
    }

    fn label(&self) -> &'static str {
        "Roo Code XML tool use (<apply_diff><path>…</path></apply_diff>)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        tool_use_prompt("Roo", tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        tool_results(results)
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        scan::parse(&ROO_CODE, text)
    }

    fn signature(&self) -> Signature {
        Signature {
            markers: vocab::ROO_TOOL_TAGS.to_vec(),
            ..Signature::default()
        }
    }
}

/// The tool-use section of the agents' system prompts: the tag format, then each tool as a
/// connected MCP server whose tools are its methods, called through `use_mcp_tool`.
fn tool_use_prompt(agent: &str, tools: &[ToolDefinitionInput]) -> String {
    let mut servers = String::new();
    for tool in tools {
        servers.push_str(&format!("## {}\n\n### Available Tools\n", tool.tool_id));
        for method in &tool.methods {
            servers.push_str(&format!(
                "- {}: {}\n    Input Schema:\n    {}\n\n",
                method.name,
                method.description,
                pretty(&method.parameters).replace('\n', "\n    ")
            ));
        }
    }
    let example = tools
        .iter()
        .find_map(|tool| Some((tool.tool_id.as_str(), tool.methods.first()?)))
        .map(|(server, method)| {
            let args = crate::example_args(&method.parameters);
            format!(
                "<{USE_MCP_TOOL}>\n<server_name>{server}</server_name>\n<tool_name>{}</tool_name>\n\
                 <arguments>\n{}\n</arguments>\n</{USE_MCP_TOOL}>",
                method.name,
                pretty(&Value::Object(args))
            )
        })
        .unwrap_or_default();
    format!(
        "TOOL USE\n\n\
         You can use tools; {agent} runs each one and gives you its result in the next message. \
         Use one tool per message.\n\n\
         # Tool Use Formatting\n\n\
         A tool use is an XML-style tag named after the tool, with one child tag per \
         parameter:\n\n\
         <tool_name>\n<parameter1_name>value1</parameter1_name>\n\
         <parameter2_name>value2</parameter2_name>\n</tool_name>\n\n\
         # Tools\n\n\
         ## {USE_MCP_TOOL}\n\
         Description: Calls a tool of a connected MCP server.\n\
         Parameters:\n\
         - server_name: (required) The server that provides the tool\n\
         - tool_name: (required) The tool to call\n\
         - arguments: (required) A JSON object with the tool's input, as its input schema \
         describes\n\
         Usage:\n\
         <{USE_MCP_TOOL}>\n<server_name>server name here</server_name>\n\
         <tool_name>tool name here</tool_name>\n<arguments>\n{{\n  \"param1\": \"value1\"\n}}\n\
         </arguments>\n</{USE_MCP_TOOL}>\n\n\
         For example:\n\n{example}\n\n\
         # Connected MCP Servers\n\n{servers}"
    )
}

/// Results as the agents feed them back in the next user message: a `[tool] Result:` header
/// and the output, or the error in `<error>` tags.
fn tool_results(results: &[ToolExecutionResult]) -> String {
    let mut out = String::new();
    for result in results {
        let text = match result_value(result) {
            Value::String(text) => text,
            other => pretty(&other),
        };
        if result.is_success() {
            out.push_str(&format!("[{}] Result:\n{text}\n\n", result.tool_name));
        } else {
            out.push_str(&format!(
                "[{}] Result:\nThe tool execution failed with the following error:\n<error>\n\
                 {text}\n</error>\n\n",
                result.tool_name
            ));
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::method::MethodMetadata;
    use crate::result::{ErrorKind, ExecutionError, ExecutionStatus};

    fn weather() -> Vec<ToolDefinitionInput> {
        vec![ToolDefinitionInput {
            tool_id: "weather".into(),
            tool_name: "Weather".into(),
            description: String::new(),
            methods: vec![MethodMetadata {
                name: "get".into(),
                description: "Current weather.".into(),
                parameters: json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["city"]
                }),
                agent_callable: true,
                protocol_config: None,
                annotations: Default::default(),
                output_schema: None,
            }],
        }]
    }

    #[test]
    fn the_prompts_example_calls_the_method_it_lists() {
        for protocol in [&Cline as &dyn Protocol, &RooCode] {
            let prompt = protocol.generate_tool_definitions(&weather());
            assert!(prompt.contains("## weather\n"), "{prompt}");
            assert!(prompt.contains("- get: Current weather."), "{prompt}");
            let example = prompt
                .split("For example:\n\n")
                .nth(1)
                .and_then(|rest| rest.split("\n\n# Connected").next())
                .unwrap_or_default();
            let parsed = protocol.parse_tool_requests(example);
            assert_eq!(parsed.requests.len(), 1, "{example}");
            assert_eq!(parsed.requests[0].tool_name, "weather_get");
            assert!(parsed.requests[0].args.contains_key("city"));
        }
    }

    #[test]
    fn results_come_back_under_the_tools_name() {
        let ok = ToolExecutionResult {
            request_id: "r1".into(),
            tool_name: "weather_get".into(),
            status: ExecutionStatus::Success,
            result: "{\"temp\": 21}".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        let failed = ToolExecutionResult {
            status: ExecutionStatus::Error,
            result: "no such city".into(),
            error: Some(ExecutionError::new(ErrorKind::Timeout, "no such city")),
            ..ok.clone()
        };
        let text = Cline.format_tool_results(&[ok, failed]);
        assert!(
            text.starts_with("[weather_get] Result:\n{\n  \"temp\": 21\n}"),
            "{text}"
        );
        assert!(text.contains("<error>\n"), "{text}");
        assert!(text.contains("no such city"), "{text}");
    }

    #[test]
    fn a_tool_tag_without_evidence_is_read_once_per_tool() {
        // Each `<read_file>` here has nothing after it; a later one must not rescan the reply.
        let text = "I'd use <read_file> here. ".repeat(50_000);
        let parsed = Cline.parse_tool_requests(&text);
        assert!(parsed.requests.is_empty());
        assert_eq!(parsed.content, text.trim());
    }
}
