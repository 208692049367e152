//! Walking a block's invocations and their parameters, skipping a broken one without losing
//! its neighbours.

use crate::calls::error;
use crate::framing::Block;

use super::tags::{attr, char_span, read_tag, tag_preview, TagError};
use super::*;

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
    // Calls laid out one per line, as the templates write them: a call opener in the middle of
    // a line is a parameter value's text (`Write <｜DSML｜invoke name="x"> to call a tool.`).
    let mut laid_out = None;
    while let Some(open) = finders.invokes.find_tag(cursor) {
        let laid_out = *laid_out.get_or_insert_with(|| starts_line(text, open));
        any = true;
        stray_text(
            text,
            cursor,
            open,
            &format!("between calls in {}", markup.block),
            out,
        );
        let after_open = open + markup.invoke_open.len();
        let mut next = finders.invokes.find_tag(after_open);
        while let Some(at) = next.filter(|&at| laid_out && !starts_line(text, at)) {
            next = finders.invokes.find_tag(at + 1);
        }
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
        let (value, value_span) =
            value_without_layout(text, Span::new(value_start, close), markup.value_layout);
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
