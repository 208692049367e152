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

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::balanced::{value_end, Syntax};
use crate::calls::{error, parse_json, warning};
use crate::request::{json_kind, DiagnosticCode, ParseOutput, Severity, Span};

/// After this many `{`/`[` in prose that never close, the rest of the reply is not searched:
/// each such candidate costs a scan to the end of the reply.
const MAX_UNCLOSED_CANDIDATES: usize = 16;

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

/// Reasoning blocks of a reply: never searched for documents, not part of the content.
const REASONING: &[(&str, &str)] = &[("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// The JSON documents a format recognised in a reply, and the reasoning blocks around them.
#[derive(Debug, Clone, Default)]
pub struct Found<'t> {
    pub documents: Vec<Node>,
    /// The reply indexed for each document (same order).
    pub docs: Vec<Doc<'t>>,
    /// `<think>` / `<thinking>` blocks outside the documents (an unclosed one runs to the end).
    pub reasoning: Vec<Span>,
}

impl<'t> Found<'t> {
    /// The first document and the reply indexed for it.
    pub fn first(&self) -> Option<(&Doc<'t>, Node)> {
        self.docs.first().zip(self.documents.first().copied())
    }

    /// The reply's content: the prose outside the documents and the reasoning (without the
    /// ``` fence lines around a document), with `said[i]` (the text inside document `i`) in
    /// its place, pieces joined by blank lines.
    pub fn content(&self, text: &str, said: Vec<String>) -> String {
        let mut said = said.into_iter();
        let mut pieces = Vec::new();
        let mut from = 0;
        for (index, document) in self.documents.iter().enumerate() {
            let prose = self.prose(text, from, document.span.start);
            pieces.push(strip_fences(&prose, index > 0, true).to_owned());
            pieces.push(said.next().unwrap_or_default());
            from = document.span.end;
        }
        let prose = self.prose(text, from, text.len());
        pieces.push(strip_fences(&prose, !self.documents.is_empty(), false).to_owned());
        join_content(pieces)
    }

    /// `text[from..to]` without the reasoning blocks in it. The blocks are in order and
    /// disjoint, so those in range are found by binary search: filtering all of them for each
    /// document was quadratic in a reply of many documents and reasoning blocks.
    fn prose(&self, text: &str, from: usize, to: usize) -> String {
        let mut prose = String::new();
        let mut at = from;
        let first = self.reasoning.partition_point(|s| s.end <= from);
        for span in self.reasoning[first..].iter().take_while(|s| s.start < to) {
            prose.push_str(text.get(at..span.start.max(at)).unwrap_or_default());
            at = span.end.max(at);
        }
        prose.push_str(text.get(at.min(to)..to).unwrap_or_default());
        prose
    }
}

/// The `<think>` / `<thinking>` blocks of `text`, in order.
fn reasoning_spans(text: &str) -> Vec<Span> {
    let find = |needle: &str, from: usize| {
        let rest = text.as_bytes().get(from..)?;
        memchr::memmem::find(rest, needle.as_bytes()).map(|offset| from + offset)
    };
    // Where each opener occurs next, searched again only once a block has passed it: searching
    // the rest of the reply for every opener after every block was quadratic when one of them
    // never occurs (a reply of many `<think>` blocks and no `<thinking>`).
    let mut next: Vec<Option<usize>> = REASONING.iter().map(|(open, _)| find(open, 0)).collect();
    let mut spans = Vec::new();
    let mut at = 0;
    loop {
        for (slot, (open, _)) in next.iter_mut().zip(REASONING) {
            if slot.is_some_and(|start| start < at) {
                *slot = find(open, at);
            }
        }
        let Some((start, index)) = next
            .iter()
            .enumerate()
            .filter_map(|(index, slot)| slot.map(|start| (start, index)))
            .min()
        else {
            break;
        };
        let (open, close) = REASONING[index];
        let body = start + open.len();
        let end = find(close, body).map_or(text.len(), |offset| offset + close.len());
        spans.push(Span::new(start, end));
        at = end;
    }
    spans
}

/// The JSON documents in `text` that `recognise` accepts, at most `max`, in reply order.
///
/// Every `{` or `[` outside an earlier value and outside reasoning blocks is a candidate (the
/// reply itself, a ```json fence, JSON after prose). A closed value that is not recognised is
/// skipped whole; one that never closes is either a cut-off document (if recognised; nothing
/// can follow it) or a bracket in prose. Linear in the reply, except for a bounded number of
/// unclosed prose brackets.
pub fn find_documents<'t>(
    text: &'t str,
    max: usize,
    recognise: impl Fn(&Doc<'t>, Node) -> bool,
) -> Found<'t> {
    let bytes = text.as_bytes();
    let reasoning = reasoning_spans(text);
    let mut documents: Vec<Node> = Vec::new();
    let mut docs = Vec::new();
    let mut unclosed = 0;
    // Reasoning blocks before this one end before the scan position (it only moves forward):
    // looking each candidate up in all of them was quadratic.
    let mut next_reasoning = 0;
    let mut i = 0;
    while documents.len() < max {
        let Some(offset) = bytes
            .get(i..)
            .and_then(|rest| memchr::memchr2(b'{', b'[', rest))
        else {
            break;
        };
        let at = i + offset;
        while reasoning.get(next_reasoning).is_some_and(|s| s.end <= at) {
            next_reasoning += 1;
        }
        if let Some(block) = reasoning.get(next_reasoning).filter(|s| s.start <= at) {
            i = block.end;
            continue;
        }
        let doc = Doc::indexed(text, at);
        let Some(node) = value_at(&doc, at, bytes.len()) else {
            break;
        };
        if recognise(&doc, node) {
            documents.push(node);
            docs.push(doc);
            if !node.complete {
                break;
            }
            i = node.span.end;
        } else if node.complete {
            i = node.span.end;
        } else {
            unclosed += 1;
            if unclosed >= MAX_UNCLOSED_CANDIDATES {
                break;
            }
            i = at + 1;
        }
    }
    // Documents are in order and disjoint: the first that ends after a block starts is the only
    // one that can overlap it (checking every document for every block was quadratic).
    let reasoning = reasoning
        .into_iter()
        .filter(|r| {
            let first = documents.partition_point(|d| d.span.end <= r.start);
            documents.get(first).is_none_or(|d| d.span.start >= r.end)
        })
        .collect();
    Found {
        documents,
        docs,
        reasoning,
    }
}

/// True when `node` is the whole reply (or all of a ```json fence that is the whole reply):
/// the test for shapes too small to be told apart from JSON in other formats' markup (a lone
/// call object), which are only read when nothing else is around them.
pub fn is_whole_reply(text: &str, node: Node) -> bool {
    let before = text.get(..node.span.start).unwrap_or_default();
    let after = text.get(node.span.end..).unwrap_or_default();
    strip_fences(before, false, true).is_empty() && strip_fences(after, true, false).is_empty()
}

/// `piece` trimmed, without a closing fence at its start (it follows a document) and an
/// opening fence line at its end (a document follows).
fn strip_fences(piece: &str, follows_document: bool, precedes_document: bool) -> &str {
    let mut piece = piece.trim();
    if follows_document {
        if let Some(rest) = piece.strip_prefix("```") {
            piece = rest.split_once('\n').map_or("", |(_, after)| after).trim();
        }
    }
    if precedes_document {
        let last_line_start = piece.rfind('\n').map_or(0, |i| i + 1);
        if piece[last_line_start..].trim_start().starts_with("```") {
            piece = piece[..last_line_start].trim();
        }
    }
    piece
}

/// Joins content pieces, dropping empty ones, with blank lines between.
fn join_content(pieces: impl IntoIterator<Item = String>) -> String {
    pieces
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

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

/// serde_json's 1-based line and column as a byte offset into `text`, on a char boundary.
pub fn line_column_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The end of the character at `at` (or `at` at the end of the text).
fn next_char_end(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(at.min(text.len()), |c| at + c.len_utf8())
}

/// Byte offset, in the JSON string literal `literal` (quotes included), of the text that
/// decodes to byte `decoded` of the string's value: maps a position serde_json reports in a
/// decoded string back into the reply, across escapes.
pub fn literal_offset(literal: &str, decoded: usize) -> usize {
    let bytes = literal.as_bytes();
    let mut i = 1;
    let mut produced = 0;
    while i < bytes.len() && produced < decoded {
        match bytes[i] {
            b'"' => break,
            b'\\' => {
                let (raw, value) = match bytes.get(i + 1) {
                    Some(b'u') => {
                        let code = hex4(bytes, i + 2);
                        let pair = code.is_some_and(|c| (0xD800..0xDC00).contains(&c))
                            && bytes.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                            && hex4(bytes, i + 8).is_some_and(|c| (0xDC00..0xE000).contains(&c));
                        if pair {
                            (12, 4)
                        } else {
                            let width = match code {
                                Some(c) if c < 0x80 => 1,
                                Some(c) if c < 0x800 => 2,
                                _ => 3,
                            };
                            (6, width)
                        }
                    }
                    Some(_) => (2, 1),
                    None => (1, 0),
                };
                i += raw;
                produced += value;
            }
            lead => {
                let width = match lead {
                    0x00..=0x7F => 1,
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                i += width;
                produced += width;
            }
        }
    }
    let mut at = i.min(literal.len());
    while !literal.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// True when `id` looks like one the engine made up (`call_` + 32 hex digits) rather than one
/// the model's reply carried.
pub fn is_generated_id(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|rest| rest.len() == 32 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Node {
        value_at(&Doc::plain(text), 0, text.len()).expect("a value")
    }

    /// The reply walked without and with the index: both must agree.
    fn docs(text: &str) -> [Doc<'_>; 2] {
        let start = text.find(['{', '[']).expect("a container");
        [Doc::plain(text), Doc::indexed(text, start)]
    }

    #[test]
    fn members_and_items_carry_spans() {
        let text = r#" {"a": [1, {"b": "x\"}"}], "c\u0041": null, "d": "é"} "#;
        for d in docs(text) {
            let doc = value_at(&d, 0, text.len()).expect("a value");
            assert!(doc.complete);
            let keys: Vec<String> = doc.members(&d).map(|m| m.key.into_owned()).collect();
            assert_eq!(keys, vec!["a", "cA", "d"]);
            let a = doc.get(&d, "a").expect("a");
            let items: Vec<&str> = a.items(&d).map(|n| n.slice(text)).collect();
            assert_eq!(items, vec!["1", r#"{"b": "x\"}"}"#]);
            assert_eq!(doc.get_string(&d, "d").as_deref(), Some("é"));
            assert_eq!(doc.get(&d, "cA").map(|n| n.slice(text)), Some("null"));
        }
    }

    #[test]
    fn a_cut_off_document_yields_what_is_complete() {
        let text = r#"{"list": [{"x": 1}, {"y": 2}, {"z": "#;
        for d in docs(text) {
            let doc = value_at(&d, 0, text.len()).expect("a value");
            assert!(!doc.complete);
            let list = doc.get(&d, "list").expect("list");
            assert!(!list.complete);
            let items: Vec<(bool, &str)> = list
                .items(&d)
                .map(|n| (n.complete, n.slice(text)))
                .collect();
            assert_eq!(
                items,
                vec![
                    (true, r#"{"x": 1}"#),
                    (true, r#"{"y": 2}"#),
                    (false, r#"{"z": "#)
                ]
            );
            assert_eq!(integrity(text, doc), Integrity::CutOff);
        }
    }

    #[test]
    fn documents_are_found_after_prose_and_in_fences() {
        let text = "See [1] and {x}.\n```json\n{\"k\": 1}\n```\nthen {\"k\": 2} done";
        let found = find_documents(text, 8, |t, n| n.has(t, "k"));
        let slices: Vec<&str> = found.documents.iter().map(|n| n.slice(text)).collect();
        assert_eq!(slices, vec!["{\"k\": 1}", "{\"k\": 2}"]);
        assert_eq!(
            found.content(text, vec!["one".into()]),
            "See [1] and {x}.\n\none\n\nthen\n\ndone"
        );
        assert!(find_documents("a { b", 1, |_, _| false)
            .documents
            .is_empty());
        let thinking = "<think>{\"k\": 0}</think>{\"k\": 1} <thinking>x";
        let found = find_documents(thinking, 8, |t, n| n.has(t, "k"));
        assert_eq!(found.documents.len(), 1);
        assert_eq!(found.documents[0].slice(thinking), "{\"k\": 1}");
        assert_eq!(found.content(thinking, vec![]), "");
    }

    #[test]
    fn positions_in_decoded_strings_map_back_across_escapes() {
        // Decoded: {"q": "a"b}  — the error is at the `b` after the inner quote.
        let literal = r#""{\"q\": \"a\"b}""#;
        let decoded: String = serde_json::from_str(literal).expect("string");
        let at = decoded.find('b').expect("b");
        assert_eq!(&literal[literal_offset(literal, at)..][..1], "b");
        let unicode = r#""\u00e9\ud83d\ude00é!""#;
        let decoded: String = serde_json::from_str(unicode).expect("string");
        let at = decoded.find('!').expect("!");
        assert_eq!(&unicode[literal_offset(unicode, at)..][..1], "!");
    }

    #[test]
    fn whole_replies() {
        let fenced = "```json\n{\"a\": 1}\n```\n";
        let start = fenced.find('{').expect("brace");
        let node = value_at(&Doc::plain(fenced), start, fenced.len()).expect("node");
        assert!(is_whole_reply(fenced, node));
        let tagged = "<x>{\"a\": 1}</x>";
        let node = value_at(&Doc::plain(tagged), 3, tagged.len()).expect("node");
        assert!(!is_whole_reply(tagged, node));
    }

    #[test]
    fn broken_documents_point_at_the_byte() {
        let text = "{\"a\": 1,, \"b\": 2}";
        match integrity(text, root(text)) {
            Integrity::Broken { at, .. } => assert_eq!(&text[at..at + 1], ","),
            other => panic!("expected broken, got {other:?}"),
        }
    }

    #[test]
    fn generated_ids_are_recognised() {
        assert!(is_generated_id(&crate::request::new_request_id()));
        assert!(!is_generated_id("call_abc"));
        assert!(!is_generated_id("toolu_01"));
    }
}
