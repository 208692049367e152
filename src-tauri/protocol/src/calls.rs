//! Building requests and diagnostics from decoded blocks: the parts every format shares.
//!
//! Open models write a call as a JSON object in a handful of shapes (`name` + `arguments` or
//! `parameters`, OpenAI's nested `function`, command-r's `tool_name`), arguments sometimes as a
//! JSON string. Decoding those shapes once, with one set of messages, keeps the formats
//! consistent and their modules short.

use std::fmt::{self, Display};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::call_json::{list_items, CallDocument, CallFields, CallItem};
use crate::json_value::JsonValue;

use crate::request::{
    new_request_id, Diagnostic, DiagnosticCode, ParseOutput, ParsedToolRequest, Severity, Span,
};

pub fn diagnostic(
    severity: Severity,
    code: DiagnosticCode,
    message: String,
    span: Span,
) -> Diagnostic {
    Diagnostic {
        severity,
        code,
        message,
        span,
    }
}

pub fn error(out: &mut ParseOutput, code: DiagnosticCode, message: String, span: Span) {
    out.diagnostics
        .push(diagnostic(Severity::Error, code, message, span));
}

pub fn warning(out: &mut ParseOutput, code: DiagnosticCode, message: String, span: Span) {
    out.diagnostics
        .push(diagnostic(Severity::Warning, code, message, span));
}

/// One call as a format decoded it, before it becomes a [`ParsedToolRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Map<String, Value>,
    pub id: Option<String>,
}

/// Adds a request whose raw block is `text[span]`.
pub fn push_request(
    out: &mut ParseOutput,
    text: &str,
    span: Span,
    format: &str,
    call: Call,
    untyped_args: bool,
) {
    out.requests.push(ParsedToolRequest {
        request_id: call
            .id
            .filter(|id| !id.is_empty())
            .unwrap_or_else(new_request_id),
        tool_name: call.name,
        args: call.args,
        raw_block: text
            .get(span.start..span.end)
            .unwrap_or_default()
            .to_owned(),
        span,
        format: format.to_owned(),
        untyped_args,
        incomplete: false,
        typed_without_schema: false,
    });
}

/// "the arguments of 'name'", for diagnostics: written out only when one is made, not for
/// every call of a long reply.
pub struct ArgumentsOf<'a>(pub &'a str);

impl Display for ArgumentsOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the arguments of '{}'", self.0)
    }
}

/// Parses `text[span]` as JSON; a syntax error becomes a diagnostic pointing at the byte.
pub fn parse_json(
    text: &str,
    span: Span,
    what: impl Display,
    out: &mut ParseOutput,
) -> Option<Value> {
    parse_json_as::<JsonValue>(text, span, what, out).map(|v| v.0)
}

/// [`parse_json`] into any type that reads every JSON value (so the only errors are syntax).
pub fn parse_json_as<T: DeserializeOwned>(
    text: &str,
    span: Span,
    what: impl Display,
    out: &mut ParseOutput,
) -> Option<T> {
    let slice = text.get(span.start..span.end)?;
    if slice.trim().is_empty() {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!("{what} is empty; expected a JSON call"),
            span,
        );
        return None;
    }
    let e = match serde_json::from_str::<T>(slice) {
        Ok(value) => return Some(value),
        Err(e) => e,
    };
    let again = match decode_lenient::<T>(text, span, &what, out) {
        Ok(value) => return Some(value),
        Err(again) => again,
    };
    // JSON that only Python's leniency kept from reading to its end is cut off.
    let e = match again {
        Some(again) if again.is_eof() => again,
        _ => e,
    };
    if e.is_eof() {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!("{what} is cut off: the JSON ends early ({e}); the call is skipped"),
            span,
        );
        return None;
    }
    let mut at = span.start + byte_offset(slice, e.line(), e.column());
    while at > span.start && !text.is_char_boundary(at) {
        at -= 1;
    }
    // One character wide, never ending inside a multi-byte one.
    let mut end = (at + 1).min(span.end).max(at);
    while end < span.end && !text.is_char_boundary(end) {
        end += 1;
    }
    error(
        out,
        DiagnosticCode::InvalidJson,
        format!("{what} is not valid JSON: {e}; the call is skipped"),
        Span::new(at.min(span.end), end),
    );
    None
}

/// After serde_json rejected `text[span]`: the value Python's `json.loads` reads there (lone
/// surrogate escapes, `NaN`/`Infinity`: [`crate::json_lenient`]), with a warning; else the
/// error of the rewritten text, or `None` when there was nothing to rewrite. Only failed
/// decodes come here, so a valid reply is still parsed once.
fn decode_lenient<T: DeserializeOwned>(
    text: &str,
    span: Span,
    what: impl Display,
    out: &mut ParseOutput,
) -> Result<T, Option<serde_json::Error>> {
    let slice = text.get(span.start..span.end).unwrap_or_default();
    let rewritten = crate::json_lenient::python_compatible(slice).ok_or(None)?;
    let value = serde_json::from_str::<T>(&rewritten.text).map_err(Some)?;
    let (at, len) = rewritten.first;
    warning(
        out,
        DiagnosticCode::InvalidJson,
        format!(
            "{what} is not strict JSON: it has {}, which Python's json.loads (vLLM, SGLang) \
             accepts",
            rewritten.describe()
        ),
        Span::new(span.start + at, span.start + at + len),
    );
    Ok(value)
}

/// serde_json's 1-based line and column as a byte offset into `text`.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// Reads one call object in any of the common JSON shapes (taken by value: the arguments are
/// moved out, not copied, which matters for megabyte replies).
pub fn call_from_json(value: Value) -> Result<Call, (DiagnosticCode, String)> {
    match value {
        Value::Object(object) => CallFields::from_map(object).into_call(),
        other => CallItem::NotObject(crate::request::json_kind(&other)).into_call(),
    }
}

/// Arguments as an object, or as a string holding one (OpenAI style).
pub fn arguments(key: &str, value: Value) -> Result<Map<String, Value>, (DiagnosticCode, String)> {
    match value {
        Value::Object(map) => Ok(map),
        Value::String(s) if s.trim().is_empty() => Ok(Map::new()),
        Value::String(s) => match super::json_value::from_str(&s) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(other) => Err((
                DiagnosticCode::InvalidJson,
                format!(
                    "\"{key}\" holds {} encoded as a string, not an object",
                    crate::request::json_kind(&other)
                ),
            )),
            Err(e) => Err((
                DiagnosticCode::InvalidJson,
                format!("\"{key}\" is a string that is not valid JSON: {e}"),
            )),
        },
        other => Err((
            DiagnosticCode::InvalidJson,
            format!(
                "\"{key}\" must be an object, found {}",
                crate::request::json_kind(&other)
            ),
        )),
    }
}

/// Decodes `text[json]` as the arguments object of a call to `name` (formats that write the
/// name outside the JSON) and pushes the request, spanning `block`, or a diagnostic.
pub fn push_named_call(
    out: &mut ParseOutput,
    text: &str,
    block: Span,
    json: Span,
    format: &str,
    name: &str,
    id: Option<String>,
) {
    let Some(value) = parse_json(text, json, ArgumentsOf(name), out) else {
        return;
    };
    match arguments("arguments", value) {
        Ok(args) => push_request(
            out,
            text,
            block,
            format,
            Call {
                name: name.to_owned(),
                args,
                id,
            },
            false,
        ),
        Err((code, message)) => error(out, code, message, json),
    }
}

/// The first `needle` in `haystack`. For the short markers inside one call (`[ARGS]`), finding
/// the first byte with memchr beats building a substring searcher for every call.
pub fn find_marker_in(haystack: &str, needle: &str) -> Option<usize> {
    let (&first, rest) = needle.as_bytes().split_first()?;
    let bytes = haystack.as_bytes();
    memchr::memchr_iter(first, bytes).find(|&at| {
        bytes
            .get(at + 1..at + needle.len())
            .is_some_and(|candidate| candidate == rest)
    })
}

/// Decodes `text[span]` as one call object or an array of them, pushing a request per call
/// (spanned by its element when the span is an array) and a diagnostic per bad element.
pub fn push_json_calls(
    out: &mut ParseOutput,
    text: &str,
    span: Span,
    block_span: Span,
    format: &str,
    what: &str,
) {
    let body = text.get(span.start..span.end).unwrap_or_default();
    let mut parsed = None;
    if body.trim_start().starts_with('[') {
        // The usual case, a well-formed list: each call decoded with its span in one pass.
        if let Some(items) = list_items(text, span) {
            if items.is_empty() {
                empty_list(out, what, block_span);
            }
            for (element, item) in items {
                push_one(out, text, element, format, item);
            }
            return;
        }
        // Parsed once here; a valid list goes on below without a second parse.
        match serde_json::from_str::<CallDocument>(body)
            .or_else(|e| decode_lenient(text, span, what, out).map_err(|_| e))
        {
            Ok(document) => parsed = Some(document),
            Err(e) => {
                // A broken list: decode element by element so one bad or cut-off call does not
                // hide the good ones around it. Only a list of objects is worth that: anything
                // else (a Python call list, prose in brackets) is one error, not one per comma.
                let elements = super::balanced::element_spans(text, span);
                let objects = elements
                    .first()
                    .is_some_and(|first| text.as_bytes().get(first.start) == Some(&b'{'));
                if !objects {
                    parse_json(text, span, what, out);
                    return;
                }
                warning(
                    out,
                    DiagnosticCode::InvalidJson,
                    format!("{what} is not valid JSON ({e}); its calls are read one by one"),
                    block_span,
                );
                for (index, element) in elements.into_iter().enumerate() {
                    let label = format!("call {} of the list", index + 1);
                    if let Some(item) = parse_json_as::<CallItem>(text, element, &label, out) {
                        push_one(out, text, element, format, item);
                    }
                }
                return;
            }
        }
    }
    let Some(document) = parsed.or_else(|| parse_json_as(text, span, what, out)) else {
        return;
    };
    match document {
        CallDocument::List(items) => {
            let spans = super::balanced::element_spans(text, span);
            let empty = items.is_empty();
            for (index, item) in items.into_iter().enumerate() {
                let element = spans.get(index).copied().unwrap_or(block_span);
                push_one(out, text, element, format, item);
            }
            if empty {
                empty_list(out, what, block_span);
            }
        }
        CallDocument::One(item) => push_one(out, text, block_span, format, item),
    }
}

/// [`push_json_calls`] for a value already read by other means (a Python literal): one call, or
/// a list of calls, each list element with its own span where the text's brackets give one.
pub fn push_value_calls(
    out: &mut ParseOutput,
    text: &str,
    value: Value,
    span: Span,
    block_span: Span,
    format: &str,
    what: &str,
) {
    match serde_json::from_value::<CallDocument>(value) {
        Ok(CallDocument::One(item)) => push_one(out, text, block_span, format, item),
        Ok(CallDocument::List(items)) => {
            let spans = super::balanced::element_spans(text, span);
            let aligned = spans.len() == items.len();
            if items.is_empty() {
                empty_list(out, what, block_span);
            }
            for (index, item) in items.into_iter().enumerate() {
                let element = if aligned { spans[index] } else { block_span };
                push_one(out, text, element, format, item);
            }
        }
        Err(e) => error(
            out,
            DiagnosticCode::InvalidJson,
            format!("{what} holds no call: {e}"),
            span,
        ),
    }
}

fn empty_list(out: &mut ParseOutput, what: &str, block_span: Span) {
    warning(
        out,
        DiagnosticCode::StrayText,
        format!("{what} is an empty list: no calls"),
        block_span,
    );
}

fn push_one(out: &mut ParseOutput, text: &str, span: Span, format: &str, item: CallItem) {
    match item.into_call() {
        Ok(call) => push_request(out, text, span, format, call, false),
        Err((code, message)) => error(out, code, message, span),
    }
}

mod in_prose;
pub use in_prose::push_object_in_prose;

#[cfg(test)]
mod tests;
