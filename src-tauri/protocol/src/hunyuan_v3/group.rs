//! Reading a `<tool_calls>` group: its calls, each call's name and its `<arg_key>` /
//! `<arg_value>` pairs, in one pass over the group with the shared [`Finder`]s.

use serde_json::{Map, Value};

use super::{spelling_of, NameEnd, Spelling};
use crate::calls::{error, push_request, Call};
use crate::framing::Block;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::{insert_arg, stray_text as stray, Finder};

/// Decodes every `<tool_call>` of a group into requests of `format`.
pub fn decode_group(
    text: &str,
    block: &Block,
    name_end: NameEnd,
    format: &str,
    out: &mut ParseOutput,
) {
    let tokens = spelling_of(block);
    let end = block.body.end.min(text.len());
    let mut find = Tokens::new(text, end, tokens);
    let mut cursor = block.body.start;
    let mut found_any = false;
    while let Some(open) = find.call_opens.find(cursor) {
        found_any = true;
        stray(text, cursor, open, "between the calls", out);
        let read = read_call(text, &mut find, open, end, name_end, out);
        match read.outcome {
            CallEnd::Closed | CallEnd::CutOff if read.ok => {
                if read.outcome == CallEnd::CutOff && block.complete {
                    error(
                        out,
                        DiagnosticCode::UnclosedBlock,
                        format!(
                            "{} is not closed by {} before {}; the call is skipped",
                            tokens.call_open, tokens.call_close, tokens.group_close
                        ),
                        Span::new(open, read.end),
                    );
                } else {
                    let call = Call {
                        name: read.name.to_owned(),
                        args: read.args,
                        id: None,
                    };
                    push_request(out, text, Span::new(open, read.end), format, call, true);
                }
            }
            CallEnd::NextCall => error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "{} is not closed by {} before the next call; the call is skipped",
                    tokens.call_open, tokens.call_close
                ),
                Span::new(open, read.end),
            ),
            CallEnd::Closed | CallEnd::CutOff => {}
        }
        cursor = read.end.max(open + 1);
    }
    if found_any {
        stray(text, cursor, end, "after the calls", out);
    } else {
        let body = text.get(block.body.start..end).unwrap_or_default();
        if !body.trim().is_empty() || block.complete {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {} group holds no {} call; nothing is called",
                    tokens.group_open, tokens.call_open
                ),
                block.span,
            );
        }
    }
}

/// Searches for each token of a group; positions asked only grow, so a group is read in one pass.
struct Tokens<'t> {
    spelling: Spelling,
    call_opens: Finder<'t>,
    call_closes: Finder<'t>,
    seps: Finder<'t>,
    keys: Finder<'t>,
    key_closes: Finder<'t>,
    value_closes: Finder<'t>,
}

impl<'t> Tokens<'t> {
    fn new(text: &'t str, end: usize, spelling: Spelling) -> Self {
        Self {
            spelling,
            call_opens: Finder::new(text, end, spelling.call_open),
            call_closes: Finder::new(text, end, spelling.call_close),
            seps: Finder::new(text, end, spelling.sep),
            keys: Finder::new(text, end, spelling.key_open),
            key_closes: Finder::new(text, end, spelling.key_close),
            value_closes: Finder::new(text, end, spelling.value_close),
        }
    }

    /// The first call opener, call closer or key opener at or after `from`.
    fn next_structural(&mut self, from: usize) -> Option<usize> {
        [
            self.call_opens.find(from),
            self.call_closes.find(from),
            self.keys.find(from),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// How a call's reading ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallEnd {
    /// At its `</tool_call>`.
    Closed,
    /// At the end of the group's body (the reply, or the group, ended first).
    CutOff,
    /// At the next `<tool_call>`: this one was never closed.
    NextCall,
}

/// One call as read: `ok` is false when an error already skipped it.
struct ReadCall<'t> {
    name: &'t str,
    args: Map<String, Value>,
    ok: bool,
    outcome: CallEnd,
    /// Where the call's text ends (after `</tool_call>` when closed).
    end: usize,
}

/// Reads the call whose `<tool_call>` is at `open`: its name, then its pairs up to its
/// `</tool_call>`. A value is read to its first `</arg_value>`, whatever tokens it quotes.
fn read_call<'t>(
    text: &'t str,
    find: &mut Tokens<'_>,
    open: usize,
    end: usize,
    name_end: NameEnd,
    out: &mut ParseOutput,
) -> ReadCall<'t> {
    let tokens = find.spelling;
    let name_start = open + tokens.call_open.len();
    let mut read = ReadCall {
        name: "",
        args: Map::new(),
        ok: true,
        outcome: CallEnd::CutOff,
        end,
    };
    let structural = find.next_structural(name_start).unwrap_or(end);
    let sep = find.seps.find(name_start).filter(|&at| at < structural);
    let (name_to, mut cursor) = match (name_end, sep) {
        (NameEnd::Separator, Some(at)) => (at, at + tokens.sep.len()),
        (NameEnd::Pairs, None) => (structural, structural),
        (NameEnd::Separator, None) => {
            if structural < end {
                error(
                    out,
                    DiagnosticCode::MissingToolName,
                    format!(
                        "the call's name is not followed by {} (Hy3 writes NAME{}, then the \
                         pairs); the call is skipped",
                        tokens.sep, tokens.sep
                    ),
                    Span::new(open, structural),
                );
            }
            read.ok = false;
            (structural, structural)
        }
        (NameEnd::Pairs, Some(at)) => {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "{} after a call's name is Hy3's layout, not Hy4's; the call is skipped",
                    tokens.sep
                ),
                Span::new(at, at + tokens.sep.len()),
            );
            read.ok = false;
            (at, at + tokens.sep.len())
        }
    };
    if read.ok && name_to == end {
        // Nothing follows the name: the reply (or the group) ended inside it.
        error(
            out,
            DiagnosticCode::UnclosedBlock,
            format!(
                "the call's name is not followed by its arguments or {}; the call is skipped",
                tokens.call_close
            ),
            Span::new(open, end),
        );
        read.ok = false;
    }
    if read.ok {
        read.ok = check_name(text, tokens, name_start, name_to, out).is_some_and(|name| {
            read.name = name;
            true
        });
    }
    loop {
        let rest = text.get(cursor..end).unwrap_or_default();
        let trimmed = rest.trim_start();
        cursor = end - trimmed.len();
        if trimmed.is_empty() {
            read.outcome = CallEnd::CutOff;
            read.end = end;
            return read;
        }
        if trimmed.starts_with(tokens.call_close) {
            read.outcome = CallEnd::Closed;
            read.end = cursor + tokens.call_close.len();
            return read;
        }
        if trimmed.starts_with(tokens.call_open) {
            read.outcome = CallEnd::NextCall;
            read.end = cursor;
            return read;
        }
        if trimmed.starts_with(tokens.key_open) {
            match read_pair(text, find, cursor, end, read.name, out) {
                Some((key, value, span)) => {
                    if read.ok {
                        insert_arg(
                            &mut read.args,
                            key,
                            Value::String(value.to_owned()),
                            span,
                            read.name,
                            out,
                        );
                    }
                    cursor = span.end;
                }
                None => {
                    // The pair's extent is a guess: skip the call, resume at the next call.
                    read.ok = false;
                    let next = find.call_opens.find(cursor + 1).unwrap_or(end);
                    read.outcome = if next < end {
                        CallEnd::Closed
                    } else {
                        CallEnd::CutOff
                    };
                    read.end = next;
                    return read;
                }
            }
            continue;
        }
        let next = find.next_structural(cursor + 1).unwrap_or(end);
        if read.ok {
            stray(
                text,
                cursor,
                next,
                &format!("in the call to '{}'", read.name),
                out,
            );
        }
        cursor = next;
    }
}

/// The name in `text[from..to]`, or `None` (with an error) when it is not one.
fn check_name<'t>(
    text: &'t str,
    tokens: Spelling,
    from: usize,
    to: usize,
    out: &mut ParseOutput,
) -> Option<&'t str> {
    let raw = text.get(from..to).unwrap_or_default();
    let name = raw.trim();
    let lead = raw.len() - raw.trim_start().len();
    let span = Span::new(from + lead, from + lead + name.len());
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("a {} call has no name; it is skipped", tokens.call_open),
            Span::new(from, to),
        );
        return None;
    }
    // The template writes a name with no whitespace or tags in it; anything else is not a name.
    if name.contains(|c: char| c.is_whitespace() || c == '<' || c == '>') {
        let preview: String = name.chars().take(40).collect();
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("'{preview}' is not a tool name; the call is skipped"),
            span,
        );
        return None;
    }
    Some(name)
}

/// The pair whose `<arg_key>` is at `key_open`: its key, raw value and extent; `None` (with an
/// error) when it is broken, because a call with a doubtful argument must not run.
fn read_pair<'t>(
    text: &'t str,
    find: &mut Tokens<'_>,
    key_open: usize,
    end: usize,
    name: &str,
    out: &mut ParseOutput,
) -> Option<(&'t str, &'t str, Span)> {
    let tokens = find.spelling;
    let key_start = key_open + tokens.key_open.len();
    let limit = find.next_structural(key_start).unwrap_or(end);
    let broken = |out: &mut ParseOutput, what: String, to: usize| {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!("{what}; the call to '{name}' is skipped"),
            Span::new(key_open, to),
        );
    };
    let Some(key_close) = find.key_closes.find(key_start).filter(|&at| at < limit) else {
        let what = format!("{} is not closed by {}", tokens.key_open, tokens.key_close);
        broken(out, what, limit);
        return None;
    };
    let key = text.get(key_start..key_close).unwrap_or_default().trim();
    let after_key = key_close + tokens.key_close.len();
    let rest = text.get(after_key..end).unwrap_or_default();
    let value_open = end - rest.trim_start().len();
    if !rest.trim_start().starts_with(tokens.value_open) {
        let what = format!("argument '{key}' has no {}", tokens.value_open);
        broken(out, what, after_key);
        return None;
    }
    let value_start = value_open + tokens.value_open.len();
    let Some(value_close) = find.value_closes.find(value_start) else {
        let what = format!(
            "the value of '{key}' is not closed by {}",
            tokens.value_close
        );
        broken(out, what, end);
        return None;
    };
    if key.is_empty() {
        broken(
            out,
            format!("an argument has an empty {}", tokens.key_open),
            after_key,
        );
        return None;
    }
    let value = text.get(value_start..value_close).unwrap_or_default();
    Some((
        key,
        value,
        Span::new(key_open, value_close + tokens.value_close.len()),
    ))
}
