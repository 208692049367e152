//! Replies that begin inside reasoning: chat templates in thinking mode (DeepSeek V3.1 and R1,
//! QwQ, Qwen3 Thinking, Qwen3.5, Kimi K2) write `<think>` into the prompt, so the reply is
//! `…reasoning…</think>answer`. llama.cpp parses such a reply with `thinking_forced_open`: what
//! comes before `</think>` is reasoning, calls written there included, and a reply with no
//! `</think>` at all is ordinary content.
//!
//! The scanner cannot know which until it sees `</think>`, an opening `<think>`, or the end of
//! the reply, so it reports nothing before then: a streamed reply in a format with such a rule
//! shows its first events once that is settled. Batch and streaming decide on the same bytes.

use super::*;

impl Scanner {
    /// The framing's reasoning rule that may start open, as its (opening, closing) markers.
    pub(super) fn start_open_markers(framing: &Framing) -> Option<(&'static str, &'static str)> {
        framing
            .rules
            .iter()
            .find_map(|rule| match (rule.open, rule.close) {
                (Open::Marker(open), Close::Marker(close))
                    if rule.may_start_open && rule.kind == BlockKind::Reasoning =>
                {
                    Some((open, close))
                }
                _ => None,
            })
    }

    /// Settles whether the reply began inside reasoning; false while that cannot be told yet.
    /// Each byte is searched a bounded number of times: the search resumes where it stopped,
    /// less a marker's length for a marker still arriving.
    pub(super) fn settle_start_open(
        &mut self,
        bytes: &[u8],
        eof: bool,
        events: &mut Vec<ScanEvent>,
    ) -> bool {
        let Some(searched) = self.start_open_searched else {
            return true;
        };
        let Some((open, close)) = Self::start_open_markers(&self.framing) else {
            self.start_open_searched = None;
            return true;
        };
        let back = open.len().max(close.len()).saturating_sub(1);
        let from = searched.saturating_sub(back).min(bytes.len());
        let find = |marker: &str| {
            memchr::memmem::find(&bytes[from..], marker.as_bytes()).map(|at| from + at)
        };
        let close_at = find(close);
        let open_at = find(open);
        match close_at {
            Some(at) if open_at.is_none_or(|open_at| at < open_at) => {
                let end = at + close.len();
                events.push(ScanEvent::Reasoning(Span::new(0, end)));
                self.pos = end;
                self.content_from = end;
                self.body_reported = end;
                self.prose.skip_to(end);
                self.fresh_from = end;
                self.start_open_searched = None;
                true
            }
            _ if open_at.is_some() || eof => {
                self.start_open_searched = None;
                true
            }
            _ => {
                self.start_open_searched = Some(bytes.len());
                false
            }
        }
    }
}
