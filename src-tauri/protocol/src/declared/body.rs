//! Decoding one call block of a declared format: the regex (when there is one) finds each call
//! and its name, the encoding reads the arguments. Every step is linear in the block (the regex
//! crate guarantees it for a search; the parameter and line readers only move forward).

use std::ops::Range;

use serde_json::{Map, Value};

use crate::balanced::{value_end, Syntax};

use crate::calls::{error, push_json_calls, push_named_call, push_request, warning, Call};
use crate::request::{DiagnosticCode, ParseOutput, Span};

use super::spec::{Encoding, Spec};

/// Decodes `text[body]` (the block's inside; `block` with its markers), which messages call
/// `what`.
pub fn decode(
    spec: &Spec,
    format: &str,
    what: &str,
    text: &str,
    body: Span,
    block: Span,
    out: &mut ParseOutput,
) {
    let Some(regex) = &spec.regex else {
        // Without a regex only JSON can name its calls (checked when the file was read).
        push_json_calls(out, text, body, block, format, what);
        return;
    };
    let inside = text.get(body.start..body.end).unwrap_or_default();
    let found = find_calls(regex, spec.encoding, inside);
    if found.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("the call block does not match the '{format}' regex; it is skipped"),
            block,
        );
        return;
    }
    let single = found.len() == 1;
    for found in found {
        // One call spans its block (markers included); several span their own matches.
        let span = if single {
            block
        } else {
            Span::new(body.start + found.whole.start, body.start + found.whole.end)
        };
        let name = inside.get(found.name.clone()).unwrap_or_default().trim();
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("a call in {what} has no name; it is skipped"),
                span,
            );
            continue;
        }
        let id = found
            .id
            .and_then(|range| inside.get(range))
            .map(|id| id.trim().to_owned());
        let arguments = found
            .arguments
            .map(|range| Span::new(body.start + range.start, body.start + range.end));
        match (spec.encoding, arguments) {
            // The JSON after the match must be there; an empty `arguments` group is no arguments.
            (Encoding::Json, Some(args)) if found.value_after || !blank(text, args) => {
                push_named_call(out, text, span, args, format, name, id);
            }
            (Encoding::KeyValue, Some(args)) => {
                let args = key_values(text, args, &spec.assignment, out);
                push_request(out, text, span, format, call(name, args, id), true);
            }
            (Encoding::XmlParameters, Some(args)) => {
                // A value the reply ends in may be incomplete: the call is skipped (reported).
                if let Some(args) = parameters(text, args, spec, out) {
                    push_request(out, text, span, format, call(name, args, id), true);
                }
            }
            (encoding, _) => {
                let untyped = encoding != Encoding::Json;
                push_request(out, text, span, format, call(name, Map::new(), id), untyped);
            }
        }
    }
}

/// Where one call sits in a block's inside (byte ranges).
struct Found {
    whole: Range<usize>,
    name: Range<usize>,
    arguments: Option<Range<usize>>,
    /// The arguments are the value after the match (no `arguments` group).
    value_after: bool,
    id: Option<Range<usize>>,
}

/// Every match of the regex in `inside`. JSON arguments without an `arguments` group are the
/// balanced JSON value right after the match (`Action Input: {…}`), which the regex engine need
/// not walk: the next search starts after it.
fn find_calls(regex: &regex::Regex, encoding: Encoding, inside: &str) -> Vec<Found> {
    let bytes = inside.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at <= inside.len() {
        let Some(captures) = regex.captures_at(inside, at) else {
            break;
        };
        let (Some(whole), Some(name)) = (captures.get(0), captures.name("name")) else {
            break;
        };
        let mut end = whole.end();
        let arguments = match captures.name("arguments") {
            Some(group) => Some(group.range()),
            None if encoding == Encoding::Json => {
                // Anything else after the match is read (and reported) as the arguments.
                let value = (end..bytes.len()).find(|&i| !bytes[i].is_ascii_whitespace());
                Some(value.map_or(end..end, |start| {
                    let stop = match bytes[start] {
                        b'{' | b'[' => value_end(Syntax::Json, bytes, start).unwrap_or(bytes.len()),
                        _ => bytes.len(),
                    };
                    end = stop;
                    start..stop
                }))
            }
            None => None,
        };
        let value_after = encoding == Encoding::Json && captures.name("arguments").is_none();
        found.push(Found {
            whole: whole.start()..end,
            name: name.range(),
            arguments,
            value_after,
            id: captures.name("id").map(|m| m.range()),
        });
        // An empty match must still move on, to the next character.
        at = if end > whole.start() {
            end
        } else {
            inside[end..]
                .chars()
                .next()
                .map_or(usize::MAX, |c| end + c.len_utf8())
        };
    }
    found
}

fn call(name: &str, args: Map<String, Value>, id: Option<String>) -> Call {
    Call {
        name: name.to_owned(),
        args,
        id: id.filter(|id| !id.is_empty()),
    }
}

fn blank(text: &str, span: Span) -> bool {
    text.get(span.start..span.end)
        .is_none_or(|s| s.trim().is_empty())
}

/// `key=value` lines: the value is the text after the assignment, trimmed, with one pair of
/// surrounding double quotes removed when it is a JSON string. Other lines are reported.
fn key_values(
    text: &str,
    span: Span,
    assignment: &str,
    out: &mut ParseOutput,
) -> Map<String, Value> {
    let mut args = Map::new();
    let inside = text.get(span.start..span.end).unwrap_or_default();
    let mut offset = span.start;
    for line in inside.split_inclusive('\n') {
        let line_span = Span::new(offset, offset + line.len());
        offset += line.len();
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(assignment) else {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!("a line without '{assignment}' in the arguments is ignored"),
                line_span,
            );
            continue;
        };
        insert(&mut args, key.trim(), unquote(value.trim()), line_span, out);
    }
    args
}

fn unquote(value: &str) -> String {
    if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        if let Ok(Value::String(inner)) = serde_json::from_str::<Value>(value) {
            return inner;
        }
    }
    value.to_owned()
}

/// `<parameter=key>value</parameter>` (or the file's tags): the key runs to `>` (quotes and a
/// `name=` prefix removed), the value to the closing tag, losing one newline at each end as
/// the Qwen3-Coder family's parsers do. `None` (reported) when a tag or value is not closed.
fn parameters(
    text: &str,
    span: Span,
    spec: &Spec,
    out: &mut ParseOutput,
) -> Option<Map<String, Value>> {
    let mut args = Map::new();
    let inside = text.get(span.start..span.end).unwrap_or_default();
    let (open, close) = (spec.parameter_open.as_str(), spec.parameter_close.as_str());
    let bytes = inside.as_bytes();
    let after = |from: usize| bytes.get(from..).unwrap_or_default();
    let mut at = 0;
    while let Some(found) = memchr::memmem::find(after(at), open.as_bytes()) {
        let tag_start = at + found;
        let key_start = tag_start + open.len();
        let Some(key_len) = memchr::memchr(b'>', after(key_start)) else {
            error(
                out,
                DiagnosticCode::UnclosedValue,
                format!("a '{open}' tag is not closed by '>'; the call is skipped"),
                Span::new(span.start + tag_start, span.end),
            );
            return None;
        };
        let value_start = key_start + key_len + 1;
        let Some(value_len) = memchr::memmem::find(after(value_start), close.as_bytes()) else {
            error(
                out,
                DiagnosticCode::UnclosedValue,
                format!(
                    "a parameter is not closed by '{close}': its value may be incomplete, so \
                     the call is skipped"
                ),
                Span::new(span.start + tag_start, span.end),
            );
            return None;
        };
        let key = inside
            .get(key_start..key_start + key_len)
            .unwrap_or_default()
            .trim();
        let key = key
            .strip_prefix("name=")
            .unwrap_or(key)
            .trim_matches(['"', '\'']);
        let raw = inside
            .get(value_start..value_start + value_len)
            .unwrap_or_default();
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let element = Span::new(
            span.start + tag_start,
            span.start + value_start + value_len + close.len(),
        );
        insert(&mut args, key, raw.to_owned(), element, out);
        at = value_start + value_len + close.len();
    }
    Some(args)
}

fn insert(
    args: &mut Map<String, Value>,
    key: &str,
    value: String,
    span: Span,
    out: &mut ParseOutput,
) {
    if key.is_empty() {
        warning(
            out,
            DiagnosticCode::MissingToolName,
            "an argument without a name is ignored".to_owned(),
            span,
        );
        return;
    }
    if args.insert(key.to_owned(), Value::String(value)).is_some() {
        warning(
            out,
            DiagnosticCode::DuplicateKey,
            format!("argument '{key}' is given twice; the last value wins"),
            span,
        );
    }
}
