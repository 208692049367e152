//! AI21 Jamba 1.5 / 1.6: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`.
//!
//! Jamba's template passes the tools as JSON and the model writes its calls as one JSON list
//! between `<tool_calls>` tags (Hunyuan-A13B writes the same shape). Results are `tool` role
//! messages; here each result is one JSON object per line inside `<tool_response>` tags.

use serde_json::json;

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<tool_calls>";
pub const CLOSE: &str = "</tool_calls>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Jamba;

impl Protocol for Jamba {
    fn id(&self) -> &'static str {
        "jamba"
    }

    fn label(&self) -> &'static str {
        "AI21 Jamba <tool_calls>[…]</tool_calls>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = serde_json::Value::Array(function_definitions(tools));
        format!(
            "# Tools\n\nYou can call these tools. Write the calls as a JSON list between \
             <tool_calls> and </tool_calls>: [{{\"name\": …, \"arguments\": {{…}}}}]\n\n{}\n",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<tool_response>\n");
        for r in results {
            out.push_str(
                &json!({"tool_call_id": r.request_id, "name": r.tool_name, "content": result_value(r)})
                    .to_string(),
            );
            out.push('\n');
        }
        out.push_str("</tool_response>\n");
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
            "the <tool_calls> list",
        );
    }
}
