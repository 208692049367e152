//! Mistral (tokenizers before v11: Mistral 7B v0.3, Mixtral 8x22B, Mistral Small/Large 2):
//! `[TOOL_CALLS] [{"name": …, "arguments": {…}, "id": …}, …]`; and, as the reference parsers'
//! single `mistral` parser does, the v11+ compact form `[TOOL_CALLS]name[ARGS]{…}` /
//! `[TOOL_CALLS]name{…}` (vLLM `vllm/tool_parsers/mistral_tool_parser.py` picks the form by the
//! tokenizer's version, SGLang's `MistralDetector.detect_and_parse` by the text; we go by the
//! text). The compact form is decoded by [`crate::mistral_v11`], which names it alone.
//!
//! Tools are offered as `[AVAILABLE_TOOLS] [...] [/AVAILABLE_TOOLS]` and results come back as
//! `[TOOL_RESULTS] {"call_id": …, "content": …} [/TOOL_RESULTS]`. Magistral's reasoning sits
//! in `[THINK]…[/THINK]`, which is never parsed. Each call of the list gets its own span.

use serde_json::json;

use crate::balanced::{value_end, Syntax};
use crate::calls::{find_marker_in, push_json_calls};
use crate::framing::{Block, Framing};
use crate::prompt::{function_definitions, result_value};
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const TOOL_CALLS: &str = "[TOOL_CALLS]";
pub const THINK_OPEN: &str = "[THINK]";
pub const THINK_CLOSE: &str = "[/THINK]";

/// `[AVAILABLE_TOOLS] … [/AVAILABLE_TOOLS]`, shared with the v11 format.
pub fn available_tools(tools: &[ToolDefinitionInput]) -> String {
    let list = serde_json::Value::Array(function_definitions(tools));
    format!("[AVAILABLE_TOOLS] {list}[/AVAILABLE_TOOLS]")
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Mistral;

impl Protocol for Mistral {
    fn id(&self) -> &'static str {
        "mistral"
    }

    fn label(&self) -> &'static str {
        "Mistral [TOOL_CALLS] JSON list"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        available_tools(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let body = json!({"call_id": result.request_id, "content": result_value(result)});
            out.push_str(&format!("[TOOL_RESULTS] {body}[/TOOL_RESULTS]"));
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        // v11's framing: a value right after the marker is the list form, a name the compact one.
        Some(crate::mistral_v11::FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let value = body.trim_start();
        if value.starts_with(['[', '{']) {
            let start = block.body.start + (body.len() - value.len());
            let list = Span::new(start, block.body.end);
            push_json_calls(
                out,
                text,
                list,
                block.span,
                self.id(),
                "the list after [TOOL_CALLS]",
            );
        } else if let Some((at, end)) = junk_before_call_object(body) {
            // vLLM's pre-v11 regex fallback (`test_extract_tool_calls_pre_v11_regex_fallback`):
            // text that cannot be a function name before `[{…}]` is skipped and the call
            // object read.
            let object = Span::new(block.body.start + at, block.body.start + end);
            push_json_calls(
                out,
                text,
                object,
                block.span,
                self.id(),
                "the list after [TOOL_CALLS]",
            );
        } else {
            crate::mistral_v11::decode_compact(self.id(), text, block, out);
        }
    }

    fn signature(&self) -> crate::detect::Signature {
        // Auto-detect's evidence is the list form: the marker, any whitespace, then `[` or
        // `{` (vLLM strips the text after the marker before decoding it, llama.cpp's JSON
        // reader skips leading whitespace, so `[TOOL_CALLS]  [` is as much the list form as
        // `[TOOL_CALLS] [`). The compact form (a name after the marker) is `mistral_v11`'s,
        // which reads it alone, so a v11 reply is not also named as this format.
        crate::detect::Signature {
            before_value: vec![TOOL_CALLS],
            ..crate::detect::Signature::default()
        }
    }
}

/// Where the call object starts when words, not a function name, stand between `[TOOL_CALLS]`
/// and a list `[{"name": …}]` (`[TOOL_CALLS]  junk [{"name": …}]`: a compact call's arguments
/// follow its name directly); `None` for the compact form (`name{…}`, `name[ARGS]{…}`).
fn junk_before_call_object(body: &str) -> Option<(usize, usize)> {
    if find_marker_in(body, crate::mistral_v11::ARGS).is_some() {
        return None;
    }
    let at = body.find('{')?;
    let words = body[..at].trim_end().strip_suffix('[')?;
    let object = body[at + 1..].trim_start();
    if words.trim().is_empty() || !object.starts_with("\"name\"") {
        return None;
    }
    // The object alone: the list's `]` and any text after it are not part of it.
    let end = value_end(Syntax::Json, body.as_bytes(), at)?;
    Some((at, end))
}
