//! GLM-4.5 / GLM-4.6 / GLM-4.7 (Zhipu): a call is the tool's name and key/value pairs in
//! `<tool_call>`.
//!
//! ```text
//! <tool_call>NAME
//! <arg_key>KEY</arg_key>
//! <arg_value>VALUE</arg_value>
//! </tool_call>
//! ```
//!
//! One call per block; GLM-4.7 drops the newline after the name, so the name ends at the first
//! newline or `<`, and after the name or between `</arg_key>` and `<arg_value>` it sometimes
//! writes the two characters `\n` instead of a newline (vLLM's `glm47` parser allows them
//! between the tags; its `ling3` test and SGLang's `Ling3Detector` after the name). The pairs
//! are read by the shared [`crate::arg_pairs`] reader with GLM's rules ([`crate::arg_pairs::GLM`]). The template writes
//! string values as they are and other values as JSON, so every value is kept as text (requests
//! are untyped) and the engine types them from the method's schema, or reads JSON and Python
//! literals without one (`coerce::ValueTyping::GLM`); whitespace around a value is removed (as
//! vLLM's and SGLang's `.strip()`), and XML entities are not decoded (the template does not
//! escape).
//!
//! A `<tool_call>` the reply ends in (cut off by `max_tokens`, no `</tool_call>`) is reported
//! and gives no call, as in vLLM's and SGLang's GLM parsers: the template always closes it.
//!
//! Reasoning is in `<think>`. GLM-4.7's template opens `<think>` in the prompt, and vLLM reads
//! GLM replies with its DeepSeek-R1-style reasoning parser, so a `</think>` before any `<think>`
//! ends reasoning that began at the reply's start (`THINK_MAY_START_OPEN`): calls drafted in it
//! are not calls. Reasoning that is never closed ends at the first `<tool_call>`: vLLM's GLM-4.7
//! parser engine (`glm47_moe_config`, reused by its Ling3 parser, whose doc calls `<tool_call>`
//! an implicit reasoning terminator) ends reasoning at the call token, and its GLM-4.5 reasoning
//! parser gives an unclosed `<think>` to the content, where the tool parser reads the call; so
//! every GLM reference reads that call, and Ling 3 stays an alias.
//!
//! The tag is hermes's (and qwen3-coder's): a JSON or `<function=` body is reported as such, so
//! auto-detect (which keeps the candidate without errors) tells them apart. For the same reason
//! the start of a block is read strictly: a name with spaces, quotes or braces (GLM-5.3-Flash's
//! `NAME>{…}` JSON layout, which `glm53_flash` reads) or without a letter or digit,
//! or text before the first key/value pair, is an error that skips the call, so prose
//! mentioning `<tool_call>` never becomes a call. Once a pair has been read the block is GLM's,
//! and other text between pairs is ignored with a warning, as the reference parsers ignore it.
//! Tools are listed as JSON in `<tools>`; results go back as `<tool_response>` elements of an
//! `<|observation|>` turn.

use serde_json::Map;

use crate::arg_pairs::{CallContext, PairReader, GLM, LITERAL_NEWLINE};
use crate::calls::{error, push_request, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::hermes::{CALL_CLOSE, CALL_OPEN};
use crate::prompt::tools_in_xml_tags;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{insert_arg, result_text};
use crate::{Protocol, ToolDefinitionInput};

const KEY_OPEN: &str = GLM.key_open;
const VALUE_OPEN: &str = GLM.value_open;

const FRAMING: Framing = Framing {
    rules: &[
        // Reasoning that is never closed ends at a `<tool_call>`: vLLM's GLM-4.7 parser engine
        // (`glm47_moe_config`, which its `ling3` parser reuses) ends reasoning at the call
        // token, and its GLM-4.5 reasoning parser makes an unclosed `<think>` all content, so
        // the call is read either way.
        THINK_MAY_START_OPEN.ends_unclosed_at(&[CALL_OPEN], &[]),
        // Not lenient: a block the reply ends in gives no call, as in vLLM
        // (`test_glm4_moe_tool_parser.py` `test_extract_tool_calls_incomplete_tool_call`) and
        // SGLang (`glm4_moe_detector.py` needs `</tool_call>`).
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Glm45;

impl Protocol for Glm45 {
    fn id(&self) -> &'static str {
        "glm45"
    }

    fn label(&self) -> &'static str {
        "GLM-4.5 / 4.6 / 4.7 <tool_call> with <arg_key>/<arg_value>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_in_xml_tags(tools);
        out.push_str(
            "For each function call, output the function name and arguments within \
             the following XML format:\n<tool_call>{function-name}\n\
             <arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n\
             <arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n...\n\
             </tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<|observation|>");
        for result in results {
            out.push_str(&format!(
                "\n<tool_response>\n{}\n</tool_response>",
                result_text(result)
            ));
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = block.body_text(text);
        let lead = body.len() - body.trim_start().len();
        let start = block.body.start + lead;
        let rest = body.trim_start();
        let trimmed = Span::new(start, block.body.start + body.trim_end().len().max(lead));
        if rest.starts_with('{') || rest.starts_with('[') {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the {CALL_OPEN} body is JSON, which is the hermes format; GLM-4.5 writes the \
                     tool's name, then {KEY_OPEN}/{VALUE_OPEN} pairs; the call is skipped"
                ),
                trimmed,
            );
            return;
        }
        if rest.starts_with("<function=") {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the {CALL_OPEN} body is qwen3-coder's <function=…> markup; GLM-4.5 writes \
                     the tool's name, then {KEY_OPEN}/{VALUE_OPEN} pairs; the call is skipped"
                ),
                trimmed,
            );
            return;
        }
        // The name ends at a newline, a tag, or GLM-4.7's two characters `\n` (vLLM's Ling3 test
        // `test_ling3_tool_call_name_separator[\\n]`, SGLang's `Ling3Detector` regex).
        let name_len = [rest.find(['\n', '<']), rest.find(LITERAL_NEWLINE)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(rest.len());
        let name = rest[..name_len].trim();
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not start with a tool name; it is skipped"),
                block.span,
            );
            return;
        }
        // Prose that mentions the tag ("<tool_call> followed by …") must not become a call.
        // A name is one word with a letter or digit in it: `<tool_call> ... </tool_call>`
        // quoted in prose (or in another format's argument) is not a call of `...`.
        // Nor is GLM-5.3-Flash's `name>{…}` JSON layout a name with braces in it.
        if name.contains(char::is_whitespace)
            || name.contains(['>', '{', '}', '"'])
            || !name.contains(char::is_alphanumeric)
        {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {CALL_OPEN} block starts with '{name}', which is not a tool name; it is \
                     skipped"
                ),
                Span::new(start, start + name.len()),
            );
            return;
        }
        let Some(args) = pairs(text, start + name_len, end, block.complete, name, out) else {
            return;
        };
        push_request(
            out,
            text,
            block.span,
            self.id(),
            Call {
                name: name.to_owned(),
                args,
                id: None,
            },
            true,
        );
    }
}

/// The `<arg_key>`/`<arg_value>` pairs in `text[from..end]`; `None` (with an error) when one is
/// broken, because a call with a doubtful argument must not run.
pub fn pairs(
    text: &str,
    from: usize,
    end: usize,
    complete: bool,
    name: &str,
    out: &mut ParseOutput,
) -> Option<Map<String, serde_json::Value>> {
    let mut args = Map::new();
    let call = CallContext {
        name,
        close: CALL_CLOSE,
        complete,
    };
    let read = PairReader::new(text, end, GLM).read_all(from, call, out, |pair, out| {
        let value = serde_json::Value::String(pair.value.to_owned());
        insert_arg(&mut args, pair.key, value, pair.span, name, out);
    });
    read.then_some(args)
}

#[cfg(test)]
mod tests;
