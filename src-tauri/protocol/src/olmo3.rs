//! AllenAI OLMo 3: Python calls one per line inside `<function_calls>…</function_calls>`,
//! `get_weather(city="Paris")`.
//!
//! The tools are listed as JSON in the system turn (`<functions>…</functions>`); results go
//! back as `environment` turns.

use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::pylines::push_call_lines;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<function_calls>";
pub const CLOSE: &str = "</function_calls>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Olmo3;

impl Protocol for Olmo3 {
    fn id(&self) -> &'static str {
        "olmo3"
    }

    fn label(&self) -> &'static str {
        "OLMo 3 <function_calls> Python lines"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = function_objects(tools);
        format!(
            "You are a helpful function-calling AI assistant. You are provided with function \
             signatures within <functions></functions> XML tags. To call functions, write one \
             Python call per line, with keyword arguments, between {OPEN} and {CLOSE}.\n\
             <functions>{}</functions>\n",
            list
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("<|im_start|>environment\n{}<|im_end|>\n", result_value(r))
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_call_lines(out, text, block.body, self.id());
    }
}
