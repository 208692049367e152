//! Auto-detect: which formats a reply may be in, found in one pass over it.
//!
//! Parsing a 1 MB reply with every known format would cost as many full parses as there are
//! formats. Instead every format names its signature (the opening markers of its call blocks,
//! and the prefixes a whole-reply format starts with); one Aho-Corasick pass finds which
//! markers occur, and only those formats parse. Several formats can share a marker
//! (`<tool_call>`: hermes and qwen3_coder), so the parser facade still compares their results.

use aho_corasick::{AhoCorasick, MatchKind};

use crate::balanced::{value_end, Syntax};
use crate::framing::{call_id_at, call_list_at, BlockKind, Framing, Match, Open};

/// What makes a reply look like a format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signature {
    /// Any of these anywhere in the reply.
    pub markers: Vec<&'static str>,
    /// The reply starts with one of these (after whitespace and leading reasoning).
    pub prefixes: Vec<&'static str>,
    /// Any of these anywhere, followed by a call id and a `{` ([`Open::CallId`]): a namespace
    /// such as `functions.` is evidence only where a call follows it, not in prose.
    pub call_ids: Vec<&'static str>,
    /// Any of these anywhere, followed after any JSON whitespace by `[` or `{`: the marker of a
    /// format whose calls are one JSON value after it (`[TOOL_CALLS]  [{…}]`). The reference
    /// parsers skip the whitespace before that value, so the amount of it is no evidence.
    pub before_value: Vec<&'static str>,
}

/// The prefix standing for a Python call list anywhere in the reply ([`Open::CallList`]): not
/// text to match but a check [`Detector::candidates`] runs (`[get_weather(` after prose).
pub const CALL_LIST_ANYWHERE: &str = "[name(";

/// The prefix standing for a reply that is nothing but Python calls without brackets
/// (`f(a=1), g(b=2)`, the hosted Gorilla OpenFunctions text): like [`CALL_LIST_ANYWHERE`], a
/// check, not text: the reply starts with a (dotted) name and `(` and ends with `)`.
pub const BARE_CALLS_REPLY: &str = "name(…)";

/// The prefix standing for a reply whose first line is a tool name alone and whose second line
/// opens a JSON object (`get_weather\n{…}`, GLM-4-9B-chat): a check, not text, so a `{` in
/// prose does not make that format a candidate.
pub const NAME_LINE_THEN_OBJECT: &str = "name\n{";

/// The prefix standing for a line that starts with `Call:` and then a Python call
/// (`Call: get_weather(city='Paris')`, NexusRaven-V2): a check, not text, so prose that says
/// "Call: us anytime" is no evidence.
pub const CALL_LINE: &str = "Call: name(";

/// The marker standing for a bare JSON call object (or list of them) in the prose
/// ([`Open::ObjectWithKey`], [`Open::ObjectList`]). A `{` inside a JSON list the reply starts
/// with is not such evidence: that list is a whole-reply call list (xLAM's format), and a
/// format that also reads call objects in the prose must not outrank it there with a bracket.
pub const BARE_OBJECT: &str = "{";

/// The signature a framing implies: its call rules' openings.
pub fn framing_signature(framing: Option<Framing>) -> Signature {
    let mut signature = Signature::default();
    if let Some(framing) = framing {
        for rule in framing.rules.iter().filter(|r| r.kind == BlockKind::Call) {
            match rule.open {
                Open::Marker(m) => signature.markers.push(m),
                Open::CallId(m) => signature.call_ids.push(m),
                Open::TextStart(p) => signature.prefixes.push(p),
                Open::CallList => signature.prefixes.push(CALL_LIST_ANYWHERE),
                Open::ObjectWithKey(_) | Open::ObjectList(_) => {
                    if !signature.markers.contains(&BARE_OBJECT) {
                        signature.markers.push(BARE_OBJECT);
                    }
                }
            }
        }
    }
    signature
}

/// What must follow a marker for it to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// Nothing: the marker alone counts ([`Signature::markers`]).
    Anything,
    /// A call id and a `{` ([`Signature::call_ids`]).
    CallId(&'static str),
    /// Whitespace, then a JSON list or object ([`Signature::before_value`]).
    Value,
}

/// The markers of a protocol set, compiled once.
#[derive(Debug)]
pub struct Detector {
    automaton: Option<AhoCorasick>,
    /// For each pattern, the protocols (indices) that own it.
    owners: Vec<Vec<usize>>,
    /// For each pattern, what must follow it.
    after: Vec<After>,
    prefixes: Vec<(usize, &'static str)>,
    protocols: usize,
    /// The pattern index of [`BARE_OBJECT`], when a format has it.
    bare_object: Option<usize>,
}

impl Detector {
    pub fn new(signatures: &[Signature]) -> Self {
        let mut patterns: Vec<&'static str> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut after = Vec::new();
        let mut prefixes = Vec::new();
        for (index, signature) in signatures.iter().enumerate() {
            let plain = signature.markers.iter().map(|m| (*m, After::Anything));
            let ids = signature.call_ids.iter().map(|m| (*m, After::CallId(m)));
            let values = signature.before_value.iter().map(|m| (*m, After::Value));
            for (marker, wanted) in plain.chain(ids).chain(values) {
                if marker.is_empty() {
                    continue;
                }
                match (0..patterns.len()).find(|&at| patterns[at] == marker && after[at] == wanted)
                {
                    Some(at) => owners[at].push(index),
                    None => {
                        patterns.push(marker);
                        owners.push(vec![index]);
                        after.push(wanted);
                    }
                }
            }
            prefixes.extend(signature.prefixes.iter().map(|p| (index, *p)));
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .ok();
        let bare_object = patterns.iter().position(|p| *p == BARE_OBJECT);
        Self {
            automaton,
            owners,
            after,
            prefixes,
            protocols: signatures.len(),
            bare_object,
        }
    }

    /// The protocols whose signature occurs in `text`, as (index, specificity): the length of
    /// the longest of its markers found (0 when only the reply's start matched — a lone `{`
    /// says less than `<seed:tool_call>`), in protocol order. Auto-detect prefers the more
    /// specific evidence when formats parse a reply equally well.
    pub fn candidates(&self, text: &str) -> Vec<(usize, usize)> {
        let mut best = vec![None::<usize>; self.protocols];
        let start = reply_start(text);
        // The span of a JSON list the reply starts with (to its end when it is cut off), found
        // once and only when a `{` needs it.
        let mut leading_list = None;
        let mut in_leading_list = |at: usize| {
            let (from, to) = *leading_list.get_or_insert_with(|| {
                let from = text.len() - start.len();
                match start.as_bytes().first() {
                    Some(b'[') => (
                        from,
                        value_end(Syntax::Json, text.as_bytes(), from).unwrap_or(text.len()),
                    ),
                    _ => (from, from),
                }
            });
            (from..to).contains(&at)
        };
        if let Some(automaton) = &self.automaton {
            let mut seen = vec![false; self.owners.len()];
            let mut remaining = self.owners.len();
            for found in automaton.find_overlapping_iter(text) {
                let pattern = found.pattern().as_usize();
                if Some(pattern) == self.bare_object && in_leading_list(found.start()) {
                    continue;
                }
                // The evidence's length: the marker's, or up to the value a marker needs.
                let end = match self.after[pattern] {
                    After::Anything => found.end(),
                    After::CallId(marker) => {
                        if call_id_at(text.as_bytes(), found.start(), marker, true) != Match::Yes {
                            continue;
                        }
                        found.end()
                    }
                    After::Value => match value_after(text.as_bytes(), found.end()) {
                        Some(at) => at + 1,
                        None => continue,
                    },
                };
                if !seen[pattern] {
                    seen[pattern] = true;
                    let length = end - found.start();
                    for &owner in &self.owners[pattern] {
                        best[owner] = Some(best[owner].map_or(length, |b| b.max(length)));
                    }
                    remaining -= 1;
                    if remaining == 0 {
                        break;
                    }
                }
            }
        }
        let mut call_list = None;
        for &(owner, prefix) in &self.prefixes {
            let found = if prefix == CALL_LIST_ANYWHERE {
                *call_list.get_or_insert_with(|| has_call_list(text))
            } else if prefix == BARE_CALLS_REPLY {
                is_bare_calls_reply(start)
            } else if prefix == CALL_LINE {
                has_call_line(text)
            } else if prefix == NAME_LINE_THEN_OBJECT {
                is_name_line_then_object(start)
            } else {
                start.starts_with(prefix)
            };
            if found && best[owner].is_none() {
                best[owner] = Some(0);
            }
        }
        best.iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|specificity| (i, specificity)))
            .collect()
    }
}

/// Where a JSON list or object opens at `at`, after any JSON whitespace (RFC 8259: space, tab,
/// line feed, carriage return — what the reference parsers' JSON readers skip).
fn value_after(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = bytes.get(at..)?;
    let skipped = rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    matches!(rest.get(skipped), Some(b'[' | b'{')).then_some(at + skipped)
}

/// Whether a Python call list opens anywhere in `text` (outside nothing: reasoning included,
/// which at worst adds a candidate that then finds no calls).
fn has_call_list(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'[', bytes).any(|at| call_list_at(bytes, at, true) == Match::Yes)
}

/// Whether `start` (the reply's start) is shaped like bare calls: `name(` … `)`.
fn is_bare_calls_reply(start: &str) -> bool {
    let body = start.trim_end();
    let name_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(body.len());
    name_end > 0
        && !body.starts_with(|c: char| c.is_ascii_digit())
        && body.get(name_end..).is_some_and(|r| r.starts_with('('))
        && body.ends_with(')')
}

/// Whether a line of `text` starts with `Call:`, spaces, a (dotted) name and `(`.
pub fn call_line_at(text: &str, at: usize) -> bool {
    let line_start = at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n');
    let Some(rest) = text.get(at..).and_then(|r| r.strip_prefix("Call:")) else {
        return false;
    };
    let rest = rest.trim_start_matches([' ', '\t']);
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    line_start
        && name_end > 0
        && !rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && rest.get(name_end..).is_some_and(|r| r.starts_with('('))
}

/// The first `Call:` line of `text` ([`call_line_at`]), in one pass.
pub fn find_call_line(text: &str) -> Option<usize> {
    memchr::memmem::find_iter(text.as_bytes(), "Call:").find(|&at| call_line_at(text, at))
}

fn has_call_line(text: &str) -> bool {
    find_call_line(text).is_some()
}

/// Whether `start` is a name token alone on its line, then a line opening with `{`.
fn is_name_line_then_object(start: &str) -> bool {
    let Some((line, next)) = start.split_once('\n') else {
        return false;
    };
    let line = line.trim_end();
    line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && line
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && next.starts_with('{')
}

/// The reply without leading whitespace and leading `<think>…</think>` reasoning.
fn reply_start(text: &str) -> &str {
    let mut rest = text.trim_start();
    while let Some(after) = rest.strip_prefix("<think>") {
        match after.find("</think>") {
            Some(end) => rest = after[end + "</think>".len()..].trim_start(),
            None => return "",
        }
    }
    rest
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;
