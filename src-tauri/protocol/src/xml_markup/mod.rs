//! The scanner the XML-ish family of formats shares (MiniMax-M2, Seed-OSS, Step-3,
//! DeepSeek V3.2 DSML, and the pieces GLM-4.5 needs): they differ only in tag spellings, so one
//! scanner gives them the same diagnostics. Like the vendors' templates, values are not
//! XML-escaped: `&lt;` stays `&lt;`, and entities are never decoded. A value may contain `<`,
//! but not the format's own tags (as in the vendors' parsers, those are read as tags).
//!
//! Decisions on broken calls (a broken call never hides its neighbours):
//! - a call or parameter whose closing tag is missing before the next one of its kind (or the
//!   end of its container) is skipped with an error: its extent is a guess;
//! - except when the reply itself ends inside the call after its last complete parameter
//!   (generation stopped): the call is decoded, the scanner warns; ending inside a value skips
//!   the call, since the value may be incomplete;
//! - a call with no name, a parameter with no name, a malformed tag: the call is skipped;
//! - a parameter given twice: warning, the last value wins;
//! - text between calls or parameters: warning, ignored.

use serde_json::{Map, Value};

use crate::calls::{push_request, warning, Call};
use crate::prompt::result_value;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;

mod invokes;
mod tags;

pub use invokes::decode_invokes;

/// A result as the text a template puts in a tool turn: the tool's text as it is (these
/// templates insert content verbatim), or the error as JSON so the model sees its kind.
pub fn result_text(result: &ToolExecutionResult) -> String {
    if result.error.is_some() {
        result_value(result).to_string()
    } else {
        result.result.clone()
    }
}
/// How a tag names its subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagStyle {
    /// `<invoke name="x" string="true">`: attributes, quoted or not.
    Attributes,
    /// `<function=x>`: everything up to `>`.
    Equals,
}

/// The spellings of one XML-ish call format.
#[derive(Debug, Clone, Copy)]
pub struct Markup {
    /// The block's opening marker, for messages.
    pub block: &'static str,
    /// Opens a call (`<invoke`, `<function=`).
    pub invoke_open: &'static str,
    pub invoke_close: &'static str,
    pub param_open: &'static str,
    pub param_close: &'static str,
    pub style: TagStyle,
    /// A call may hold a JSON object instead of parameter tags (seen from DeepSeek V3.2).
    pub json_body: bool,
    /// What of a value's surrounding whitespace is layout, not value.
    pub value_layout: ValueLayout,
}

/// Which whitespace around a parameter value the reference parsers drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueLayout {
    /// One newline after the opening tag and one before the closing tag (vLLM's Qwen3-Coder
    /// and Seed-OSS parsers): indentation and blank lines inside the value are kept. An indented
    /// closing tag makes all surrounding whitespace layout ([`strip_one_newline`]).
    OneNewline,
    /// All surrounding whitespace (vLLM's and SGLang's MiniMax-M2, Step-3 and GLM-4.5 parsers
    /// `.strip()` every value).
    Trimmed,
}

/// A value's text and span without the layout `layout` says surrounds it.
pub fn value_without_layout(text: &str, span: Span, layout: ValueLayout) -> (&str, Span) {
    match layout {
        ValueLayout::OneNewline => strip_one_newline(text, span),
        ValueLayout::Trimmed => {
            let raw = text.get(span.start..span.end).unwrap_or_default();
            let value = raw.trim();
            let start = span.start + (raw.len() - raw.trim_start().len());
            (value, Span::new(start, start + value.len()))
        }
    }
}

/// An attribute of a tag (`name="x"`); values are raw, quotes removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'t> {
    pub key: &'t str,
    pub value: &'t str,
}

/// One `<parameter>`: its name, other attributes, and its value without the layout around it
/// ([`ValueLayout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawParam<'t> {
    pub key: &'t str,
    pub attrs: Vec<Attr<'t>>,
    pub value: &'t str,
    pub value_span: Span,
    /// The whole element, tags included.
    pub span: Span,
}

/// One call: its name and parameters (or a JSON body, when the markup allows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawInvoke<'t> {
    pub name: &'t str,
    /// The whole element, tags included.
    pub span: Span,
    pub params: Vec<RawParam<'t>>,
    pub json: Option<Span>,
}

/// Whether `text[at..]` starts a line: only spaces or tabs since the last line break.
pub fn starts_line(text: &str, at: usize) -> bool {
    let before = text.as_bytes().get(..at).unwrap_or_default();
    let indent = before
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    before.len() > indent && before[before.len() - indent - 1] == b'\n'
}

/// Finds a needle in `text[..end]` at or after a position, remembering its last answer:
/// decoders ask with positions that only grow, so a stretch already searched is not searched
/// again for every call, which keeps a block of thousands of calls (or broken ones) linear.
#[derive(Debug, Clone)]
pub struct Finder<'t> {
    text: &'t [u8],
    end: usize,
    needle: &'static str,
    /// The last search: where it started and what it found.
    last: Option<(usize, Option<usize>)>,
}

impl<'t> Finder<'t> {
    pub fn new(text: &'t str, end: usize, needle: &'static str) -> Self {
        Self {
            text: text.as_bytes(),
            end: end.min(text.len()),
            needle,
            last: None,
        }
    }

    /// The first occurrence at or after `from`.
    pub fn find(&mut self, from: usize) -> Option<usize> {
        if let Some((searched_from, found)) = self.last {
            if from >= searched_from {
                match found {
                    Some(at) if at >= from => return Some(at),
                    None => return None,
                    Some(_) => {}
                }
            }
        }
        let found = self
            .text
            .get(from..self.end)
            .and_then(|hay| memchr::memmem::find(hay, self.needle.as_bytes()))
            .map(|offset| from + offset);
        self.last = Some((from, found));
        found
    }

    /// Like [`Self::find`], but only an occurrence followed by whitespace or `>` (or anything,
    /// when the needle ends in `=`): `<parameter` must not match `<parameters>`.
    pub fn find_tag(&mut self, mut from: usize) -> Option<usize> {
        loop {
            let at = self.find(from)?;
            let after = at + self.needle.len();
            if self.needle.ends_with('=')
                || self
                    .text
                    .get(after)
                    .is_some_and(|&b| b == b'>' || b.is_ascii_whitespace())
            {
                return Some(at);
            }
            from = at + 1;
        }
    }
}

/// Removes the layout around a value: one newline after the opening tag and one before the
/// closing tag, which templates put around multi-line values (vLLM's Qwen3-Coder and Seed-OSS
/// parsers). When the closing tag is indented (`\n    </parameter>`), the model laid the XML out
/// with indentation, so all whitespace around the value is layout, as llama.cpp's reader reads
/// it (`trim_raw_argval`; its Qwen3-Coder tests indent every tag).
pub fn strip_one_newline(text: &str, span: Span) -> (&str, Span) {
    let raw = text.get(span.start..span.end).unwrap_or_default();
    let before_indent = raw.trim_end_matches([' ', '\t']);
    if before_indent.len() < raw.len() && before_indent.ends_with('\n') {
        return value_without_layout(text, span, ValueLayout::Trimmed);
    }
    let mut value = raw;
    let mut start = span.start;
    for lead in ["\r\n", "\n"] {
        if let Some(rest) = value.strip_prefix(lead) {
            value = rest;
            start += lead.len();
            break;
        }
    }
    for tail in ["\r\n", "\n"] {
        if let Some(rest) = value.strip_suffix(tail) {
            value = rest;
            break;
        }
    }
    (value, Span::new(start, start + value.len()))
}

/// Warns about non-whitespace text in `text[from..to]`, where only markup belongs.
pub fn stray_text(text: &str, from: usize, to: usize, place: &str, out: &mut ParseOutput) {
    let Some(slice) = text.get(from..to) else {
        return;
    };
    let trimmed = slice.trim();
    if trimmed.is_empty() {
        return;
    }
    let start = from + (slice.len() - slice.trim_start().len());
    let preview: String = trimmed.chars().take(40).collect();
    warning(
        out,
        DiagnosticCode::StrayText,
        format!("text {place} is ignored: '{preview}'"),
        Span::new(start, start + trimmed.len()),
    );
}

/// Adds an argument; a repeated one wins (as in the vendors' parsers) but is reported.
pub fn insert_arg(
    args: &mut Map<String, Value>,
    key: &str,
    value: Value,
    span: Span,
    name: &str,
    out: &mut ParseOutput,
) {
    if args.insert(key.to_owned(), value).is_some() {
        warning(
            out,
            DiagnosticCode::DuplicateKey,
            format!("parameter '{key}' of '{name}' appears more than once; the last value wins"),
            span,
        );
    }
}

/// Pushes a call whose values are all text.
pub fn push_untyped(
    out: &mut ParseOutput,
    text: &str,
    span: Span,
    format: &str,
    invoke: &RawInvoke<'_>,
) {
    let mut args = Map::new();
    for param in &invoke.params {
        insert_arg(
            &mut args,
            param.key,
            Value::String(param.value.to_owned()),
            param.span,
            invoke.name,
            out,
        );
    }
    push_request(
        out,
        text,
        span,
        format,
        Call {
            name: invoke.name.to_owned(),
            args,
            id: None,
        },
        true,
    );
}

/// The result of parsing `text` with `protocol` as JSON, for unit tests of the family.
#[cfg(test)]
pub(crate) fn summary(protocol: &dyn crate::Protocol, text: &str) -> Value {
    use serde_json::json;
    let out = protocol.parse_tool_requests(text);
    json!({
        "calls": out.requests.iter().map(|r| json!({
            "name": r.tool_name,
            "args": r.args,
            "raw": r.raw_block,
            "untyped": r.untyped_args,
        })).collect::<Vec<_>>(),
        "diagnostics": out.diagnostics.iter().map(|d| json!({
            "severity": d.severity,
            "code": d.code,
            "at": text.get(d.span.start..d.span.end).unwrap_or("<bad span>"),
        })).collect::<Vec<_>>(),
        "content": out.content,
    })
}
