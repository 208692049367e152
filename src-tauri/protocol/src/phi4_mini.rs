//! Phi-4-mini: `functools[{"name": …, "arguments": {…}}, …]`.
//!
//! Phi-4-mini's template puts the tools as JSON between `<|tool|>` and `<|/tool|>` in the system
//! turn; the model answers with the word `functools` directly followed by a JSON list of calls.

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const FUNCTOOLS: &str = "functools";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(FUNCTOOLS, JSON_VALUE).lenient(),
        Rule::token("<|end|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Phi4Mini;

impl Protocol for Phi4Mini {
    fn id(&self) -> &'static str {
        "phi4_mini"
    }

    fn label(&self) -> &'static str {
        "Phi-4-mini functools[…]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = function_objects(tools);
        format!("<|tool|>{}<|/tool|>", list)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("<|tool_response|>{}<|end|>", result_value(r))
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
            "the list after functools",
        );
    }
}
