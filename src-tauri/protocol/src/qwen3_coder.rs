//! Qwen3-Coder (and the Qwen3.5-style XML calls): one `<function=NAME>` per `<tool_call>`, one
//! `<parameter=KEY>` per argument, values as plain text.
//!
//! ```text
//! <tool_call>
//! <function=get_weather>
//! <parameter=location>
//! Paris, France
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! The chat template lists the tools as XML (`<function><name>…</name><parameters><parameter>…`)
//! inside `<tools>` and feeds results back in `<tool_response>` tags. A `<function=…>` without
//! the `<tool_call>` wrapper is a call too (models drop the wrapper now and then), except inside
//! Seed-OSS's `<seed:tool_call>` block, which is reported as that format's.
//!
//! Reasoning follows vLLM's `qwen3` reasoning parser: Qwen3 Thinking and Qwen3.5 templates open
//! `<think>` in the prompt, so text before a lone `</think>` is reasoning; a `<think>` never
//! closed ends at its first `<tool_call>` if `<function=` follows. `<|im_end|>` and
//! `<|endoftext|>` left in a raw completion end a `<tool_call>` that was never closed.
//! `<|im_end|>` also ends the reply, as in hermes: it is the model's stop token (Qwen's
//! `eos_token`; an end-of-generation token to llama.cpp; vLLM and SGLang stop there), so text a
//! raw completion writes after it (the next turn, a made-up `<tool_response>`) is not read, with
//! a warning.
//!
//! Values are text: exactly one newline after `<parameter=KEY>` and one before `</parameter>`
//! belong to the layout and are removed (vLLM's `qwen3coder_tool_parser`); when the model
//! indents its tags (`\n    </parameter>`, as in llama.cpp's tests) all whitespace around the
//! value is layout and removed, as llama.cpp reads it; everything else is
//! kept as a JSON string and the request is marked `untyped_args`, so the engine types it from
//! the method's schema, or reads a JSON literal as that literal when there is none
//! (`parser::type_arguments`). Deliberate difference: llama.cpp's `qwen3-coder` reader
//! (`trim_raw_argval`) strips all surrounding whitespace even when the closing tag starts its
//! line; we then keep a value's leading indentation and blank lines (vLLM's rule), which matter
//! in code the model writes (`str_replace` arguments).
//!
//! Decisions on broken calls (a malformed call never hides its neighbours):
//! - a value ends at `</parameter>`; when that is missing (the next `<parameter=` comes first,
//!   or the function ends), the value is read up to there and kept with a warning (the boundary
//!   is clear); when the reply itself ends inside the value, the value is cut off and the call
//!   is skipped (error), as SGLang, which needs `</tool_call>`, gives no call (vLLM reads the
//!   value to the end: a `rm -rf /tmp/build` cut to `rm -rf /` would run);
//! - a function ends at `</function>`; when that is missing inside a `<tool_call>`, it ends at
//!   the next `<function=` or at `</tool_call>` (warning);
//! - a reply that ends after the last complete parameter (no `</function>` / `</tool_call>`) is
//!   decoded with a warning;
//! - a `<tool_call>` without `<function=NAME>`, a function or parameter without a name, and text
//!   before the first parameter skip the call (error): running a call with arguments the parser
//!   did not understand would be worse than not running it. Two exceptions follow vLLM and
//!   SGLang, which keep every call: a body that is one JSON object gives the call with `{}`
//!   (warning), and text after a parameter is ignored (warning);
//! - a parameter given twice: warning, the last value wins;
//! - several functions in one `<tool_call>`: one request each.
//!
//! The template writes every tag on its own line and values as they are (no escaping). A value
//! laid out so (`<parameter=KEY>` then a line break) ends at the `</parameter>` that starts a
//! line, and a function laid out so at the `</function>` that starts a line: tags in the middle
//! of a line are the value's text (`Close tags inline: </parameter> …`). Without such a tag the
//! first one counts, as in the reference parsers, which always end at the first. For the same
//! reason `<tool_call>` and `</tool_call>` count inside a `<tool_call>` only at the start of a
//! line or right after another tag (`Rule::markup_body`): a value may quote them.

use serde_json::Value;

use crate::calls::{error, push_request, warning};
use crate::detect::{framing_signature, Signature};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};
use function::{decode_function, find_byte, line_follows, preview, Function, Next};

pub const TOOL_CALL_OPEN: &str = "<tool_call>";
pub const TOOL_CALL_CLOSE: &str = "</tool_call>";
pub const FUNCTION_OPEN: &str = "<function=";
pub const FUNCTION_CLOSE: &str = "</function>";
pub const PARAMETER_OPEN: &str = "<parameter=";
pub const PARAMETER_CLOSE: &str = "</parameter>";

const ID: &str = "qwen3_coder";

/// Indices into [`FRAMING`]'s rules.
const TOOL_CALL_RULE: usize = 1;
const FUNCTION_RULE: usize = 2;
const SEED_BLOCK_RULE: usize = 4;

const FRAMING: Framing = Framing {
    rules: &[
        // Qwen3 Thinking and Qwen3.5 templates open `<think>` in the prompt, and Qwen3.5 may
        // open a call without closing its reasoning (vLLM's `qwen3` reasoning parser).
        THINK_MAY_START_OPEN.ends_unclosed_at(&[TOOL_CALL_OPEN], &[&[FUNCTION_OPEN]]),
        // `<tool_call>` / `</tool_call>` quoted in a value's text are not the block's tags.
        Rule::call(TOOL_CALL_OPEN, Close::Marker(TOOL_CALL_CLOSE))
            .lenient()
            .markup_body(),
        Rule::call(FUNCTION_OPEN, Close::Marker(FUNCTION_CLOSE)).lenient(),
        // Also where the model stops: what a raw completion writes after it is not read.
        Rule::end_of_turn("<|im_end|>").ends_reply(),
        // Seed-OSS writes the same functions inside its own block: that block is Seed-OSS's, so
        // auto-detect does not see a second reading of the reply (and named, it says why).
        Rule::call(crate::seed_oss::OPEN, Close::Marker(crate::seed_oss::CLOSE)).lenient(),
        Rule::end_of_turn("<|endoftext|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Qwen3Coder;

impl Protocol for Qwen3Coder {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Qwen3-Coder XML <function=…><parameter=…>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out =
            String::from("# Tools\n\nYou have access to the following functions:\n\n<tools>");
        for definition in function_definitions(tools) {
            render_function(&definition["function"], &mut out);
        }
        out.push_str(
            "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format \
             with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n\
             <parameter=example_parameter_1>\nvalue_1\n</parameter>\n\
             <parameter=example_parameter_2>\nThis is the value for the second parameter\n\
             that can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n\
             <IMPORTANT>\nReminder:\n\
             - Function calls MUST follow the specified format: an inner <function=...></function> \
             block must be nested within <tool_call></tool_call> XML tags\n\
             - Required parameters MUST be specified\n\
             - You may provide optional reasoning for your function call in natural language \
             BEFORE the function call, but NOT after\n\
             - If there is no function call available, answer the question like normal with your \
             current knowledge and do not tell the user about function calls\n</IMPORTANT>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let content = match result_value(result) {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.push_str("<tool_response>\n");
            out.push_str(&content);
            out.push_str("\n</tool_response>\n");
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn signature(&self) -> Signature {
        // `<parameter=` is this layout's own tag. Functionary v3.1 shares `<function=` but writes
        // JSON after it, so a bare `<function=NAME>` followed by parameters is this format's
        // even when the reply is cut off and no format reads a call: its diagnostics then say
        // what went wrong, not that the JSON is missing.
        let mut signature = framing_signature(Some(FRAMING));
        signature.markers.push(PARAMETER_OPEN);
        signature
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        match block.rule {
            TOOL_CALL_RULE => decode_tool_call(text, block, out),
            FUNCTION_RULE => {
                // The scanner ended the block at `</function>`; the body starts with the name.
                let function = Function {
                    start: block.span.start,
                    name_start: block.body.start,
                    end: block.body.end,
                    span_end: block.span.end,
                    ended_by: None,
                    cut_off: !block.complete,
                };
                if let Some(call) = decode_function(text, &function, out) {
                    push_request(out, text, block.span, ID, call, true);
                }
            }
            SEED_BLOCK_RULE => error(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "'{}' is Seed-OSS's call block, not Qwen3-Coder's; the block is skipped \
                     (parse the reply as seed_oss)",
                    crate::seed_oss::OPEN
                ),
                block.span,
            ),
            _ => {}
        }
    }
}

/// One function of the template's `<tools>` list: name, description, then each parameter with
/// its name, type, description and any other schema keys as `<key>value</key>`.
fn render_function(function: &Value, out: &mut String) {
    out.push_str("\n<function>\n<name>");
    out.push_str(function["name"].as_str().unwrap_or_default());
    out.push_str("</name>");
    if let Some(description) = function["description"].as_str() {
        out.push_str("\n<description>");
        out.push_str(description.trim());
        out.push_str("</description>");
    }
    out.push_str("\n<parameters>");
    let parameters = &function["parameters"];
    if let Some(properties) = parameters["properties"].as_object() {
        for (name, fields) in properties {
            out.push_str("\n<parameter>\n<name>");
            out.push_str(name);
            out.push_str("</name>");
            match &fields["type"] {
                Value::Null => {}
                Value::String(t) => out.push_str(&format!("\n<type>{t}</type>")),
                other => out.push_str(&format!("\n<type>{other}</type>")),
            }
            if let Some(description) = fields["description"].as_str() {
                out.push_str("\n<description>");
                out.push_str(description.trim());
                out.push_str("</description>");
            }
            extra_keys(fields, &["name", "type", "description"], out);
            out.push_str("\n</parameter>");
        }
    }
    extra_keys(parameters, &["type", "properties"], out);
    out.push_str("\n</parameters>\n</function>");
}

/// The template's `render_extra_keys`: other keys as `<key>value</key>`, objects and lists as JSON.
fn extra_keys(value: &Value, handled: &[&str], out: &mut String) {
    let Some(object) = value.as_object() else {
        return;
    };
    for (key, value) in object
        .iter()
        .filter(|(k, _)| !handled.contains(&k.as_str()))
    {
        let rendered = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push_str(&format!("\n<{key}>{rendered}</{key}>"));
    }
}

/// A `<tool_call>` block: each `<function=…>` in it is a call.
fn decode_tool_call(text: &str, block: &Block, out: &mut ParseOutput) {
    let (start, end) = (block.body.start, block.body.end);
    let truncated = !block.complete;
    let mut opens = Next::new(FUNCTION_OPEN, end);
    let mut closes = Next::new(FUNCTION_CLOSE, end);
    let mut line_opens = Next::at_line_start(FUNCTION_OPEN, end);
    let mut line_closes = Next::at_line_start(FUNCTION_CLOSE, end);
    let mut calls = Vec::new();
    let mut functions = 0;
    let mut pos = start;
    while let Some(open) = opens.from(text, pos) {
        stray_in_tool_call(text, Span::new(pos, open), false, out);
        functions += 1;
        let name_start = open + FUNCTION_OPEN.len();
        // Laid out on lines as the template writes it, a function ends at the `</function>`
        // that starts a line (values may quote the tag mid-line); else at the first one.
        let laid_out = find_byte(text, name_start, end, b'>')
            .filter(|&gt| line_follows(text, gt + 1))
            .and_then(|_| {
                let close = line_closes.from(text, name_start);
                let next = line_opens.from(text, name_start);
                close.filter(|&close| next.is_none_or(|next| close < next))
            });
        let close = laid_out.or_else(|| closes.from(text, name_start));
        let next = opens.from(text, name_start);
        let next = match laid_out {
            Some(_) => line_opens.from(text, name_start),
            None => next,
        };
        // `</function>` ends it, unless another function starts first.
        let close = close.filter(|&close| next.is_none_or(|next| close < next));
        let function = match (close, next) {
            (Some(close), _) => Function {
                start: open,
                name_start,
                end: close,
                span_end: close + FUNCTION_CLOSE.len(),
                ended_by: None,
                cut_off: false,
            },
            (_, Some(next)) => Function {
                start: open,
                name_start,
                end: next,
                span_end: next,
                ended_by: Some("the next '<function='"),
                cut_off: false,
            },
            (None, None) => Function {
                start: open,
                name_start,
                end,
                span_end: end,
                // Cut off by the end of the reply: the scanner already said so.
                ended_by: (!truncated).then_some(
                    if text
                        .get(end..)
                        .is_some_and(|rest| rest.starts_with(TOOL_CALL_CLOSE))
                    {
                        "'</tool_call>'"
                    } else {
                        // The scanner ended the block at an end-of-turn token.
                        "the end of the turn"
                    },
                ),
                cut_off: truncated,
            },
        };
        if let Some(ended_by) = function.ended_by {
            warning(
                out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "'{FUNCTION_OPEN}…>' is not closed by '{FUNCTION_CLOSE}'; read up to {ended_by}"
                ),
                Span::new(function.start, function.end),
            );
        }
        pos = function.span_end;
        if let Some(call) = decode_function(text, &function, out) {
            calls.push((call, Span::new(function.start, function.span_end)));
        }
    }
    if functions == 0 {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("the {TOOL_CALL_OPEN} holds no '{FUNCTION_OPEN}NAME>'; the call is skipped"),
            block.span,
        );
        return;
    }
    stray_in_tool_call(text, Span::new(pos, end), truncated, out);
    // One function: the request is the whole block, as in the other tag formats.
    let whole = functions == 1;
    for (call, span) in calls {
        let span = if whole { block.span } else { span };
        push_request(out, text, span, ID, call, true);
    }
}

/// Text in a `<tool_call>` outside its functions is ignored, with a warning unless it is only
/// layout (or the start of `</tool_call>` where the reply ends).
fn stray_in_tool_call(text: &str, span: Span, at_cut_end: bool, out: &mut ParseOutput) {
    let stray = text.get(span.start..span.end).unwrap_or_default().trim();
    if stray.is_empty() || (at_cut_end && TOOL_CALL_CLOSE.starts_with(stray)) {
        return;
    }
    warning(
        out,
        DiagnosticCode::StrayText,
        format!(
            "text in the {TOOL_CALL_OPEN} outside '{FUNCTION_OPEN}…>' is ignored: '{}'",
            preview(stray)
        ),
        span,
    );
}

mod function;

#[cfg(test)]
mod tests;
