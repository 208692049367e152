//! Where a call marker opens a block: a rule may ask that a call's body follow its marker
//! ([`super::super::Rule::opens_before`]), and a marker that opens nothing there is text, which
//! is reported once (a streamed reply looks at the same place again while it waits).

use super::*;

impl Scanner {
    /// A call marker at `at` that opens no block because no call's body follows it
    /// ([`super::super::Rule::opens_before`]) is text; said once: an error where the model wrote the
    /// tag of a call and no call (Hermes 4's reasoning in a `<tool_call>`), a warning where the
    /// tag stands in a sentence.
    pub(super) fn report_text_opener(
        &mut self,
        bytes: &[u8],
        at: usize,
        eof: bool,
        events: &mut Vec<ScanEvent>,
    ) {
        if at < self.text_openers_reported {
            return;
        }
        let opener = self.framing.rules.iter().find_map(|rule| match rule.open {
            Open::Marker(marker)
                if !rule.opens_before.is_empty()
                    && match_at(bytes, at, marker, eof) == Match::Yes =>
            {
                Some((marker, rule.close))
            }
            _ => None,
        });
        let Some((marker, close)) = opener else {
            return;
        };
        self.text_openers_reported = at + marker.len();
        // After a word on its line it is prose that names the tag; at a line's start or right
        // after a tag or a value (`}`, `]`, `>`) the model meant it to open a call.
        let before = bytes[..at].iter().rev().find(|&&b| b != b' ' && b != b'\t');
        let in_prose = before.is_some_and(|&b| {
            b.is_ascii_alphanumeric() || !b.is_ascii() || b".,;:!?'\"`".contains(&b)
        });
        let severity = if in_prose {
            Severity::Warning
        } else {
            Severity::Error
        };
        events.push(ScanEvent::Diagnostic(diagnostic(
            severity,
            DiagnosticCode::InvalidJson,
            format!(
                "'{marker}' is followed by {}, not a call; it and what follows are read as text",
                what_follows(bytes, at + marker.len(), close)
            ),
            Span::new(at, at + marker.len()),
        )));
    }

    /// [`opens_at`] for `rule`, with what must follow its marker ([`super::super::Rule::opens_before`]).
    pub(super) fn rule_opens_at(
        &self,
        bytes: &[u8],
        at: usize,
        rule: &super::super::Rule,
        eof: bool,
    ) -> Option<(Match, usize)> {
        let (hit, body_start) = opens_at(bytes, at, rule.open, eof, self.fresh_from)?;
        if hit != Match::Yes || rule.opens_before.is_empty() {
            return Some((hit, body_start));
        }
        Some((
            starts_with_one_of(bytes, body_start, rule.opens_before, eof),
            body_start,
        ))
    }
}

/// What a call marker that opens nothing is followed by, for its message: the block's own
/// closing marker (an empty block), a JSON string, the reply's end, or text.
fn what_follows(bytes: &[u8], from: usize, close: Close) -> String {
    let rest = &bytes[skip_whitespace(bytes, from)..];
    match (rest.first(), close) {
        (None, _) => "nothing (the reply ends)".to_owned(),
        (Some(_), Close::Marker(closer)) if rest.starts_with(closer.as_bytes()) => {
            format!("'{closer}' (the block is empty)")
        }
        (Some(b'"'), _) => "a JSON string".to_owned(),
        (Some(_), _) => "text".to_owned(),
    }
}
