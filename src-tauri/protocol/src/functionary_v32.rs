//! Functionary v3.2 (Llama 3 based): `>>>NAME\n{"arg": …}` per call, `>>>all\n…` for text.
//!
//! Each recipient line starts with `>>>`; the block runs to the next `>>>` or the end of the
//! reply. `all` is the user (plain text, kept as content); any other recipient is a function
//! whose arguments are the JSON that follows.

use crate::calls::{error, push_named_call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, result_value, typescript_functions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const RECIPIENT: &str = ">>>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(RECIPIENT, Close::UntilNext),
        Rule::token("<|eot_id|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionaryV32;

impl Protocol for FunctionaryV32 {
    fn id(&self) -> &'static str {
        "functionary_v32"
    }

    fn label(&self) -> &'static str {
        "Functionary v3.2 >>>name"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("// Supported function definitions that should be called when necessary.\nnamespace functions {\n\n");
        out.push_str(&typescript_functions(tools));
        out.push_str("} // namespace functions\n");
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start_header_id|>tool<|end_header_id|>\n\nname={}\n{}<|eot_id|>",
                r.tool_name,
                result_value(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = &text[block.body.start..block.body.end];
        let (name, rest_at) = match body.find('\n') {
            Some(nl) => (body[..nl].trim(), nl + 1),
            None => (body.trim(), body.len()),
        };
        if name == "all" {
            // Text for the user: content, not a call.
            out.content.push_str(body[rest_at..].trim());
            return;
        }
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{RECIPIENT} must be followed by a function name on its own line; the block is skipped"),
                block.span,
            );
            return;
        }
        let json = Span::new(block.body.start + rest_at, block.body.end);
        push_named_call(out, text, block.span, json, self.id(), name, None);
    }
}
