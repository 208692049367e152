//! MiniMax-M2: XML invocations in a `<minimax:tool_call>` block.
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="NAME">
//! <parameter name="KEY">VALUE</parameter>
//! </invoke>
//! <invoke name="OTHER">…</invoke>
//! </minimax:tool_call>
//! ```
//!
//! One block holds one or more invocations, each a call. Values are text (the template writes
//! strings as they are and everything else as JSON), so requests are untyped and the engine types
//! them from the method's schema. Reasoning is in `<think>`. Tools are presented as one JSON
//! object per `<tool>` line in `<tools>`; results go back as `<response>` elements of a tool turn.
//!
//! This module also holds the scanner the XML-ish family shares (MiniMax-M2, Seed-OSS, Step-3,
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

use crate::calls::{error, push_request, warning, Call};
use crate::framing::{self, Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<minimax:tool_call>";
pub const CLOSE: &str = "</minimax:tool_call>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<invoke",
    invoke_close: "</invoke>",
    param_open: "<parameter",
    param_close: "</parameter>",
    style: TagStyle::Attributes,
    json_body: false,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MinimaxM2;

impl Protocol for MinimaxM2 {
    fn id(&self) -> &'static str {
        "minimax_m2"
    }

    fn label(&self) -> &'static str {
        "MiniMax-M2 <minimax:tool_call> XML"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\nYou may call one or more tools to assist with the user query.\n\
             Here are the tools available in JSONSchema format:\n\n<tools>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&format!("<tool>{}</tool>\n", definition["function"]));
        }
        out.push_str(
            "</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass \
             parameters:\n\n<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n\
             <parameter name=\"param-key-1\">param-value-1</parameter>\n\
             <parameter name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n\
             </minimax:tool_call>\n",
        );
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        framing::parse(self, text)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("]~b]tool");
        for result in results {
            out.push_str(&format!("\n<response>{}</response>", result_text(result)));
        }
        out.push_str("[e~[\n");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        for invoke in decode_invokes(text, block, &MARKUP, out) {
            push_untyped(out, text, invoke.span, self.id(), &invoke);
        }
    }
}

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
}

/// An attribute of a tag (`name="x"`); values are raw, quotes removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr<'t> {
    pub key: &'t str,
    pub value: &'t str,
}

/// One `<parameter>`: its name, other attributes, and its value with one leading and one
/// trailing newline removed.
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

/// Removes one leading and one trailing newline, which templates put around multi-line values.
pub fn strip_one_newline(text: &str, span: Span) -> (&str, Span) {
    let mut value = text.get(span.start..span.end).unwrap_or_default();
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

/// Why a tag could not be read.
enum TagError {
    /// The limit came before its `>`.
    Unclosed,
    /// A byte that cannot be there (a `<` or a newline inside the tag).
    Malformed(usize),
}

/// Reads a tag from `at` (just after its opening, e.g. after `<invoke`) to its `>`, which must
/// come before `limit`. Returns the attributes (for `Equals`, one attribute `name`) and the
/// position after `>`.
fn read_tag<'t>(
    text: &'t str,
    at: usize,
    limit: usize,
    style: TagStyle,
) -> Result<(Vec<Attr<'t>>, usize), TagError> {
    let bytes = text.as_bytes();
    let limit = limit.min(bytes.len());
    if style == TagStyle::Equals {
        let mut i = at;
        while i < limit {
            match bytes[i] {
                b'>' => {
                    let raw = text.get(at..i).unwrap_or_default().trim();
                    let name = strip_quotes(raw);
                    return Ok((
                        vec![Attr {
                            key: "name",
                            value: name,
                        }],
                        i + 1,
                    ));
                }
                b'<' | b'\n' => return Err(TagError::Malformed(i)),
                _ => i += 1,
            }
        }
        return Err(TagError::Unclosed);
    }
    let mut attrs = Vec::new();
    let mut i = at;
    loop {
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        match bytes[i] {
            b'>' => return Ok((attrs, i + 1)),
            b'<' | b'/' | b'=' | b'"' | b'\'' => return Err(TagError::Malformed(i)),
            _ => {}
        }
        let key_start = i;
        while i < limit
            && !matches!(bytes[i], b'=' | b'>' | b'<')
            && !bytes[i].is_ascii_whitespace()
        {
            i += 1;
        }
        let key = text.get(key_start..i).unwrap_or_default();
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        if bytes[i] != b'=' {
            // A bare word (`<invoke get_weather>`) is no attribute this family writes.
            return Err(TagError::Malformed(key_start));
        }
        i += 1;
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        let value = match bytes[i] {
            quote @ (b'"' | b'\'') => {
                let start = i + 1;
                let Some(len) = bytes
                    .get(start..limit)
                    .and_then(|rest| memchr::memchr(quote, rest))
                else {
                    return Err(TagError::Unclosed);
                };
                i = start + len + 1;
                text.get(start..start + len).unwrap_or_default()
            }
            _ => {
                let start = i;
                while i < limit && bytes[i] != b'>' && !bytes[i].is_ascii_whitespace() {
                    if bytes[i] == b'<' {
                        return Err(TagError::Malformed(i));
                    }
                    i += 1;
                }
                text.get(start..i).unwrap_or_default()
            }
        };
        attrs.push(Attr { key, value });
    }
}

/// The character at byte `at` (a tag may hold any character where a `>` was expected).
fn char_span(text: &str, at: usize) -> Span {
    let len = text
        .get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(0, char::len_utf8);
    Span::new(at, at + len)
}

fn strip_quotes(raw: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = raw
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    raw
}

fn attr<'t>(attrs: &[Attr<'t>], key: &str) -> Option<&'t str> {
    attrs.iter().find(|a| a.key == key).map(|a| a.value)
}

/// The tag as written, for messages: `<invoke name="x">`, or its first 60 characters.
fn tag_preview(text: &str, span: Span) -> String {
    let raw = text.get(span.start..span.end).unwrap_or_default();
    let mut preview: String = raw.chars().take(60).collect();
    if preview.len() < raw.len() {
        preview.push('…');
    }
    preview
}

/// The finders one block shares across its calls, so positions only grow per needle.
struct Finders<'t> {
    invokes: Finder<'t>,
    invoke_closes: Finder<'t>,
    params: Finder<'t>,
    param_closes: Finder<'t>,
}

/// Reads every call in a block. Diagnostics go to `out`; a broken call is skipped without
/// hiding the ones around it.
pub fn decode_invokes<'t>(
    text: &'t str,
    block: &Block,
    markup: &Markup,
    out: &mut ParseOutput,
) -> Vec<RawInvoke<'t>> {
    let end = block.body.end.min(text.len());
    let mut finders = Finders {
        invokes: Finder::new(text, end, markup.invoke_open),
        invoke_closes: Finder::new(text, end, markup.invoke_close),
        params: Finder::new(text, end, markup.param_open),
        param_closes: Finder::new(text, end, markup.param_close),
    };
    let mut invokes = Vec::new();
    let mut cursor = block.body.start;
    let mut any = false;
    while let Some(open) = finders.invokes.find_tag(cursor) {
        any = true;
        stray_text(
            text,
            cursor,
            open,
            &format!("between calls in {}", markup.block),
            out,
        );
        let after_open = open + markup.invoke_open.len();
        let next = finders.invokes.find_tag(after_open);
        let limit = next.unwrap_or(end);
        // Only the reply's end can cut a block short here (the scanner skips blocks cut by
        // another), so an incomplete block is a reply that stopped inside it.
        let cut_off = !block.complete && next.is_none();
        cursor = limit;
        if let Some(invoke) = decode_invoke(
            text,
            open,
            limit,
            cut_off,
            next.is_some(),
            markup,
            &mut finders,
            out,
        ) {
            cursor = invoke.span.end;
            invokes.push(invoke);
        }
    }
    if any {
        stray_text(
            text,
            cursor,
            end,
            &format!("after the calls in {}", markup.block),
            out,
        );
    } else {
        let body = text.get(block.body.start..end).unwrap_or_default();
        let what = format!(
            "the {} block holds no {} … element",
            markup.block, markup.invoke_open
        );
        if body.trim().is_empty() {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!("{what}: no calls"),
                block.span,
            );
        } else {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{what}; its text is not a call and is skipped"),
                block.span,
            );
        }
    }
    invokes
}

/// One call from `open` (its `<invoke`) to at most `limit` (the next call or the block's end).
#[allow(clippy::too_many_arguments)] // the position and what bounds it, plus the shared state
fn decode_invoke<'t>(
    text: &'t str,
    open: usize,
    limit: usize,
    cut_off: bool,
    before_next: bool,
    markup: &Markup,
    finders: &mut Finders<'t>,
    out: &mut ParseOutput,
) -> Option<RawInvoke<'t>> {
    let after_open = open + markup.invoke_open.len();
    let (attrs, header_end) = match read_tag(text, after_open, limit, markup.style) {
        Ok(tag) => tag,
        Err(e) => {
            tag_error(text, open, limit, cut_off, e, "call's", out);
            return None;
        }
    };
    let header = Span::new(open, header_end);
    let name = attr(&attrs, "name").map(str::trim).unwrap_or_default();
    let close = finders
        .invoke_closes
        .find(header_end)
        .filter(|&at| at < limit);
    let (body_end, span) = match close {
        Some(at) => (at, Span::new(open, at + markup.invoke_close.len())),
        None if cut_off => (limit, Span::new(open, limit)),
        None => {
            let before = if before_next {
                format!("the next '{}'", markup.invoke_open)
            } else {
                format!("the end of the {} block", markup.block)
            };
            error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "'{}' is not closed by '{}' before {before}; the call is skipped",
                    tag_preview(text, header),
                    markup.invoke_close
                ),
                Span::new(open, limit),
            );
            return None;
        }
    };
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "'{}' names no tool; the call is skipped",
                tag_preview(text, header)
            ),
            span,
        );
        return None;
    }
    let body = Span::new(header_end, body_end);
    if markup.json_body {
        let raw = text.get(body.start..body.end).unwrap_or_default();
        let lead = raw.len() - raw.trim_start().len();
        if raw.trim_start().starts_with('{') && !raw.contains(markup.param_open) {
            let json = Span::new(body.start + lead, body.start + raw.trim_end().len());
            return Some(RawInvoke {
                name,
                span,
                params: Vec::new(),
                json: Some(json),
            });
        }
    }
    let params = decode_params(
        text,
        body,
        cut_off && close.is_none(),
        name,
        markup,
        finders,
        out,
    )?;
    Some(RawInvoke {
        name,
        span,
        params,
        json: None,
    })
}

fn tag_error(
    text: &str,
    open: usize,
    limit: usize,
    cut_off: bool,
    e: TagError,
    whose: &str,
    out: &mut ParseOutput,
) {
    let (message, span) = match e {
        TagError::Unclosed if cut_off => (
            format!("the reply ends inside the {whose} opening tag; the call is skipped"),
            Span::new(open, limit),
        ),
        TagError::Unclosed => (
            format!("the {whose} opening tag has no '>'; the call is skipped"),
            Span::new(open, limit),
        ),
        TagError::Malformed(at) => {
            let found = match text.as_bytes().get(at) {
                Some(b'\n') => "the line ends".to_owned(),
                Some(&b) if b.is_ascii_graphic() => format!("'{}' is unexpected", char::from(b)),
                _ => "this is unexpected".to_owned(),
            };
            (
                format!(
                    "the {whose} opening tag '{}' is malformed: {found} before its '>'; the \
                     call is skipped",
                    tag_preview(text, Span::new(open, at))
                ),
                char_span(text, at),
            )
        }
    };
    error(out, DiagnosticCode::UnclosedBlock, message, span);
}

/// The parameters of a call whose body is `body`. `None` (with an error) when one is broken:
/// a call with a doubtful argument must not run.
fn decode_params<'t>(
    text: &'t str,
    body: Span,
    cut_off: bool,
    name: &str,
    markup: &Markup,
    finders: &mut Finders<'t>,
    out: &mut ParseOutput,
) -> Option<Vec<RawParam<'t>>> {
    let mut params = Vec::new();
    let mut cursor = body.start;
    let place = format!("between the parameters of '{name}'");
    while let Some(open) = finders.params.find_tag(cursor).filter(|&at| at < body.end) {
        stray_text(text, cursor, open, &place, out);
        let after_open = open + markup.param_open.len();
        let (attrs, value_start) = match read_tag(text, after_open, body.end, markup.style) {
            Ok(tag) => tag,
            Err(e) => {
                let whose = format!("'{name}' parameter's");
                tag_error(text, open, body.end, cut_off, e, &whose, out);
                return None;
            }
        };
        let key = attr(&attrs, "name").map(str::trim).unwrap_or_default();
        if key.is_empty() {
            error(
                out,
                DiagnosticCode::UnknownKey,
                format!(
                    "a parameter of '{name}' has no name ('{}'); the call is skipped",
                    tag_preview(text, Span::new(open, value_start))
                ),
                Span::new(open, value_start),
            );
            return None;
        }
        let close = finders
            .param_closes
            .find(value_start)
            .filter(|&at| at < body.end);
        let next = finders
            .params
            .find_tag(value_start)
            .filter(|&at| at < close.unwrap_or(body.end));
        let Some(close) = close.filter(|_| next.is_none()) else {
            let (message, span) = match next {
                Some(next) => (
                    format!(
                        "parameter '{key}' of '{name}' is not closed by '{}' before the next \
                         parameter; the call is skipped",
                        markup.param_close
                    ),
                    Span::new(open, next),
                ),
                None if cut_off => (
                    format!(
                        "the reply ends inside the value of '{key}' of '{name}', which may be \
                         incomplete; the call is skipped"
                    ),
                    Span::new(open, body.end),
                ),
                None => (
                    format!(
                        "parameter '{key}' of '{name}' is not closed by '{}' before '{}'; the \
                         call is skipped",
                        markup.param_close, markup.invoke_close
                    ),
                    Span::new(open, body.end),
                ),
            };
            error(out, DiagnosticCode::UnclosedValue, message, span);
            return None;
        };
        let (value, value_span) = strip_one_newline(text, Span::new(value_start, close));
        let span = Span::new(open, close + markup.param_close.len());
        params.push(RawParam {
            key,
            attrs,
            value,
            value_span,
            span,
        });
        cursor = span.end;
    }
    stray_text(text, cursor, body.end, &place, out);
    Some(params)
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
pub(crate) fn summary(protocol: &dyn Protocol, text: &str) -> Value {
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

#[cfg(test)]
mod tests;
