//! MiniMax-M2: XML invocations in a `<minimax:tool_call>` block.
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="NAME">
//! <parameter name="KEY">VALUE</parameter>
//! </invoke>
//! <invoke name="OTHER">…</invoke>
//! </minimax:tool_call>
//! ```
//!
//! One block holds one or more invocations, each a call. Values are text (the template writes
//! strings as they are and everything else as JSON; whitespace around a value is removed, as
//! vLLM's and SGLang's parsers `.strip()` it), so requests are untyped and the engine types
//! them from the method's schema. Reasoning is in `<think>`, which the template opens in the
//! prompt: what comes before a leading `</think>` is reasoning, calls included (llama.cpp's
//! MiniMax-M2 tests parse with `thinking_forced_open`). Tools are presented as one JSON
//! object per `<tool>` line in `<tools>`; results go back as `<response>` elements of a tool turn.

use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::function_definitions;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, push_untyped, result_text, Markup, TagStyle, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<minimax:tool_call>";
pub const CLOSE: &str = "</minimax:tool_call>";

const FRAMING: Framing = Framing {
    rules: &[
        // The template opens `<think>` in the prompt: a reply may start inside the reasoning.
        THINK_MAY_START_OPEN,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
    ],
};

/// MiniMax-M2's invoke markup; dots.llm writes the same inside its own block.
pub const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<invoke",
    invoke_close: "</invoke>",
    param_open: "<parameter",
    param_close: "</parameter>",
    style: TagStyle::Attributes,
    json_body: false,
    value_layout: ValueLayout::Trimmed,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MinimaxM2;

impl Protocol for MinimaxM2 {
    fn id(&self) -> &'static str {
        "minimax_m2"
    }

    fn label(&self) -> &'static str {
        "MiniMax-M2 <minimax:tool_call> XML"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_section(tools);
        out.push_str(
            "\nWhen making tool calls, use XML format to invoke tools and pass \
             parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n\
             <parameter name=\"param-key-1\">param-value-1</parameter>\n\
             <parameter name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n\
             </minimax:tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("]~b]tool");
        for result in results {
            out.push_str(&format!("\n<response>{}</response>", result_text(result)));
        }
        out.push_str("[e~[\n");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        for invoke in decode_invokes(text, block, &MARKUP, out) {
            push_untyped(out, text, invoke.span, self.id(), &invoke);
        }
    }
}

#[cfg(test)]
mod tests;

/// The tools as MiniMax's templates list them (M2 and M3 alike): JSON schemas in `<tool>` tags.
pub fn tools_section(tools: &[ToolDefinitionInput]) -> String {
    let mut out = String::from(
        "# Tools\nYou may call one or more tools to assist with the user query.\n\
         Here are the tools available in JSONSchema format:\n\n<tools>\n",
    );
    for definition in function_definitions(tools) {
        out.push_str(&format!("<tool>{}</tool>\n", definition["function"]));
    }
    out.push_str("</tools>\n");
    out
}
