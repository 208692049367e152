//! Reading a `]<]minimax[>[<tool_call>` wrapper: its invokes and their nested parameter tags,
//! with an explicit stack and the shared [`Finder`], in one pass.

use serde_json::{Map, Value};

use super::NS;
use crate::calls::{error, push_request, warning, Call};
use crate::framing::Block;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::{stray_text as stray, Finder};

/// Decodes every `<invoke>` of a wrapper into requests of `format`.
pub fn decode_wrapper(text: &str, block: &Block, format: &str, out: &mut ParseOutput) {
    let end = block.body.end.min(text.len());
    let mut tokens = Finder::new(text, end, NS);
    let mut cursor = block.body.start;
    while let Some(at) = tokens.find(cursor) {
        let Some(tag) = read_tag(text, at, end) else {
            stray(text, cursor, at + NS.len(), "between the invocations", out);
            cursor = at + NS.len();
            continue;
        };
        if tag.closing || tag.name != "invoke" {
            stray(text, cursor, tag.end, "between the invocations", out);
            cursor = tag.end;
            continue;
        }
        stray(text, cursor, at, "between the invocations", out);
        let read = read_invoke(text, &mut tokens, at, &tag, end, out);
        if let Some(call) = read.call {
            let span = Span::new(at, read.end);
            push_request(out, text, span, format, call, true);
        }
        cursor = read.end.max(at + 1);
    }
    stray(text, cursor, end, "between the invocations", out);
}

/// A namespaced tag: `]<]minimax[>[<name …>` or `]<]minimax[>[</name>`.
struct Tag<'t> {
    name: &'t str,
    closing: bool,
    /// What follows the name inside the tag (`name="x"` of an invoke).
    attrs: &'t str,
    /// After the tag's `>`.
    end: usize,
}

/// The tag at `at` (the namespace token's start), when one is written there.
fn read_tag(text: &str, at: usize, end: usize) -> Option<Tag<'_>> {
    let rest = text.get(at + NS.len()..end)?;
    let inner = rest.strip_prefix('<')?;
    let (closing, inner) = match inner.strip_prefix('/') {
        Some(after) => (true, after),
        None => (false, inner),
    };
    let name_len = inner
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == ':'))
        .unwrap_or(inner.len());
    let name = &inner[..name_len];
    let close = inner[name_len..].find(['>', '<'])?;
    if name.is_empty() || !inner[name_len..].get(close..)?.starts_with('>') {
        return None;
    }
    let attrs = &inner[name_len..name_len + close];
    let end_of_tag = end - inner.len() + name_len + close + 1;
    Some(Tag {
        name,
        closing,
        attrs,
        end: end_of_tag,
    })
}

/// An element being read: its tag name and the children read so far.
struct Frame<'t> {
    name: &'t str,
    children: Vec<(&'t str, Value)>,
}

/// A call as read, and where its text ends.
struct ReadInvoke {
    call: Option<Call>,
    end: usize,
}

/// Reads the `<invoke>` whose tag is `tag` at `at`, with an explicit stack (no recursion: a
/// reply may nest tags without end).
fn read_invoke(
    text: &str,
    tokens: &mut Finder<'_>,
    at: usize,
    tag: &Tag<'_>,
    end: usize,
    out: &mut ParseOutput,
) -> ReadInvoke {
    let name = invoke_name(tag.attrs);
    let mut stack = vec![Frame {
        name: "invoke",
        children: Vec::new(),
    }];
    let mut cursor = tag.end;
    let fail = |out: &mut ParseOutput, message: String, span: Span| {
        error(out, DiagnosticCode::UnclosedValue, message, span);
    };
    loop {
        let rest = text.get(cursor..end).unwrap_or_default();
        let trimmed = rest.trim_start();
        cursor = end - trimmed.len();
        let Some(top) = stack.last() else {
            return ReadInvoke {
                call: None,
                end: cursor,
            };
        };
        let bare_close = format!("</{}>", top.name);
        if trimmed.is_empty() {
            // The reply ended inside the call: keep it when only the invoke itself is open.
            if stack.len() > 1 {
                let message = format!(
                    "the reply ends inside <{}> of '{name}'; the call is skipped",
                    top.name
                );
                fail(out, message, Span::new(at, end));
                return ReadInvoke { call: None, end };
            }
            return finish(name, stack, at, end, out);
        }
        let next_tag = if trimmed.starts_with(NS) {
            read_tag(text, cursor, end)
        } else {
            None
        };
        let closes_top = match &next_tag {
            Some(t) => t.closing && t.name == top.name,
            None => trimmed.starts_with(&bare_close),
        };
        if closes_top {
            let tag_end = next_tag.map_or(cursor + bare_close.len(), |t| t.end);
            let Some(frame) = stack.pop() else {
                return ReadInvoke {
                    call: None,
                    end: tag_end,
                };
            };
            match stack.last_mut() {
                Some(parent) => parent.children.push((frame.name, build(frame.children))),
                None => {
                    stack.push(frame);
                    return finish(name, stack, at, tag_end, out);
                }
            }
            cursor = tag_end;
            continue;
        }
        let Some(open_tag) = next_tag.filter(|t| !t.closing && t.name != "invoke") else {
            if trimmed.starts_with(NS) {
                // Another element's closing tag, or the next invoke: this call is broken.
                let message = format!(
                    "<{}> of '{name}' is not closed before the next tag; the call is skipped",
                    top.name
                );
                fail(out, message, Span::new(at, cursor));
                return skipped(text, tokens, cursor, end);
            }
            let next = tokens.find(cursor).unwrap_or(end);
            stray(text, cursor, next, &format!("in '{name}'"), out);
            cursor = next;
            continue;
        };
        // A leaf runs to its closing tag; an element whose first content is a tag holds tags.
        let after = text.get(open_tag.end..end).unwrap_or_default();
        let inner = after.trim_start();
        let inner_at = end - inner.len();
        if inner.starts_with(NS) && read_tag(text, inner_at, end).is_some_and(|t| !t.closing) {
            stack.push(Frame {
                name: open_tag.name,
                children: Vec::new(),
            });
            cursor = open_tag.end;
            continue;
        }
        let next_ns = tokens.find(open_tag.end).unwrap_or(end);
        let region = text.get(open_tag.end..next_ns).unwrap_or_default();
        let bare = format!("</{}>", open_tag.name);
        let (value_end, tag_end) = match region.find(&bare) {
            Some(offset) => (open_tag.end + offset, open_tag.end + offset + bare.len()),
            None => match read_tag(text, next_ns, end) {
                Some(t) if t.closing && t.name == open_tag.name => (next_ns, t.end),
                _ if next_ns == end && stack.len() == 1 => {
                    // Cut off inside this value: the call's arguments are incomplete.
                    let message = format!(
                        "the reply ends inside <{}> of '{name}'; the call is skipped",
                        open_tag.name
                    );
                    fail(out, message, Span::new(at, end));
                    return ReadInvoke { call: None, end };
                }
                _ => {
                    let message = format!(
                        "<{}> of '{name}' is not closed by its closing tag; the call is skipped",
                        open_tag.name
                    );
                    fail(out, message, Span::new(cursor, next_ns));
                    return skipped(text, tokens, next_ns, end);
                }
            },
        };
        let leaf = text.get(open_tag.end..value_end).unwrap_or_default().trim();
        let nested = stack.len() > 1;
        if let Some(top) = stack.last_mut() {
            top.children.push((open_tag.name, leaf_value(leaf, nested)));
        }
        cursor = tag_end;
    }
}

/// A broken call's end: after the `</invoke>` that closes it, or at the next `<invoke>`, so its
/// remaining tags are not reported one by one.
fn skipped(text: &str, tokens: &mut Finder<'_>, mut from: usize, end: usize) -> ReadInvoke {
    while let Some(at) = tokens.find(from) {
        match read_tag(text, at, end) {
            Some(tag) if tag.name == "invoke" && tag.closing => {
                return ReadInvoke {
                    call: None,
                    end: tag.end,
                }
            }
            Some(tag) if tag.name == "invoke" => {
                return ReadInvoke {
                    call: None,
                    end: at,
                }
            }
            _ => from = at + NS.len(),
        }
    }
    ReadInvoke { call: None, end }
}

/// The call from the invoke's frame, reported when the invoke has no name.
fn finish(
    name: String,
    mut stack: Vec<Frame<'_>>,
    at: usize,
    end: usize,
    out: &mut ParseOutput,
) -> ReadInvoke {
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            "an <invoke> has no name=\"…\"; the call is skipped".to_owned(),
            Span::new(at, end),
        );
        return ReadInvoke { call: None, end };
    }
    let children = stack.pop().map(|f| f.children).unwrap_or_default();
    let mut args = Map::new();
    for (key, value) in children {
        if args.insert(key.to_owned(), value).is_some() {
            warning(
                out,
                DiagnosticCode::DuplicateKey,
                format!(
                    "parameter '{key}' of '{name}' appears more than once; the last value wins"
                ),
                Span::new(at, end),
            );
        }
    }
    ReadInvoke {
        call: Some(Call {
            name,
            args,
            id: None,
        }),
        end,
    }
}

/// An element's value from its children: a list when they are all `<item>`s, otherwise an
/// object whose repeated keys collect their values in a list.
fn build(children: Vec<(&str, Value)>) -> Value {
    if children.iter().all(|(key, _)| *key == "item") {
        return Value::Array(children.into_iter().map(|(_, v)| v).collect());
    }
    let mut object = Map::new();
    for (key, value) in children {
        match object.get_mut(key) {
            Some(Value::Array(list)) => list.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, value]);
            }
            None => {
                object.insert(key.to_owned(), value);
            }
        }
    }
    Value::Object(object)
}

/// A leaf's value: nested leaves that are JSON numbers, booleans or null become them (nothing
/// types nested values later); top-level leaves stay text for the schema.
fn leaf_value(text: &str, nested: bool) -> Value {
    if nested {
        if let Ok(value @ (Value::Number(_) | Value::Bool(_) | Value::Null)) =
            serde_json::from_str::<Value>(text)
        {
            return value;
        }
    }
    Value::String(text.to_owned())
}

/// The `name="…"` of an invoke tag.
fn invoke_name(attrs: &str) -> String {
    let Some(at) = attrs.find("name=") else {
        return String::new();
    };
    let value = &attrs[at + "name=".len()..];
    let value = value.trim_start();
    let unquoted = match value.strip_prefix('"') {
        Some(rest) => rest.split('"').next().unwrap_or_default(),
        None => value.split_whitespace().next().unwrap_or_default(),
    };
    unquoted.trim().to_owned()
}
