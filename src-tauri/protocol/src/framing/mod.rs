//! Where calls sit in a reply: the one scanner every text format shares, batch and streaming.
//!
//! Most wire formats put each call (or a list of calls) between markers (`<tool_call>` …
//! `</tool_call>`), after a marker as one JSON value (`[TOOL_CALLS] [...]`), or make the whole
//! reply a call list (`[f(a=1)]`). A format describes that with a [`Framing`] and decodes one
//! block at a time; this scanner finds the blocks, keeps reasoning (`<think>…</think>`) out of
//! them, reports unclosed blocks without losing their neighbours, and collects the prose.
//!
//! Two rules hold for every format: a marker quoted in the prose (inside inline code, or in the
//! middle of a line of a fenced code block) is prose, not a block (`prose`); and a format whose
//! template opens the reasoning in the prompt may start inside it ([`Rule::may_start_open`]).
//! A format may also say where a turn really ends when its markers do not: reasoning that is
//! never closed ends at a call opener ([`Rule::ends_unclosed_at`]), reasoning ends at a marker
//! its text cannot hold ([`Rule::also_ended_by`]), a call block that is
//! never closed ends at an end-of-turn token ([`Rule::end_of_turn`]) or, where the format's
//! reference says so, at its own next opener ([`Rule::closed_by_next_opener`]).
//!
//! The scanner is incremental: it only ever looks at bytes it has not decided yet (plus a
//! marker's length of look-behind while a marker may still be arriving), so feeding a reply in
//! 4-byte deltas costs the same as one pass over it. Batch parsing is the same scanner fed once,
//! so the batch and streaming results cannot drift apart.

use crate::balanced::Syntax;
use crate::request::{Diagnostic, DiagnosticCode, ParseOutput, Severity, Span};
use crate::Protocol;

mod markers;
mod prose;
mod scanner;

pub use markers::{call_id_at, call_list_at, Match};
pub use scanner::Scanner;

/// How a block begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// A literal marker anywhere in the reply; the body starts after it.
    Marker(&'static str),
    /// This literal marker, only where a call id `NAME:IDX` and (after whitespace) a `{`
    /// follow it: a call whose special tokens were decoded away, leaving the id and its JSON
    /// arguments (Kimi K2's `functions.get_weather:0{…}`). The body starts after the marker;
    /// the marker anywhere else is prose.
    CallId(&'static str),
    /// The reply itself (after leading whitespace or a reasoning block) starts with this text,
    /// which belongs to the body (`[` of a pythonic call list).
    TextStart(&'static str),
    /// Anywhere in the reply, a `[` directly followed by a (dotted) Python name and `(`
    /// (`[get_weather(`), unless it follows a name or a closing bracket (`xs[f(1)]` indexes);
    /// the `[` belongs to the body. Prose with brackets (`[1]`, `[this](link)`) never opens.
    CallList,
    /// A JSON object anywhere in the reply whose first key is one of these (quoted:
    /// `"\"name\""`), as models write a bare call after a sentence. The `{` belongs to the body.
    /// Never right after `[`, `,` or `:`: an object there is an element or a value of a larger
    /// document (a call list, an API response), which the formats of those documents own.
    /// Nor after a tag, unless that tag closes reasoning: the reply starts afresh there.
    ObjectWithKey(&'static [&'static str]),
    /// A JSON list standing where an [`Open::ObjectWithKey`] object could (not after a tag, a
    /// bracket, a separator or a key), whose first element is an object whose first key is one
    /// of these: a list of calls written after a sentence or as the whole reply. The `[`
    /// belongs to the body.
    ObjectList(&'static [&'static str]),
}

impl Open {
    /// The text that opens such a block, for messages.
    pub fn text(self) -> &'static str {
        match self {
            Open::Marker(m) | Open::CallId(m) | Open::TextStart(m) => m,
            Open::CallList => "[",
            Open::ObjectWithKey(_) => "{",
            Open::ObjectList(_) => "[",
        }
    }
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
    /// or "" for right after the opening); only whitespace may precede the value. For JSON, a
    /// `{` before `after` means the inner marker was left out (detokenized away, as in
    /// `[TOOL_CALLS]name{…}`, or harmony's `to=functions.name json{…}`, a name and one more
    /// word): the value starts there and the body keeps what precedes it.
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
    /// After such a block, any of these bytes (after whitespace) starts another one (`;` and
    /// `,` in llama3), when what follows it can start one (see [`Rule::separated_by`]).
    pub separators: &'static [u8],
    /// Reasoning only: the reply may begin inside such a block, its opening marker written by
    /// the chat template into the prompt (DeepSeek V3.1 and R1, QwQ, Qwen3 Thinking, Qwen3.5 and
    /// Kimi K2 in thinking mode). When the closing marker comes before any opening marker,
    /// everything before it is this block.
    pub may_start_open: bool,
    /// Reasoning only: when the block is never closed (no closing marker anywhere after it),
    /// it ends where one of these call openers first appears in it, if what follows that opener
    /// looks like a call, and the opener starts a block as usual. Qwen3.5 and Kimi K2 open a
    /// call without closing their reasoning first; vLLM's reasoning parsers end it there.
    pub early_end: Option<EarlyEnd>,
    /// Reasoning only: it also ends where one of these markers begins (the marker is not
    /// consumed: it starts what follows), whether or not its closing marker comes later. For
    /// markers its text can never hold: harmony's `<|start|>` opens the next message, so an
    /// analysis message whose `<|end|>` a server dropped ends there.
    pub ended_by: &'static [&'static str],
    /// Marker-opened call blocks only: the marker opens a block only where, after optional
    /// whitespace, one of these follows (how a call's body starts); anywhere else it is text.
    /// Empty: always. llama.cpp's Hermes parser takes `<tool_call>` as a call only before
    /// `{"name"`; Hermes 4 also writes its reasoning in a `<tool_call>` it never closes.
    pub opens_before: &'static [&'static str],
    /// Token only: it ends the turn, so a call block still open when it comes (one that is not
    /// closed before the next block or the reply's end) ends there, as at the reply's end
    /// (`<|im_end|>` left in a raw completion after an unclosed `<tool_call>`).
    pub ends_turn: bool,
    /// Token only: the model stops generating at it (a stop token its server ends the reply
    /// with), so nothing after it is the model's reply: a raw completion that runs on past it
    /// (the next turn's header, a made-up tool result, more calls) is not read, with a warning.
    pub ends_reply: bool,
    /// Delimited call blocks ([`Close::Marker`]) only: the rule's own next opener also ends
    /// a block, which is then decoded as complete, with a warning that its closing marker is
    /// missing, instead of skipped: the model dropped the closing marker and went on to its
    /// next call (Solar Open, whose vLLM parser ends a call at the next `<|tool_call:start|>`).
    /// A block the reply ends in is still only decoded when the rule is [`Rule::lenient`].
    pub reopen_closes: bool,
    /// Delimited call blocks whose body holds JSON: a closing marker, or the rule's own opener,
    /// inside a JSON string of the body is text, not the block's end (see [`Rule::json_body`]).
    pub json_strings: bool,
    /// Delimited call blocks whose body is markup with text values: a closing marker, or the
    /// rule's own opener, counts only where a tag may stand (see [`Rule::markup_body`]).
    pub tags_on_own: bool,
}

/// Where unclosed reasoning ends early: see [`Rule::early_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarlyEnd {
    /// The openers that end it (not consumed: the first one starts the next block).
    pub at: &'static [&'static str],
    /// What must follow the opener, as alternatives; each is a sequence of pieces, each after
    /// optional whitespace (`["{", "\"name\""]` for a JSON call object). Empty: anything.
    pub then: &'static [&'static [&'static str]],
}

impl Rule {
    /// A rule with every option off: the constructors below start from it.
    const fn new(open: Open, close: Close, kind: BlockKind) -> Self {
        Self {
            open,
            close,
            kind,
            lenient_end: false,
            separators: &[],
            may_start_open: false,
            early_end: None,
            ended_by: &[],
            opens_before: &[],
            ends_turn: false,
            ends_reply: false,
            reopen_closes: false,
            json_strings: false,
            tags_on_own: false,
        }
    }

    pub const fn call(open: &'static str, close: Close) -> Self {
        Self::new(Open::Marker(open), close, BlockKind::Call)
    }

    /// A call opened by a marker only where a call id follows it: see [`Open::CallId`].
    pub const fn call_id(open: &'static str, close: Close) -> Self {
        Self::new(Open::CallId(open), close, BlockKind::Call)
    }

    pub const fn at_text_start(prefix: &'static str, close: Close) -> Self {
        Self::new(Open::TextStart(prefix), close, BlockKind::Call)
    }

    /// A Python call list anywhere in the reply ([`Open::CallList`]).
    pub const fn call_list(close: Close) -> Self {
        Self::new(Open::CallList, close, BlockKind::Call)
    }

    /// A JSON list of call objects in the prose or as the reply: see [`Open::ObjectList`].
    pub const fn object_list(keys: &'static [&'static str], close: Close) -> Self {
        Self::new(Open::ObjectList(keys), close, BlockKind::Call)
    }

    /// A bare JSON object in the prose: see [`Open::ObjectWithKey`].
    pub const fn object_with_key(keys: &'static [&'static str], close: Close) -> Self {
        Self::new(Open::ObjectWithKey(keys), close, BlockKind::Call)
    }

    pub const fn reasoning(open: &'static str, close: &'static str) -> Self {
        Self::new(
            Open::Marker(open),
            Close::Marker(close),
            BlockKind::Reasoning,
        )
        .lenient()
    }

    pub const fn token(marker: &'static str) -> Self {
        Self::new(Open::Marker(marker), Close::Immediately, BlockKind::Token).lenient()
    }

    /// Decodes a block the reply ends in, instead of only reporting it.
    pub const fn lenient(mut self) -> Self {
        self.lenient_end = true;
        self
    }

    /// See [`Rule::may_start_open`].
    pub const fn may_start_open(mut self) -> Self {
        self.may_start_open = true;
        self
    }

    /// See [`Rule::early_end`].
    pub const fn ends_unclosed_at(
        mut self,
        at: &'static [&'static str],
        then: &'static [&'static [&'static str]],
    ) -> Self {
        self.early_end = Some(EarlyEnd { at, then });
        self
    }

    /// See [`Rule::opens_before`].
    pub const fn only_before(mut self, starts: &'static [&'static str]) -> Self {
        self.opens_before = starts;
        self
    }

    /// See [`Rule::ended_by`].
    pub const fn also_ended_by(mut self, markers: &'static [&'static str]) -> Self {
        self.ended_by = markers;
        self
    }

    /// A token that ends the turn ([`Rule::ends_turn`]), dropped from the content.
    pub const fn end_of_turn(marker: &'static str) -> Self {
        let mut rule = Self::token(marker);
        rule.ends_turn = true;
        rule
    }

    /// See [`Rule::ends_reply`]: for tokens that end the turn and at which the model's
    /// server stops it (Llama 3's `<|eom_id|>` and `<|eot_id|>`).
    pub const fn ends_reply(mut self) -> Self {
        self.ends_reply = true;
        self
    }

    /// See [`Rule::reopen_closes`].
    pub const fn closed_by_next_opener(mut self) -> Self {
        self.reopen_closes = true;
        self
    }

    /// The body's JSON strings may hold the format's markers as text (a call's arguments that
    /// quote `<tool_call>` or `</tool_call>`): the block ends at a marker outside them, as a
    /// parser that reads the JSON value first does (llama.cpp). A raw line break ends a string
    /// here (JSON strings cannot hold one), so a broken string does not swallow what follows.
    pub const fn json_body(mut self) -> Self {
        self.json_strings = true;
        self
    }

    /// The body is markup whose text values may quote the format's tags (Qwen3-Coder writes
    /// values as they are): a closing marker, or the rule's own opener, ends the block only
    /// where the template puts a tag, at the start of a line or right after another tag (`>`,
    /// spaces between allowed); in the middle of a value's text it is text. A body that opens
    /// no tag before the marker holds no value, so there the marker always ends it.
    pub const fn markup_body(mut self) -> Self {
        self.tags_on_own = true;
        self
    }

    /// Blocks of this rule may follow each other with one of `bytes` between them. A
    /// separator starts the next block only when what follows it (after whitespace) can start
    /// one: a value for a balanced block, an object with the rule's keys for
    /// [`Open::ObjectWithKey`]. Otherwise it is prose (`{…}, which I called`).
    pub const fn separated_by(mut self, bytes: &'static [u8]) -> Self {
        self.separators = bytes;
        self
    }
}

/// `<think>` … `</think>`: reasoning, in every format that does not say otherwise.
pub const THINK: Rule = Rule::reasoning("<think>", "</think>");

/// [`THINK`] for models whose template opens `<think>` in the prompt, so the reply may start
/// inside the reasoning (see [`Rule::may_start_open`]).
pub const THINK_MAY_START_OPEN: Rule = THINK.may_start_open();

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
    /// False when the reply ended (or the next block began) before the block closed. A block
    /// that an end-of-turn token ended ([`Rule::ends_turn`]) is complete: the model stopped it.
    pub complete: bool,
}

impl Block {
    /// The body's text in the reply it was found in (clipped to `text`, so a shorter text
    /// gives what of the body it holds, never a panic).
    pub fn body_text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.body.start..self.body.end.min(text.len()))
            .unwrap_or_default()
    }
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

/// Decodes one block with its format, marking the calls of a block that was cut off as
/// incomplete: batch parsing and streaming both decode through here.
pub fn decode<P: Protocol + ?Sized>(decoder: &P, text: &str, block: &Block, out: &mut ParseOutput) {
    let first = out.requests.len();
    decoder.decode_block(text, block, out);
    if !block.complete {
        for request in out.requests.iter_mut().skip(first) {
            request.incomplete = true;
        }
    }
}

/// Parses a whole reply with a framed format (one that returns a [`Framing`]). This is every
/// format's default `parse_tool_requests`, so a format with no framing must write its own; one
/// that forgets gets this error rather than an empty result that looks like "no calls".
pub fn parse<P: Protocol + ?Sized>(decoder: &P, text: &str) -> ParseOutput {
    let Some(framing) = decoder.framing() else {
        return ParseOutput {
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                code: DiagnosticCode::InternalError,
                message: format!(
                    "format '{}' has no framing and does not parse replies itself",
                    decoder.id()
                ),
                span: Span::new(0, 0),
            }],
            ..ParseOutput::default()
        };
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
                decode(decoder, text, &block, &mut out);
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
