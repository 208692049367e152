//! Blocks that end at a marker (or at the next opener): finding their end, cutting them short
//! when another block starts first or the reply ends (or, for a block never closed, at an
//! end-of-turn token; for reasoning never closed, at a call opener), and the separator after a
//! block.

use super::*;

impl Scanner {
    pub(super) fn unclosed(&self, rule: usize, span: Span, why: &str) -> Diagnostic {
        let r = self.framing.rules[rule];
        let open = r.open.text();
        let what = match r.close {
            Close::Marker(close) => format!("'{open}' is not closed by '{close}'"),
            Close::Balanced { after, .. } if !after.is_empty() => {
                format!("'{open}' is not followed by '{after}' and a complete value")
            }
            _ => format!("the value after '{open}' is not complete"),
        };
        let (severity, outcome) = if r.lenient_end && why == END {
            (Severity::Warning, "parsed up to the end of the reply")
        } else if r.lenient_end && why == TURN {
            (Severity::Warning, "parsed up to the token")
        } else if self.reopen_closes(rule, why) {
            (Severity::Warning, "parsed up to the next one")
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

    /// Whether the open block, cut short for `why`, ends at its rule's next opener as if closed
    /// ([`super::super::Rule::reopen_closes`]; delimited call blocks only).
    fn reopen_closes(&self, rule: usize, why: &str) -> bool {
        let r = self.framing.rules[rule];
        why == ANOTHER
            && r.reopen_closes
            && r.kind == BlockKind::Call
            && matches!(r.close, Close::Marker(_))
    }

    /// Cuts the open block short at `at` (a new block starts there, or the reply ends).
    pub(super) fn cut(
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
        let reopened = self.reopen_closes(rule, why);
        let decode = (r.lenient_end && (why == END || why == TURN)) || reopened;
        if decode || r.kind != BlockKind::Call {
            // A turn the model ended itself, or a call it followed with its next one, is not
            // cut off: its arguments are all there.
            self.end_block(rule, span, body_start, at, why == TURN || reopened, events);
        } else {
            self.report_body(rule, at, events);
            self.pos = at;
            self.content_from = at;
            self.prose.skip_to(at);
            self.at_text_start = false;
            self.state = State::Outside;
        }
    }

    pub(super) fn delimited(
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
        // Reasoning that one of its `ended_by` markers also ends, like a block that ends at
        // the next one.
        let ended_by = r.kind == BlockKind::Reasoning && !r.ended_by.is_empty();
        let reopen_hit = if until_next {
            // Such a block also ends where any other block or token of the format begins.
            self.next_open_marker(&bytes[..limit], eof)
        } else if ended_by {
            first_marker(&bytes[..limit], self.pos, r.ended_by, &self.finders, eof)
        } else {
            reopen.and_then(|m| self.find_reopening(&bytes[..limit], m, r.opens_before, eof))
        };
        let first_full = match (&reopen_hit, &close_hit) {
            (Some((at, Match::Yes)), _) | (_, Some((at, Match::Yes))) => Some(*at),
            _ => None,
        };
        if let Some(at) = first_full {
            let quoted = (r.json_strings && self.strings.inside_at(bytes, at))
                || (r.tags_on_own
                    && !where_a_tag_stands(bytes, at)
                    && holds_a_tag(bytes, body_start, at));
            if quoted {
                // A marker quoted in an argument's text: text. Search on after it.
                self.pos = at + 1;
                return true;
            }
        }
        match (close_hit, reopen_hit) {
            (_, Some((at, Match::Yes))) if until_next || ended_by => {
                self.end_block(rule, Span::new(start, at), body_start, at, true, events);
                true
            }
            (_, Some((at, Match::Yes))) => {
                self.end_unclosed(bytes, rule, start, body_start, at, ANOTHER, events);
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
                    self.end_unclosed(bytes, rule, start, body_start, bytes.len(), END, events);
                    return true;
                }
                let safe = waiting.unwrap_or(bytes.len());
                // The body is not reported past an end-of-turn token (or what may become one):
                // if the block never closes, it ends there. `pos` still moves on, so the
                // searches for the close and the next block stay incremental.
                let turn = match r.kind {
                    BlockKind::Call => self.turn_end(bytes, safe, false),
                    _ => None,
                };
                self.report_body(rule, turn.unwrap_or(safe).min(safe), events);
                self.pos = safe;
                false
            }
        }
    }

    /// The rule's own opener `marker` from `pos` on where it opens a block: followed by one of
    /// `starts` when the rule names them ([`super::super::Rule::opens_before`]); elsewhere it is
    /// the block's text. Each byte is looked at once per call.
    fn find_reopening(
        &self,
        bytes: &[u8],
        marker: &str,
        starts: &[&str],
        eof: bool,
    ) -> Option<(usize, Match)> {
        let mut from = self.pos;
        loop {
            let (at, hit) = find_marker(bytes, from, marker, &self.finders, eof)?;
            if hit != Match::Yes || starts.is_empty() {
                return Some((at, hit));
            }
            match starts_with_one_of(bytes, at + marker.len(), starts, eof) {
                Match::No => from = at + 1,
                decided => return Some((at, decided)),
            }
        }
    }

    /// Ends a block that is not closed before `at` (the next block, or the reply's end): at an
    /// end-of-turn token in it, or for reasoning at its early end, or else at `at` ([`Self::cut`]).
    /// Searches only the block's own bytes, once, when that is decided: still linear.
    #[allow(clippy::too_many_arguments)]
    fn end_unclosed(
        &mut self,
        bytes: &[u8],
        rule: usize,
        start: usize,
        body_start: usize,
        at: usize,
        why: &'static str,
        events: &mut Vec<ScanEvent>,
    ) {
        let r = self.framing.rules[rule];
        match r.kind {
            BlockKind::Reasoning if why == END => {
                if let Some(end) = r.early_end.and_then(|e| early_end_at(bytes, body_start, e)) {
                    self.end_block(rule, Span::new(start, end), body_start, end, false, events);
                    return;
                }
            }
            BlockKind::Call => {
                if let Some(end) = self.turn_end(bytes, at, true) {
                    self.cut(rule, start, body_start, end, TURN, events);
                    return;
                }
            }
            _ => {}
        }
        self.cut(rule, start, body_start, at, why, events);
    }

    /// The first end-of-turn token ([`super::super::Rule::ends_turn`]) in the open call block
    /// before `to`; unless `whole`, also one that `to` cuts short (it may still be arriving).
    /// The body is never reported past such a token, so the search starts where the report
    /// stopped, and a token that arrived whole is remembered: each byte is searched once.
    fn turn_end(&mut self, bytes: &[u8], to: usize, whole: bool) -> Option<usize> {
        if let Some(at) = self.turn_at {
            return (at < to).then_some(at);
        }
        let from = self.body_reported.min(to);
        // Where, and whether the token is there whole.
        let mut first: Option<(usize, bool)> = None;
        for rule in self.framing.rules.iter().filter(|r| r.ends_turn) {
            let Open::Marker(token) = rule.open else {
                continue;
            };
            // Only what starts before the best hit so far can win.
            let limit = first.map_or(to, |(f, _)| (f + token.len()).min(to));
            if let Some((hit, kind)) =
                find_marker(&bytes[..limit], from, token, &self.finders, whole)
            {
                if first.is_none_or(|(f, _)| hit < f) {
                    first = Some((hit, kind == Match::Yes));
                }
            }
        }
        let (at, arrived) = first?;
        if arrived {
            self.turn_at = Some(at);
        }
        Some(at)
    }

    pub(super) fn after_block(
        &mut self,
        bytes: &[u8],
        eof: bool,
        rule: usize,
        events: &mut Vec<ScanEvent>,
    ) -> bool {
        let r = self.framing.rules[rule];
        let skip_space = |mut i: usize| {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            i
        };
        let i = skip_space(self.pos);
        if i == bytes.len() {
            if eof {
                self.state = State::Outside;
                return true;
            }
            return false;
        }
        let next = match r.open {
            Open::ObjectWithKey(keys) => object_with_key_at_any(bytes, i, keys, eof),
            _ => Match::No,
        };
        let next = if next == Match::No && r.separators.contains(&bytes[i]) {
            // The separator opens the next block of the same rule when a block can start after
            // it; the gap is then not content.
            match self.continues_at(rule, bytes, skip_space(i + 1), eof) {
                Match::Yes => {
                    self.content_from = i;
                    self.begin(rule, i, i + 1, events);
                    return true;
                }
                other => other,
            }
        } else {
            next
        };
        match next {
            Match::Partial => return false,
            Match::Yes => {
                // Bare objects one after another (`{…}\n{…}`): the next call, no separator needed.
                self.content_from = i;
                self.begin(rule, i, i, events);
            }
            Match::No => self.state = State::Outside,
        }
        true
    }

    /// Whether a block of `rule` can start at `at`, right after a separator: an object with the
    /// rule's keys, or for another balanced rule the start of a value. Blocks of other kinds
    /// (a name before the value, a marker-closed body) start after any separator.
    fn continues_at(&self, rule: usize, bytes: &[u8], at: usize, eof: bool) -> Match {
        let r = self.framing.rules[rule];
        let Some(&first) = bytes.get(at) else {
            return if eof { Match::No } else { Match::Partial };
        };
        match (r.open, r.close) {
            (Open::ObjectWithKey(keys), _) => object_with_key_at_any(bytes, at, keys, eof),
            (_, Close::Balanced { after: "", syntax }) => {
                if BalancedScan::start(syntax, first).is_some() {
                    Match::Yes
                } else {
                    Match::No
                }
            }
            _ => Match::Yes,
        }
    }
}

/// The first of `markers` from `from` on: the first full match, or else the first partial one
/// (a marker that may still be arriving at the end).
fn first_marker(
    bytes: &[u8],
    from: usize,
    markers: &[&str],
    finders: &super::Finders,
    eof: bool,
) -> Option<(usize, Match)> {
    markers
        .iter()
        .filter_map(|marker| find_marker(bytes, from, marker, finders, eof))
        .min_by_key(|(at, kind)| (*kind != Match::Yes, *at))
}

/// Where unclosed reasoning that starts at `body_start` ends early: at the first of the
/// `early.at` openers in it, if a call follows that opener (only the first counts, as in vLLM,
/// so a mention of the opener in the reasoning keeps the rest reasoning).
fn early_end_at(bytes: &[u8], body_start: usize, early: super::super::EarlyEnd) -> Option<usize> {
    let mut first: Option<(usize, usize)> = None;
    for opener in early.at {
        // Only what starts before the best hit so far can win.
        let limit = first.map_or(bytes.len(), |(at, _)| (at + opener.len()).min(bytes.len()));
        let found = bytes
            .get(body_start..limit)
            .and_then(|hay| memchr::memmem::find(hay, opener.as_bytes()));
        if let Some(offset) = found {
            let at = body_start + offset;
            if first.is_none_or(|(best, _)| at < best) {
                first = Some((at, opener.len()));
            }
        }
    }
    let (at, len) = first?;
    let after = at + len;
    let follows = |pieces: &[&str]| {
        let mut i = after;
        pieces.iter().all(|piece| {
            i = skip_whitespace(bytes, i);
            let hit = bytes
                .get(i..)
                .is_some_and(|rest| rest.starts_with(piece.as_bytes()));
            i += piece.len();
            hit
        })
    };
    (early.then.is_empty() || early.then.iter().any(|pieces| follows(pieces))).then_some(at)
}

/// Whether the body from `body_start` to `at` opens a tag: only then can a marker there be a
/// value's text. A body of bare text (`<tool_call>foo</tool_call>`) has no value to quote in,
/// so its first closing marker closes it. Stops at the first `<`, which a markup body holds
/// near its start: each call costs little, and a body with none ends at the marker.
fn holds_a_tag(bytes: &[u8], body_start: usize, at: usize) -> bool {
    bytes
        .get(body_start..at)
        .is_some_and(|body| memchr::memchr(b'<', body).is_some())
}

/// Whether a tag at `at` starts a line or follows another tag (`>`), spaces or tabs between.
fn where_a_tag_stands(bytes: &[u8], at: usize) -> bool {
    let before = bytes.get(..at).unwrap_or_default();
    let indent = before
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    before.len() == indent || matches!(before[before.len() - indent - 1], b'\n' | b'>')
}

/// Whether the body read so far ends inside a JSON string, read up to `upto`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct JsonStrings {
    upto: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonStrings {
    /// Nothing read yet of a body starting at `upto`.
    pub(super) fn from(upto: usize) -> Self {
        Self {
            upto,
            ..Self::default()
        }
    }

    /// Reads `bytes[self.upto..at]`; true when `at` is inside a string.
    pub(super) fn inside_at(&mut self, bytes: &[u8], at: usize) -> bool {
        for &b in bytes.get(self.upto..at).unwrap_or_default() {
            if !self.in_string {
                self.in_string = b == b'"';
            } else if self.escaped {
                self.escaped = false;
            } else {
                match b {
                    b'\\' => self.escaped = true,
                    b'"' | b'\n' => self.in_string = false,
                    _ => {}
                }
            }
        }
        self.upto = self.upto.max(at);
        self.in_string
    }
}
