//! Gorilla OpenFunctions v2: Python calls, each after a `<<function>>` marker, or (from the
//! hosted service) joined by `, ` with no marker and no brackets.
//!
//! ```text
//! <<function>>get_current_weather(location='Boston')<<function>>get_current_weather(location='San Francisco')
//! get_current_weather(location='Boston, MA'), get_current_weather(location='San Francisco, CA')
//! ```
//!
//! References: ShishirPatil/gorilla `openfunctions/openfunctions_utils.py`
//! (`strip_function_calls` splits the generated text at `<<function>>` and keeps the non-empty
//! pieces after the prompt's own marker; `parse_function_call` reads each with Python's `ast`
//! via `utils/python_parser.py`: keyword arguments by name, values evaluated as literals),
//! `openfunctions/inference_local.py` (`get_prompt`: the functions as JSON after `<<function>>`
//! in the instruction, then `<<question>>`; `format_response` joins several calls with `, `,
//! which is the hosted service's `content`) and the OpenFunctions v2 README / model card. The
//! Berkeley Function Calling Leaderboard's `GorillaHandler` (`bfcl_eval/model_handler/
//! api_inference/gorilla.py`) reads the hosted text by putting it in `[` `]`.
//!
//! Rules: each `<<function>>` opens a piece that runs to the next one (or the reply's end);
//! text before the first is content. A piece, and a reply without markers, is read as Python
//! calls separated by top-level commas ([`crate::pylit`], values typed as literals). A reply
//! without markers is calls only when the whole of it (after whitespace and leading reasoning)
//! is such a list and every call reads cleanly; otherwise it is prose, with no diagnostics (but see below), as
//! the service returns text it cannot parse unchanged. That whole-reply check is also all
//! auto-detect accepts without a marker.
//!
//! The comma-joined variant belongs here, not in `pythonic`: the references of `pythonic`
//! (vLLM's and SGLang's pythonic parsers) require the brackets.
//!
//! A bare name as a value (`loc=Berkeley`, seen in OpenFunctions v1 output) is read as its
//! own text with a warning, as BFCL's `resolve_ast_by_type` does. A reply without markers that
//! is one call, unreadable inside (other than for positional arguments), is reported with a
//! diagnostic rather than passed off as prose.
//!
//! Deliberate differences: a positional argument is reported and its call skipped (the
//! reference collects positional values under the key `"None"`); dotted names are kept as
//! written (the reference names them by the AST node's repr); a piece holding several
//! comma-joined calls yields each (the reference fails on it); the Java and JavaScript
//! fallbacks of `parse_function_call` are not read; the prompt's own `<<function>>` is not in a
//! reply, so no piece is skipped (the reference skips the first, the prompt's).

use serde_json::json;

use crate::calls::warning;
use crate::detect::{Signature, BARE_CALLS_REPLY};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects};
use crate::pylines::push_item;
use crate::pylit::{self, ErrorKind};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const MARKER: &str = "<<function>>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(MARKER, Close::UntilNext),
        // The model's end-of-sequence token, left in a raw completion.
        Rule::token("<|EOT|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct GorillaOpenFunctions;

impl Protocol for GorillaOpenFunctions {
    fn id(&self) -> &'static str {
        "gorilla_openfunctions"
    }

    fn label(&self) -> &'static str {
        "Gorilla OpenFunctions v2 <<function>>f(a=1)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // `get_prompt`'s instruction: the question follows `<<question>>`, and the turn ends
        // with `\n### Response: `.
        format!(
            "### Instruction: {MARKER}{}\n<<question>>",
            function_objects(tools)
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // The model defines no result turn; the hosted service takes OpenAI-style messages,
        // and the leaderboard sends each result as a `tool` message.
        each_result(results, |r| {
            format!("{}\n", json!({"role": "tool", "content": result_text(r)}))
        })
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        // Whether a reply has markers is known only once it is whole, so the format is not
        // framed (a stream is parsed at its end); the marked pieces use the shared scanner.
        if crate::calls::find_marker_in(text, MARKER).is_some() {
            return crate::framing::parse(&Marked, text);
        }
        parse_bare(text, self.id())
    }

    fn signature(&self) -> Signature {
        // Without a marker, only a reply shaped like bare calls is a candidate; the parser
        // then claims it only when all of it reads as calls.
        Signature {
            markers: vec![MARKER],
            prefixes: vec![BARE_CALLS_REPLY],
            ..Signature::default()
        }
    }
}

/// The `<<function>>` pieces of a reply, as a framed format for the shared scanner.
struct Marked;

impl Protocol for Marked {
    fn id(&self) -> &'static str {
        GorillaOpenFunctions.id()
    }

    fn label(&self) -> &'static str {
        GorillaOpenFunctions.label()
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        GorillaOpenFunctions.generate_tool_definitions(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        GorillaOpenFunctions.format_tool_results(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let _ = read_calls(text, block.body, self.id(), out, true);
    }
}

/// A reply without markers: calls when all of it is calls, otherwise prose.
fn parse_bare(text: &str, id: &str) -> ParseOutput {
    let start = reply_start(text);
    let body = text.get(start..).unwrap_or_default().trim_end();
    let span = Span::new(start, start + body.len());
    let mut out = ParseOutput::default();
    if starts_with_call(body) && body.ends_with(')') && read_calls(text, span, id, &mut out, false)
    {
        return out;
    }
    ParseOutput {
        content: text.trim().to_owned(),
        ..ParseOutput::default()
    }
}

/// Where the reply starts, after whitespace and a leading `<think>…</think>`.
fn reply_start(text: &str) -> usize {
    let trimmed = text.trim_start();
    let mut at = text.len() - trimmed.len();
    if let Some(after) = trimmed.strip_prefix("<think>") {
        at = match after.find("</think>") {
            Some(end) => at + "<think>".len() + end + "</think>".len(),
            None => text.len(),
        };
        let rest = text.get(at..).unwrap_or_default();
        at += rest.len() - rest.trim_start().len();
    }
    at
}

/// Whether `body` starts with a (dotted) Python name and `(`.
fn starts_with_call(body: &str) -> bool {
    let name_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(body.len());
    name_end > 0
        && !body.starts_with(|c: char| c.is_ascii_digit())
        && body.get(name_end..).is_some_and(|r| r.starts_with('('))
}

/// Reads `text[span]` as calls joined by commas. With `report`, each bad call is a diagnostic
/// and the good ones are kept; without, any problem means no calls at all, unless the text
/// is wholly a call list with a broken call. Returns whether the text was taken as calls.
fn read_calls(text: &str, span: Span, id: &str, out: &mut ParseOutput, report: bool) -> bool {
    let piece = text.get(span.start..span.end).unwrap_or_default();
    let trimmed = piece.trim_start();
    let base = span.start + (piece.len() - trimmed.len());
    let trimmed = trimmed.trim_end();
    if trimmed.is_empty() {
        return false;
    }
    // The reader takes a bracketed list; the brackets are added around a copy, so every
    // offset it reports is one past the reply's.
    let wrapped = format!("[{trimmed}]");
    let options = pylit::Options {
        bare_names: true,
        ..pylit::Options::default()
    };
    let list = pylit::parse_call_list_with(&wrapped, options);
    let whole = list.end == Some(wrapped.len());
    // A positional argument the reader left out makes the text prose here, as below.
    let clean = whole
        && list.items.iter().all(|item| {
            item.as_ref().is_ok_and(|call| {
                !call
                    .notes
                    .iter()
                    .any(|note| note.kind == ErrorKind::PositionalArgument)
            })
        });
    // A reply that is one call from its name to its `)`, unreadable inside, is reported, not
    // taken for prose: a call must not vanish silently. A call with only positional arguments
    // (`print(x)`) stays prose, as the service returns such text unchanged; several items
    // (`f(a=1) and g(b=2)`) are prose the reader resynchronised through.
    let broken_call = whole
        && matches!(list.items.as_slice(), [Err(e)] if e.kind != ErrorKind::PositionalArgument);
    if !report && !clean && !broken_call {
        return false;
    }
    let at = |offset: usize| (base + offset.saturating_sub(1)).min(base + trimmed.len());
    for &(offset, len) in &list.bare_names {
        let name = wrapped.get(offset..offset + len).unwrap_or_default();
        warning(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "'{name}' is a bare name, not a literal; it is read as the string \"{name}\", \
                 as the reference does"
            ),
            Span::new(at(offset), at(offset + len)),
        );
    }
    for item in list.items {
        push_item(out, text, id, item, |start, end| {
            Span::new(at(start), at(end))
        });
    }
    clean || broken_call
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        GorillaOpenFunctions
            .parse_tool_requests(text)
            .requests
            .into_iter()
            .map(|r| r.tool_name)
            .collect()
    }

    #[test]
    fn bare_calls_only_when_the_whole_reply_is_calls() {
        assert_eq!(names("f(a=1), g(b='x, y')"), vec!["f", "g"]);
        assert_eq!(names(" <think>f(a=1)</think> f(a=2)"), vec!["f"]);
        for prose in [
            "Call f(a=1) to do it",
            "f(a=1) is how",
            "print(x)",
            "f(a=1) and g(b=2)",
            "(a=1)",
            "1f(a=1)",
        ] {
            let out = GorillaOpenFunctions.parse_tool_requests(prose);
            assert!(out.requests.is_empty(), "{prose}");
            assert!(out.diagnostics.is_empty(), "{prose}");
            assert_eq!(out.content, prose.trim());
        }
    }

    #[test]
    fn bare_names_are_strings_and_broken_calls_are_reported() {
        let out = GorillaOpenFunctions.parse_tool_requests("t.order(loc=Berkeley,q=[6,8])");
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].args["loc"], "Berkeley");
        assert_eq!(out.diagnostics.len(), 1);
        assert!(!out.has_errors());
        let out = GorillaOpenFunctions.parse_tool_requests("f(a=1 2)");
        assert!(out.requests.is_empty());
        assert!(out.has_errors());
    }

    #[test]
    fn spans_point_at_each_call() {
        let text = "<<function>> f(a=1)<<function>>g(b=2), h(c=3)";
        let out = GorillaOpenFunctions.parse_tool_requests(text);
        let raw: Vec<&str> = out.requests.iter().map(|r| r.raw_block.as_str()).collect();
        assert_eq!(raw, vec!["f(a=1)", "g(b=2)", "h(c=3)"]);
    }
}
