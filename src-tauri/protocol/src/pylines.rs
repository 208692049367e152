//! Python calls written one per line, as Gemma's ```tool_code``` fences and OLMo 3's
//! `<function_calls>` blocks carry them: `get_weather(city="Paris")`, optionally inside
//! `print(…)` (Gemma's examples show both).
//!
//! The calls are read by [`super::pylit::for_each_call_line`], so these formats get the same
//! literal typing (`True` and `true` alike), error messages and byte-exact spans as the
//! pythonic format, and a call spanning several lines stays one call.

use crate::calls::{error, push_request, Call};
use crate::pylit::{self, ErrorKind};
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// Pushes one request per call in `text[body]` and one diagnostic per bad call.
pub fn push_call_lines(out: &mut ParseOutput, text: &str, body: Span, id: &str) {
    let Some(source) = text.get(body.start..body.end) else {
        return;
    };
    let base = body.start;
    pylit::for_each_call_line(source, |item| match item {
        Ok(call) => push_request(
            out,
            text,
            Span::new(base + call.start, base + call.end),
            id,
            Call {
                name: call.name,
                args: call.args,
                id: None,
            },
            false,
        ),
        Err(e) => {
            let code = match e.kind {
                ErrorKind::UnexpectedEnd => DiagnosticCode::UnclosedValue,
                ErrorKind::NotACall => DiagnosticCode::MissingToolName,
                ErrorKind::DuplicateArgument => DiagnosticCode::DuplicateKey,
                ErrorKind::Syntax | ErrorKind::PositionalArgument | ErrorKind::TooDeep => {
                    DiagnosticCode::InvalidJson
                }
            };
            let start = (base + e.offset).min(body.end);
            let end = (start + e.len).min(body.end);
            error(out, code, e.message, Span::new(start, end));
        }
    });
}
