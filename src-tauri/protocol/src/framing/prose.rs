//! Markers quoted in prose are not calls: a reply that explains "wrap the call in `<tool_call>`
//! tags", or shows one in inline code, must not start a block there.
//!
//! The reference parsers (vLLM, SGLang, llama.cpp) scan for the marker wherever it is; such a
//! mention then yields no call only because what follows it does not decode, at the cost of a
//! diagnostic and of the prose after it, and a mention before a real call breaks that call's
//! block. The rule here, the same for every framed format:
//!
//! - a marker inside an inline code span (a run of backticks, closed by a run of the same length
//!   later on the same line) is prose. A run with no closer on its line is a literal backtick, as
//!   in CommonMark, so a stray backtick never hides a call;
//! - inside a fenced code block (a line starting with three or more backticks, up to a line
//!   starting with at least as many), a marker counts only at the start of a line (after
//!   indentation). Models do wrap real calls in fences (llama.cpp's Hermes parser accepts
//!   ```` ```xml ```` / ```` ```json ```` around `<tool_call>`), and such a call starts its line;
//!   a marker in the middle of a code line (`print("<tool_call>")`) is code, unless it is
//!   spelled as a special token (`<|action_start|>`, `<｜tool▁calls▁begin｜>`): the model
//!   emits those as token ids, not as code text, and the reference parsers read them wherever
//!   they are (InternLM2 behind placeholder text on a fenced line, as MindSearch ran it);
//! - the fence's opening line is not inside it (`` ```json [TOOL_CALLS]…`` stays a call).
//!
//! Only prose is tracked: block bodies (a DeepSeek ```` ```json ```` inside its tokens, Gemma's
//! ```` ```tool_code ```` block, Command R's `Action: ```json`) are skipped, and a marker that
//! itself opens a fence is found before the tracker reads it. Deciding an inline span needs the
//! rest of its line, so a marker after an unclosed backtick waits for the line's end (or the
//! reply's): batch and streaming decide on the same bytes. Each byte is read a bounded number of
//! times (the look-ahead resumes where it stopped and ends at the span's closer).

/// Whether a marker spelled as a special token starts at `at`: `<|…|>` (or DeepSeek's
/// full-width `<｜…｜>`). A model emits such a marker as one token id, never as code it types,
/// so a fence does not make it code.
fn special_token_at(bytes: &[u8], at: usize) -> bool {
    let rest = &bytes[at..];
    rest.starts_with(b"<|") || rest.starts_with("<\u{ff5c}".as_bytes())
}

/// Whether a marker at some position is quoted prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quoted {
    Yes,
    No,
    /// An inline span is open and its line has not ended yet.
    Undecided,
}

/// The code state of the prose read so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Prose {
    /// Bytes before this are read.
    read_to: usize,
    /// Where the current line starts (or the last block ended: a call may follow a call
    /// directly, in a fence too).
    line_start: Option<usize>,
    /// Inside a fenced code block opened by this many backticks.
    fence: Option<usize>,
    /// The line that opened the fence has not ended.
    on_fence_line: bool,
    /// An inline code span opened by this many backticks is open on this line.
    inline: Option<usize>,
    /// Where the open span's closer is, once found.
    inline_close: Option<usize>,
    /// How far its closer has been looked for.
    inline_searched: usize,
}

impl Prose {
    pub(super) fn new() -> Self {
        Self {
            line_start: Some(0),
            ..Self::default()
        }
    }

    /// A block ended at `at`: its bytes are not prose. A fence around it stays open, and what
    /// follows starts afresh, like a line.
    pub(super) fn skip_to(&mut self, at: usize) {
        if at > self.read_to {
            self.read_to = at;
            self.line_start = Some(at);
            self.on_fence_line = false;
            self.inline = None;
        }
    }

    /// Whether a marker starting at `at` is quoted.
    pub(super) fn quoted(&mut self, bytes: &[u8], at: usize, eof: bool) -> Quoted {
        self.read(bytes, at);
        if let Some(run) = self.inline {
            return self.inline_closes(bytes, at, run, eof);
        }
        if self.fence.is_some()
            && !self.on_fence_line
            && !self.at_line_start(bytes, at)
            && !special_token_at(bytes, at)
        {
            return Quoted::Yes;
        }
        Quoted::No
    }

    /// Whether only spaces and tabs come between the line's start and `at`. Walks back over
    /// whitespace only, so the walks of successive markers do not overlap.
    fn at_line_start(&self, bytes: &[u8], at: usize) -> bool {
        let Some(line_start) = self.line_start else {
            return false;
        };
        let mut i = at;
        while i > line_start && matches!(bytes[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        i == line_start
    }

    /// Whether the open inline span (opened by `run` backticks) closes after `at` on its line.
    fn inline_closes(&mut self, bytes: &[u8], at: usize, run: usize, eof: bool) -> Quoted {
        if self.inline_close.is_some_and(|close| close >= at) {
            return Quoted::Yes;
        }
        let mut i = self.inline_searched.max(at);
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => {
                    // No closer on the line: the opening backticks are literal.
                    self.inline = None;
                    return Quoted::No;
                }
                b'`' => {
                    let end = run_end(bytes, i);
                    if end == bytes.len() && !eof {
                        break; // the run may still grow
                    }
                    if end - i == run {
                        self.inline_close = Some(i);
                        return Quoted::Yes;
                    }
                    i = end;
                }
                _ => i += 1,
            }
        }
        self.inline_searched = i;
        if eof {
            self.inline = None;
            Quoted::No
        } else {
            Quoted::Undecided
        }
    }

    /// Reads the prose up to `upto` (a marker's start: a backtick run before it has ended).
    fn read(&mut self, bytes: &[u8], upto: usize) {
        let mut i = self.read_to;
        while i < upto {
            let Some(offset) = memchr::memchr2(b'`', b'\n', &bytes[i..upto]) else {
                break;
            };
            let at = i + offset;
            if bytes[at] == b'\n' {
                self.line_start = Some(at + 1);
                self.on_fence_line = false;
                self.inline = None;
                i = at + 1;
                continue;
            }
            let end = run_end(&bytes[..upto], at);
            self.backticks(bytes, at, end - at);
            i = end;
        }
        self.read_to = self.read_to.max(upto);
    }

    fn backticks(&mut self, bytes: &[u8], at: usize, run: usize) {
        if run >= 3 && self.inline.is_none() && self.at_line_start(bytes, at) {
            match self.fence {
                None => {
                    self.fence = Some(run);
                    self.on_fence_line = true;
                }
                Some(open) if run >= open => self.fence = None,
                Some(_) => {}
            }
            return;
        }
        if self.fence.is_some() && !self.on_fence_line {
            return; // backticks in code are code
        }
        match self.inline {
            Some(open) if open == run => self.inline = None,
            Some(_) => {}
            None => {
                self.inline = Some(run);
                self.inline_close = None;
                self.inline_searched = at + run;
            }
        }
    }
}

/// The end of the backtick run starting at `at`.
fn run_end(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    while end < bytes.len() && bytes[end] == b'`' {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(text: &str, marker: &str) -> Quoted {
        let at = text.find(marker).expect("marker in text");
        Prose::new().quoted(text.as_bytes(), at, true)
    }

    #[test]
    fn inline_code_is_prose_and_a_stray_backtick_is_not_code() {
        assert_eq!(
            quoted("wrap it in `<tool_call>` tags", "<tool_call>"),
            Quoted::Yes
        );
        assert_eq!(quoted("use ``a `<x>` b`` here", "<x>"), Quoted::Yes);
        assert_eq!(quoted("a stray ` then <x> and more", "<x>"), Quoted::No);
        assert_eq!(quoted("`open\n<x>` next line", "<x>"), Quoted::No);
        assert_eq!(quoted("`done` then <x>", "<x>"), Quoted::No);
    }

    #[test]
    fn fenced_code_counts_only_at_line_starts() {
        assert_eq!(quoted("```xml\n<x>\n```", "<x>"), Quoted::No);
        assert_eq!(quoted("```xml\n   <x>\n```", "<x>"), Quoted::No);
        assert_eq!(quoted("```py\nprint(\"<x>\")\n```", "<x>"), Quoted::Yes);
        assert_eq!(quoted("```json <x>", "<x>"), Quoted::No);
        assert_eq!(quoted("```\ncode\n```\nthen <x>", "<x>"), Quoted::No);
        assert_eq!(quoted("a ```b``` c <x>", "<x>"), Quoted::No);
    }

    #[test]
    fn an_open_span_waits_for_its_line() {
        let text = "see `<x>";
        let at = text.find("<x>").unwrap_or_default();
        let mut prose = Prose::new();
        assert_eq!(prose.quoted(text.as_bytes(), at, false), Quoted::Undecided);
        let longer = "see `<x>` ok";
        assert_eq!(prose.quoted(longer.as_bytes(), at, false), Quoted::Yes);
    }
}
