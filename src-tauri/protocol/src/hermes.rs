//! Hermes (NousResearch Hermes 2 Pro, Qwen 2.5 / QwQ / Qwen3 instruct): JSON in `<tool_call>` tags.
//!
//! The chat template lists the tools as JSON inside `<tools></tools>` and asks for
//! `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` per call; results go back in
//! `<tool_response>` tags. A reply cut off inside its last `<tool_call>` (generation stopped at
//! end-of-sequence) is still decoded, with a warning.

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<tool_call>";
pub const CALL_CLOSE: &str = "</tool_call>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Hermes;

impl Protocol for Hermes {
    fn id(&self) -> &'static str {
        "hermes"
    }

    fn label(&self) -> &'static str {
        "Hermes / Qwen <tool_call> JSON"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
             You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(
            "</tools>\n\nFor each function call, return a json object with function name and \
             arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
             {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let body = serde_json::json!({
                "name": result.tool_name,
                "tool_call_id": result.request_id,
                "content": result_value(result),
            });
            out.push_str("<tool_response>\n");
            out.push_str(&body.to_string());
            out.push_str("\n</tool_response>\n");
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the <tool_call> body",
        );
    }
}
