//! Reading Continue's tool blocks line by line: where a call starts, its name line, its
//! arguments, and where it ends. Every line is looked at once, so a reply reads in linear time.

use serde_json::{Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::request::{DiagnosticCode, ParseOutput, Span};

use super::ID;

/// The parts of the reply outside `<think>…</think>`, as (start, end).
pub(super) fn visible_regions(text: &str) -> Vec<(usize, usize)> {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let mut regions = Vec::new();
    let mut at = 0;
    while let Some(open) = find_from(text, at, OPEN) {
        regions.push((at, open));
        match find_from(text, open + OPEN.len(), CLOSE) {
            Some(close) => at = close + CLOSE.len(),
            None => return regions,
        }
    }
    regions.push((at, text.len()));
    regions
}

fn find_from(text: &str, from: usize, needle: &str) -> Option<usize> {
    memchr::memmem::find(text.as_bytes().get(from..)?, needle.as_bytes()).map(|at| from + at)
}

/// The lines of `text[start..end]`, each as (start, end without its line feed, next line's
/// start).
pub(super) fn lines(
    text: &str,
    start: usize,
    end: usize,
) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let line_start = at;
        let line_end = memchr::memchr(b'\n', bytes.get(at..end)?).map_or(end, |i| at + i);
        at = if line_end < end { line_end + 1 } else { end };
        Some((line_start, line_end, at))
    })
}

/// A line's text without a carriage return before its line feed.
fn line_text(text: &str, start: usize, end: usize) -> &str {
    let line = text.get(start..end).unwrap_or_default();
    line.strip_suffix('\r').unwrap_or(line)
}

/// Where `label` (ASCII, lower case, `_` optional where it has one) occurs in `line`, any case:
/// (start, end) of the first occurrence.
pub(super) fn find_label(line: &str, label: &str) -> Option<(usize, usize)> {
    let (head, tail) = label.split_once('_').unwrap_or((label, ""));
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower.get(from..)?.find(head) {
        let at = from + found;
        let mut end = at + head.len();
        if lower[end..].starts_with('_') {
            end += 1;
        }
        if lower[end..].starts_with(tail) {
            return Some((at, end + tail.len()));
        }
        from = at + 1;
    }
    None
}

/// The text after the first `label` in `line` up to the next one, trimmed (what splitting the
/// line at the label and taking the second piece gives).
pub(super) fn after_label<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let (_, end) = find_label(line, label)?;
    let rest = line.get(end..)?;
    let value = match find_label(rest, label) {
        Some((next, _)) => &rest[..next],
        None => rest,
    };
    Some(value.trim())
}

/// How a call starts on a line: the fence (prose may come before it) or a bare name line.
enum Start {
    /// ```` ```tool ```` at this offset; the name is on the next line.
    Fence(usize),
    /// The line itself names the tool.
    NameLine,
}

fn start_on(line: &str, line_start: usize) -> Option<Start> {
    let bytes = line.as_bytes();
    if bytes
        .get(..10)
        .is_some_and(|head| head.eq_ignore_ascii_case(b"tool_name:"))
    {
        return Some(Start::NameLine);
    }
    let fence_at = bytes.len().checked_sub(7)?;
    let (before, tail) = bytes.split_at(fence_at);
    // Exactly three backticks: the reference splits a longer run before `tool`.
    let exact = before.last() != Some(&b'`');
    (exact && tail.starts_with(b"```") && tail[3..].eq_ignore_ascii_case(b"tool"))
        .then_some(Start::Fence(line_start + fence_at))
}

/// A call being read.
struct Reading {
    start: usize,
    name: String,
    args: Map<String, Value>,
    /// The argument being read: its name and where its value starts.
    argument: Option<(String, usize)>,
}

pub(super) fn read_region(
    text: &str,
    start: usize,
    end: usize,
    out: &mut ParseOutput,
    content: &mut String,
) {
    let mut prose_from = start;
    // After a fence, the line that must name the tool.
    let mut fence: Option<usize> = None;
    let mut call: Option<Reading> = None;
    // Inside a code block of another kind (```tool_definition, ```python): a tool block or
    // TOOL_NAME: line quoted there is an example, not a call.
    let mut quoted = false;
    for (line_start, line_end, next) in lines(text, start, end) {
        let line = line_text(text, line_start, line_end);
        if let Some(fence_at) = fence.take() {
            match after_label(line, "tool_name:").filter(|name| !name.is_empty()) {
                Some(name) => call = Some(reading(fence_at, name)),
                None => {
                    error(
                        out,
                        DiagnosticCode::MissingToolName,
                        "the line after ```tool names no tool (TOOL_NAME: …); the block is \
                         skipped"
                            .to_owned(),
                        Span::new(fence_at, line_end),
                    );
                    // The rest of the block is text up to its closing fence.
                    quoted = true;
                }
            }
            continue;
        }
        if let Some(mut reading) = call.take() {
            match reading.argument.take() {
                Some((argument, value_start)) => {
                    if find_label(line, "end_arg").is_some() {
                        let raw = text.get(value_start..line_start).unwrap_or_default();
                        let span = Span::new(value_start, line_start);
                        set_argument(&mut reading, argument, raw, span, out);
                    } else {
                        reading.argument = Some((argument, value_start));
                    }
                    call = Some(reading);
                    continue;
                }
                None => {
                    if let Some(argument) = after_label(line, "begin_arg:") {
                        if argument.is_empty() {
                            error(
                                out,
                                DiagnosticCode::UnknownKey,
                                format!(
                                    "a BEGIN_ARG line in the call to '{}' names no argument; the \
                                     call is skipped",
                                    reading.name
                                ),
                                Span::new(reading.start, line_end),
                            );
                            prose_from = next;
                        } else {
                            reading.argument = Some((argument.to_owned(), next));
                            call = Some(reading);
                        }
                        continue;
                    }
                    // Any other line ends the call: a closing fence is part of it, prose is not.
                    let call_end = if line.starts_with("```") {
                        line_start + 3
                    } else {
                        line_start
                    };
                    finish(text, reading, call_end, false, out);
                    prose_from = call_end;
                }
            }
        }
        match start_on(line, line_start).filter(|_| !quoted) {
            Some(Start::Fence(fence_at)) if next > line_end => {
                // A line that closes one call and opens the next leaves no prose between them.
                content.push_str(text.get(prose_from..fence_at).unwrap_or_default());
                fence = Some(fence_at);
                prose_from = next;
            }
            Some(Start::NameLine) => {
                if let Some(name) = bare_call_name(text, line, next, end) {
                    content.push_str(text.get(prose_from..line_start).unwrap_or_default());
                    call = Some(reading(line_start, name));
                }
            }
            _ if line.trim_start().starts_with("```") => quoted = !quoted,
            _ => {}
        }
    }
    match call {
        Some(reading) => finish(text, reading, end, true, out),
        None if fence.is_some() => {}
        None => content.push_str(text.get(prose_from..end).unwrap_or_default()),
    }
}

/// The tool a `tool_name:` line without a fence calls, when the reply shows it is a call: the
/// name looks like a tool's and a `BEGIN_ARG:` line follows, or nothing does. Without that
/// evidence the line is prose (a `key: value` list, another format's `tool_name:` field).
fn bare_call_name<'a>(text: &str, line: &'a str, next: usize, end: usize) -> Option<&'a str> {
    let name = after_label(line, "tool_name:")?;
    let looks_like_a_tool = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !looks_like_a_tool {
        return None;
    }
    let rest = text.get(next..end).unwrap_or_default();
    let next_line = rest.split('\n').next().unwrap_or_default();
    (rest.trim().is_empty() || find_label(next_line, "begin_arg:").is_some()).then_some(name)
}

fn reading(start: usize, name: &str) -> Reading {
    Reading {
        start,
        name: name.to_owned(),
        args: Map::new(),
        argument: None,
    }
}

fn set_argument(
    reading: &mut Reading,
    argument: String,
    raw: &str,
    span: Span,
    out: &mut ParseOutput,
) {
    let value = argument_value(raw);
    if reading.args.insert(argument.clone(), value).is_some() {
        warning(
            out,
            DiagnosticCode::DuplicateKey,
            format!(
                "'{argument}' is given twice in the call to '{}'; the last value counts",
                reading.name
            ),
            span,
        );
    }
}

/// Emits the call, which ends at `end`; `at_reply_end` when the reply ended while reading it.
fn finish(text: &str, reading: Reading, end: usize, at_reply_end: bool, out: &mut ParseOutput) {
    let span = Span::new(reading.start, end);
    let cut_off = at_reply_end && reading.argument.is_some();
    if let Some((argument, value_start)) = &reading.argument {
        if at_reply_end {
            warning(
                out,
                DiagnosticCode::UnclosedValue,
                format!(
                    "the reply ends inside the value of '{argument}' (no END_ARG): Continue \
                     drops that argument and keeps the call's other ones"
                ),
                Span::new(*value_start, end),
            );
        }
    }
    let call = Call {
        name: reading.name,
        args: reading.args,
        id: None,
    };
    let first = out.requests.len();
    push_request(out, text, span, ID, call, false);
    if cut_off {
        for request in out.requests.iter_mut().skip(first) {
            request.incomplete = true;
        }
    }
}

/// An argument's lines as Continue hands them to the tool: trimmed, then JSON if they are JSON
/// (a list or object may hold raw line feeds inside its strings), else the text.
pub(super) fn argument_value(raw: &str) -> Value {
    let trimmed = raw.trim();
    let parsed = if trimmed.starts_with('[') || trimmed.starts_with('{') {
        serde_json::from_str(&escape_newlines_in_strings(trimmed))
    } else {
        serde_json::from_str(trimmed)
    };
    parsed.unwrap_or_else(|_| Value::String(trimmed.to_owned()))
}

/// `json` with each raw line feed inside a string literal written as `\n`.
fn escape_newlines_in_strings(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    for ch in json.chars() {
        match ch {
            '\n' if in_string => {
                out.push_str("\\n");
                escaped = false;
                continue;
            }
            '"' if !escaped => in_string = !in_string,
            _ => {}
        }
        escaped = in_string && ch == '\\' && !escaped;
        out.push(ch);
    }
    out
}
