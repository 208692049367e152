//! Mistral (tokenizers before v11: Mistral 7B v0.3, Mixtral 8x22B, Mistral Small/Large 2):
//! `[TOOL_CALLS] [{"name": …, "arguments": {…}, "id": …}, …]`.
//!
//! Tools are offered as `[AVAILABLE_TOOLS] [...] [/AVAILABLE_TOOLS]` and results come back as
//! `[TOOL_RESULTS] {"call_id": …, "content": …} [/TOOL_RESULTS]`. Magistral's reasoning sits
//! in `[THINK]…[/THINK]`, which is never parsed. Each call of the list gets its own span.

use serde_json::json;

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const TOOL_CALLS: &str = "[TOOL_CALLS]";
pub const THINK_OPEN: &str = "[THINK]";
pub const THINK_CLOSE: &str = "[/THINK]";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::reasoning(THINK_OPEN, THINK_CLOSE),
        Rule::call(TOOL_CALLS, JSON_VALUE).lenient(),
    ],
};

/// `[AVAILABLE_TOOLS] … [/AVAILABLE_TOOLS]`, shared with the v11 format.
pub fn available_tools(tools: &[ToolDefinitionInput]) -> String {
    let list = serde_json::Value::Array(function_definitions(tools));
    format!("[AVAILABLE_TOOLS] {list}[/AVAILABLE_TOOLS]")
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Mistral;

impl Protocol for Mistral {
    fn id(&self) -> &'static str {
        "mistral"
    }

    fn label(&self) -> &'static str {
        "Mistral [TOOL_CALLS] JSON list"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        available_tools(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let body = json!({"call_id": result.request_id, "content": result_value(result)});
            out.push_str(&format!("[TOOL_RESULTS] {body}[/TOOL_RESULTS]"));
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
            "the list after [TOOL_CALLS]",
        );
    }
}
