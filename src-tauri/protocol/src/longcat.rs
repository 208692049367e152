//! Meituan LongCat-Flash: `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`.
//!
//! Hermes-shaped calls under the model's own tag; results come back in
//! `<longcat_tool_response>` tags.

use serde_json::json;

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<longcat_tool_call>";
pub const CLOSE: &str = "</longcat_tool_call>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct LongCat;

impl Protocol for LongCat {
    fn id(&self) -> &'static str {
        "longcat"
    }

    fn label(&self) -> &'static str {
        "LongCat <longcat_tool_call>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("## Tools\nYou have access to the following tools:\n\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(&format!(
            "\nFor each function call, return a json object with function name and arguments \
             within {OPEN}{CLOSE} tags:\n{OPEN}\n{{\"name\": <function-name>, \"arguments\": \
             <args-json-object>}}\n{CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<longcat_tool_response>\n{}\n</longcat_tool_response>\n",
                json!({"name": r.tool_name, "content": result_value(r)})
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
            "the <longcat_tool_call> body",
        );
    }
}
