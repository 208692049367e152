//! Liquid LFM2 / LFM2.5: `<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>`.
//!
//! Follows vLLM's `lfm2` tool parser, SGLang's `Lfm2Detector` and llama.cpp's LFM2 handling
//! (`COMMON_CHAT_FORMAT_LFM2_WITH_JSON_TOOLS`, `models/templates/llama-cpp-lfm2.jinja`). LFM2
//! writes a pythonic call list between its own tokens (read by
//! [`super::pythonic::push_call_list`], so `True` and `true` alike become JSON `true`); when
//! the system prompt asks for JSON it writes `[{"name": …, "arguments": {…}}]` there instead,
//! possibly pretty-printed, which is read as JSON calls. Text before and after the block is
//! content (LFM2.5 comments after its calls). Tools are listed as JSON between
//! `<|tool_list_start|>` and `<|tool_list_end|>`, and results come back between
//! `<|tool_response_start|>` and `<|tool_response_end|>`.
//!
//! MiniCPM3 uses the same two tokens (OpenBMB/MiniCPM `demo/minicpm3/function_call`, its
//! `minicpm_tool_parser.py` registered as vLLM parser `minicpm`): between them it writes Python
//! call statements, one per line, usually in a Markdown fence (```` ```python ```` … ```` ``` ````)
//! that its parser strips before `ast.parse`; its reasoning sits between `<|thought_start|>` and
//! `<|thought_end|>`. Both are read here: a fenced body is the call lines inside the fence, and
//! the thought tokens are reasoning. LFM2 never writes either, so its replies read as before.
//!
//! Deliberate differences: a bare call without the list brackets (`<|tool_call_start|>f(a=1)`),
//! which SGLang accepts, is read too; calls are kept whatever their name (SGLang drops names
//! not in the request's tools: the workbench reports unknown tools instead); a call with a
//! positional argument is reported and skipped rather than dropped silently.

use crate::calls::{error, push_json_calls};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::pylines::push_call_lines;
use crate::pylit;
use crate::pythonic::push_call_list;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_START: &str = "<|tool_call_start|>";
pub const CALL_END: &str = "<|tool_call_end|>";

/// MiniCPM3's reasoning tokens.
pub const THOUGHT_START: &str = "<|thought_start|>";
pub const THOUGHT_END: &str = "<|thought_end|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_START, Close::Marker(CALL_END)).lenient(),
        Rule::token("<|im_end|>"),
        Rule::reasoning(THOUGHT_START, THOUGHT_END),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Lfm2;

impl Protocol for Lfm2 {
    fn id(&self) -> &'static str {
        "lfm2"
    }

    fn label(&self) -> &'static str {
        "Liquid LFM2 <|tool_call_start|>[f(…)]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = function_objects(tools);
        format!(
            "List of tools: <|tool_list_start|>{}<|tool_list_end|>",
            list
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|im_start|>tool\n<|tool_response_start|>{}<|tool_response_end|><|im_end|>\n",
                result_value(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        if let Some(code) = fenced_code(body) {
            // MiniCPM3: Python call statements in a Markdown fence.
            let code = Span::new(block.body.start + code.start, block.body.start + code.end);
            push_call_lines(out, text, code, self.id(), pylit::Options::AST_KEYWORDS);
            return;
        }
        let lead = body.len() - body.trim_start().len();
        let trimmed = body.trim();
        let list = Span::new(
            block.body.start + lead,
            block.body.start + lead + trimmed.len(),
        );
        // JSON mode: the list holds objects (`[{"name"…`), as all three references check first.
        let json_mode = trimmed.starts_with('{')
            || trimmed
                .strip_prefix('[')
                .is_some_and(|rest| rest.trim_start().starts_with('{'));
        if json_mode {
            push_json_calls(out, text, list, block.span, self.id(), "the JSON call list");
        } else if trimmed.starts_with('[') {
            push_call_list(out, text, list, block.span, self.id());
        } else if trimmed.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            push_call_lines(out, text, list, self.id(), pylit::Options::AST_KEYWORDS);
        } else {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "{CALL_START} must be followed by a Python list of calls, [f(a=1)], or a \
                     JSON list of calls; the block is skipped"
                ),
                block.span,
            );
        }
    }
}

/// The code inside a Markdown fence that is the whole of `body` (whitespace around it allowed):
/// ```` ``` ```` with an optional `python` (or `py`) language tag, up to a closing ```` ``` ````
/// or the body's end (a cut-off reply), as an offset range into `body`. `None` when the body does
/// not start with a fence. MiniCPM3's parser strips the same fence before reading the calls.
fn fenced_code(body: &str) -> Option<std::ops::Range<usize>> {
    let lead = body.len() - body.trim_start().len();
    let after_ticks = body[lead..].strip_prefix("```")?;
    let mut start = body.len() - after_ticks.len();
    for tag in ["python", "py"] {
        if let Some(rest) = after_ticks.strip_prefix(tag) {
            if rest.starts_with(|c: char| c.is_whitespace()) {
                start += tag.len();
            }
            break;
        }
    }
    let inner = &body[start..];
    let trimmed_end = inner.trim_end();
    let end = start + trimmed_end.strip_suffix("```").unwrap_or(trimmed_end).len();
    Some(start..end.max(start))
}
