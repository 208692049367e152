//! MiniMax-M1: `<tool_calls>\n{"name": …, "arguments": {…}}\n{"name": …}\n</tool_calls>`, one call
//! object per line.
//!
//! The tag is Jamba's, the body is not: a JSON list there is reported (so auto-detect tells the
//! two apart by which one parses without errors). Results are `<tool_response>` lines.

use serde_json::json;

use crate::calls::{call_from_json, error, parse_json, push_request};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

/// Jamba's tag (Jamba is a described format: `formats/jamba.toml`).
const OPEN: &str = "<tool_calls>";
const CLOSE: &str = "</tool_calls>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MinimaxM1;

impl Protocol for MinimaxM1 {
    fn id(&self) -> &'static str {
        "minimax_m1"
    }

    fn label(&self) -> &'static str {
        "MiniMax-M1 <tool_calls> one JSON per line"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("<tools>\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str(
            "</tools>\nWhen making tool calls, output them in this format:\n<tool_calls>\n\
             {\"name\": <tool-name-1>, \"arguments\": <args-json-object-1>}\n...\n</tool_calls>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<tool_response>\n");
        for r in results {
            out.push_str(&json!({"name": r.tool_name, "content": result_value(r)}).to_string());
            out.push('\n');
        }
        out.push_str("</tool_response>");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let mut at = block.body.start;
        for line in text[block.body.start..block.body.end].split_inclusive('\n') {
            let lead = line.len() - line.trim_start().len();
            let span = Span::new(at + lead, at + lead + line.trim().len());
            at += line.len();
            if span.start == span.end {
                continue;
            }
            let Some(value) = parse_json(text, span, "the call line", out) else {
                continue;
            };
            if !value.is_object() {
                error(
                    out,
                    DiagnosticCode::InvalidJson,
                    "MiniMax-M1 writes one call object per line, not a list; the line is skipped"
                        .to_owned(),
                    span,
                );
                continue;
            }
            match call_from_json(value) {
                Ok(call) => push_request(out, text, span, self.id(), call, false),
                Err((code, message)) => error(out, code, message, span),
            }
        }
    }
}
