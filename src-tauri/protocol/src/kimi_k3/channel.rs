//! Reading a `tools` channel: its `call` elements, their attributes, and their `argument` (or
//! `json`) elements, in one pass with the shared [`Finder`]s.

use serde_json::{Map, Value};

use super::{
    ARGUMENT_CLOSE, ARGUMENT_OPEN, CALL_CLOSE, CALL_OPEN, CLOSE, JSON_CLOSE, JSON_OPEN, OPEN, SEP,
};
use crate::calls::{error, push_request, warning, Call};
use crate::framing::Block;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::{insert_arg, stray_text as stray, Finder};

/// Decodes every call of a `tools` channel into requests of `format`.
pub fn decode_channel(text: &str, block: &Block, format: &str, out: &mut ParseOutput) {
    let end = block.body.end.min(text.len());
    let mut find = Finders::new(text, end);
    let mut cursor = block.body.start;
    while let Some(open) = call_open(text, &mut find.calls, cursor) {
        stray(text, cursor, open, "in the tools channel", out);
        let read = read_call(text, &mut find, open, end, block.complete, out);
        if let Some((call, untyped)) = read.decoded {
            let span = Span::new(open, read.end);
            push_request(out, text, span, format, call, untyped);
        }
        cursor = read.end.max(open + 1);
    }
    stray(text, cursor, end, "in the tools channel", out);
}

/// The searches a tools channel needs; positions asked only grow, so a channel is read in one
/// pass however many elements are broken.
struct Finders<'t> {
    calls: Finder<'t>,
    opens: Finder<'t>,
    closes: Finder<'t>,
    seps: Finder<'t>,
    argument_closes: Finder<'t>,
    json_closes: Finder<'t>,
}

impl<'t> Finders<'t> {
    fn new(text: &'t str, end: usize) -> Self {
        Self {
            calls: Finder::new(text, end, CALL_OPEN),
            opens: Finder::new(text, end, OPEN),
            closes: Finder::new(text, end, CLOSE),
            seps: Finder::new(text, end, SEP),
            argument_closes: Finder::new(text, end, ARGUMENT_CLOSE),
            json_closes: Finder::new(text, end, JSON_CLOSE),
        }
    }

    /// The next `<|open|>` or `<|close|>` at or after `from`.
    fn next_marker(&mut self, from: usize) -> Option<usize> {
        [self.opens.find(from), self.closes.find(from)]
            .into_iter()
            .flatten()
            .min()
    }
}

/// The first `<|open|>call` at or after `from` that names the element (followed by whitespace
/// or `<|sep|>`: not `<|open|>callback`).
fn call_open(text: &str, calls: &mut Finder<'_>, mut from: usize) -> Option<usize> {
    loop {
        let at = calls.find(from)?;
        let after = text.get(at + CALL_OPEN.len()..).unwrap_or_default();
        if after.starts_with(char::is_whitespace) || after.starts_with(SEP) {
            return Some(at);
        }
        from = at + 1;
    }
}

/// A call as read: the request (and whether it is untyped) when it decodes, and where the
/// call's text ends.
struct ReadCall {
    decoded: Option<(Call, bool)>,
    end: usize,
}

/// Reads the call whose `<|open|>call` is at `open`.
fn read_call(
    text: &str,
    find: &mut Finders<'_>,
    open: usize,
    end: usize,
    complete: bool,
    out: &mut ParseOutput,
) -> ReadCall {
    let attrs_from = open + CALL_OPEN.len();
    let limit = find.next_marker(attrs_from).unwrap_or(end);
    let Some(sep) = find.seps.find(attrs_from).filter(|&at| at <= limit) else {
        error(
            out,
            DiagnosticCode::UnclosedBlock,
            format!("{CALL_OPEN} is not ended by {SEP}; the call is skipped"),
            Span::new(open, limit),
        );
        return ReadCall {
            decoded: None,
            end: limit,
        };
    };
    let attrs = attributes(text.get(attrs_from..sep).unwrap_or_default());
    let name = attrs
        .iter()
        .find(|(k, _)| *k == "tool")
        .map(|(_, v)| v.clone());
    let mut ok = match name.as_deref() {
        Some(name) if !name.trim().is_empty() => true,
        _ => {
            error(
                out,
                DiagnosticCode::MissingToolName,
                "a call has no tool=\"…\" attribute; it is skipped".to_owned(),
                Span::new(open, sep + SEP.len()),
            );
            false
        }
    };
    let name = name.unwrap_or_default();
    let mut args = Map::new();
    let mut untyped = false;
    let mut cursor = sep + SEP.len();
    loop {
        let rest = text.get(cursor..end).unwrap_or_default();
        let trimmed = rest.trim_start();
        cursor = end - trimmed.len();
        if trimmed.is_empty() {
            // The channel (or the reply) ended inside the call.
            if complete {
                error(
                    out,
                    DiagnosticCode::UnclosedBlock,
                    format!("the call to '{name}' is not closed by {CALL_CLOSE}; it is skipped"),
                    Span::new(open, end),
                );
                ok = false;
            }
            let decoded = ok.then(|| (call(name, args), untyped));
            return ReadCall { decoded, end };
        }
        if trimmed.starts_with(CALL_CLOSE) {
            let close_end = cursor + CALL_CLOSE.len();
            let decoded = ok.then(|| (call(name, args), untyped));
            return ReadCall {
                decoded,
                end: close_end,
            };
        }
        if trimmed.starts_with(CALL_OPEN) {
            error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "the call to '{name}' is not closed by {CALL_CLOSE} before the next call; it \
                     is skipped"
                ),
                Span::new(open, cursor),
            );
            return ReadCall {
                decoded: None,
                end: cursor,
            };
        }
        let element = if trimmed.starts_with(ARGUMENT_OPEN) {
            Some((ARGUMENT_OPEN, ARGUMENT_CLOSE, true))
        } else if trimmed.starts_with(JSON_OPEN) {
            Some((JSON_OPEN, JSON_CLOSE, false))
        } else {
            None
        };
        let Some((opener, closer, is_argument)) = element else {
            let next = find.next_marker(cursor + 1).unwrap_or(end);
            stray(text, cursor, next, &format!("in the call to '{name}'"), out);
            cursor = next;
            continue;
        };
        let attrs_from = cursor + opener.len();
        let closes = if is_argument {
            &mut find.argument_closes
        } else {
            &mut find.json_closes
        };
        let value_end = closes.find(attrs_from);
        let sep = find.seps.find(attrs_from);
        let (Some(value_end), Some(sep)) = (value_end, sep.filter(|&s| Some(s) < value_end)) else {
            error(
                out,
                DiagnosticCode::UnclosedValue,
                format!("an element of the call to '{name}' is not closed by {closer}; the call is skipped"),
                Span::new(cursor, end),
            );
            return ReadCall { decoded: None, end };
        };
        let element_span = Span::new(cursor, value_end + closer.len());
        let value_span = Span::new(sep + SEP.len(), value_end);
        let attrs = attributes(text.get(attrs_from..sep).unwrap_or_default());
        let raw = text
            .get(value_span.start..value_span.end)
            .unwrap_or_default();
        let kind = attrs
            .iter()
            .find(|(k, _)| *k == "type")
            .map_or("string", |(_, v)| v.as_str());
        if is_argument {
            let key = attrs
                .iter()
                .find(|(k, _)| *k == "key")
                .map(|(_, v)| v.as_str());
            match key {
                Some(key) if !key.is_empty() => {
                    let value = typed_value(raw, kind, key, &name, value_span, &mut untyped, out);
                    insert_arg(&mut args, key, value, element_span, &name, out);
                }
                _ => {
                    error(
                        out,
                        DiagnosticCode::UnknownKey,
                        format!("an argument of '{name}' has no key=\"…\"; the call is skipped"),
                        element_span,
                    );
                    ok = false;
                }
            }
        } else {
            match serde_json::from_str::<Value>(raw.trim()) {
                Ok(Value::Object(object)) => args.extend(object),
                _ => {
                    error(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!("the JSON arguments of '{name}' are not a JSON object; the call is skipped"),
                        value_span,
                    );
                    ok = false;
                }
            }
        }
        cursor = element_span.end;
    }
}

fn call(name: String, args: Map<String, Value>) -> Call {
    Call {
        name,
        args,
        id: None,
    }
}

/// An argument's value by its `type`: raw text for strings, JSON otherwise (text, with a
/// warning, when it is not JSON).
fn typed_value(
    raw: &str,
    kind: &str,
    key: &str,
    name: &str,
    span: Span,
    untyped: &mut bool,
    out: &mut ParseOutput,
) -> Value {
    if kind == "string" {
        return Value::String(raw.to_owned());
    }
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(value) => value,
        Err(e) => {
            warning(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "argument '{key}' of '{name}' says type=\"{kind}\" but is not JSON ({e}); it \
                     is kept as text"
                ),
                span,
            );
            *untyped = true;
            Value::String(raw.to_owned())
        }
    }
}

/// The `key="value"` attributes of an element's head, values unescaped as the template escapes
/// them (`&quot;` before `&amp;`). Anything else in the head is ignored.
fn attributes(head: &str) -> Vec<(&str, String)> {
    let mut attrs = Vec::new();
    let mut rest = head;
    while let Some(eq) = rest.find("=\"") {
        // The key is the run of word characters before `="` (the character before it may
        // be any width).
        let key_start = rest[..eq]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |(at, c)| at + c.len_utf8());
        let key = &rest[key_start..eq];
        let value_from = eq + 2;
        let Some(len) = rest[value_from..].find('"') else {
            break;
        };
        let value = &rest[value_from..value_from + len];
        if !key.is_empty() {
            attrs.push((key, value.replace("&quot;", "\"").replace("&amp;", "&")));
        }
        rest = &rest[value_from + len + 1..];
    }
    attrs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_unescaped_and_any_text_around_them_is_safe() {
        let attrs = attributes(" tool=\"a&quot;b&amp;c\" é=\"x\" index=\"1\" ünï");
        assert_eq!(attrs[0], ("tool", "a\"b&c".to_owned()));
        assert_eq!(attrs.last(), Some(&("index", "1".to_owned())));
        assert!(attributes("é=\"").is_empty());
    }
}
