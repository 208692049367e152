//! GLM-4.5 / GLM-4.6 / GLM-4.7 (Zhipu): a call is the tool's name and key/value pairs in
//! `<tool_call>`.
//!
//! ```text
//! <tool_call>NAME
//! <arg_key>KEY</arg_key>
//! <arg_value>VALUE</arg_value>
//! </tool_call>
//! ```
//!
//! One call per block; GLM-4.7 drops the newline after the name, so the name ends at the first
//! newline or `<`, and between `</arg_key>` and `<arg_value>` it sometimes writes the two
//! characters `\n` instead of a newline (vLLM's `glm47` parser allows both). The template writes
//! string values as they are and other values as JSON, so every value is kept as text (requests
//! are untyped) and the engine types them from the method's schema, or reads JSON and Python
//! literals without one (`coerce::ValueTyping::GLM`); whitespace around a value is removed (as
//! vLLM's and SGLang's `.strip()`), and XML entities are not decoded (the template does not
//! escape).
//!
//! A `<tool_call>` the reply ends in (cut off by `max_tokens`, no `</tool_call>`) is reported
//! and gives no call, as in vLLM's and SGLang's GLM parsers: the template always closes it.
//!
//! Reasoning is in `<think>`. GLM-4.7's template opens `<think>` in the prompt, and vLLM reads
//! GLM replies with its DeepSeek-R1-style reasoning parser, so a `</think>` before any `<think>`
//! ends reasoning that began at the reply's start (`THINK_MAY_START_OPEN`): calls drafted in it
//! are not calls.
//!
//! The tag is hermes's (and qwen3-coder's): a JSON or `<function=` body is reported as such, so
//! auto-detect (which keeps the candidate without errors) tells them apart. For the same reason
//! the start of a block is read strictly: a name with spaces or without a letter or digit,
//! or text before the first key/value pair, is an error that skips the call, so prose
//! mentioning `<tool_call>` never becomes a call. Once a pair has been read the block is GLM's,
//! and other text between pairs is ignored with a warning, as the reference parsers ignore it.
//! Tools are listed as JSON in `<tools>`; results go back as `<tool_response>` elements of an
//! `<|observation|>` turn.

use serde_json::Map;

use crate::calls::{error, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::hermes::{CALL_CLOSE, CALL_OPEN};
use crate::prompt::function_definitions;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{insert_arg, result_text, value_without_layout, Finder, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

const KEY_OPEN: &str = "<arg_key>";
const KEY_CLOSE: &str = "</arg_key>";
const VALUE_OPEN: &str = "<arg_value>";
const VALUE_CLOSE: &str = "</arg_value>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN,
        // Not lenient: a block the reply ends in gives no call, as in vLLM
        // (`test_glm4_moe_tool_parser.py` `test_extract_tool_calls_incomplete_tool_call`) and
        // SGLang (`glm4_moe_detector.py` needs `</tool_call>`).
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Glm45;

impl Protocol for Glm45 {
    fn id(&self) -> &'static str {
        "glm45"
    }

    fn label(&self) -> &'static str {
        "GLM-4.5 / 4.6 / 4.7 <tool_call> with <arg_key>/<arg_value>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
             You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(
            "</tools>\n\nFor each function call, output the function name and arguments within \
             the following XML format:\n<tool_call>{function-name}\n\
             <arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n\
             <arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n...\n\
             </tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<|observation|>");
        for result in results {
            out.push_str(&format!(
                "\n<tool_response>\n{}\n</tool_response>",
                result_text(result)
            ));
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = text.get(block.body.start..end).unwrap_or_default();
        let lead = body.len() - body.trim_start().len();
        let start = block.body.start + lead;
        let rest = body.trim_start();
        let trimmed = Span::new(start, block.body.start + body.trim_end().len().max(lead));
        if rest.starts_with('{') || rest.starts_with('[') {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the {CALL_OPEN} body is JSON, which is the hermes format; GLM-4.5 writes the \
                     tool's name, then {KEY_OPEN}/{VALUE_OPEN} pairs; the call is skipped"
                ),
                trimmed,
            );
            return;
        }
        if rest.starts_with("<function=") {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the {CALL_OPEN} body is qwen3-coder's <function=…> markup; GLM-4.5 writes \
                     the tool's name, then {KEY_OPEN}/{VALUE_OPEN} pairs; the call is skipped"
                ),
                trimmed,
            );
            return;
        }
        let name_len = rest.find(['\n', '<']).unwrap_or(rest.len());
        let name = rest[..name_len].trim();
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not start with a tool name; it is skipped"),
                block.span,
            );
            return;
        }
        // Prose that mentions the tag ("<tool_call> followed by …") must not become a call.
        // A name is one word with a letter or digit in it: `<tool_call> ... </tool_call>`
        // quoted in prose (or in another format's argument) is not a call of `...`.
        if name.contains(char::is_whitespace) || !name.contains(char::is_alphanumeric) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {CALL_OPEN} block starts with '{name}', which is not a tool name; it is \
                     skipped"
                ),
                Span::new(start, start + name.len()),
            );
            return;
        }
        let Some(args) = pairs(text, start + name_len, end, block.complete, name, out) else {
            return;
        };
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

/// GLM-4.7 sometimes writes the two characters `\n` where the template has a newline.
const LITERAL_NEWLINE: &str = "\\n";

/// The end of the layout at `text[from..]`: whitespace and literal `\n`s.
fn skip_layout(text: &str, from: usize, to: usize) -> usize {
    let mut rest = text.get(from..to).unwrap_or_default();
    loop {
        let trimmed = rest.trim_start();
        match trimmed.strip_prefix(LITERAL_NEWLINE) {
            Some(after) => rest = after,
            None => return to - trimmed.len(),
        }
    }
}

/// What text in `text[from..to]`, where only pairs belong, does to the call: before the first
/// pair it skips it (an error: the tag is hermes's too, and a block that does not start with
/// pairs is likely not GLM's); after one it is ignored with a warning, as vLLM's and SGLang's
/// `findall` ignore it. True when the call is skipped.
fn stray(
    text: &str,
    from: usize,
    to: usize,
    after_a_pair: bool,
    place: &str,
    out: &mut ParseOutput,
) -> bool {
    let start = skip_layout(text, from, to);
    let slice = text.get(start..to).unwrap_or_default();
    let trimmed = slice.trim_end();
    if trimmed.is_empty() {
        return false;
    }
    let preview: String = trimmed.chars().take(40).collect();
    let span = Span::new(start, start + trimmed.len());
    if after_a_pair {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!(
                "text {place} is not an {KEY_OPEN}/{VALUE_OPEN} pair ('{preview}'); it is ignored"
            ),
            span,
        );
        return false;
    }
    error(
        out,
        DiagnosticCode::StrayText,
        format!("text {place} is not an {KEY_OPEN}/{VALUE_OPEN} pair ('{preview}'); the call is skipped"),
        span,
    );
    true
}

/// The `<arg_key>`/`<arg_value>` pairs in `text[from..end]`; `None` (with an error) when one is
/// broken, because a call with a doubtful argument must not run.
fn pairs(
    text: &str,
    from: usize,
    end: usize,
    complete: bool,
    name: &str,
    out: &mut ParseOutput,
) -> Option<Map<String, serde_json::Value>> {
    let mut keys = Finder::new(text, end, KEY_OPEN);
    let mut key_closes = Finder::new(text, end, KEY_CLOSE);
    let mut value_closes = Finder::new(text, end, VALUE_CLOSE);
    let place = format!("between the arguments of '{name}'");
    let mut args = Map::new();
    let mut cursor = from;
    // Why a missing closing tag is missing, for messages.
    let ended = |at: Option<usize>, what: String| match at {
        Some(_) => format!("{what} before the next {KEY_OPEN}; the call is skipped"),
        None if !complete => format!("{what}: the reply ends first; the call is skipped"),
        None => format!("{what} before {CALL_CLOSE}; the call is skipped"),
    };
    while let Some(key_open) = keys.find(cursor) {
        if stray(text, cursor, key_open, !args.is_empty(), &place, out) {
            return None;
        }
        let key_start = key_open + KEY_OPEN.len();
        let next_key = keys.find(key_start);
        let limit = next_key.unwrap_or(end);
        let Some(key_close) = key_closes.find(key_start).filter(|&at| at < limit) else {
            let message = ended(next_key, format!("{KEY_OPEN} is not closed by {KEY_CLOSE}"));
            error(
                out,
                DiagnosticCode::UnclosedValue,
                message,
                Span::new(key_open, limit),
            );
            return None;
        };
        let key = text.get(key_start..key_close).unwrap_or_default().trim();
        let after_key = key_close + KEY_CLOSE.len();
        // Whitespace, or GLM-4.7's literal `\n`, may separate the key from its value.
        let value_open = skip_layout(text, after_key, limit);
        if !text
            .get(value_open..limit)
            .is_some_and(|rest| rest.starts_with(VALUE_OPEN))
        {
            let message = if value_open == limit && next_key.is_none() && !complete {
                format!("the reply ends after argument '{key}' of '{name}' and before its value; the call is skipped")
            } else {
                format!("argument '{key}' of '{name}' is not followed by {VALUE_OPEN}; the call is skipped")
            };
            error(
                out,
                DiagnosticCode::UnclosedValue,
                message,
                Span::new(key_open, after_key),
            );
            return None;
        }
        let value_start = value_open + VALUE_OPEN.len();
        let Some(value_close) = value_closes.find(value_start).filter(|&at| at < limit) else {
            let message = ended(
                next_key,
                format!("the value of '{key}' of '{name}' is not closed by {VALUE_CLOSE}"),
            );
            error(
                out,
                DiagnosticCode::UnclosedValue,
                message,
                Span::new(key_open, limit),
            );
            return None;
        };
        if key.is_empty() {
            error(
                out,
                DiagnosticCode::UnknownKey,
                format!("an argument of '{name}' has an empty {KEY_OPEN}; the call is skipped"),
                Span::new(key_open, after_key),
            );
            return None;
        }
        // vLLM's and SGLang's GLM-4 parsers strip every value.
        let (value, _) = value_without_layout(
            text,
            Span::new(value_start, value_close),
            ValueLayout::Trimmed,
        );
        let span = Span::new(key_open, value_close + VALUE_CLOSE.len());
        insert_arg(
            &mut args,
            key,
            serde_json::Value::String(value.to_owned()),
            span,
            name,
            out,
        );
        cursor = span.end;
    }
    // A reply cut inside `</tool_call>` leaves the start of it: not stray text.
    let tail = text.get(cursor..end).unwrap_or_default().trim();
    let cut_in_close = !complete && !tail.is_empty() && CALL_CLOSE.starts_with(tail);
    if !cut_in_close && stray(text, cursor, end, !args.is_empty(), &place, out) {
        return None;
    }
    Some(args)
}

#[cfg(test)]
mod tests;
