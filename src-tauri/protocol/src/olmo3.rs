//! AllenAI OLMo 3: Python calls one per line inside `<function_calls>…</function_calls>`,
//! `get_weather(city="Paris")`.
//!
//! The tools are listed as JSON in the system turn (`<functions>…</functions>`); results go
//! back as `environment` turns.
//!
//! Claude's tool-use text uses the same `<function_calls>` block with XML `<invoke>` elements
//! inside (`anthropic_xml`). A block whose body starts with `<invoke` is that layout, not
//! Python lines: it is skipped here with a warning instead of one error per line, so auto-detect
//! gives the reply to the format that reads it.

use crate::calls::warning;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::pylines::push_call_lines;
use crate::pylit;
use crate::request::{DiagnosticCode, ParseOutput};
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
        let body = block.body_text(text);
        if holds_invokes(body) {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "this {OPEN} block holds XML <invoke> elements (Anthropic's layout), not \
                     Python call lines; it is skipped (parse the reply as anthropic_xml)"
                ),
                block.span,
            );
            return;
        }
        // vLLM's OLMo 3 parser builds the arguments from `ast`'s keywords.
        push_call_lines(
            out,
            text,
            block.body,
            self.id(),
            pylit::Options::AST_KEYWORDS,
        );
    }
}

/// Whether a `<function_calls>` body is XML invokes (`<invoke name="…">`), Anthropic's layout.
pub fn holds_invokes(body: &str) -> bool {
    body.trim_start().starts_with("<invoke")
}

/// Whether a `<function_calls>` body starts like OLMo 3's Python call lines (a name).
pub fn holds_python_calls(body: &str) -> bool {
    body.trim_start()
        .starts_with(|c: char| c.is_alphabetic() || c == '_')
}
