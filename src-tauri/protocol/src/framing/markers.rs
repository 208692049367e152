//! Finding markers fast: substring searchers built once per scan, the set of bytes an opening
//! marker may start with, and what is already known to be absent, so no stretch of a reply is
//! searched twice for the same marker.

use super::{Close, Framing, Open, THINK};

/// The marker that ends `<think>` reasoning.
const THINK_CLOSE: &str = match THINK.close {
    Close::Marker(marker) => marker,
    // Evaluated at compile time: a THINK without a closing marker fails the build.
    _ => panic!("THINK closes at a marker"),
};

/// A marker known not to start anywhere in `from..upto` of the reply. The reply only grows, so
/// this stays true. It keeps a missing closing marker from being searched for through the rest
/// of the reply once per unclosed block (`<tool_call><tool_call>…` was quadratic).
#[derive(Debug, Clone, Copy)]
pub(super) struct Absent {
    pub(super) marker: &'static str,
    pub(super) from: usize,
    pub(super) upto: usize,
}

/// Whether `marker` is at `at`: yes, no, or maybe (the text ends inside a prefix of it).
#[derive(Debug, PartialEq, Eq)]
pub enum Match {
    Yes,
    No,
    Partial,
}

pub(super) fn match_at(text: &[u8], at: usize, marker: &str, eof: bool) -> Match {
    let rest = &text[at..];
    let marker = marker.as_bytes();
    if rest.len() >= marker.len() {
        if &rest[..marker.len()] == marker {
            Match::Yes
        } else {
            Match::No
        }
    } else if !eof && marker.starts_with(rest) {
        Match::Partial
    } else {
        Match::No
    }
}

/// Longest name [`call_list_at`] reads before giving up: keeps a streamed reply from being
/// re-read at length while it waits for the `(`.
const MAX_CALL_NAME: usize = 128;

/// Whether a Python call list ([`super::Open::CallList`]) opens at `at`: `[`, a dotted name,
/// `(`. Partial when the text (not yet complete) ends before that is decided.
pub fn call_list_at(text: &[u8], at: usize, eof: bool) -> Match {
    if text.get(at) != Some(&b'[') {
        return Match::No;
    }
    if at > 0
        && matches!(text[at - 1], b'_' | b'.' | b']' | b')' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z')
    {
        return Match::No;
    }
    let mut i = at + 1;
    let mut name_start = true;
    while let Some(&b) = text.get(i) {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => name_start = false,
            b'0'..=b'9' if !name_start => {}
            b'.' if !name_start => name_start = true,
            b'(' if !name_start => return Match::Yes,
            _ => return Match::No,
        }
        if i - at > MAX_CALL_NAME {
            return Match::No;
        }
        i += 1;
    }
    if eof {
        Match::No
    } else {
        Match::Partial
    }
}

/// First position ≥ `from` where `marker` starts, or where the text ends inside a prefix of it.
/// A full match can only begin before the last `marker.len() - 1` bytes, so it always comes
/// before a partial one; SIMD substring search does the long stretches.
pub(super) fn find_marker(
    text: &[u8],
    from: usize,
    marker: &str,
    finders: &Finders,
    eof: bool,
) -> Option<(usize, Match)> {
    let needle = marker.as_bytes();
    let haystack = text.get(from..)?;
    if needle.is_empty() {
        return None;
    }
    let found = match finders.get(marker) {
        Some(finder) => finder.find(haystack),
        None => memchr::memmem::find(haystack, needle),
    };
    if let Some(offset) = found {
        return Some((from + offset, Match::Yes));
    }
    if eof {
        return None;
    }
    let tail = text.len().saturating_sub(needle.len() - 1).max(from);
    (tail..text.len())
        .find(|&i| needle.starts_with(&text[i..]))
        .map(|i| (i, Match::Partial))
}

/// Whether, after optional whitespace from `from`, one of `starts` follows: `Partial` while the
/// text ends before that can be told.
pub(super) fn starts_with_one_of(bytes: &[u8], from: usize, starts: &[&str], eof: bool) -> Match {
    let at = skip_whitespace(bytes, from);
    if at == bytes.len() {
        return if eof { Match::No } else { Match::Partial };
    }
    let mut found = Match::No;
    for start in starts {
        match match_at(bytes, at, start, eof) {
            Match::Yes => return Match::Yes,
            Match::Partial => found = Match::Partial,
            Match::No => {}
        }
    }
    found
}

/// A substring searcher per marker of a framing, built once per scan: building one costs about
/// as much as searching a whole block for it, and a megabyte reply has thousands of blocks.
#[derive(Debug, Clone)]
pub(super) struct Finders(Box<[(&'static str, memchr::memmem::Finder<'static>)]>);

impl Finders {
    pub(super) fn new(framing: &Framing) -> Self {
        let mut markers: Vec<&'static str> = Vec::new();
        for rule in framing.rules {
            if let Open::Marker(m) | Open::CallId(m) = rule.open {
                markers.push(m);
            }
            match rule.close {
                Close::Marker(m) | Close::Balanced { after: m, .. } => markers.push(m),
                Close::Immediately | Close::UntilNext => {}
            }
            markers.extend(rule.ended_by);
        }
        markers.retain(|m| !m.is_empty());
        markers.sort_unstable();
        markers.dedup();
        Self(
            markers
                .into_iter()
                .map(|m| (m, memchr::memmem::Finder::new(m.as_bytes())))
                .collect(),
        )
    }

    pub(super) fn get(&self, marker: &str) -> Option<&memchr::memmem::Finder<'static>> {
        self.0.iter().find(|(m, _)| *m == marker).map(|(_, f)| f)
    }
}

/// The distinct first bytes of a framing's opening markers, searched with memchr.
#[derive(Debug, Clone)]
pub(super) enum FirstBytes {
    None,
    One(u8),
    Two(u8, u8),
    Three(u8, u8, u8),
    Table(Box<[bool; 256]>),
}

impl FirstBytes {
    pub(super) fn new(bytes: &[u8]) -> Self {
        let mut distinct: Vec<u8> = bytes.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        match distinct[..] {
            [] => Self::None,
            [a] => Self::One(a),
            [a, b] => Self::Two(a, b),
            [a, b, c] => Self::Three(a, b, c),
            _ => {
                let mut table = Box::new([false; 256]);
                for b in distinct {
                    table[usize::from(b)] = true;
                }
                Self::Table(table)
            }
        }
    }

    pub(super) fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            Self::None => None,
            Self::One(a) => memchr::memchr(*a, haystack),
            Self::Two(a, b) => memchr::memchr2(*a, *b, haystack),
            Self::Three(a, b, c) => memchr::memchr3(*a, *b, *c, haystack),
            Self::Table(table) => haystack.iter().position(|&b| table[usize::from(b)]),
        }
    }
}

pub(super) fn is_marker(open: Open) -> bool {
    matches!(open, Open::Marker(_) | Open::CallId(_))
}

/// Whether a block of a rule opening with `open` starts at `at`, and where its body starts.
/// `None` for openings that only count at the start of the reply. The reply starts afresh at
/// `fresh_from` (after reasoning): an object or list there stands on its own ([`after_prose`]).
pub(super) fn opens_at(
    bytes: &[u8],
    at: usize,
    open: Open,
    eof: bool,
    fresh_from: usize,
) -> Option<(Match, usize)> {
    match open {
        Open::Marker(marker) => Some((match_at(bytes, at, marker, eof), at + marker.len())),
        Open::CallId(marker) => Some((call_id_at(bytes, at, marker, eof), at + marker.len())),
        Open::ObjectWithKey(keys) => {
            Some((object_with_key_at(bytes, at, keys, eof, fresh_from), at))
        }
        Open::ObjectList(keys) => Some((object_list_at(bytes, at, keys, eof, fresh_from), at)),
        Open::CallList => Some((call_list_at(bytes, at, eof), at)),
        Open::TextStart(_) => None,
    }
}

/// `marker` at `at`, then a call id `NAME:IDX` (a name of letters, digits, `_`, `-`, `.`; a
/// decimal index) and, after optional whitespace, a `{` ([`super::Open::CallId`]).
pub fn call_id_at(bytes: &[u8], at: usize, marker: &str, eof: bool) -> Match {
    let undecided = if eof { Match::No } else { Match::Partial };
    match match_at(bytes, at, marker, eof) {
        Match::Yes => {}
        other => return other,
    }
    let run = |from: usize, ok: fn(u8) -> bool| {
        from + bytes[from..].iter().take_while(|&&b| ok(b)).count()
    };
    let name_start = at + marker.len();
    let name_end = run(name_start, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
    });
    if name_end == bytes.len() {
        return undecided;
    }
    if name_end == name_start || bytes[name_end] != b':' {
        return Match::No;
    }
    let index_end = run(name_end + 1, |b| b.is_ascii_digit());
    let brace = skip_whitespace(bytes, index_end);
    if brace == bytes.len() {
        return undecided;
    }
    if index_end == name_end + 1 || bytes[brace] != b'{' {
        return Match::No;
    }
    Match::Yes
}

/// Whether the byte before `at` (whitespace skipped) leaves a `{` there standing on its own:
/// the reply's start (or nothing but whitespace since `fresh_from`, where reasoning ended) or
/// prose, not a marker or tag (`]`, `|>`, `>`: a format of its own holds that object) other
/// than `</think>`, a list or object around it (`[`, `,`, `{`, `}`, a key's `":`), a Python
/// argument (`(`, `=`) or a `;`-separated call list a block already holds (Llama's
/// `<|python_tag|>{…};{…}`).
fn after_prose(bytes: &[u8], at: usize, fresh_from: usize) -> bool {
    let before = |end: usize| {
        let from = fresh_from.min(end);
        bytes[from..end]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map(|offset| from + offset)
    };
    let Some(prev) = before(at) else {
        return true;
    };
    match bytes[prev] {
        // Reasoning ended there, even reasoning the format did not see open (the chat template
        // wrote `<think>` into the prompt): the reply starts afresh, as at `fresh_from`.
        b'>' if bytes[..=prev].ends_with(THINK_CLOSE.as_bytes()) => true,
        b'[' | b',' | b'{' | b'}' | b']' | b'>' | b'|' | b'(' | b'=' | b';' => false,
        b':' => before(prev).is_none_or(|key_end| bytes[key_end] != b'"'),
        _ => true,
    }
}

/// A `{` at `at`, standing on its own ([`after_prose`]), whose first key is one of `keys`
/// (quoted).
fn object_with_key_at(
    bytes: &[u8],
    at: usize,
    keys: &[&str],
    eof: bool,
    fresh_from: usize,
) -> Match {
    if !after_prose(bytes, at, fresh_from) {
        return Match::No;
    }
    object_with_key_at_any(bytes, at, keys, eof)
}

/// A `[` at `at`, standing on its own ([`after_prose`]), whose first element is an object
/// whose first key is one of `keys` (quoted): a list of calls ([`super::Open::ObjectList`]).
fn object_list_at(bytes: &[u8], at: usize, keys: &[&str], eof: bool, fresh_from: usize) -> Match {
    if bytes.get(at) != Some(&b'[') || !after_prose(bytes, at, fresh_from) {
        return Match::No;
    }
    let first = skip_whitespace(bytes, at + 1);
    if first == bytes.len() {
        return if eof { Match::No } else { Match::Partial };
    }
    object_with_key_at_any(bytes, first, keys, eof)
}

/// The first index from `from` on that is not ASCII whitespace (the length at the end).
pub(super) fn skip_whitespace(bytes: &[u8], mut from: usize) -> usize {
    while bytes.get(from).is_some_and(u8::is_ascii_whitespace) {
        from += 1;
    }
    from
}

/// A `{` at `at` whose first key is one of `keys` (quoted), whatever precedes it.
pub(super) fn object_with_key_at_any(bytes: &[u8], at: usize, keys: &[&str], eof: bool) -> Match {
    if bytes.get(at) != Some(&b'{') {
        return Match::No;
    }
    starts_with_one_of(bytes, at + 1, keys, eof)
}
