//! PFN PLaMo 3: calls in a `<|plamo:begin_tool_requests:plamo|>` group, each request naming the
//! tool and giving its JSON arguments between tags.
//!
//! ```text
//! <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
//! <|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>
//! <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|>
//! <|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|><|plamo:tag|>
//! ```
//!
//! (One line here; the model writes the tags back to back.) Follows vLLM's `plamo3` parser
//! (`vllm/tool_parsers/plamo3_tool_parser.py`, `Plamo3ToolParser`, with the tags of
//! `vllm/reasoning/plamo3_reasoning_parser.py`) and its tests: text before the group is content,
//! `<|plamo:tag|>` ends the turn (nothing after it is read), reasoning is in
//! `<|plamo:begin_think:plamo|>` … `<|plamo:end_think:plamo|>`. A group the reply ends in gives no
//! call, as in the reference's batch parse.
//!
//! Deliberate differences from the reference:
//! - a malformed request (a missing tag, arguments that are not a JSON object) is skipped with
//!   an error and the other requests of its group are kept, where the reference drops the whole
//!   group;
//! - whitespace is allowed between the tags, and the `<|plamo:constrain|>json<|plamo:msg|>`
//!   tokens after the arguments tag may be left out;
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording, with the model's tags.

use crate::calls::{error, push_named_call, warning};
use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{each_result, result_value, schema_lines};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const GROUP_OPEN: &str = "<|plamo:begin_tool_requests:plamo|>";
pub const GROUP_CLOSE: &str = "<|plamo:end_tool_requests:plamo|>";
const REQUEST_OPEN: &str = "<|plamo:begin_tool_request:plamo|>";
const REQUEST_CLOSE: &str = "<|plamo:end_tool_request:plamo|>";
const NAME_OPEN: &str = "<|plamo:begin_tool_name:plamo|>";
const NAME_CLOSE: &str = "<|plamo:end_tool_name:plamo|>";
const ARGS_OPEN: &str = "<|plamo:begin_tool_arguments:plamo|>";
const ARGS_CLOSE: &str = "<|plamo:end_tool_arguments:plamo|>";
/// The grammar-constraint tokens the model writes right after [`ARGS_OPEN`].
const CONSTRAIN: &str = "<|plamo:constrain|>json<|plamo:msg|>";
const END_OF_TURN: &str = "<|plamo:tag|>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"),
        // Not lenient: the reference's batch parse gives no call from a group the reply ends in.
        Rule::call(GROUP_OPEN, Close::Marker(GROUP_CLOSE)).json_body(),
        Rule::end_of_turn(END_OF_TURN).ends_reply(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Plamo3;

impl Protocol for Plamo3 {
    fn id(&self) -> &'static str {
        "plamo3"
    }

    fn label(&self) -> &'static str {
        "PLaMo 3 <|plamo:begin_tool_requests:plamo|> requests"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = schema_lines(tools);
        out.push_str(&format!(
            "\nTo call functions, write them in one group:\n{GROUP_OPEN}{REQUEST_OPEN}\
             {NAME_OPEN}function-name{NAME_CLOSE}{ARGS_OPEN}{CONSTRAIN}{{\"key\": \"value\"}}\
             {ARGS_CLOSE}{REQUEST_CLOSE}{GROUP_CLOSE}{END_OF_TURN}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<|plamo:begin_tool_result:plamo|>{}<|plamo:end_tool_result:plamo|>\n",
                result_value(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let mut cursor = block.body.start;
        let mut found = false;
        while let Some(open) = find(text, cursor, end, REQUEST_OPEN) {
            stray(text, cursor, open, out);
            let body_start = open + REQUEST_OPEN.len();
            // A request runs to its closing tag, or to the next request when that tag is missing.
            let next_open = find(text, body_start, end, REQUEST_OPEN).unwrap_or(end);
            let Some(close) = find(text, body_start, next_open, REQUEST_CLOSE) else {
                error(
                    out,
                    DiagnosticCode::UnclosedBlock,
                    format!("{REQUEST_OPEN} is not closed by {REQUEST_CLOSE}; the call is skipped"),
                    Span::new(open, next_open),
                );
                cursor = next_open;
                continue;
            };
            found = true;
            let span = Span::new(open, close + REQUEST_CLOSE.len());
            decode_request(text, body_start, close, span, self.id(), out);
            cursor = span.end;
        }
        stray(text, cursor, end, out);
        if !found {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {GROUP_OPEN} group holds no {REQUEST_OPEN}; no call"),
                block.span,
            );
        }
    }
}

/// The first `needle` in `text[from..to]`, as an index into `text`.
fn find(text: &str, from: usize, to: usize, needle: &str) -> Option<usize> {
    text.get(from..to)?.find(needle).map(|at| from + at)
}

/// Text between requests, which the template never writes: ignored with a warning.
fn stray(text: &str, from: usize, to: usize, out: &mut ParseOutput) {
    let slice = text.get(from..to).unwrap_or_default();
    if !slice.trim().is_empty() {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("text between {REQUEST_OPEN} requests is ignored"),
            Span::new(from, to),
        );
    }
}

/// Decodes one request whose body is `text[from..to]`.
fn decode_request(
    text: &str,
    from: usize,
    to: usize,
    span: Span,
    format: &str,
    out: &mut ParseOutput,
) {
    let body = text.get(from..to).unwrap_or_default();
    let lead = body.len() - body.trim_start().len();
    let Some(after_name_open) = body.trim_start().strip_prefix(NAME_OPEN) else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("the request does not start with {NAME_OPEN}; the call is skipped"),
            span,
        );
        return;
    };
    let name_start = from + lead + NAME_OPEN.len();
    let Some(name_end) = find(text, name_start, to, NAME_CLOSE) else {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!("the tool name is not closed by {NAME_CLOSE}; the call is skipped"),
            span,
        );
        return;
    };
    let name = after_name_open
        .get(..name_end - name_start)
        .unwrap_or_default()
        .trim();
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            "the request names no tool; the call is skipped".to_owned(),
            span,
        );
        return;
    }
    let rest_start = name_end + NAME_CLOSE.len();
    let rest = text.get(rest_start..to).unwrap_or_default();
    let rest_lead = rest.len() - rest.trim_start().len();
    let Some(after_args_open) = rest.trim_start().strip_prefix(ARGS_OPEN) else {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!("'{name}' has no {ARGS_OPEN}; the call is skipped"),
            span,
        );
        return;
    };
    let mut json_start = rest_start + rest_lead + ARGS_OPEN.len();
    if after_args_open.trim_start().starts_with(CONSTRAIN) {
        json_start += after_args_open.len() - after_args_open.trim_start().len() + CONSTRAIN.len();
    }
    // The last closing tag: the JSON before it may quote the tag in a string.
    let Some(json_end) = text
        .get(json_start..to)
        .and_then(|args| args.rfind(ARGS_CLOSE))
        .map(|at| json_start + at)
    else {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!(
                "the arguments of '{name}' are not closed by {ARGS_CLOSE}; the call is skipped"
            ),
            span,
        );
        return;
    };
    let tail = text
        .get(json_end + ARGS_CLOSE.len()..to)
        .unwrap_or_default();
    if !tail.trim().is_empty() {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("text after the arguments of '{name}' is ignored"),
            Span::new(json_end + ARGS_CLOSE.len(), to),
        );
    }
    push_named_call(
        out,
        text,
        span,
        Span::new(json_start, json_end),
        format,
        name,
        None,
    );
}
