//! Upstage Solar Open 2: a call is the tool's name on the opener's line, then one sentinel-framed
//! block per argument.
//!
//! ```text
//! <|tool_call:start|>get_weather
//! <|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>
//! <|tool_call:end|>
//! ```
//!
//! Follows vLLM's `solar_open2` parser (`vllm/tool_parsers/solar_open2_tool_parser.py`,
//! `SolarOpen2ToolParser`) and its tests: the name is the rest of the opener's line; a call ends
//! at `<|tool_call:end|>` or, when the model dropped it, at the next `<|tool_call:start|>` (the
//! call is kept, with a warning: `test_dropped_call_end_recovers_both_calls`); a
//! value ends at `<|tool_arg:end|>`, or at the next `<|tool_arg:start|>` or the call's end when
//! that sentinel was dropped; a repeated argument keeps its first value. Values are raw text,
//! typed from the method's schema by the engine (the reference coerces them the same way, and
//! keeps text on a miss). Text before the first call is content; a call the reply ends in gives
//! no call, as in the reference.
//!
//! Deliberate differences from the reference:
//! - text after the first call is content here too (the reference drops it);
//! - an empty name skips the call with an error (the reference emits a call named "");
//! - without a schema a value that is a whole JSON literal becomes that literal (the crate's
//!   default typing for text values); the reference keeps it a string;
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording.

use serde_json::{Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, schema_lines};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<|tool_call:start|>";
pub const CALL_CLOSE: &str = "<|tool_call:end|>";
const ARG_OPEN: &str = "<|tool_arg:start|>";
const ARG_VALUE: &str = "<|tool_arg:value|>";
const ARG_CLOSE: &str = "<|tool_arg:end|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // Solar Open's own reasoning tokens (content in vLLM's tool parser, which sees them only
        // when no reasoning parser ran).
        Rule::reasoning("<|think:start|>", "<|think:end|>"),
        // A call whose `<|tool_call:end|>` was dropped ends at the next `<|tool_call:start|>`
        // and is still read (with a warning), as the reference's pattern ends a call at either.
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).closed_by_next_opener(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct SolarOpen;

impl Protocol for SolarOpen {
    fn id(&self) -> &'static str {
        "solar_open"
    }

    fn label(&self) -> &'static str {
        "Upstage Solar Open <|tool_call:start|> with <|tool_arg:start|> arguments"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = schema_lines(tools);
        out.push_str(&format!(
            "\nWrite each call as:\n{CALL_OPEN}function-name\n{ARG_OPEN}key{ARG_VALUE}value\
             {ARG_CLOSE}\n{CALL_CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<|tool_response:start|>{}<|tool_response:end|>\n",
                result_text(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = block.body_text(text);
        let Some(line_end) = body.find('\n') else {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {CALL_OPEN} block has no line break after the tool name; it is skipped"
                ),
                block.span,
            );
            return;
        };
        let name = body[..line_end].trim();
        if name.is_empty() || name.contains(char::is_whitespace) || name.contains("<|") {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not name a tool ('{name}'); it is skipped"),
                block.span,
            );
            return;
        }
        let args = arguments(text, block.body.start + line_end + 1, end, name, out);
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
            true,
        );
    }
}

/// The first `needle` in `text[from..to]`, as an index into `text`.
fn find(text: &str, from: usize, to: usize, needle: &str) -> Option<usize> {
    text.get(from..to)?.find(needle).map(|at| from + at)
}

/// The arguments in `text[from..to]`: every `<|tool_arg:start|>KEY<|tool_arg:value|>VALUE`,
/// the value running to `<|tool_arg:end|>` or the next argument (as the reference's tempered
/// pattern); other text is ignored with a warning.
fn arguments(
    text: &str,
    from: usize,
    to: usize,
    name: &str,
    out: &mut ParseOutput,
) -> Map<String, Value> {
    let mut args = Map::new();
    let mut cursor = from;
    while let Some(open) = find(text, cursor, to, ARG_OPEN) {
        stray(text, cursor, open, name, out);
        let key_start = open + ARG_OPEN.len();
        let next_arg = find(text, key_start, to, ARG_OPEN).unwrap_or(to);
        let Some(separator) = find(text, key_start, next_arg, ARG_VALUE) else {
            warning(
                out,
                DiagnosticCode::UnclosedValue,
                format!("an argument of '{name}' has no {ARG_VALUE}; it is left out"),
                Span::new(open, next_arg),
            );
            cursor = next_arg;
            continue;
        };
        let key = text.get(key_start..separator).unwrap_or_default();
        let value_start = separator + ARG_VALUE.len();
        let (value_end, after) = match find(text, value_start, next_arg, ARG_CLOSE) {
            Some(close) => (close, close + ARG_CLOSE.len()),
            None => (next_arg, next_arg),
        };
        let value = text.get(value_start..value_end).unwrap_or_default();
        let span = Span::new(open, after);
        if args.contains_key(key) {
            // The reference streams the first value before it sees the second: first wins.
            warning(
                out,
                DiagnosticCode::DuplicateKey,
                format!(
                    "argument '{key}' of '{name}' appears more than once; the first value is kept"
                ),
                span,
            );
        } else {
            args.insert(key.to_owned(), Value::String(value.to_owned()));
        }
        cursor = after;
    }
    stray(text, cursor, to, name, out);
    args
}

/// Text between arguments, which the template never writes: ignored with a warning.
fn stray(text: &str, from: usize, to: usize, name: &str, out: &mut ParseOutput) {
    let slice = text.get(from..to).unwrap_or_default();
    if !slice.trim().is_empty() {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("text between the arguments of '{name}' is ignored"),
            Span::new(from, to),
        );
    }
}
