//! The incremental block scanner: the state machine that turns a growing reply into
//! [`ScanEvent`]s, deciding each byte once.

use crate::balanced::{BalancedScan, Progress};
use crate::request::{Diagnostic, DiagnosticCode, Severity, Span};

use super::markers::{
    find_marker, is_marker, match_at, object_with_key_at_any, opens_at, skip_whitespace,
    starts_with_one_of, Absent, Finders, FirstBytes, Match,
};
use super::prose::{Prose, Quoted};
use super::{Block, BlockKind, Close, Framing, Open, ScanEvent};

mod balanced;
mod delimited;
mod openers;
mod start_open;

use delimited::JsonStrings;

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
    /// After a token that ends the reply ([`super::Rule::ends_reply`], rule `rule`): the
    /// rest is not read.
    Finished {
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
    /// The first end-of-turn token in the open call block, once one has arrived whole.
    turn_at: Option<usize>,
    /// No content yet (only whitespace and reasoning): `Open::TextStart` rules may still match.
    at_text_start: bool,
    /// Where the last reasoning block ended: the reply starts afresh there, so a call object
    /// right after `</think>` stands on its own as at the reply's start.
    fresh_from: usize,
    state: State,
    /// Where each marker searched for (a closing or inner marker) is known to be missing, one
    /// entry per marker: reasoning that never closes but ends early at a call is followed by
    /// more blocks, so its closing marker must be remembered across them.
    absent: Vec<Absent>,
    /// Whether the reply began inside reasoning is not settled yet; searched up to here.
    start_open_searched: Option<usize>,
    /// Openers before this were reported as text already ([`super::Rule::opens_before`]): a
    /// streamed reply looks at the same place again while it waits for more bytes.
    text_openers_reported: usize,
    /// Inline code and fences in the prose: a marker quoted there is not a block.
    prose: Prose,
    /// JSON strings in the open block's body, for rules with [`super::Rule::json_strings`].
    strings: JsonStrings,
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
                Open::Marker(marker) | Open::CallId(marker) => marker.as_bytes().first().copied(),
                Open::CallList => Some(b'['),
                Open::ObjectWithKey(_) => Some(b'{'),
                Open::ObjectList(_) => Some(b'['),
                Open::TextStart(_) => None,
            })
            .collect();
        let open_first = FirstBytes::new(&firsts);
        let start_open_searched = Self::start_open_markers(&framing).map(|_| 0);
        Self {
            finders: Finders::new(&framing),
            framing,
            open_first,
            pos: 0,
            content_from: 0,
            body_reported: 0,
            turn_at: None,
            at_text_start: true,
            fresh_from: 0,
            state: State::Outside,
            absent: Vec::new(),
            start_open_searched,
            text_openers_reported: 0,
            prose: Prose::new(),
            strings: JsonStrings::default(),
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
        let known = self.absent.iter().position(|a| a.marker == marker);
        let from = match known.map(|i| self.absent[i]) {
            Some(a) if a.from <= self.pos => self.pos.max(a.upto),
            _ => self.pos,
        };
        let hit = find_marker(bytes, from, marker, &self.finders, eof);
        if !matches!(hit, Some((_, Match::Yes))) {
            // No full match starts before the last `marker.len() - 1` bytes.
            let upto = bytes.len().saturating_sub(marker.len().saturating_sub(1));
            let absent = Absent {
                marker,
                from: self.pos,
                upto: upto.max(from),
            };
            match known {
                Some(i) => self.absent[i] = absent,
                None => self.absent.push(absent),
            }
        }
        hit
    }

    /// Scans what `text` (the whole reply so far; it only ever grows) adds since the last call.
    /// With `eof`, the reply is complete: open blocks are closed and reported.
    pub fn advance(&mut self, text: &str, eof: bool, events: &mut Vec<ScanEvent>) {
        let bytes = text.as_bytes();
        if !self.settle_start_open(bytes, eof, events) {
            return;
        }
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
                State::Finished { rule } => {
                    if eof {
                        self.past_the_end(bytes, rule, events);
                    }
                    false
                }
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
        self.turn_at = None;
        self.strings = JsonStrings::from(body_start);
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
        self.prose.skip_to(span.end);
        // Reasoning does not count as text: a pythonic list may still follow it.
        match r.kind {
            BlockKind::Call => self.at_text_start = false,
            BlockKind::Reasoning => self.fresh_from = span.end,
            BlockKind::Token => {}
        }
        self.state = if r.ends_reply {
            State::Finished { rule }
        } else if complete && !r.separators.is_empty() {
            State::AfterBlock { rule }
        } else {
            State::Outside
        };
    }

    /// At the end of a reply that a stop token ended: what follows the token is reported once,
    /// and is neither content nor calls. Layout and the format's other end-of-turn tokens
    /// (`<|im_end|>` then `<|endoftext|>`, as a raw completion pads its end) are not reported.
    fn past_the_end(&mut self, bytes: &[u8], rule: usize, events: &mut Vec<ScanEvent>) {
        let mut start = self.pos.min(bytes.len());
        loop {
            start += bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            let rest = &bytes[start..];
            let token = self.framing.rules.iter().find_map(|r| match r.open {
                Open::Marker(m) if r.ends_turn && rest.starts_with(m.as_bytes()) => Some(m.len()),
                _ => None,
            });
            match token {
                Some(len) => start += len,
                None => break,
            }
        }
        if start < bytes.len() {
            let token = self.framing.rules[rule].open.text();
            events.push(ScanEvent::Diagnostic(diagnostic(
                Severity::Warning,
                DiagnosticCode::StrayText,
                format!(
                    "the model stops at '{token}': the text after it is not part of its reply \
                     and is not read"
                ),
                Span::new(start, bytes.len()),
            )));
        }
        self.pos = bytes.len();
        self.content_from = bytes.len();
        self.prose.skip_to(bytes.len());
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
            let mut quoted = false;
            for (index, rule) in self.framing.rules.iter().enumerate() {
                match self.rule_opens_at(bytes, i, rule, eof) {
                    // An earlier rule's longer marker may still arrive here (```json before
                    // ```): it would win, so wait for the bytes that decide.
                    Some((Match::Yes, _)) if partial => break,
                    Some((Match::Yes, body_start)) => match self.prose.quoted(bytes, i, eof) {
                        Quoted::No => {
                            self.begin(index, i, body_start, events);
                            return true;
                        }
                        Quoted::Yes => {
                            quoted = true;
                            break;
                        }
                        // Wait for the end of the line to tell.
                        Quoted::Undecided => partial = true,
                    },
                    Some((Match::Partial, _)) => partial = true,
                    _ => {}
                }
            }
            if partial && !quoted {
                // Wait for the bytes that decide; report the content before them.
                self.pos = i;
                self.flush_content(i, events);
                return false;
            }
            if !quoted {
                self.report_text_opener(bytes, i, eof, events);
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
                match self.rule_opens_at(bytes, i, rule, eof) {
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
            // At the reply's start the format's own text-start rule reads a call list.
            rule.open != Open::CallList
                && self
                    .rule_opens_at(bytes, self.pos, rule, eof)
                    .is_some_and(|(hit, _)| hit != Match::No)
        })
    }
}

const END: &str = "the reply ends first";
const TURN: &str = "an end-of-turn token comes first";
const ANOTHER: &str = "another block starts before it ends";
