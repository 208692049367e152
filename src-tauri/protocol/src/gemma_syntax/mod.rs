//! The Gemma value notation that Gemma 4 (`<|tool_call>`) and FunctionGemma
//! (`<start_function_call>`) share: `call:NAME{key:value,…}` with bare keys, strings only
//! between a delimiter token (`<|"|>` in Gemma 4, `<escape>` in FunctionGemma), and bare
//! numbers, booleans, nested `{…}` objects and `[…]` lists.
//!
//! Follows the value readers of vLLM (`vllm/tool_parsers/gemma4_tool_parser.py`,
//! `_parse_gemma4_args`) and SGLang (`python/sglang/srt/function_call/gemma4_detector.py`), and
//! the `format_argument` macro of the Gemma 4 chat template (llama.cpp
//! `models/templates/gemma4.jinja`). This is our own reader ([`read`]) and writer ([`write`]).
//! Deliberate differences from the reference readers:
//! - a value that is cut off (an unclosed string, object or list) is an error, and the call is
//!   skipped; vLLM takes the rest of the text as the string (its test `test_incomplete_tool_call`
//!   still yields no call, because its regex needs the end token);
//! - a key without a value (`key:}`) is an error (vLLM: `""`);
//! - `True`/`False`/`None` in any case read as booleans and null (vLLM: lower-case `true`/`false`
//!   only; `null`/`none`/`nil` in any case), JSON strings written bare (`"x"`) read as `x`;
//! - an unquoted value that is no literal is kept as text, with a warning;
//! - a repeated key keeps the last value, with a warning.

pub mod read;
pub mod write;

use crate::calls::{error, push_request, warning, Call};
use crate::framing::Block;
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// Decodes the call in `block` and pushes it, or the reason it was skipped. Text after the
/// call's closing `}` is reported unless it is one of `ignorable` (tokens that may close a call
/// block the scanner did not recognise, e.g. Gemma 4's `<turn|>`). With `read_literals`, string
/// values that hold a whole JSON literal (`<escape>42<escape>`) become that literal, as vLLM's
/// FunctionGemma parser reads them.
pub fn push_call(
    out: &mut ParseOutput,
    text: &str,
    block: &Block,
    format: &str,
    quote: &str,
    ignorable: &[&str],
    read_literals: bool,
) {
    let body = block.body_text(text);
    let at = |offset: usize| point(text, block.body.start + offset);
    let call = match read::read_call(body, quote) {
        Ok(call) => call,
        Err(e) => {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!("the call {}; it is skipped", e.message),
                at(e.at),
            );
            return;
        }
    };
    for note in &call.notes {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("the call '{}' {}", call.name, note.message),
            at(note.at),
        );
    }
    let rest = body.get(call.end..).unwrap_or_default();
    let mut leftover = rest.trim();
    while let Some(token) = ignorable.iter().find(|t| leftover.starts_with(**t)) {
        leftover = leftover[token.len()..].trim_start();
    }
    if !leftover.is_empty() {
        let start = block.body.start + call.end + (rest.len() - rest.trim_start().len());
        warning(
            out,
            DiagnosticCode::StrayText,
            format!(
                "text after the call '{}' is not part of it and is ignored",
                call.name
            ),
            Span::new(start, block.body.end),
        );
    }
    let mut args = call.args;
    if read_literals {
        crate::coerce::read_literals(&mut args);
    }
    push_request(
        out,
        text,
        block.span,
        format,
        Call {
            name: call.name,
            args,
            id: None,
        },
        false,
    );
}

/// A one-character span at `at` that never splits a character.
fn point(text: &str, mut at: usize) -> Span {
    at = at.min(text.len());
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + 1).min(text.len());
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    Span::new(at, end)
}

#[cfg(test)]
mod tests;
