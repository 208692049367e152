//! Claude 2.1's tool-use beta layout (2023): the tool's name in `<tool_name>`, each argument an
//! element named after it inside `<parameters>`.
//!
//! ```text
//! <function_calls>
//! <invoke>
//! <tool_name>get_weather</tool_name>
//! <parameters>
//! <city>Paris</city>
//! </parameters>
//! </invoke>
//! </function_calls>
//! ```
//!
//! The layout is the one Anthropic's `anthropic-tools` SDK asks for
//! (`tool_use_package/prompt_constructors.py` `construct_tool_use_system_prompt`) and LangChain's
//! `ChatAnthropicTools` (`langchain_anthropic/experimental.py`, `SYSTEM_PROMPT_FORMAT`). Arguments
//! are read as LangChain's `_xml_to_dict` reads them: an element without child elements is its
//! text, as written (not trimmed); an element whose whole content is child elements is an object
//! of them, and a tag repeated among siblings (an argument, or a child) becomes a list of their
//! values, the way lists were written in that beta (`<cities><city>A</city><city>B</city>
//! </cities>` is `{"cities": {"city": ["A", "B"]}}`). Text values stay text: the engine types
//! them from the method's schema (the SDK converts them by the declared type).
//!
//! Deliberate differences: LangChain reshapes values with the request's schema (a lone value for
//! an `array` becomes a one-element list, a one-key object for a non-object is unwrapped); the
//! parse has no schema, so that is not done here. Content that is not only elements (`a < b`) is
//! text here, where LangChain's XML parser fails on the whole reply and the SDK reports
//! unbalanced tags; XML entities (`&amp;`) are kept as written, as the SDK keeps them. An invoke
//! without `<tool_name>` or `<parameters>`, or one the reply ends in, is skipped with an error
//! (the SDK rejects the reply; here its neighbours are kept).

use serde_json::{Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::framing::Block;
use crate::request::{DiagnosticCode, ParseOutput, Span};

const INVOKE_OPEN: &str = "<invoke>";
const INVOKE_CLOSE: &str = "</invoke>";
pub(super) const TOOL_NAME_OPEN: &str = "<tool_name>";
const TOOL_NAME_CLOSE: &str = "</tool_name>";
const PARAMETERS_OPEN: &str = "<parameters>";
const PARAMETERS_CLOSE: &str = "</parameters>";

/// Nesting deeper than this is kept as text: no model writes it, and it bounds the recursion.
const MAX_DEPTH: usize = 16;

/// Whether a `<function_calls>` body is written in the beta layout.
pub(super) fn is_beta(body: &str) -> bool {
    body.contains(INVOKE_OPEN) && body.contains(TOOL_NAME_OPEN)
}

/// Decodes every `<invoke>` of the block's body.
pub(super) fn decode(text: &str, block: &Block, format: &str, out: &mut ParseOutput) {
    let end = block.body.end.min(text.len());
    let mut cursor = block.body.start;
    while let Some(open) = find(text, cursor, end, INVOKE_OPEN) {
        let inner_start = open + INVOKE_OPEN.len();
        let Some(close) = find(text, inner_start, end, INVOKE_CLOSE) else {
            error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!("{INVOKE_OPEN} is not closed by {INVOKE_CLOSE}; the call is skipped"),
                Span::new(open, end),
            );
            return;
        };
        let span = Span::new(open, close + INVOKE_CLOSE.len());
        if let Some(call) = invoke(text, inner_start, close, span, out) {
            push_request(out, text, span, format, call, true);
        }
        cursor = span.end;
    }
}

/// One invoke whose content is `text[from..to]`.
fn invoke(text: &str, from: usize, to: usize, span: Span, out: &mut ParseOutput) -> Option<Call> {
    let name = between(text, from, to, TOOL_NAME_OPEN, TOOL_NAME_CLOSE).map(str::trim);
    let Some(name) = name.filter(|n| !n.is_empty() && !n.contains('<')) else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("an {INVOKE_OPEN} has no {TOOL_NAME_OPEN}; the call is skipped"),
            span,
        );
        return None;
    };
    // The last `</parameters>`: an argument may itself be called `parameters`.
    let params = find(text, from, to, PARAMETERS_OPEN).and_then(|open| {
        let start = open + PARAMETERS_OPEN.len();
        let close = text.get(start..to)?.rfind(PARAMETERS_CLOSE)?;
        text.get(start..start + close)
    });
    let Some(params) = params else {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!(
                "the call of '{name}' has no {PARAMETERS_OPEN} … {PARAMETERS_CLOSE}; it is skipped"
            ),
            span,
        );
        return None;
    };
    let mut args = Map::new();
    let mut rest = params;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let Some(lt) = rest.find('<') else {
            stray(name, span, out);
            break;
        };
        if !rest[..lt].trim().is_empty() {
            stray(name, span, out);
        }
        match element(&rest[lt..], 0) {
            Some((tag, value, used)) => {
                group(&mut args, tag, value);
                rest = &rest[lt + used..];
            }
            None => {
                error(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!("an argument of '{name}' is not a closed element; the call is skipped"),
                    span,
                );
                return None;
            }
        }
    }
    Some(Call {
        name: name.to_owned(),
        args,
        id: None,
    })
}

fn stray(name: &str, span: Span, out: &mut ParseOutput) {
    warning(
        out,
        DiagnosticCode::StrayText,
        format!("text between the arguments of '{name}' is ignored"),
        span,
    );
}

/// The element `s` starts with (`<tag>…</tag>`): its tag, its value and the bytes it spans.
fn element(s: &str, depth: usize) -> Option<(&str, Value, usize)> {
    let tag_end = s.find('>')?;
    let tag = s.get(1..tag_end)?;
    let plain_tag = !tag.is_empty()
        && !tag.starts_with(['/', '!', '?'])
        && !tag.contains(|c: char| c.is_whitespace() || matches!(c, '<' | '/' | '"' | '\''));
    if !plain_tag {
        return None;
    }
    let inner_start = tag_end + 1;
    let (inner_end, used) = matching_close(s, inner_start, tag)?;
    let inner = &s[inner_start..inner_end];
    let value = match (depth < MAX_DEPTH).then(|| children(inner, depth + 1)) {
        Some(Some(object)) => Value::Object(object),
        _ => Value::String(inner.to_owned()),
    };
    Some((tag, value, used))
}

/// Where `</tag>` closes an element whose content starts at `from` (same-named elements
/// nested in it counted): the content's end and the end of the close.
fn matching_close(s: &str, from: usize, tag: &str) -> Option<(usize, usize)> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut depth = 0usize;
    let mut at = from;
    loop {
        let next_close = at + s.get(at..)?.find(&close)?;
        let nested = s
            .get(at..next_close)
            .map_or(0, |between| between.matches(&open).count());
        depth += nested;
        if depth == 0 {
            return Some((next_close, next_close + close.len()));
        }
        depth -= 1;
        at = next_close + close.len();
    }
}

/// `inner` read as child elements only (whitespace between): an object of them, or `None`
/// when it holds text (or nothing), which makes it a text value.
fn children(inner: &str, depth: usize) -> Option<Map<String, Value>> {
    let mut object = Map::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let (tag, value, used) = element(rest, depth)?;
        group(&mut object, tag, value);
        rest = rest[used..].trim_start();
    }
    (!object.is_empty()).then_some(object)
}

/// Adds `value` under `tag`; a tag given again turns the entry into a list of its values.
fn group(object: &mut Map<String, Value>, tag: &str, value: Value) {
    match object.get_mut(tag) {
        Some(Value::Array(items)) => items.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
        None => {
            object.insert(tag.to_owned(), value);
        }
    }
}

/// The first `needle` in `text[from..to]`, as an index into `text`.
fn find(text: &str, from: usize, to: usize, needle: &str) -> Option<usize> {
    text.get(from..to)?.find(needle).map(|at| from + at)
}

/// The text between the first `open` in `text[from..to]` and the `close` after it.
fn between<'t>(text: &'t str, from: usize, to: usize, open: &str, close: &str) -> Option<&'t str> {
    let start = find(text, from, to, open)? + open.len();
    let end = find(text, start, to, close)?;
    text.get(start..end)
}
