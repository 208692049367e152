//! Blocks that end at a marker (or at the next opener): finding their end, cutting them short
//! when another block starts first or the reply ends, and the separator after a block.

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
        let decode = r.lenient_end && why == END;
        if decode || r.kind != BlockKind::Call {
            self.end_block(rule, span, body_start, at, false, events);
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

    pub(super) fn after_block(
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
