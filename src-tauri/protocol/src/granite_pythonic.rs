//! IBM Granite 3.3 / Granite 4.0 H-Small served with vLLM's `granite_pythonic` parser: each
//! call is a bare Python call on a line of its own, with keyword arguments.
//!
//! ```text
//! Sure, let me check the weather.
//! get_weather(location="Paris", unit="celsius")
//! search_web(query="vLLM release notes")
//! ```
//!
//! Follows vLLM's `GranitePythonicToolParser` (`vllm/tool_parsers/granite_pythonic_tool_parser.py`)
//! and its tests: a line that is, once stripped, a name (`[A-Za-z_][A-Za-z0-9_]*`) followed by
//! a parenthesised argument list and nothing else is a call; every other line is content. The
//! arguments are read as Python literals by the shared reader ([`crate::pylit`]), so `True` and
//! `true` alike become JSON `true`.
//!
//! There are no markers, so auto-detect never picks this format: any line like `print(x)` in
//! prose would be evidence. Name it (`--format granite_pythonic`) for replies of these models.
//!
//! Deliberate differences from the reference:
//! - a call whose arguments do not read (a positional argument, broken syntax) is reported and
//!   skipped; the reference keeps it with the arguments `{"_raw": "<the text>"}`;
//! - JSON literals (`true`, `null`) are read like Python's (the reference's `literal_eval`
//!   rejects them and falls back to `_raw`);
//! - tools are presented in this project's wording (Granite's own template lists them as JSON
//!   in an `available_tools` turn); results go back as `tool_response` turns.

use crate::prompt::{each_result, function_definitions};
use crate::pylines::push_call_lines;
use crate::pylit;
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

#[derive(Debug, Clone, Copy, Default)]
pub struct GranitePythonic;

impl Protocol for GranitePythonic {
    fn id(&self) -> &'static str {
        "granite_pythonic"
    }

    fn label(&self) -> &'static str {
        "IBM Granite bare Python call lines f(a=1) (named only)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("<|start_of_role|>available_tools<|end_of_role|>\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(
            "<|end_of_text|>\nTo call a tool, write the call as Python on a line of its own, \
             with keyword arguments: get_weather(location=\"Paris\")\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<|start_of_role|>tool_response<|end_of_role|>{}<|end_of_text|>\n",
                result_text(result)
            )
        })
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content: Vec<&str> = Vec::new();
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.len();
            let stripped = line.trim();
            if is_call_line(stripped) {
                let lead = line.len() - line.trim_start().len();
                let from = start + lead;
                push_call_lines(
                    &mut out,
                    text,
                    Span::new(from, from + stripped.len()),
                    self.id(),
                    pylit::Options::default(),
                );
            } else if !stripped.is_empty() {
                content.push(line.trim_end_matches(['\n', '\r']));
            }
            start = end;
        }
        out.content = content.join("\n").trim().to_owned();
        out
    }
}

/// Whether a stripped line is `name(…)` and nothing else, as the reference's line pattern.
fn is_call_line(line: &str) -> bool {
    let name_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let starts_with_letter = line
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    starts_with_letter && line.as_bytes().get(name_len) == Some(&b'(') && line.ends_with(')')
}
