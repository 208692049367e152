//! Finding the JSON documents a format recognises in a reply: in prose, in a ```json fence or as
//! the whole reply, outside reasoning blocks, with the prose around them kept as content.

use super::{value_at, Doc, Node};
use crate::request::Span;

/// After this many `{`/`[` in prose that never close, the rest of the reply is not searched:
/// each such candidate costs a scan to the end of the reply.
const MAX_UNCLOSED_CANDIDATES: usize = 16;

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
