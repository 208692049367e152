//! Tencent Hunyuan-A13B: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`, with the
//! visible answer wrapped in `<answer>…</answer>` after `<think>` reasoning.
//!
//! The call grammar is Jamba's (so auto-detect names both when a reply fits both); the
//! `<answer>` wrapper tokens are dropped from the content.

use serde_json::{json, Value};

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::jamba::{CLOSE, OPEN};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
        Rule::token("<answer>"),
        Rule::token("</answer>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Hunyuan;

impl Protocol for Hunyuan {
    fn id(&self) -> &'static str {
        "hunyuan"
    }

    fn label(&self) -> &'static str {
        "Hunyuan-A13B <tool_calls>[…] with <answer>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = Value::Array(function_definitions(tools));
        format!(
            "You have these tools. To call them, reply inside <answer> with \
             <tool_calls>[{{\"name\": …, \"arguments\": {{…}}}}]</tool_calls>.\n<tools>{list}</tools>\n"
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let list: Vec<Value> = results
            .iter()
            .map(|r| json!({"name": r.tool_name, "tool_call_id": r.request_id, "content": result_value(r)}))
            .collect();
        format!("<tool_response>{}</tool_response>", Value::Array(list))
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
            "the <tool_calls> list",
        );
    }
}
