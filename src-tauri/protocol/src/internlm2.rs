//! InternLM 2 / 2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`.
//!
//! InternLM's template declares the tools in a `system name=<|plugin|>` turn; a call is one JSON
//! object between the action tokens, and results come back in an `environment name=<|plugin|>`
//! turn.

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const ACTION_START: &str = "<|action_start|><|plugin|>";
pub const ACTION_END: &str = "<|action_end|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(ACTION_START, Close::Marker(ACTION_END)).lenient(),
        Rule::token("<|im_end|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct InternLm2;

impl Protocol for InternLm2 {
    fn id(&self) -> &'static str {
        "internlm2"
    }

    fn label(&self) -> &'static str {
        "InternLM 2 <|action_start|><|plugin|>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = function_objects(tools);
        format!("<|im_start|>system name=<|plugin|>\n{}<|im_end|>\n", list)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|im_start|>environment name=<|plugin|>\n{}<|im_end|>\n",
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
            "the plugin call",
        );
    }
}
