//! Reading a `<tool_calls>` group: its calls, each call's name and its `<arg_key>` /
//! `<arg_value>` pairs, in one pass over the group with the shared [`Finder`]s; each pair is
//! read by the shared [`crate::arg_pairs`] reader (values as written, read to their first
//! closing token whatever they quote).

use serde_json::{Map, Value};

use super::{spelling_of, NameEnd, Spelling};
use crate::arg_pairs::{CallContext, PairReader, PairSyntax, ReadPair, Stray};
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
        let read = read_call(text, &mut find, (open, end, block.complete), name_end, out);
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

/// How Hy3/Hy4 write their pairs: `spelling`'s tokens, values as written (the reference's regex
/// keeps them whole) and read to their first closing token whatever they quote, whitespace the
/// only layout; the call loop reports other text itself.
fn pair_syntax(spelling: Spelling) -> PairSyntax {
    PairSyntax {
        key_open: spelling.key_open,
        key_close: spelling.key_close,
        value_open: spelling.value_open,
        value_close: spelling.value_close,
        type_tags: None,
        trim_values: false,
        literal_newlines: false,
        value_ends_at_next_key: false,
        stray: Stray::Ignored,
    }
}

/// Searches for each token of a group; positions asked only grow, so a group is read in one pass.
struct Tokens<'t> {
    spelling: Spelling,
    call_opens: Finder<'t>,
    call_closes: Finder<'t>,
    seps: Finder<'t>,
    pairs: PairReader<'t>,
}

impl<'t> Tokens<'t> {
    fn new(text: &'t str, end: usize, spelling: Spelling) -> Self {
        Self {
            spelling,
            call_opens: Finder::new(text, end, spelling.call_open),
            call_closes: Finder::new(text, end, spelling.call_close),
            seps: Finder::new(text, end, spelling.sep),
            pairs: PairReader::new(text, end, pair_syntax(spelling)),
        }
    }

    /// The first call opener, call closer or key opener at or after `from`.
    fn next_structural(&mut self, from: usize) -> Option<usize> {
        [
            self.call_opens.find(from),
            self.call_closes.find(from),
            self.pairs.next_key(from),
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
    find: &mut Tokens<'t>,
    (open, end, complete): (usize, usize, bool),
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
            let key_limit = find
                .next_structural(cursor + tokens.key_open.len())
                .unwrap_or(end);
            let call = CallContext {
                name: read.name,
                close: tokens.call_close,
                complete,
            };
            match find.pairs.read(cursor, key_limit, call, out) {
                ReadPair::Pair(pair) => {
                    if read.ok {
                        let value = Value::String(pair.value.to_owned());
                        insert_arg(&mut read.args, pair.key, value, pair.span, read.name, out);
                    }
                    cursor = pair.span.end;
                }
                ReadPair::LeftOut { end } => cursor = end,
                ReadPair::Broken => {
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
