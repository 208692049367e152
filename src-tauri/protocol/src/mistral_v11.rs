//! Mistral tokenizer v11+ (Mistral Small 3.2, Magistral, Devstral):
//! `[TOOL_CALLS]name[ARGS]{…}` per call, optionally `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`.
//!
//! Each call repeats the `[TOOL_CALLS]` marker; the arguments are one JSON object, so the
//! scanner ends a call at its closing brace. Results are `[TOOL_RESULTS]…[/TOOL_RESULTS]`.
//!
//! Follows vLLM's `mistral` parser for tokenizers v11+ (`vllm/tool_parsers/mistral_tool_parser.py`,
//! tests `test_extract_tool_calls` in `tests/tool_parsers/test_mistral_tool_parser.py`) and
//! llama.cpp's Magistral parser (`common/chat.cpp`, `[THINK]…[/THINK]` reasoning). A reply
//! detokenized with special tokens skipped has no `[ARGS]`: `[TOOL_CALLS]name{…}` is read the
//! same way, the arguments starting at the first brace, as vLLM does.
//!
//! Deliberate differences:
//! - a call whose JSON is cut off at the end of the reply is reported and skipped; vLLM hands on
//!   the partial argument text, which is not JSON a tool could run with;
//! - text after `[TOOL_CALLS]` that starts with `[` (after whitespace) is never a call named `[`:
//!   it is the list before tokenizer v11, which vLLM reads by the tokenizer's version and this
//!   format leaves to `mistral` (reported, kept as content).

use serde_json::Value;

use crate::balanced::Syntax;
use crate::calls::{error, find_marker_in, push_named_call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::mistral::{available_tools, THINK_CLOSE, THINK_OPEN, TOOL_CALLS};
use crate::prompt::result_value;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const ARGS: &str = "[ARGS]";
pub const CALL_ID: &str = "[CALL_ID]";

/// Shared with the `mistral` format, which reads this form beside the pre-v11 list.
pub(crate) const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::reasoning(THINK_OPEN, THINK_CLOSE),
        Rule::call(
            TOOL_CALLS,
            Close::Balanced {
                after: ARGS,
                syntax: Syntax::Json,
            },
        )
        .lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MistralV11;

impl Protocol for MistralV11 {
    fn id(&self) -> &'static str {
        "mistral_v11"
    }

    fn label(&self) -> &'static str {
        "Mistral v11 [TOOL_CALLS]name[ARGS]{…}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        available_tools(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let content = match result_value(result) {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.push_str(&format!("[TOOL_RESULTS]{content}[/TOOL_RESULTS]"));
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        decode_compact(self.id(), text, block, out);
    }
}

/// One `name[ARGS]{…}` / `name[CALL_ID]id[ARGS]{…}` / `name{…}` block after `[TOOL_CALLS]`, its
/// calls labelled `format_id` (this format's or `mistral`'s).
pub(crate) fn decode_compact(
    format_id: &'static str,
    text: &str,
    block: &Block,
    out: &mut ParseOutput,
) {
    let body = &text[block.body.start..block.body.end];
    // `[ARGS]` may be missing: detokenizing with special tokens skipped drops it, leaving
    // `name{…}` (vLLM reads that too). The arguments then start at the first brace.
    let (head_end, json_start) = match find_marker_in(body, ARGS) {
        Some(at) => (at, at + ARGS.len()),
        None => match body.find('{') {
            Some(at) => (at, at),
            None => {
                // Not a call at all (`[TOOL_CALLS] now, promise.`): the text stays prose.
                error(
                    out,
                    DiagnosticCode::MissingToolName,
                    format!(
                        "{TOOL_CALLS} is not followed by a call (name{ARGS}{{…}}, or a JSON \
                         list before tokenizer v11); the text after it is kept as content"
                    ),
                    Span::new(block.span.start, block.body.start),
                );
                out.content.push_str(body.trim_start());
                return;
            }
        },
    };
    let head = &body[..head_end];
    let (name, id) = match find_marker_in(head, CALL_ID) {
        Some(at) => (
            head[..at].trim(),
            Some(head[at + CALL_ID.len()..].trim().to_owned()),
        ),
        None => (head.trim(), None),
    };
    if name.starts_with('[') {
        // A function name never starts with `[`: this is the list before tokenizer v11
        // (`[TOOL_CALLS] [{"name": …}]`, however spaced), `mistral`'s to read. vLLM picks that
        // form by the tokenizer; going by the text, it is no compact call named `[`.
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "{TOOL_CALLS} is followed by a JSON list, the form before tokenizer v11 (format \
                 'mistral'), not by name{ARGS}{{…}}; the text after it is kept as content"
            ),
            Span::new(block.span.start, block.body.start),
        );
        out.content.push_str(body.trim_start());
        return;
    }
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("{TOOL_CALLS} has no function name before {ARGS}; the call is skipped"),
            block.span,
        );
        return;
    }
    let json = Span::new(block.body.start + json_start, block.body.end);
    push_named_call(out, text, block.span, json, format_id, name, id);
}
