//! Python calls written one per line, as Gemma's ```tool_code``` fences and OLMo 3's
//! `<function_calls>` blocks carry them: `get_weather(city="Paris")`, optionally inside
//! `print(…)` (Gemma's examples show both).
//!
//! The calls are read by [`super::pylit::for_each_call_line`], so these formats get the same
//! literal typing (`True` and `true` alike), error messages and byte-exact spans as the
//! pythonic format, and a call spanning several lines stays one call.

use crate::calls::{error, push_request, warning, Call};
use crate::pylit::{self, ErrorKind};
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// Pushes one request per call in `text[body]` and one diagnostic per bad call, read with the
/// format's reference's readings (`options`).
pub fn push_call_lines(
    out: &mut ParseOutput,
    text: &str,
    body: Span,
    id: &str,
    options: pylit::Options,
) {
    let Some(source) = text.get(body.start..body.end) else {
        return;
    };
    let base = body.start;
    let place = |start: usize, end: usize| {
        Span::new((base + start).min(body.end), (base + end).min(body.end))
    };
    pylit::for_each_call_line(source, options, |item| {
        push_item(out, text, id, item, place)
    });
}

/// Pushes what the Python reader made of one call: a request spanning the call (with a warning
/// per thing read differently from what was written), or an error diagnostic spanning the bad
/// text. `place` turns the reader's offsets (into the text it was
/// given) into a span of the reply. Shared by every format whose calls are Python calls.
pub fn push_item(
    out: &mut ParseOutput,
    text: &str,
    id: &str,
    item: Result<pylit::Call, pylit::Error>,
    place: impl Fn(usize, usize) -> Span,
) {
    match item {
        Ok(call) => {
            push_request(
                out,
                text,
                place(call.start, call.end),
                id,
                Call {
                    name: call.name,
                    args: call.args,
                    id: None,
                },
                false,
            );
            for note in call.notes {
                warning(
                    out,
                    diagnostic_code(note.kind),
                    note.message,
                    place(note.offset, note.offset + note.len),
                );
            }
        }
        Err(e) => error(
            out,
            diagnostic_code(e.kind),
            e.message,
            place(e.offset, e.offset + e.len),
        ),
    }
}

/// The diagnostic a Python reader error is reported as.
pub fn diagnostic_code(kind: ErrorKind) -> DiagnosticCode {
    match kind {
        ErrorKind::UnexpectedEnd => DiagnosticCode::UnclosedValue,
        ErrorKind::NotACall => DiagnosticCode::MissingToolName,
        ErrorKind::DuplicateArgument => DiagnosticCode::DuplicateKey,
        ErrorKind::Syntax
        | ErrorKind::AfterCall
        | ErrorKind::PositionalArgument
        | ErrorKind::TooDeep => DiagnosticCode::InvalidJson,
    }
}
