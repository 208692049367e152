//! Reading one pythonic call list into requests: the calls that stand whole in it, the errors
//! of the ones that do not, and what a list that is not Python (or is used as an operand) keeps,
//! as vLLM's `pythonic` parser reads them.

use crate::calls::{error, warning};
use crate::pylines::push_item;
use crate::pylit;
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// Reads the Python call list at `text[body]` (body starting at its `[`), pushing one request
/// per call (each spanning its own text) and one diagnostic per bad call; text after the list
/// is content. Returns how many calls read cleanly (as written, nothing read differently).
/// Shared by the formats that wrap a pythonic list in their own tokens (LFM2).
///
/// A list that is not Python at all keeps only the calls that read whole in their own top-level
/// segment (nothing after a call's `)` but the `,` or `]`), and none when it is one segment, as
/// vLLM salvages an unparsable block; a list that is called or indexed (`[f(a=1)]()`) gives
/// none, as `ast.parse` reads an expression around it.
pub fn push_call_list(
    out: &mut ParseOutput,
    text: &str,
    body_span: Span,
    block_span: Span,
    id: &str,
) -> usize {
    let Some(body) = text.get(body_span.start..body_span.end) else {
        return 0;
    };
    let base = body_span.start;
    let (first_request, first_diagnostic, content_len) =
        (out.requests.len(), out.diagnostics.len(), out.content.len());
    let place = |start: usize, end: usize| {
        Span::new(
            (base + start).min(body_span.end),
            (base + end).min(body_span.end),
        )
    };
    let mut count = ListCount::default();
    let mut clean = 0;
    // A call is pushed once the next item shows it stood whole in its part of the list: text
    // after its `)` (`c3(x=1) / c4`) makes it part of an expression, not an element.
    let mut pending: Option<pylit::Call> = None;
    let end = pylit::for_each_call(body, pylit::Options::AST_KEYWORDS, |item| {
        count.add(&item);
        let after_call = matches!(&item, Err(e) if e.kind == pylit::ErrorKind::AfterCall);
        if let Some(call) = pending.take() {
            clean += settle(out, text, id, call, !after_call, place);
        }
        match item {
            Ok(call) => pending = Some(call),
            Err(e) => push_item(out, text, id, Err(e), place),
        }
    });
    if let Some(call) = pending.take() {
        clean += settle(out, text, id, call, true, place);
    }
    let not_python = if count.unreadable {
        pylit::python_list_end(body).err()
    } else {
        None
    };
    let before = Marks {
        requests: first_request,
        diagnostics: first_diagnostic,
        content: content_len,
    };
    if let Some((at, why)) = not_python {
        // vLLM salvages the calls of an unparsable list part by part, and none from one part.
        if count.segments <= 1 {
            let message = format!(
                "the call list is not Python ({why}), so no call is read, as the references \
                 (ast.parse) read none"
            );
            return refuse(out, text, before, block_span, message, place(at, at + 1));
        }
        let message = format!(
            "the call list is not Python ({why}); only the calls that read whole in their own \
             part of it are kept, as vLLM salvages such a list"
        );
        error(out, DiagnosticCode::InvalidJson, message, place(at, at + 1));
        if out.requests.len() == first_request {
            out.content.truncate(content_len);
            let block = text.get(block_span.start..block_span.end);
            out.content.push_str(block.unwrap_or_default());
            return 0;
        }
    }
    // What follows the list in the reply: the scanner's block may end at its `]`.
    let operand_at = end.and_then(|end| {
        let rest = text.get(base + end..)?;
        let next = rest.trim_start_matches([' ', '\t']);
        next.starts_with(['(', '['])
            .then_some(end + (rest.len() - next.len()))
    });
    if let Some(at) = operand_at {
        let message = "the call list is called or indexed, which makes it part of an \
                       expression, so no call is read, as the references read none"
            .to_owned();
        return refuse(out, text, before, block_span, message, place(at, at + 1));
    }
    // The scanner counts brackets without pairing them, so after a mismatch its block can
    // run past the list's real end: what follows the list is prose again.
    if let Some(rest) = end.and_then(|end| body.get(end..)) {
        out.content.push_str(rest);
    }
    if end.is_some() && count.calls == 0 && count.errors == 0 {
        warning(
            out,
            DiagnosticCode::StrayText,
            "the call list is empty: no calls".to_owned(),
            block_span,
        );
    }
    clean
}

/// How much of a [`ParseOutput`] was there before a list was read.
#[derive(Debug, Clone, Copy)]
struct Marks {
    requests: usize,
    diagnostics: usize,
    content: usize,
}

/// Takes back what the list pushed since `before`, keeps the block as content and reports why
/// it holds no call. Returns 0: no call read cleanly.
fn refuse(
    out: &mut ParseOutput,
    text: &str,
    before: Marks,
    block_span: Span,
    message: String,
    span: Span,
) -> usize {
    out.requests.truncate(before.requests);
    out.diagnostics.truncate(before.diagnostics);
    out.content.truncate(before.content);
    let block = text.get(block_span.start..block_span.end);
    out.content.push_str(block.unwrap_or_default());
    error(out, DiagnosticCode::InvalidJson, message, span);
    0
}

/// Pushes a call the list read: as a request when it stood whole in its part of the list,
/// else as an error (it is part of an expression). 1 when it was read cleanly (a request with
/// nothing read differently), else 0.
fn settle(
    out: &mut ParseOutput,
    text: &str,
    id: &str,
    call: pylit::Call,
    whole: bool,
    place: impl Fn(usize, usize) -> Span,
) -> usize {
    if whole {
        let clean = usize::from(call.notes.is_empty());
        push_item(out, text, id, Ok(call), place);
        clean
    } else {
        let message = format!(
            "the call to '{}' is part of an expression (text follows its ')'), not an item of \
             the list; it is not read",
            call.name
        );
        let span = place(call.start, call.end);
        error(out, DiagnosticCode::InvalidJson, message, span);
        0
    }
}

/// What the reader made of a list's items, counted as they pass.
#[derive(Debug, Default)]
struct ListCount {
    calls: usize,
    errors: usize,
    /// The list's top-level parts: its items, less the text found after a call's `)`.
    segments: usize,
    /// An item the reader could not read as Python: the list may not be Python at all.
    unreadable: bool,
}

impl ListCount {
    fn add(&mut self, item: &Result<pylit::Call, pylit::Error>) {
        if !matches!(item, Err(e) if e.kind == pylit::ErrorKind::AfterCall) {
            self.segments += 1;
        }
        match item {
            Ok(_) => self.calls += 1,
            Err(e) => {
                self.errors += 1;
                self.unreadable |= matches!(
                    e.kind,
                    pylit::ErrorKind::Syntax
                        | pylit::ErrorKind::NotACall
                        | pylit::ErrorKind::AfterCall
                );
            }
        }
    }
}
