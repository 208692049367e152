//! Python calls written one per line, as Gemma's ```tool_code``` fences and OLMo 3's
//! `<function_calls>` blocks carry them: `get_weather(city="Paris")`, optionally inside
//! `print(…)` (Gemma's examples show both).
//!
//! Each line is read by [`super::pylit`] as a one-call list, so these formats get the same
//! literal typing, error messages and byte-exact spans as the pythonic format.

use crate::calls::{error, push_request, Call};
use crate::pylit::{self, ErrorKind};
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// Pushes one request per call line of `text[body]` and one diagnostic per bad line.
pub fn push_call_lines(out: &mut ParseOutput, text: &str, body: Span, id: &str) {
    let Some(source) = text.get(body.start..body.end) else {
        return;
    };
    let mut line_start = body.start;
    let mut number = 0;
    for line in source.split_inclusive('\n') {
        let at = line_start;
        line_start += line.len();
        let lead = line.len() - line.trim_start().len();
        let mut call = line.trim();
        let mut offset = at + lead;
        // print(f(…)) shows the call; the print is not part of it.
        if let Some(inner) = call
            .strip_prefix("print(")
            .and_then(|c| c.strip_suffix(')'))
        {
            call = inner;
            offset += "print(".len();
        }
        if call.is_empty() {
            continue;
        }
        number += 1;
        // "[" + call + "]" keeps the call's offsets one byte to the right.
        let list = format!("[{call}]");
        for item in pylit::parse_call_list(&list).items {
            match item {
                Ok(c) => push_request(
                    out,
                    text,
                    Span::new(offset + c.start - 1, offset + c.end - 1),
                    id,
                    Call {
                        name: c.name,
                        args: c.args,
                        id: None,
                    },
                    false,
                ),
                Err(e) => {
                    // The "]" added around the line is not the model's: reaching it means the
                    // line ended inside the call.
                    let (code, message) = if e.offset > call.len() {
                        (
                            DiagnosticCode::UnclosedValue,
                            format!(
                                "call {number} is cut off before its closing ')'; it is skipped"
                            ),
                        )
                    } else {
                        let code = match e.kind {
                            ErrorKind::UnexpectedEnd => DiagnosticCode::UnclosedValue,
                            ErrorKind::NotACall => DiagnosticCode::MissingToolName,
                            ErrorKind::DuplicateArgument => DiagnosticCode::DuplicateKey,
                            _ => DiagnosticCode::InvalidJson,
                        };
                        // pylit numbers calls within its list; here each line is a list of one.
                        let message = e
                            .message
                            .strip_prefix("call 1")
                            .map_or(e.message.clone(), |rest| format!("call {number}{rest}"));
                        (code, message)
                    };
                    let start = (offset + e.offset.saturating_sub(1)).min(offset + call.len());
                    let end = (start + e.len).min(offset + call.len());
                    error(out, code, message, Span::new(start, end));
                }
            }
        }
    }
}
