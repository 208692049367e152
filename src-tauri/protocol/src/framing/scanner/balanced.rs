//! Blocks that end with a balanced value (`[TOOL_CALLS] [...]`, `{"name": ...}`): the scanner's
//! walk through a JSON or Python value as it arrives.

use super::*;
use crate::balanced::Syntax;

impl Scanner {
    #[allow(clippy::too_many_arguments)] // the state's fields, destructured by the caller
    pub(super) fn balanced(
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
            Open::Marker(m) | Open::CallId(m) => Some(m),
            Open::TextStart(_) | Open::CallList | Open::ObjectWithKey(_) | Open::ObjectList(_) => {
                None
            }
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
                if syntax == Syntax::Json {
                    // A value right after the opening (only whitespace between): no name and no
                    // inner marker were written, as in Mistral's list form `[TOOL_CALLS] [{…}]`
                    // beside its compact `[TOOL_CALLS]name[ARGS]{…}`. The body keeps the value.
                    let lead = bytes[body_start..]
                        .iter()
                        .position(|b| !b.is_ascii_whitespace())
                        .map(|offset| body_start + offset);
                    match lead {
                        // Unless that bracket begins the inner marker (`[TOOL_CALLS][ARGS]{…}`).
                        Some(at) if matches!(bytes[at], b'[' | b'{') => {
                            match match_at(bytes, at, after, eof) {
                                Match::No => {
                                    self.pos = at;
                                    set(self, Phase::SeekValue);
                                    return true;
                                }
                                Match::Partial => {
                                    self.report_body(rule, at, events);
                                    self.pos = at;
                                    return false;
                                }
                                Match::Yes => {}
                            }
                        }
                        // Only whitespace so far: what comes next decides.
                        None if !eof => {
                            self.report_body(rule, bytes.len(), events);
                            self.pos = bytes.len();
                            return false;
                        }
                        _ => {}
                    }
                }
                // The inner marker must come before the rule's own opening marker recurs.
                let hit = self.find_from_pos(bytes, after, eof);
                let limit = hit.as_ref().map_or(bytes.len(), |(at, _)| *at);
                if syntax == Syntax::Json {
                    // `name{…}` with the inner marker left out: the value starts at the brace
                    // when only a name precedes it, unless the rule's own marker recurs first.
                    let again = reopen.and_then(|m| {
                        find_marker(&bytes[..limit], self.pos, m, &self.finders, eof)
                            .map(|(at, _)| at)
                    });
                    let brace_limit = again.unwrap_or(limit);
                    let brace = memchr::memchr(b'{', &bytes[self.pos..brace_limit])
                        .map(|offset| self.pos + offset)
                        .filter(|&at| is_bare_name(&bytes[body_start..at]));
                    if let Some(at) = brace {
                        self.pos = at;
                        set(self, Phase::SeekValue);
                        return true;
                    }
                }
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
                        let open = r.open.text();
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
}

/// What may precede the value when the inner marker was left out (whitespace around it
/// allowed): a function name (or a call id, `get_weather:0` in Kimi K2), optionally followed by
/// one more bare word, the content type harmony writes after the function (`get_weather
/// json{…}` once `<|constrain|>` and `<|message|>` are decoded away). The format's decoder tells
/// the name from the type. `[{…}]` or prose before a brace is not one.
fn is_bare_name(bytes: &[u8]) -> bool {
    let header = bytes.trim_ascii();
    let (name, kind) = match header.iter().position(u8::is_ascii_whitespace) {
        Some(at) => (&header[..at], header[at..].trim_ascii()),
        None => (header, &header[..0]),
    };
    let bare = |word: &[u8]| {
        word.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
    };
    !name.is_empty() && bare(name) && bare(kind)
}
