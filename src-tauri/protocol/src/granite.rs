//! IBM Granite 3.x: `<|tool_call|>[{"name": …, "arguments": {…}}, …]`.
//!
//! Granite's chat template lists the tools in an `available_tools` turn and the model answers
//! with the `<|tool_call|>` token followed by a JSON list of calls; results come back in
//! `tool_response` turns. Granite 3.2+ may think in `<think>` first, which is never parsed.

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const TOOL_CALL: &str = "<|tool_call|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(TOOL_CALL, JSON_VALUE).lenient(),
        Rule::token("<|end_of_text|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Granite;

impl Protocol for Granite {
    fn id(&self) -> &'static str {
        "granite"
    }

    fn label(&self) -> &'static str {
        "IBM Granite <|tool_call|>[…]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = serde_json::Value::Array(function_definitions(tools));
        format!(
            "<|start_of_role|>available_tools<|end_of_role|>\n{}<|end_of_text|>\n",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start_of_role|>tool_response<|end_of_role|>{}<|end_of_text|>\n",
                result_value(r)
            )
        })
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
            "the list after <|tool_call|>",
        );
    }
}
