//! IBM granite-20b-functioncalling: `<function_call> {"name": …, "arguments": {…}}` per call.
//!
//! This older Granite model writes each call after its own `<function_call>` tag, as one JSON
//! object; results come back as `<|function_response|>` turns.

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const FUNCTION_CALL: &str = "<function_call>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(FUNCTION_CALL, JSON_VALUE).lenient(),
        Rule::token("<|endoftext|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Granite20bFc;

impl Protocol for Granite20bFc {
    fn id(&self) -> &'static str {
        "granite_20b_fc"
    }

    fn label(&self) -> &'static str {
        "granite-20b-functioncalling <function_call>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("<|system|>\nYou are a helpful assistant with access to the following function calls. Your task is to produce a sequence of function calls necessary to generate response to the user utterance. Use the following function calls as required.\n<|function_call_library|>\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("<|function_response|>\n{}\n", result_value(r))
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
            "the call after <function_call>",
        );
    }
}
