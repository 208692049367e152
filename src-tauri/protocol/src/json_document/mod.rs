//! A JSON document pasted into a reply (an API response, a message, a `{"tool_calls": …}`
//! object), found and walked with byte spans.
//!
//! API formats (OpenAI, Anthropic, Gemini) arrive as whole JSON documents, sometimes with prose
//! around them or inside a ```json fence, sometimes cut off. `serde_json::Value` has no spans and
//! rejects a cut-off document outright, so the structure is walked lexically instead: a [`Node`]
//! is a value's byte range (which may run to the end of the reply when the document is cut off),
//! and [`Node::members`] / [`Node::items`] step through objects and arrays. A [`Doc`] indexes
//! where every container of the document ends in one pass, so walking down to the calls never
//! rescans the document. Only the leaves a format needs (call objects, text) are handed to
//! serde_json. Every call thus gets its exact span, and the calls that were complete before a
//! cut are still recovered.
//!
//! Split by concern: this file walks a document ([`Doc`], [`Node`]), [`found`] finds documents
//! in a reply, [`calls`] reads call objects and reports a document's integrity, and [`offsets`]
//! maps serde_json's positions back into the reply.

pub mod calls;
pub mod found;
pub mod offsets;

use std::borrow::Cow;

use crate::balanced::{value_end, Syntax};
use crate::request::Span;

/// The reply, with where each `{`/`[` of one JSON document ends (indexed in one pass when the
/// document is found). Derefs to the reply text.
#[derive(Debug, Clone)]
pub struct Doc<'t> {
    text: &'t str,
    /// `(open, end)` for every container of the indexed value, sorted by `open`; `end` is
    /// `usize::MAX` for a container the reply ends inside.
    ends: Vec<(usize, usize)>,
}

impl std::ops::Deref for Doc<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.text
    }
}

impl<'t> Doc<'t> {
    /// The reply with no index: containers are scanned when walked.
    #[cfg(test)]
    pub fn plain(text: &'t str) -> Self {
        Self {
            text,
            ends: Vec::new(),
        }
    }

    /// The reply with the containers of the value opening at `start` indexed.
    pub fn indexed(text: &'t str, start: usize) -> Self {
        let bytes = text.as_bytes();
        let mut open: Vec<usize> = Vec::new();
        let mut ends = Vec::new();
        if !matches!(bytes.get(start), Some(b'{' | b'[')) {
            return Self { text, ends };
        }
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => match string_end(bytes, i, bytes.len()) {
                    Some(end) => {
                        i = end;
                        continue;
                    }
                    None => break,
                },
                b'{' | b'[' => open.push(i),
                b'}' | b']' => match open.pop() {
                    Some(at) => {
                        ends.push((at, i + 1));
                        if open.is_empty() {
                            break;
                        }
                    }
                    None => break,
                },
                _ => {}
            }
            i += 1;
        }
        ends.extend(open.into_iter().map(|at| (at, usize::MAX)));
        ends.sort_unstable();
        Self { text, ends }
    }

    /// End of the container opening at `open` within `limit`, and whether it closes there.
    fn container_end(&self, open: usize, limit: usize) -> (usize, bool) {
        match self.ends.binary_search_by_key(&open, |&(at, _)| at) {
            Ok(index) => match self.ends[index].1 {
                end if end <= limit => (end, true),
                _ => (limit, false),
            },
            Err(_) => match value_end(Syntax::Json, &self.text.as_bytes()[..limit], open) {
                Some(end) => (end, true),
                None => (limit, false),
            },
        }
    }
}

/// One JSON value in the reply. `complete` is false when the reply ends inside it (its span then
/// runs to the end of the reply).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub span: Span,
    pub complete: bool,
}

impl Node {
    fn new(start: usize, end: usize, complete: bool) -> Self {
        Self {
            span: Span::new(start, end),
            complete,
        }
    }

    /// The value's text.
    pub fn slice<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.span.start..self.span.end).unwrap_or_default()
    }

    fn first_byte(&self, text: &str) -> Option<u8> {
        text.as_bytes().get(self.span.start).copied()
    }

    pub fn is_object(&self, text: &str) -> bool {
        self.first_byte(text) == Some(b'{')
    }

    pub fn is_array(&self, text: &str) -> bool {
        self.first_byte(text) == Some(b'[')
    }

    pub fn is_string(&self, text: &str) -> bool {
        self.first_byte(text) == Some(b'"')
    }

    /// The members of an object, in order (none for other values). Stops at the first syntax
    /// error or at a member the reply ends inside (which is still yielded, incomplete).
    pub fn members<'d, 't>(&self, text: &'d Doc<'t>) -> Members<'d, 't> {
        Members {
            doc: text,
            pos: self.span.start + 1,
            limit: self.span.end,
            first: true,
            done: !self.is_object(text),
        }
    }

    /// The elements of an array, in order (none for other values); same stopping rules.
    pub fn items<'d, 't>(&self, text: &'d Doc<'t>) -> Items<'d, 't> {
        Items {
            doc: text,
            pos: self.span.start + 1,
            limit: self.span.end,
            first: true,
            done: !self.is_array(text),
        }
    }

    /// The value of the first member named `key`.
    pub fn get(&self, text: &Doc, key: &str) -> Option<Node> {
        self.members(text)
            .find(|member| member.key == key)
            .map(|member| member.value)
    }

    /// Whether the object has a member named `key`.
    pub fn has(&self, text: &Doc, key: &str) -> bool {
        self.get(text, key).is_some()
    }

    /// The decoded value of a complete string.
    pub fn string(&self, text: &str) -> Option<String> {
        if !self.complete || !self.is_string(text) {
            return None;
        }
        serde_json::from_str(self.slice(text)).ok()
    }

    /// The string value of member `key`, if it is one.
    pub fn get_string(&self, text: &Doc, key: &str) -> Option<String> {
        self.get(text, key).and_then(|node| node.string(text))
    }
}

/// An object member: its decoded key and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member<'t> {
    pub key: Cow<'t, str>,
    pub value: Node,
}

/// Iterator over an object's members (see [`Node::members`]).
#[derive(Debug, Clone)]
pub struct Members<'d, 't> {
    doc: &'d Doc<'t>,
    pos: usize,
    limit: usize,
    first: bool,
    done: bool,
}

impl<'t> Iterator for Members<'_, 't> {
    type Item = Member<'t>;

    fn next(&mut self) -> Option<Member<'t>> {
        if self.done {
            return None;
        }
        self.done = true; // cleared again only when a member was read in full
        let text: &'t str = self.doc.text;
        let bytes = text.as_bytes();
        let limit = self.limit.min(bytes.len());
        let byte_at = |i: usize| (i < limit).then(|| bytes[i]);
        let mut i = skip_whitespace(bytes, self.pos, limit);
        if !self.first {
            match byte_at(i) {
                Some(b',') => i = skip_whitespace(bytes, i + 1, limit),
                // A missing comma: keep reading (the document's syntax error is reported).
                Some(b'"') => {}
                _ => return None,
            }
        }
        self.first = false;
        if byte_at(i) != Some(b'"') {
            return None;
        }
        let key_end = string_end(bytes, i, limit)?;
        let key = decode_key(text.get(i..key_end)?);
        let colon = skip_whitespace(bytes, key_end, limit);
        if byte_at(colon) != Some(b':') {
            return None;
        }
        let value = value_at(self.doc, colon + 1, limit)?;
        self.pos = value.span.end;
        self.done = !value.complete;
        Some(Member { key, value })
    }
}

/// Iterator over an array's elements (see [`Node::items`]).
#[derive(Debug, Clone)]
pub struct Items<'d, 't> {
    doc: &'d Doc<'t>,
    pos: usize,
    limit: usize,
    first: bool,
    done: bool,
}

impl Iterator for Items<'_, '_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        if self.done {
            return None;
        }
        self.done = true;
        let bytes = self.doc.text.as_bytes();
        let limit = self.limit.min(bytes.len());
        let mut i = skip_whitespace(bytes, self.pos, limit);
        if !self.first {
            match (i < limit).then(|| bytes[i]) {
                Some(b',') => i += 1,
                // A missing comma: keep reading (the document's syntax error is reported).
                Some(b'{' | b'[' | b'"') => {}
                _ => return None,
            }
        }
        self.first = false;
        let value = value_at(self.doc, i, limit)?;
        self.pos = value.span.end;
        self.done = !value.complete;
        Some(value)
    }
}

fn skip_whitespace(bytes: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// End (exclusive) of the string literal whose opening quote is at `start`.
fn string_end(bytes: &[u8], start: usize, limit: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < limit {
        let offset = memchr::memchr2(b'"', b'\\', bytes.get(i..limit)?)?;
        i += offset;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
    None
}

fn decode_key(literal: &str) -> Cow<'_, str> {
    let inner = literal
        .get(1..literal.len().saturating_sub(1))
        .unwrap_or_default();
    if inner.contains('\\') {
        serde_json::from_str::<String>(literal)
            .map(Cow::Owned)
            .unwrap_or(Cow::Borrowed(inner))
    } else {
        Cow::Borrowed(inner)
    }
}

/// The value starting at the first non-whitespace byte at or after `start` (before `limit`).
pub fn value_at(text: &Doc, start: usize, limit: usize) -> Option<Node> {
    let bytes = text.as_bytes();
    let limit = limit.min(bytes.len());
    let i = skip_whitespace(bytes, start, limit);
    if i >= limit {
        return None;
    }
    match bytes[i] {
        b'{' | b'[' => {
            let (end, complete) = text.container_end(i, limit);
            Some(Node::new(i, end, complete))
        }
        b'"' => Some(match string_end(bytes, i, limit) {
            Some(end) => Node::new(i, end, true),
            None => Node::new(i, limit, false),
        }),
        b',' | b':' | b'}' | b']' => None,
        _ => {
            let end = (i..limit)
                .find(|&k| matches!(bytes[k], b',' | b'}' | b']') || bytes[k].is_ascii_whitespace())
                .unwrap_or(limit);
            Some(Node::new(i, end, end < limit))
        }
    }
}

#[cfg(test)]
mod tests;
