//! Meta Code World Model (CWM): `<tool: LABEL>` blocks whose first word is the tool and whose
//! rest is its input.
//!
//! ```text
//! <tool: bash>
//! terminal find . -name "*.py" | xargs grep -n "def bulk_create"
//! </tool>
//! ```
//!
//! Follows vLLM's `cwm` parser (`vllm/tool_parsers/cwm_tool_parser.py`, `CwmToolParser`) and its
//! tests: the label after `<tool:` is informational; the tool's name is the first word of the
//! body's first non-empty line; the rest of the body (the first line's remainder, then the
//! following non-empty lines) is a JSON object when it reads as one, otherwise the text becomes
//! `{"command": TEXT}`. Text before the first block is content; reasoning is in `<think>`.
//!
//! Deliberate differences from the reference:
//! - the tags are matched as written in lower case (`<tool:`, `</tool>`; the reference ignores
//!   case);
//! - a JSON list as the rest is an error (a call's arguments are an object here); the
//!   reference passes the list on as the arguments;
//! - a block the reply ends in is decoded and marked incomplete (the reference needs `</tool>`);
//! - blank lines inside the input are kept (the reference drops empty lines), so a command or
//!   file body keeps its layout;
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording.

use serde_json::{Map, Value};

use crate::calls::{error, push_named_call, push_request, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::schema_lines;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<tool:";
pub const CALL_CLOSE: &str = "</tool>";
/// The key plain-text input goes under, as in the reference.
const COMMAND_KEY: &str = "command";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // Not a markup body: `</tool>` may follow the input on its line.
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Cwm;

impl Protocol for Cwm {
    fn id(&self) -> &'static str {
        "cwm"
    }

    fn label(&self) -> &'static str {
        "Meta CWM <tool: LABEL> NAME input </tool>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = schema_lines(tools);
        out.push_str(&format!(
            "\nWrite each call as a tool block: the function's name, then its arguments as a \
             JSON object:\n{CALL_OPEN} function>\nfunction-name {{\"key\": \"value\"}}\n{CALL_CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        results
            .iter()
            .map(|result| format!("<tool_output>\n{}\n</tool_output>\n", result_text(result)))
            .collect()
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let start = block.body.start;
        let end = block.body.end.min(text.len());
        let body = text.get(start..end).unwrap_or_default();
        // ` LABEL>`: one word, then the tag's end.
        let label_len = body.len() - body.trim_start().len();
        let label = body.trim_start();
        let word = label
            .find(|c: char| c.is_whitespace() || c == '>')
            .unwrap_or(label.len());
        let after_word = label[word..].trim_start();
        if word == 0 || !after_word.starts_with('>') {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("'{CALL_OPEN}' is not followed by a label and '>'; the block is skipped"),
                block.span,
            );
            return;
        }
        let input_start = start + label_len + word + (label[word..].len() - after_word.len()) + 1;
        let input = text.get(input_start..end).unwrap_or_default();
        let lead = input.len() - input.trim_start().len();
        let input = input.trim();
        let name_len = input.find(char::is_whitespace).unwrap_or(input.len());
        let name = &input[..name_len];
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                "the tool block names no tool; it is skipped".to_owned(),
                block.span,
            );
            return;
        }
        let rest = input[name_len..].trim();
        let rest_start = input_start + lead + (input.len() - input[name_len..].trim_start().len());
        let looks_json = rest.starts_with('{') || rest.starts_with('[');
        if looks_json && serde_json::from_str::<Value>(rest).is_ok() {
            push_named_call(
                out,
                text,
                block.span,
                Span::new(rest_start, rest_start + rest.len()),
                self.id(),
                name,
                None,
            );
            return;
        }
        let mut args = Map::new();
        args.insert(COMMAND_KEY.to_owned(), Value::String(rest.to_owned()));
        push_request(
            out,
            text,
            block.span,
            self.id(),
            Call {
                name: name.to_owned(),
                args,
                id: None,
            },
            false,
        );
    }
}
