//! Seed 004's streamable tools: long-running endpoints that return their result
//! incrementally. Their body is read as it arrives and each piece is reported as progress of
//! the call (the same channel MCP progress notifications use), so the Executor shows the text
//! while the call runs; the call's result is still the whole body.
//!
//! Each report's message is the text of one piece as the server sent it: pieces are cut where
//! the network cut them, never inside a UTF-8 character, and never inside a secret of the call
//! (a piece that may end in the first bytes of a token waits for the next one), so a server
//! that echoes a token shows `***` in progress exactly as in the result.

use toolscope_engine::CallContext;

use crate::secrets::Redactor;

/// Most bytes of a piece quoted in one progress message (the rest of the piece is counted,
/// and is in the result); a message carries the end of its piece.
pub(crate) const PROGRESS_MESSAGE_BYTES: usize = 2048;

/// Turns the pieces of a body into progress reports of one call.
pub(crate) struct StreamProgress<'a> {
    ctx: &'a CallContext,
    redactor: &'a Redactor,
    /// The body's announced length, when the server gave one.
    total: Option<f64>,
    received: u64,
    /// The end of the last piece when it stopped inside a UTF-8 character.
    undecoded: Vec<u8>,
    /// Text not shown yet because a secret may be completing at its end.
    held: String,
}

impl<'a> StreamProgress<'a> {
    pub(crate) fn new(ctx: &'a CallContext, redactor: &'a Redactor, total: Option<u64>) -> Self {
        Self {
            ctx,
            redactor,
            total: total.map(|t| t as f64),
            received: 0,
            undecoded: Vec::new(),
            held: String::new(),
        }
    }

    /// One piece of the body, as it arrived.
    pub(crate) fn piece(&mut self, bytes: &[u8]) {
        if !self.ctx.wants_progress() {
            return;
        }
        self.received += bytes.len() as u64;
        self.undecoded.extend_from_slice(bytes);
        let text = take_decoded(&mut self.undecoded);
        self.held.push_str(&text);
        let cut = self.redactor.safe_prefix_len(&self.held);
        if cut > 0 {
            let shown = self.redactor.redact(&self.held[..cut]);
            self.held.drain(..cut);
            self.report(shown);
        }
    }

    /// The body ended: whatever was held back is shown.
    pub(crate) fn finish(mut self) {
        if !self.ctx.wants_progress() {
            return;
        }
        let mut rest = std::mem::take(&mut self.held);
        rest.push_str(&String::from_utf8_lossy(&self.undecoded));
        if !rest.is_empty() {
            let shown = self.redactor.redact(&rest);
            self.report(shown);
        }
    }

    fn report(&self, text: String) {
        self.ctx
            .report_progress(self.received as f64, self.total, Some(message_tail(text)));
    }
}

/// The text of the complete characters at the front of `bytes`, which keeps only what may
/// still be the start of a character; bytes that can never be UTF-8 become U+FFFD.
fn take_decoded(bytes: &mut Vec<u8>) -> String {
    let mut text = String::new();
    let mut start = 0;
    loop {
        match std::str::from_utf8(&bytes[start..]) {
            Ok(valid) => {
                text.push_str(valid);
                start = bytes.len();
                break;
            }
            Err(error) => {
                let valid_end = start + error.valid_up_to();
                text.push_str(&String::from_utf8_lossy(&bytes[start..valid_end]));
                match error.error_len() {
                    Some(invalid) => {
                        text.push('\u{FFFD}');
                        start = valid_end + invalid;
                    }
                    // A character cut at the end: wait for the rest of it.
                    None => {
                        start = valid_end;
                        break;
                    }
                }
            }
        }
    }
    bytes.drain(..start);
    text
}

/// At most [`PROGRESS_MESSAGE_BYTES`] of `text`, from its end (the newest part), marked `…`
/// when cut.
fn message_tail(text: String) -> String {
    if text.len() <= PROGRESS_MESSAGE_BYTES {
        return text;
    }
    let mut start = text.len() - PROGRESS_MESSAGE_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use toolscope_engine::{CallProgress, ProgressRecorder};

    use super::*;

    fn run(pieces: &[&[u8]], secret: Option<&str>) -> Vec<CallProgress> {
        let log = Arc::new(ProgressRecorder::default());
        let ctx = CallContext {
            request_id: "r1".into(),
            progress: Some(log.clone()),
            ..CallContext::default()
        };
        let mut redactor = Redactor::default();
        if let Some(secret) = secret {
            redactor.add(secret);
        }
        let mut stream = StreamProgress::new(&ctx, &redactor, None);
        for piece in pieces {
            stream.piece(piece);
        }
        stream.finish();
        log.reports()
    }

    fn messages(reports: &[CallProgress]) -> Vec<&str> {
        reports
            .iter()
            .map(|p| p.message.as_deref().unwrap_or_default())
            .collect()
    }

    #[test]
    fn each_piece_is_one_report_and_a_cut_character_waits_for_its_rest() {
        let body = "données: ü\n".as_bytes();
        // "ü" is two bytes: cut between them.
        let cut = body.len() - 2;
        let reports = run(&[&body[..cut], &body[cut..]], None);
        assert_eq!(messages(&reports), ["données: ", "ü\n"]);
        let progress: Vec<f64> = reports.iter().map(|p| p.progress).collect();
        assert_eq!(progress, [cut as f64, body.len() as f64]);
        assert_eq!(
            run(&[b"ok \xff end"], None)[0].message.as_deref(),
            Some("ok \u{FFFD} end")
        );
    }

    #[test]
    fn a_secret_split_across_pieces_is_redacted_in_progress_too() {
        let reports = run(&[b"token=tok-", b"42 done"], Some("tok-42"));
        assert_eq!(messages(&reports).concat(), "token=*** done");
        assert!(reports
            .iter()
            .all(|p| !p.message.as_deref().unwrap_or_default().contains("tok-")));
    }

    #[test]
    fn long_pieces_keep_their_end_and_nobody_listening_costs_nothing() {
        let long = "a".repeat(PROGRESS_MESSAGE_BYTES) + "THE END";
        let reports = run(&[long.as_bytes()], None);
        let message = reports[0].message.as_deref().unwrap_or_default();
        assert!(
            message.starts_with('…') && message.ends_with("THE END"),
            "{message}"
        );
        let ctx = CallContext::default();
        let redactor = Redactor::default();
        let mut silent = StreamProgress::new(&ctx, &redactor, Some(3));
        silent.piece(b"abc");
        assert!(silent.held.is_empty() && silent.received == 0);
    }
}
