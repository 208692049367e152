//! Llama 3.1 / 3.2 / 3.3 JSON tool calling: `<|python_tag|>{"name": …, "parameters": {…}}`,
//! several calls separated by `;`, or the bare JSON object as the whole reply.
//!
//! Meta's template asks for `{"name": function name, "parameters": dictionary of argument name
//! and its value}` and feeds results back in an `ipython` turn. `<|eom_id|>` / `<|eot_id|>`
//! end-of-turn tokens a raw completion may carry are dropped from the content.

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const PYTHON_TAG: &str = "<|python_tag|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::token("<|eom_id|>"),
        Rule::token("<|eot_id|>"),
        Rule::call(PYTHON_TAG, JSON_VALUE)
            .lenient()
            .separated_by(b';'),
        Rule::at_text_start("{", JSON_VALUE)
            .lenient()
            .separated_by(b';'),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Llama3Json;

impl Protocol for Llama3Json {
    fn id(&self) -> &'static str {
        "llama3_json"
    }

    fn label(&self) -> &'static str {
        "Llama 3.x JSON (<|python_tag|>)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "Given the following functions, please respond with a JSON for a function call with \
             its proper arguments that best answers the given prompt.\n\n\
             Respond in the format {\"name\": function name, \"parameters\": dictionary of \
             argument name and its value}. Do not use variables.\n\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&serde_json::to_string_pretty(&definition).unwrap_or_default());
            out.push_str("\n\n");
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            out.push_str("<|start_header_id|>ipython<|end_header_id|>\n\n");
            out.push_str(&result_value(result).to_string());
            out.push_str("<|eot_id|>");
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
            "the JSON call",
        );
    }
}
