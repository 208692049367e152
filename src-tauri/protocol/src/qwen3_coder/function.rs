//! One `<function=NAME>` of a Qwen3-Coder reply: its name and `<parameter=KEY>` values, with
//! the decisions on broken functions described in the parent module.

use serde_json::{Map, Value};

use super::{FUNCTION_CLOSE, FUNCTION_OPEN, PARAMETER_CLOSE, PARAMETER_OPEN};
use crate::calls::{error, warning, Call};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::strip_one_newline;

/// The next occurrence of a marker at or after a position, before a fixed end. Positions asked
/// for only grow, so a match found once is reused until passed and a failed search is final:
/// every byte is searched at most once per marker, however many parameters a call has.
pub(super) struct Next {
    marker: &'static str,
    end: usize,
    found: Option<usize>,
    exhausted: bool,
}

impl Next {
    pub(super) fn new(marker: &'static str, end: usize) -> Self {
        Self {
            marker,
            end,
            found: None,
            exhausted: false,
        }
    }

    pub(super) fn from(&mut self, text: &str, from: usize) -> Option<usize> {
        if self.exhausted {
            return None;
        }
        if let Some(at) = self.found.filter(|&at| at >= from) {
            return Some(at);
        }
        let haystack = text.as_bytes().get(from..self.end)?;
        match find_tag(haystack, self.marker.as_bytes()) {
            Some(offset) => {
                self.found = Some(from + offset);
                self.found
            }
            None => {
                self.exhausted = true;
                None
            }
        }
    }
}

/// A `<function=…>` region of a block.
pub(super) struct Function {
    /// Where `<function=` starts (the block's start for a standalone call).
    pub(super) start: usize,
    /// Right after `<function=`.
    pub(super) name_start: usize,
    /// Where its parameters end: at `</function>` or where something else ended it.
    pub(super) end: usize,
    /// Its span's end (after `</function>` when present).
    pub(super) span_end: usize,
    /// What ended it when `</function>` did not (for the warning), if worth a warning.
    pub(super) ended_by: Option<&'static str>,
    /// The reply ends inside it: a value running to its end is cut off.
    pub(super) cut_off: bool,
}

/// Decodes one function: its name, then its parameters.
pub(super) fn decode_function(text: &str, f: &Function, out: &mut ParseOutput) -> Option<Call> {
    let span = Span::new(f.start, f.span_end);
    let Some(gt) = find_byte(text, f.name_start, f.end, b'>') else {
        let why = if f.cut_off {
            "the reply ends before the function name is complete"
        } else {
            "it is not followed by a name and '>'"
        };
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("'{FUNCTION_OPEN}': {why}; the call is skipped"),
            span,
        );
        return None;
    };
    let name = text[f.name_start..gt].trim();
    if !is_name(name) {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "'{FUNCTION_OPEN}' must be followed by a function name and '>', found '{}'; \
                 the call is skipped",
                preview(name)
            ),
            Span::new(f.start, gt + 1),
        );
        return None;
    }
    let mut args = Map::new();
    let mut opens = Next::new(PARAMETER_OPEN, f.end);
    let mut closes = Next::new(PARAMETER_CLOSE, f.end);
    let mut pos = gt + 1;
    loop {
        pos = skip_whitespace(text, pos, f.end);
        if pos >= f.end {
            break;
        }
        let rest = &text[pos..f.end];
        if !rest.starts_with(PARAMETER_OPEN) {
            let tail = rest.trim_end();
            if f.cut_off && FUNCTION_CLOSE.starts_with(tail) {
                break; // the reply ends inside `</function>`
            }
            if f.cut_off && PARAMETER_OPEN.starts_with(tail) {
                error(
                    out,
                    DiagnosticCode::StrayText,
                    format!("the reply ends inside a '{PARAMETER_OPEN}' tag of '{name}'; the call is skipped"),
                    Span::new(pos, f.end),
                );
                return None;
            }
            pos = skip_stray(text, pos, f.end, &mut opens, name, args.is_empty(), out)?;
            continue;
        }
        let key_start = pos + PARAMETER_OPEN.len();
        let key_gt = find_byte(text, key_start, f.end, b'>');
        let key = key_gt.map(|gt| text[key_start..gt].trim());
        let (Some(key_gt), Some(key)) = (key_gt, key.filter(|k| is_name(k))) else {
            let message = match (key_gt, key) {
                (None, _) if f.cut_off => format!(
                    "the reply ends inside a '{PARAMETER_OPEN}' tag of '{name}'; the call is skipped"
                ),
                (_, Some(found)) => format!(
                    "'{PARAMETER_OPEN}' in '{name}' must be followed by a parameter name and '>', \
                     found '{}'; the call is skipped",
                    preview(found)
                ),
                _ => format!(
                    "'{PARAMETER_OPEN}' in '{name}' is not followed by a name and '>'; the call \
                     is skipped"
                ),
            };
            let header_end = key_gt.map_or(f.end, |gt| gt + 1);
            error(
                out,
                DiagnosticCode::MissingToolName,
                message,
                Span::new(pos, header_end),
            );
            return None;
        };
        let value_start = key_gt + 1;
        let close = closes.from(text, value_start);
        let next = opens.from(text, value_start);
        // `</parameter>` ends it, unless another parameter starts first.
        let close = close.filter(|&close| next.is_none_or(|next| close < next));
        let (value_end, after) = match (close, next) {
            (Some(close), _) => (close, close + PARAMETER_CLOSE.len()),
            (_, Some(next)) => {
                warning(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!(
                        "'{PARAMETER_OPEN}{key}>' of '{name}' is not closed by \
                         '{PARAMETER_CLOSE}'; its value is read up to the next \
                         '{PARAMETER_OPEN}'"
                    ),
                    Span::new(pos, next),
                );
                (next, next)
            }
            (None, None) if f.cut_off => {
                // Read to the end, as vLLM's parameter pattern does (`…|$`); the call is marked
                // incomplete (its block was cut off), so a strict reading drops it.
                warning(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!(
                        "the reply ends inside the value of '{key}' in '{name}': it may be cut \
                         off; read up to the end of the reply"
                    ),
                    Span::new(pos, f.end),
                );
                (f.end, f.end)
            }
            (None, None) => {
                let ended_by = f.ended_by.unwrap_or("'</function>'");
                warning(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!(
                        "'{PARAMETER_OPEN}{key}>' of '{name}' is not closed by \
                         '{PARAMETER_CLOSE}'; its value is read up to {ended_by}"
                    ),
                    Span::new(pos, f.end),
                );
                (f.end, f.end)
            }
        };
        let (value, _) = strip_one_newline(text, Span::new(value_start, value_end));
        if args
            .insert(key.to_owned(), Value::String(value.to_owned()))
            .is_some()
        {
            warning(
                out,
                DiagnosticCode::DuplicateKey,
                format!(
                    "'{name}' gives the parameter '{key}' more than once; the last value is kept"
                ),
                Span::new(pos, after),
            );
        }
        pos = after;
    }
    Some(Call {
        name: name.to_owned(),
        args,
        id: None,
    })
}

/// Text in a function that is not a `<parameter=…>` (a note, or JSON arguments). vLLM's and
/// SGLang's parsers take the parameters with `findall` and ignore everything else, so after a
/// parameter such text is named in a warning and the call keeps its parameters, and a body that
/// is one JSON object gives a call without arguments (`{}`), as there. Other text before the
/// first parameter skips the call (error): a `<function=x>` mentioned in prose must not become
/// a call. Returns where the next parameter starts, `None` when the call is skipped.
fn skip_stray(
    text: &str,
    pos: usize,
    end: usize,
    opens: &mut Next,
    name: &str,
    first: bool,
    out: &mut ParseOutput,
) -> Option<usize> {
    let next = opens.from(text, pos).unwrap_or(end);
    let stray = text.get(pos..next).unwrap_or_default().trim_end();
    let span = Span::new(pos, pos + stray.len());
    let json_body = next == end && stray.starts_with('{') && stray.ends_with('}');
    if first && !json_body {
        error(
            out,
            DiagnosticCode::StrayText,
            format!(
                "'{name}' starts with text outside '{PARAMETER_OPEN}…>' tags: '{}'; the call is \
                 skipped",
                preview(stray)
            ),
            span,
        );
        return None;
    }
    let why = if first {
        "the arguments are JSON, which Qwen3-Coder's parsers ignore: the call has no arguments"
    } else {
        "it is ignored"
    };
    warning(
        out,
        DiagnosticCode::StrayText,
        format!(
            "'{name}' holds text outside '{PARAMETER_OPEN}…>' tags: '{}'; {why}",
            preview(stray)
        ),
        span,
    );
    Some(next)
}

/// A function or parameter name: something, on one line, with no tag in it.
pub(super) fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '<')
}

/// Where a tag (a marker starting with `<`) first occurs. Calls are short and many: a memchr
/// for `<` beats building a substring searcher per search.
pub(super) fn find_tag(haystack: &[u8], tag: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(offset) = haystack
        .get(from..)
        .and_then(|rest| memchr::memchr(b'<', rest))
    {
        let at = from + offset;
        if haystack[at..].starts_with(tag) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

pub(super) fn find_byte(text: &str, from: usize, to: usize, byte: u8) -> Option<usize> {
    let haystack = text.as_bytes().get(from..to)?;
    memchr::memchr(byte, haystack).map(|i| from + i)
}

pub(super) fn skip_whitespace(text: &str, mut pos: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < end && bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// The start of a piece of text for a message.
pub(super) fn preview(text: &str) -> String {
    const MAX: usize = 40;
    let mut chars = text.chars();
    let shown: String = chars.by_ref().take(MAX).collect();
    if chars.next().is_some() {
        format!("{shown}…")
    } else {
        shown
    }
}
