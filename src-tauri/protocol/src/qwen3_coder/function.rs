//! One `<function=NAME>` of a Qwen3-Coder reply: its name and `<parameter=KEY>` values, with
//! the decisions on broken functions described in the parent module.

use serde_json::{Map, Value};

use super::{FUNCTION_CLOSE, FUNCTION_OPEN, PARAMETER_CLOSE, PARAMETER_OPEN};
use crate::calls::{error, warning, Call};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::{starts_line, strip_one_newline};

/// The next occurrence of a marker at or after a position, before a fixed end. Positions asked
/// for only grow, so a match found once is reused until passed and a failed search is final:
/// every byte is searched at most once per marker, however many parameters a call has.
pub(super) struct Next {
    marker: &'static str,
    end: usize,
    found: Option<usize>,
    exhausted: bool,
    /// Only occurrences that start a line (after indentation) count.
    line_start: bool,
}

impl Next {
    pub(super) fn new(marker: &'static str, end: usize) -> Self {
        Self {
            marker,
            end,
            found: None,
            exhausted: false,
            line_start: false,
        }
    }

    /// Occurrences that start a line, where the chat template puts every tag (`\n</parameter>\n`):
    /// a tag in the middle of a line of a value is the value's text.
    pub(super) fn at_line_start(marker: &'static str, end: usize) -> Self {
        Self {
            line_start: true,
            ..Self::new(marker, end)
        }
    }

    pub(super) fn from(&mut self, text: &str, from: usize) -> Option<usize> {
        if self.exhausted {
            return None;
        }
        if let Some(at) = self.found.filter(|&at| at >= from) {
            return Some(at);
        }
        let mut at = from;
        loop {
            let haystack = text.as_bytes().get(at..self.end)?;
            match find_tag(haystack, self.marker.as_bytes()) {
                Some(offset) if !self.line_start || starts_line(text, at + offset) => {
                    self.found = Some(at + offset);
                    return self.found;
                }
                Some(offset) => at += offset + 1,
                None => {
                    self.exhausted = true;
                    return None;
                }
            }
        }
    }
}

/// Whether a tag ending just before `at` is followed by a line break, as the template writes
/// `<function=NAME>` and `<parameter=KEY>`: the value (or function) is laid out on lines.
pub(super) fn line_follows(text: &str, at: usize) -> bool {
    let rest = text.get(at..).unwrap_or_default();
    rest.starts_with('\n') || rest.starts_with("\r\n")
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
    let mut line_opens = Next::at_line_start(PARAMETER_OPEN, f.end);
    let mut line_closes = Next::at_line_start(PARAMETER_CLOSE, f.end);
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
        // A value on its own lines (the template's layout) ends at the `</parameter>` that
        // starts a line: tags in the middle of its lines are its text. Otherwise, or when no
        // such tag comes before the next parameter, at the first `</parameter>`.
        let laid_out = line_follows(text, value_start).then(|| {
            let close = line_closes.from(text, value_start);
            let next = line_opens.from(text, value_start);
            close.filter(|&close| next.is_none_or(|next| close < next))
        });
        if let Some(Some(close)) = laid_out {
            let (value, _) = strip_one_newline(text, Span::new(value_start, close));
            let after = close + PARAMETER_CLOSE.len();
            insert_value(&mut args, key, value, name, Span::new(pos, after), out);
            pos = after;
            continue;
        }
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
                // The value is cut off: running the call with it would run something the model
                // did not write (`rm -rf /tmp/build` cut to `rm -rf /`). SGLang, which needs
                // `</tool_call>`, gives no call either; vLLM's pattern (`…|$`) reads it.
                error(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!(
                        "the reply ends inside the value of '{key}' in '{name}': the value is \
                         cut off; the call is skipped"
                    ),
                    Span::new(pos, f.end),
                );
                return None;
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
        insert_value(&mut args, key, value, name, Span::new(pos, after), out);
        pos = after;
    }
    Some(Call {
        name: name.to_owned(),
        args,
        id: None,
    })
}

/// Adds a parameter's text; a parameter given twice keeps its last value, with a warning.
fn insert_value(
    args: &mut Map<String, Value>,
    key: &str,
    value: &str,
    name: &str,
    span: Span,
    out: &mut ParseOutput,
) {
    if args
        .insert(key.to_owned(), Value::String(value.to_owned()))
        .is_some()
    {
        warning(
            out,
            DiagnosticCode::DuplicateKey,
            format!("'{name}' gives the parameter '{key}' more than once; the last value is kept"),
            span,
        );
    }
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
