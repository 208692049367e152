//! Reading call objects out of a document (name, arguments, id) with a diagnostic at the exact
//! byte for each problem, and reporting what is wrong with a document as a whole.

use serde_json::{Map, Value};

use super::offsets::{line_column_offset, literal_offset, next_char_end};
use super::{Doc, Node};
use crate::calls::{error, parse_json, warning};
use crate::request::{json_kind, DiagnosticCode, ParseOutput, Severity, Span};

/// Whether a document is whole, cut off, or broken somewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integrity {
    Complete,
    /// The reply ends before the document does.
    CutOff,
    /// A syntax error at this byte (serde_json's message).
    Broken {
        at: usize,
        message: String,
    },
}

/// Checks the whole document once (without building it).
pub fn integrity(text: &str, document: Node) -> Integrity {
    if !document.complete {
        return Integrity::CutOff;
    }
    let slice = document.slice(text);
    match serde_json::from_str::<serde::de::IgnoredAny>(slice) {
        Ok(_) => Integrity::Complete,
        Err(e) if e.is_eof() => Integrity::CutOff,
        Err(e) => Integrity::Broken {
            at: document.span.start + line_column_offset(slice, e.line(), e.column()),
            message: e.to_string(),
        },
    }
}

/// Reports what is wrong with a document as a whole, once its calls have been read.
///
/// `calls_complete` says whether the list holding the calls closed: a document cut off after
/// it still has all its calls (a warning); one cut off inside it may have lost some (an error,
/// unless a cut-off call already said so). A syntax error is reported where it is, unless a
/// call's own diagnostic already covers that byte.
pub fn report_integrity(
    text: &str,
    document: Node,
    integrity: &Integrity,
    calls_complete: bool,
    what: &str,
    out: &mut ParseOutput,
    diagnostics_before: usize,
) {
    match integrity {
        Integrity::Complete => {}
        Integrity::CutOff if calls_complete => warning(
            out,
            DiagnosticCode::UnclosedBlock,
            format!(
                "{what} is cut off: the JSON ends before the document does, but after the list \
                 of calls, so every call is here"
            ),
            document.span,
        ),
        Integrity::CutOff => {
            let already = out.diagnostics[diagnostics_before.min(out.diagnostics.len())..]
                .iter()
                .any(|d| d.code == DiagnosticCode::UnclosedBlock && d.severity == Severity::Error);
            if !already {
                error(
                    out,
                    DiagnosticCode::UnclosedBlock,
                    format!(
                        "{what} is cut off inside its list of calls: the complete calls are \
                         kept, any that followed are lost"
                    ),
                    document.span,
                );
            }
        }
        Integrity::Broken { at, message } => {
            let covered = out.diagnostics[diagnostics_before.min(out.diagnostics.len())..]
                .iter()
                .any(|d| d.span.start <= *at && *at < d.span.end.max(d.span.start + 1));
            if !covered {
                let end = next_char_end(text, *at);
                error(
                    out,
                    DiagnosticCode::InvalidJson,
                    format!(
                        "{what} is not valid JSON: {message}; calls that are valid on their own \
                         are kept"
                    ),
                    Span::new(*at, end),
                );
            }
        }
    }
}

/// The call object at `node`, or a diagnostic (cut off, invalid JSON, not an object).
pub fn call_object(
    text: &str,
    node: Node,
    label: &str,
    out: &mut ParseOutput,
) -> Option<Map<String, Value>> {
    if !node.complete {
        error(
            out,
            DiagnosticCode::UnclosedBlock,
            format!("{label} is cut off: the reply ends inside it; it is skipped"),
            node.span,
        );
        return None;
    }
    match parse_json(text, node.span, label, out)? {
        Value::Object(map) => Some(map),
        other => {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "{label} must be a JSON object, found {}; it is skipped",
                    json_kind(&other)
                ),
                node.span,
            );
            None
        }
    }
}

/// The non-empty string under `key`, or a `missing_tool_name` diagnostic.
pub fn call_name(
    map: &Map<String, Value>,
    key: &str,
    label: &str,
    span: Span,
    out: &mut ParseOutput,
) -> Option<String> {
    match map.get(key) {
        Some(Value::String(name)) if !name.trim().is_empty() => Some(name.trim().to_owned()),
        Some(_) => {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{label}: \"{key}\" is not a non-empty string; it is skipped"),
                span,
            );
            None
        }
        None => {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{label} has no \"{key}\"; it is skipped"),
                span,
            );
            None
        }
    }
}

/// A string id under `key`, if any.
pub fn call_id(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key)
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// A call's name (`keys[0]`) and arguments (`keys[1]`, see [`call_arguments`]) taken out of
/// its decoded object `map`; `node` is the object in the reply, for the arguments' span. `None`
/// when either is unusable (reported).
pub fn name_and_arguments(
    text: &Doc,
    map: &mut Map<String, Value>,
    node: Option<Node>,
    keys: [&str; 2],
    label: &str,
    span: Span,
    out: &mut ParseOutput,
) -> Option<(String, Map<String, Value>)> {
    let [name_key, args_key] = keys;
    let name = call_name(map, name_key, label, span, out)?;
    let args_node = node.and_then(|n| n.get(text, args_key));
    let args = call_arguments(
        text,
        map.remove(args_key),
        args_node,
        args_key,
        label,
        span,
        out,
    )?;
    Some((name, args))
}

/// Arguments as a JSON object, or as a string holding one (OpenAI's `arguments`). An invalid
/// string is reported at the byte inside it (`node` is the value's node in the reply); a
/// missing or null value is no arguments.
pub fn call_arguments(
    text: &str,
    value: Option<Value>,
    node: Option<Node>,
    key: &str,
    label: &str,
    fallback: Span,
    out: &mut ParseOutput,
) -> Option<Map<String, Value>> {
    let span = node.map_or(fallback, |n| n.span);
    match value {
        None | Some(Value::Null) => Some(Map::new()),
        Some(Value::Object(map)) => Some(map),
        Some(Value::String(s)) if s.trim().is_empty() => Some(Map::new()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(map)) => Some(map),
            Ok(other) => {
                error(
                    out,
                    DiagnosticCode::InvalidJson,
                    format!(
                        "{label}: \"{key}\" holds {} encoded as a string, not an object; the \
                         call is skipped",
                        json_kind(&other)
                    ),
                    span,
                );
                None
            }
            Err(e) => {
                let cut = e.is_eof();
                let decoded_at = if cut {
                    s.len()
                } else {
                    line_column_offset(&s, e.line(), e.column())
                };
                let at = match node {
                    Some(n) if n.is_string(text) => {
                        n.span.start + literal_offset(n.slice(text), decoded_at)
                    }
                    _ => span.start,
                };
                let message = if cut {
                    format!(
                        "{label}: the \"{key}\" string ends before its JSON does ({e}): the \
                         arguments are cut off; the call is skipped"
                    )
                } else {
                    format!(
                        "{label}: the \"{key}\" string is not valid JSON ({e}, counted inside \
                         the string); the call is skipped"
                    )
                };
                error(
                    out,
                    DiagnosticCode::InvalidJson,
                    message,
                    Span::new(at, next_char_end(text, at).min(span.end.max(at))),
                );
                None
            }
        },
        Some(other) => {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "{label}: \"{key}\" must be an object or a string holding one, found {}; \
                     the call is skipped",
                    json_kind(&other)
                ),
                span,
            );
            None
        }
    }
}

/// The text of a content value: a string, or a list of parts with a `text` field (OpenAI and
/// Anthropic content parts), concatenated.
pub fn text_of(text: &Doc, node: Node) -> Option<String> {
    if node.is_string(text) {
        return node.string(text);
    }
    let parts: Vec<String> = node
        .items(text)
        .filter_map(|part| {
            if part.is_string(text) {
                part.string(text)
            } else {
                part.get_string(text, "text")
            }
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(""))
}
