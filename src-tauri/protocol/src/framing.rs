//! Where calls sit in a reply: the one scanner every text format shares, batch and streaming.
//!
//! Most wire formats put each call (or a list of calls) between markers (`<tool_call>` …
//! `</tool_call>`), after a marker as one JSON value (`[TOOL_CALLS] [...]`), or make the whole
//! reply a call list (`[f(a=1)]`). A format describes that with a [`Framing`] and decodes one
//! block at a time; this scanner finds the blocks, keeps reasoning (`<think>…</think>`) out of
//! them, reports unclosed blocks without losing their neighbours, and collects the prose.
//!
//! The scanner is incremental: it only ever looks at bytes it has not decided yet (plus a
//! marker's length of look-behind while a marker may still be arriving), so feeding a reply in
//! 4-byte deltas costs the same as one pass over it. Batch parsing is the same scanner fed once,
//! so the batch and streaming results cannot drift apart.

use crate::request::{Diagnostic, DiagnosticCode, ParseOutput, Severity, Span};

use crate::balanced::{BalancedScan, Progress, Syntax};
use crate::Protocol;

/// How a block begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// A literal marker anywhere in the reply; the body starts after it.
    Marker(&'static str),
    /// The reply itself (after leading whitespace or a reasoning block) starts with this text,
    /// which belongs to the body (`[` of a pythonic call list).
    TextStart(&'static str),
}

/// How a block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// Right after the opening marker: a token that only structures the reply.
    Immediately,
    /// At this marker. Another opening marker of the same rule before it means the block was
    /// never closed: it is reported and the new block parsed.
    Marker(&'static str),
    /// At the next opening marker of the same rule (not consumed) or the end of the reply:
    /// formats whose calls are only separated by their openers (`>>>name` in functionary).
    UntilNext,
    /// With the first balanced value (JSON or Python literal) after `after` (an inner marker,
    /// or "" for right after the opening); only whitespace may precede the value.
    Balanced { after: &'static str, syntax: Syntax },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Holds calls: handed to the format's decoder.
    Call,
    /// Reasoning text: never parsed as calls, not part of the content.
    Reasoning,
    /// A structural token (`<｜tool▁calls▁begin｜>`): neither calls nor content.
    Token,
}

/// One kind of block in a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub open: Open,
    pub close: Close,
    pub kind: BlockKind,
    /// The reply may end inside such a block (generation stopped at end-of-sequence): the
    /// body up to the end is still decoded, with a warning.
    pub lenient_end: bool,
    /// After such a block, this byte (after whitespace) starts another one (`;` in llama3).
    pub separator: Option<u8>,
}

impl Rule {
    pub const fn call(open: &'static str, close: Close) -> Self {
        Self {
            open: Open::Marker(open),
            close,
            kind: BlockKind::Call,
            lenient_end: false,
            separator: None,
        }
    }

    pub const fn at_text_start(prefix: &'static str, close: Close) -> Self {
        Self {
            open: Open::TextStart(prefix),
            close,
            kind: BlockKind::Call,
            lenient_end: false,
            separator: None,
        }
    }

    pub const fn reasoning(open: &'static str, close: &'static str) -> Self {
        Self {
            open: Open::Marker(open),
            close: Close::Marker(close),
            kind: BlockKind::Reasoning,
            lenient_end: true,
            separator: None,
        }
    }

    pub const fn token(marker: &'static str) -> Self {
        Self {
            open: Open::Marker(marker),
            close: Close::Immediately,
            kind: BlockKind::Token,
            lenient_end: true,
            separator: None,
        }
    }

    /// Decodes a block the reply ends in, instead of only reporting it.
    pub const fn lenient(mut self) -> Self {
        self.lenient_end = true;
        self
    }

    pub const fn separated_by(mut self, byte: u8) -> Self {
        self.separator = Some(byte);
        self
    }
}

/// `<think>` … `</think>`: reasoning, in every format that does not say otherwise.
pub const THINK: Rule = Rule::reasoning("<think>", "</think>");

/// Balanced JSON right after the opening marker.
pub const JSON_VALUE: Close = Close::Balanced {
    after: "",
    syntax: Syntax::Json,
};

/// A format's blocks. Earlier rules win when two markers start at the same byte.
#[derive(Debug, Clone, Copy)]
pub struct Framing {
    pub rules: &'static [Rule],
}

/// A block the scanner found, handed to the format's decoder. Spans are into the whole reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Index into [`Framing::rules`].
    pub rule: usize,
    /// The block with its markers.
    pub span: Span,
    /// What the format decodes: between the markers (for balanced blocks: the value, plus what
    /// came between the opening marker and `after`, i.e. `name[ARGS]{…}` in mistral v11).
    pub body: Span,
    /// False when the reply ended (or the next block began) before the block closed.
    pub complete: bool,
}

/// What the scanner reports, in reply order. Spans are into the text fed so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanEvent {
    /// Prose outside every block (may come in several pieces).
    Content(Span),
    /// A call block began at this offset.
    BlockStarted {
        rule: usize,
        start: usize,
    },
    /// More of the open call block's body arrived.
    BodyDelta {
        rule: usize,
        span: Span,
    },
    /// A call block ended (or was cut off); decode it.
    Block(Block),
    /// A reasoning block ended (or the reply ended in it).
    Reasoning(Span),
    Diagnostic(Diagnostic),
}

#[derive(Debug, Clone)]
enum State {
    Outside,
    /// Inside a block that ends at a marker.
    Delimited {
        rule: usize,
        start: usize,
        body_start: usize,
    },
    /// Inside a block that ends with a balanced value.
    Balanced {
        rule: usize,
        start: usize,
        body_start: usize,
        phase: Phase,
    },
    /// After a block whose rule has a separator: whitespace, then maybe the separator.
    AfterBlock {
        rule: usize,
    },
}

#[derive(Debug, Clone)]
enum Phase {
    SeekAfter,
    SeekValue,
    Value(BalancedScan),
}

/// The incremental block scanner. Feed it the growing reply with [`Scanner::advance`].
#[derive(Debug, Clone)]
pub struct Scanner {
    framing: Framing,
    /// Bytes that may start an opening marker.
    open_first: FirstBytes,
    finders: Finders,
    /// Everything before `pos` is decided.
    pos: usize,
    /// Start of content not yet reported.
    content_from: usize,
    /// Body bytes of the open block already reported as deltas.
    body_reported: usize,
    /// No content yet (only whitespace and reasoning): `Open::TextStart` rules may still match.
    at_text_start: bool,
    state: State,
    /// Where the marker searched for last (a closing or inner marker) is known to be missing.
    absent: Option<Absent>,
}

/// A marker known not to start anywhere in `from..upto` of the reply. The reply only grows, so
/// this stays true. It keeps a missing closing marker from being searched for through the rest
/// of the reply once per unclosed block (`<tool_call><tool_call>…` was quadratic).
#[derive(Debug, Clone, Copy)]
struct Absent {
    marker: &'static str,
    from: usize,
    upto: usize,
}

/// Whether `marker` is at `at`: yes, no, or maybe (the text ends inside a prefix of it).
#[derive(Debug, PartialEq, Eq)]
enum Match {
    Yes,
    No,
    Partial,
}

fn match_at(text: &[u8], at: usize, marker: &str, eof: bool) -> Match {
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

/// First position ≥ `from` where `marker` starts, or where the text ends inside a prefix of it.
/// A full match can only begin before the last `marker.len() - 1` bytes, so it always comes
/// before a partial one; SIMD substring search does the long stretches.
fn find_marker(
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

/// A substring searcher per marker of a framing, built once per scan: building one costs about
/// as much as searching a whole block for it, and a megabyte reply has thousands of blocks.
#[derive(Debug, Clone)]
struct Finders(Box<[(&'static str, memchr::memmem::Finder<'static>)]>);

impl Finders {
    fn new(framing: &Framing) -> Self {
        let mut markers: Vec<&'static str> = Vec::new();
        for rule in framing.rules {
            if let Open::Marker(m) = rule.open {
                markers.push(m);
            }
            match rule.close {
                Close::Marker(m) | Close::Balanced { after: m, .. } => markers.push(m),
                Close::Immediately | Close::UntilNext => {}
            }
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

    fn get(&self, marker: &str) -> Option<&memchr::memmem::Finder<'static>> {
        self.0.iter().find(|(m, _)| *m == marker).map(|(_, f)| f)
    }
}

/// The distinct first bytes of a framing's opening markers, searched with memchr.
#[derive(Debug, Clone)]
enum FirstBytes {
    None,
    One(u8),
    Two(u8, u8),
    Three(u8, u8, u8),
    Table(Box<[bool; 256]>),
}

impl FirstBytes {
    fn new(bytes: &[u8]) -> Self {
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

    fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            Self::None => None,
            Self::One(a) => memchr::memchr(*a, haystack),
            Self::Two(a, b) => memchr::memchr2(*a, *b, haystack),
            Self::Three(a, b, c) => memchr::memchr3(*a, *b, *c, haystack),
            Self::Table(table) => haystack.iter().position(|&b| table[usize::from(b)]),
        }
    }
}

fn diagnostic(severity: Severity, code: DiagnosticCode, message: String, span: Span) -> Diagnostic {
    Diagnostic {
        severity,
        code,
        message,
        span,
    }
}

impl Scanner {
    pub fn new(framing: Framing) -> Self {
        let firsts: Vec<u8> = framing
            .rules
            .iter()
            .filter_map(|rule| match rule.open {
                Open::Marker(marker) => marker.as_bytes().first().copied(),
                Open::TextStart(_) => None,
            })
            .collect();
        let open_first = FirstBytes::new(&firsts);
        Self {
            finders: Finders::new(&framing),
            framing,
            open_first,
            pos: 0,
            content_from: 0,
            body_reported: 0,
            at_text_start: true,
            state: State::Outside,
            absent: None,
        }
    }

    /// [`find_marker`] from `pos`, skipping the stretch a previous search found `marker` absent
    /// from (same result, each byte searched once however many blocks look for it).
    fn find_from_pos(
        &mut self,
        bytes: &[u8],
        marker: &'static str,
        eof: bool,
    ) -> Option<(usize, Match)> {
        let from = match self.absent {
            Some(a) if a.marker == marker && a.from <= self.pos => self.pos.max(a.upto),
            _ => self.pos,
        };
        let hit = find_marker(bytes, from, marker, &self.finders, eof);
        if !matches!(hit, Some((_, Match::Yes))) {
            // No full match starts before the last `marker.len() - 1` bytes.
            let upto = bytes.len().saturating_sub(marker.len().saturating_sub(1));
            self.absent = Some(Absent {
                marker,
                from: self.pos,
                upto: upto.max(from),
            });
        }
        hit
    }

    /// Scans what `text` (the whole reply so far; it only ever grows) adds since the last call.
    /// With `eof`, the reply is complete: open blocks are closed and reported.
    pub fn advance(&mut self, text: &str, eof: bool, events: &mut Vec<ScanEvent>) {
        let bytes = text.as_bytes();
        loop {
            let progressed = match self.state.clone() {
                State::Outside => self.outside(bytes, eof, events),
                State::Delimited {
                    rule,
                    start,
                    body_start,
                } => self.delimited(bytes, eof, rule, start, body_start, events),
                State::Balanced {
                    rule,
                    start,
                    body_start,
                    phase,
                } => self.balanced(bytes, eof, rule, start, body_start, phase, events),
                State::AfterBlock { rule } => self.after_block(bytes, eof, rule, events),
            };
            if !progressed {
                break;
            }
        }
        if eof && self.content_from < bytes.len() && matches!(self.state, State::Outside) {
            events.push(ScanEvent::Content(Span::new(
                self.content_from,
                bytes.len(),
            )));
            self.content_from = bytes.len();
        }
    }

    fn flush_content(&mut self, until: usize, events: &mut Vec<ScanEvent>) {
        if until > self.content_from {
            events.push(ScanEvent::Content(Span::new(self.content_from, until)));
        }
        self.content_from = until;
    }

    fn begin(&mut self, rule: usize, start: usize, body_start: usize, events: &mut Vec<ScanEvent>) {
        self.flush_content(start, events);
        let r = self.framing.rules[rule];
        if r.kind == BlockKind::Call {
            events.push(ScanEvent::BlockStarted { rule, start });
        }
        self.body_reported = body_start;
        self.pos = body_start;
        self.state = match r.close {
            Close::Immediately => {
                self.end_block(
                    rule,
                    Span::new(start, body_start),
                    body_start,
                    body_start,
                    true,
                    events,
                );
                return;
            }
            Close::Marker(_) | Close::UntilNext => State::Delimited {
                rule,
                start,
                body_start,
            },
            Close::Balanced { after, .. } => State::Balanced {
                rule,
                start,
                body_start,
                phase: if after.is_empty() {
                    Phase::SeekValue
                } else {
                    Phase::SeekAfter
                },
            },
        };
    }

    fn report_body(&mut self, rule: usize, until: usize, events: &mut Vec<ScanEvent>) {
        if self.framing.rules[rule].kind == BlockKind::Call && until > self.body_reported {
            events.push(ScanEvent::BodyDelta {
                rule,
                span: Span::new(self.body_reported, until),
            });
            self.body_reported = until;
        }
    }

    /// Ends the current block; `body_end` ≤ `span.end`.
    fn end_block(
        &mut self,
        rule: usize,
        span: Span,
        body_start: usize,
        body_end: usize,
        complete: bool,
        events: &mut Vec<ScanEvent>,
    ) {
        let r = self.framing.rules[rule];
        self.report_body(rule, body_end, events);
        match r.kind {
            BlockKind::Call => events.push(ScanEvent::Block(Block {
                rule,
                span,
                body: Span::new(body_start, body_end),
                complete,
            })),
            BlockKind::Reasoning => events.push(ScanEvent::Reasoning(span)),
            BlockKind::Token => {}
        }
        self.pos = span.end;
        self.content_from = span.end;
        // Reasoning does not count as text: a pythonic list may still follow it.
        if r.kind == BlockKind::Call {
            self.at_text_start = false;
        }
        self.state = match r.separator {
            Some(_) if complete => State::AfterBlock { rule },
            _ => State::Outside,
        };
    }

    fn outside(&mut self, bytes: &[u8], eof: bool, events: &mut Vec<ScanEvent>) -> bool {
        if self.at_text_start {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos == bytes.len() && !eof {
                return false;
            }
            let marker_here = self.starts_with_open_marker(bytes, eof);
            let mut waiting = false;
            for (index, rule) in self.framing.rules.iter().enumerate() {
                if marker_here {
                    break; // a marker block at the same place wins
                }
                if let Open::TextStart(prefix) = rule.open {
                    match match_at(bytes, self.pos, prefix, eof) {
                        Match::Yes => {
                            let at = self.pos;
                            self.begin(index, at, at, events);
                            return true;
                        }
                        Match::Partial => waiting = true,
                        Match::No => {}
                    }
                }
            }
            if waiting {
                return false;
            }
            // A marker block (reasoning) may still come first; the scan below decides.
            if !marker_here {
                self.at_text_start = false;
            }
        }
        let mut i = self.pos;
        while i < bytes.len() {
            let Some(offset) = self.open_first.find(&bytes[i..]) else {
                i = bytes.len();
                break;
            };
            i += offset;
            let mut partial = false;
            for (index, rule) in self.framing.rules.iter().enumerate() {
                if let Open::Marker(marker) = rule.open {
                    match match_at(bytes, i, marker, eof) {
                        Match::Yes => {
                            self.begin(index, i, i + marker.len(), events);
                            return true;
                        }
                        Match::Partial => partial = true,
                        Match::No => {}
                    }
                }
            }
            if partial {
                // Wait for the bytes that decide; report the content before them.
                self.pos = i;
                self.flush_content(i, events);
                return false;
            }
            i += 1;
        }
        self.pos = i;
        if !self.at_text_start {
            self.flush_content(i, events);
        }
        false
    }

    /// The first opening marker of any rule at or after `pos`: a full match, or a partial one
    /// at the end of the text (then the caller waits). Walks forward and stops at the first
    /// one: searching the rest of the reply for every rule's marker made each block that ends
    /// at the next one (`Close::UntilNext`) cost the whole reply (functionary v3.2 `>>>` blocks
    /// with no `<think>` or `<|eot_id|>` after them were quadratic).
    fn next_open_marker(&self, bytes: &[u8], eof: bool) -> Option<(usize, Match)> {
        let mut i = self.pos;
        while i < bytes.len() {
            i += self.open_first.find(&bytes[i..])?;
            let mut partial = false;
            for rule in self.framing.rules {
                if let Open::Marker(marker) = rule.open {
                    match match_at(bytes, i, marker, eof) {
                        Match::Yes if !marker.is_empty() => return Some((i, Match::Yes)),
                        Match::Partial => partial = true,
                        Match::Yes | Match::No => {}
                    }
                }
            }
            if partial {
                return Some((i, Match::Partial));
            }
            i += 1;
        }
        None
    }

    fn starts_with_open_marker(&self, bytes: &[u8], eof: bool) -> bool {
        self.framing.rules.iter().any(|rule| match rule.open {
            Open::Marker(marker) => match_at(bytes, self.pos, marker, eof) != Match::No,
            Open::TextStart(_) => false,
        })
    }

    fn unclosed(&self, rule: usize, span: Span, why: &str) -> Diagnostic {
        let r = self.framing.rules[rule];
        let open = match r.open {
            Open::Marker(m) | Open::TextStart(m) => m,
        };
        let what = match r.close {
            Close::Marker(close) => format!("'{open}' is not closed by '{close}'"),
            Close::Balanced { after, .. } if !after.is_empty() => {
                format!("'{open}' is not followed by '{after}' and a complete value")
            }
            _ => format!("the value after '{open}' is not complete"),
        };
        let (severity, outcome) = if r.lenient_end && why == END {
            (Severity::Warning, "parsed up to the end of the reply")
        } else {
            (Severity::Error, "the block is skipped")
        };
        diagnostic(
            severity,
            DiagnosticCode::UnclosedBlock,
            format!("{what}: {why}; {outcome}"),
            span,
        )
    }

    /// Cuts the open block short at `at` (a new block starts there, or the reply ends).
    fn cut(
        &mut self,
        rule: usize,
        start: usize,
        body_start: usize,
        at: usize,
        why: &str,
        events: &mut Vec<ScanEvent>,
    ) {
        let r = self.framing.rules[rule];
        let span = Span::new(start, at);
        if r.kind == BlockKind::Call {
            events.push(ScanEvent::Diagnostic(self.unclosed(rule, span, why)));
        }
        let decode = r.lenient_end && why == END;
        if decode || r.kind != BlockKind::Call {
            self.end_block(rule, span, body_start, at, false, events);
        } else {
            self.report_body(rule, at, events);
            self.pos = at;
            self.content_from = at;
            self.at_text_start = false;
            self.state = State::Outside;
        }
    }

    fn delimited(
        &mut self,
        bytes: &[u8],
        eof: bool,
        rule: usize,
        start: usize,
        body_start: usize,
        events: &mut Vec<ScanEvent>,
    ) -> bool {
        let r = self.framing.rules[rule];
        let (close, until_next) = match r.close {
            Close::Marker(close) => (Some(close), false),
            Close::UntilNext => (None, true),
            _ => return false,
        };
        let reopen = match r.open {
            Open::Marker(m) if r.kind == BlockKind::Call => Some(m),
            _ => None,
        };
        let close_hit = close.and_then(|close| self.find_from_pos(bytes, close, eof));
        // Only a reopening before the close matters: never scan past the close.
        let limit = close_hit.as_ref().map_or(bytes.len(), |(at, _)| *at);
        let reopen_hit = if until_next {
            // Such a block also ends where any other block or token of the format begins.
            self.next_open_marker(&bytes[..limit], eof)
        } else {
            reopen.and_then(|m| find_marker(&bytes[..limit], self.pos, m, &self.finders, eof))
        };
        match (close_hit, reopen_hit) {
            (_, Some((at, Match::Yes))) if until_next => {
                self.end_block(rule, Span::new(start, at), body_start, at, true, events);
                true
            }
            (_, Some((at, Match::Yes))) => {
                self.cut(rule, start, body_start, at, ANOTHER, events);
                true
            }
            (Some((at, Match::Yes)), _) => {
                let end = at + close.map_or(0, str::len);
                self.end_block(rule, Span::new(start, end), body_start, at, true, events);
                true
            }
            (hit, reopen) => {
                let waiting = [hit.map(|(at, _)| at), reopen.map(|(at, _)| at)]
                    .into_iter()
                    .flatten()
                    .min();
                if eof && until_next {
                    let end = bytes.len();
                    self.end_block(rule, Span::new(start, end), body_start, end, true, events);
                    return true;
                }
                if eof {
                    self.cut(rule, start, body_start, bytes.len(), END, events);
                    return true;
                }
                let safe = waiting.unwrap_or(bytes.len());
                self.report_body(rule, safe, events);
                self.pos = safe;
                false
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // the state's fields, destructured by the caller
    fn balanced(
        &mut self,
        bytes: &[u8],
        eof: bool,
        rule: usize,
        start: usize,
        body_start: usize,
        phase: Phase,
        events: &mut Vec<ScanEvent>,
    ) -> bool {
        let r = self.framing.rules[rule];
        let Close::Balanced { after, syntax } = r.close else {
            return false;
        };
        let reopen = match r.open {
            Open::Marker(m) => Some(m),
            Open::TextStart(_) => None,
        };
        let set = |scanner: &mut Self, phase: Phase| {
            scanner.state = State::Balanced {
                rule,
                start,
                body_start,
                phase,
            };
        };
        match phase {
            Phase::SeekAfter => {
                // The inner marker must come before the rule's own opening marker recurs.
                let hit = self.find_from_pos(bytes, after, eof);
                let limit = hit.as_ref().map_or(bytes.len(), |(at, _)| *at);
                let again = reopen
                    .and_then(|m| find_marker(&bytes[..limit], self.pos, m, &self.finders, eof));
                match (hit, again) {
                    (_, Some((at, Match::Yes))) => {
                        self.cut(rule, start, body_start, at, ANOTHER, events);
                        true
                    }
                    (Some((at, Match::Yes)), _) => {
                        self.pos = at + after.len();
                        set(self, Phase::SeekValue);
                        true
                    }
                    (hit, again) => {
                        if eof {
                            self.cut(rule, start, body_start, bytes.len(), END, events);
                            return true;
                        }
                        let safe = [hit.map(|(at, _)| at), again.map(|(at, _)| at)]
                            .into_iter()
                            .flatten()
                            .min()
                            .unwrap_or(bytes.len());
                        self.report_body(rule, safe, events);
                        self.pos = safe;
                        false
                    }
                }
            }
            Phase::SeekValue => {
                while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                    self.pos += 1;
                }
                if self.pos == bytes.len() {
                    if eof {
                        self.cut(rule, start, body_start, bytes.len(), END, events);
                        return true;
                    }
                    return false;
                }
                match BalancedScan::start(syntax, bytes[self.pos]) {
                    Some(scan) => {
                        // With no inner marker the body is the value alone.
                        let body_start = if after.is_empty() {
                            self.body_reported = self.body_reported.max(self.pos);
                            self.pos
                        } else {
                            body_start
                        };
                        self.pos += 1;
                        self.state = State::Balanced {
                            rule,
                            start,
                            body_start,
                            phase: Phase::Value(scan),
                        };
                        true
                    }
                    None => {
                        let at = self.pos;
                        let open = match r.open {
                            Open::Marker(m) | Open::TextStart(m) => m,
                        };
                        let marker = if after.is_empty() { open } else { after };
                        events.push(ScanEvent::Diagnostic(diagnostic(
                            Severity::Error,
                            DiagnosticCode::InvalidJson,
                            format!(
                                "expected {} after '{marker}'; the block is skipped",
                                syntax.expected()
                            ),
                            Span::new(start, at),
                        )));
                        self.report_body(rule, at, events);
                        self.content_from = at;
                        self.at_text_start = false;
                        self.state = State::Outside;
                        true
                    }
                }
            }
            Phase::Value(mut scan) => {
                // Stop at the rule's own opening marker outside strings: a value cut short by
                // the next call must not swallow it.
                let first = reopen.and_then(|m| m.as_bytes().first().copied());
                let mut i = self.pos;
                loop {
                    match scan.run(&bytes[i..], first) {
                        Progress::Closed(offset) => {
                            let end = i + offset;
                            self.end_block(
                                rule,
                                Span::new(start, end),
                                body_start,
                                end,
                                true,
                                events,
                            );
                            return true;
                        }
                        Progress::Stop(offset) => {
                            let at = i + offset;
                            match reopen.map(|m| match_at(bytes, at, m, eof)) {
                                Some(Match::Yes) => {
                                    self.cut(rule, start, body_start, at, ANOTHER, events);
                                    return true;
                                }
                                Some(Match::Partial) => {
                                    self.report_body(rule, at, events);
                                    self.pos = at;
                                    set(self, Phase::Value(scan));
                                    return false;
                                }
                                _ => {
                                    i = at + 1;
                                    if scan.feed(bytes[at]) {
                                        self.end_block(
                                            rule,
                                            Span::new(start, i),
                                            body_start,
                                            i,
                                            true,
                                            events,
                                        );
                                        return true;
                                    }
                                }
                            }
                        }
                        Progress::More => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
                self.pos = i;
                if eof {
                    self.cut(rule, start, body_start, i, END, events);
                    return true;
                }
                self.report_body(rule, i, events);
                set(self, Phase::Value(scan));
                false
            }
        }
    }

    fn after_block(
        &mut self,
        bytes: &[u8],
        eof: bool,
        rule: usize,
        events: &mut Vec<ScanEvent>,
    ) -> bool {
        let Some(separator) = self.framing.rules[rule].separator else {
            self.state = State::Outside;
            return true;
        };
        let mut i = self.pos;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == bytes.len() {
            if eof {
                self.state = State::Outside;
                return true;
            }
            return false;
        }
        if bytes[i] == separator {
            // The separator opens the next block of the same rule; the gap is not content.
            self.content_from = i;
            self.begin(rule, i, i + 1, events);
        } else {
            self.state = State::Outside;
        }
        true
    }
}

const END: &str = "the reply ends first";
const ANOTHER: &str = "another block starts before it ends";

/// Parses a whole reply with a framed format (one that returns a [`Framing`]).
pub fn parse<P: Protocol + ?Sized>(decoder: &P, text: &str) -> ParseOutput {
    let Some(framing) = decoder.framing() else {
        return decoder.parse_tool_requests(text);
    };
    let mut scanner = Scanner::new(framing);
    let mut events = Vec::new();
    scanner.advance(text, true, &mut events);
    let mut out = ParseOutput::default();
    let mut content = String::new();
    for event in events {
        match event {
            ScanEvent::Content(span) => content.push_str(&text[span.start..span.end]),
            ScanEvent::Block(block) => {
                decoder.decode_block(text, &block, &mut out);
                // A decoder may find content inside a block (functionary's `>>>all`).
                content.push_str(&std::mem::take(&mut out.content));
            }
            ScanEvent::Diagnostic(d) => out.diagnostics.push(d),
            ScanEvent::BlockStarted { .. }
            | ScanEvent::BodyDelta { .. }
            | ScanEvent::Reasoning(_) => {}
        }
    }
    out.content = content.trim().to_owned();
    out
}

#[cfg(test)]
mod tests;
