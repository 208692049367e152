//! The incremental block scanner: the state machine that turns a growing reply into
//! [`ScanEvent`]s, deciding each byte once.

use crate::balanced::{BalancedScan, Progress};
use crate::request::{Diagnostic, DiagnosticCode, Severity, Span};

use super::markers::{
    find_marker, is_marker, match_at, object_with_key_at_any, opens_at, Absent, Finders,
    FirstBytes, Match,
};
use super::{Block, BlockKind, Close, Framing, Open, ScanEvent};

mod balanced;

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
                Open::ObjectWithKey(_) => Some(b'{'),
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
                match opens_at(bytes, i, rule.open, eof) {
                    Some((Match::Yes, body_start)) => {
                        self.begin(index, i, body_start, events);
                        return true;
                    }
                    Some((Match::Partial, _)) => partial = true,
                    _ => {}
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
                match opens_at(bytes, i, rule.open, eof) {
                    Some((Match::Yes, body_start)) if body_start > i || !is_marker(rule.open) => {
                        return Some((i, Match::Yes))
                    }
                    Some((Match::Partial, _)) => partial = true,
                    _ => {}
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
        self.framing.rules.iter().any(|rule| {
            opens_at(bytes, self.pos, rule.open, eof).is_some_and(|(hit, _)| hit != Match::No)
        })
    }

    fn unclosed(&self, rule: usize, span: Span, why: &str) -> Diagnostic {
        let r = self.framing.rules[rule];
        let open = match r.open {
            Open::Marker(m) | Open::TextStart(m) => m,
            Open::ObjectWithKey(_) => "{",
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
        let next_object = match self.framing.rules[rule].open {
            Open::ObjectWithKey(keys) => object_with_key_at_any(bytes, i, keys, eof),
            _ => Match::No,
        };
        if next_object == Match::Partial {
            return false;
        }
        if next_object == Match::Yes {
            // Bare objects one after another (`{…}\n{…}`): the next call, no separator needed.
            self.content_from = i;
            self.begin(rule, i, i, events);
        } else if bytes[i] == separator {
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
