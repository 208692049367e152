//! dots (rednote-hilab's dots.llm family): XML invocations, or one JSON call object, in a
//! `<dots_function_call>` block.
//!
//! ```text
//! <dots_function_call>
//! <invoke name="NAME">
//! <parameter name="KEY">VALUE</parameter>
//! </invoke>
//! <invoke name="OTHER">…</invoke>
//! </dots_function_call>
//! <dots_function_call>{"name": "NAME", "arguments": {…}}</dots_function_call>
//! ```
//!
//! Follows vLLM's `dots` parser (`vllm/tool_parsers/dots_tool_parser.py`, tests
//! `tests/tool_parsers/test_dots_tool_parser.py`) and SGLang's `DotsToolDetector`
//! (`python/sglang/srt/function_call/dots_detector.py`), which agree: a reply may hold several
//! blocks, a block several invocations, each a call; a block whose body does not start with
//! `<invoke` is read as one JSON call object (`arguments`, or `parameters`, holding the
//! arguments). Names and parameter names may be quoted or not (`name=search`). Values are text
//! with the whitespace around them removed (as the references' `.strip()`), so requests are
//! untyped and the engine types them from the method's schema. Reasoning is Qwen3's `<think>`
//! (SGLang registers the Qwen3 reasoning detector for `dots`, forced open): a `</think>` before
//! any `<think>` ends reasoning that began at the reply's start, calls drafted there included.
//! The layout is MiniMax-M2's with another wrapper, so the shared `xml_markup` scanner reads it.
//!
//! Deliberate differences:
//! - the references keep only calls to tools the request defines (an unknown name leaves the
//!   block as content); a parser here has no tool list, so every call is kept and the engine's
//!   strict mode drops calls to undefined tools;
//! - a block the reply ends in is still decoded (marked incomplete, with a warning), as the
//!   other XML formats here do; the references need `</dots_function_call>` (vLLM streams a
//!   complete JSON body before it);
//! - a block body that is a JSON list of call objects gives a call per element (the references
//!   reject anything but one object);
//! - a broken call is reported, not turned back into content; its neighbours are kept. A
//!   block with no `<invoke` and no JSON in it is prose quoting the marker: a warning, no call.
//!
//! The model's chat template was not available to follow: tools are presented as JSON in
//! `<tools>` with the block layout above, and results go back as `<tool_response>` elements.

use crate::calls::{push_json_calls, warning};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::minimax_m2;
use crate::prompt::tools_in_xml_tags;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, push_untyped, result_text, Markup};
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<dots_function_call>";
pub const CLOSE: &str = "</dots_function_call>";

const FRAMING: Framing = Framing {
    rules: &[
        // SGLang reads dots reasoning with the Qwen3 detector, forced open: the reply may
        // start inside the reasoning.
        THINK_MAY_START_OPEN,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
    ],
};

/// MiniMax-M2's invokes, in dots' own block.
const MARKUP: Markup = Markup {
    block: OPEN,
    ..minimax_m2::MARKUP
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Dots;

impl Protocol for Dots {
    fn id(&self) -> &'static str {
        "dots"
    }

    fn label(&self) -> &'static str {
        "dots.llm <dots_function_call> XML or JSON"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_in_xml_tags(tools);
        out.push_str(
            "To call functions, write them inside <dots_function_call></dots_function_call> \
             tags, one <invoke> element per call:\n<dots_function_call>\n\
             <invoke name=\"function-name\">\n\
             <parameter name=\"param-name\">param-value</parameter>\n</invoke>\n\
             </dots_function_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            out.push_str("<tool_response>\n");
            out.push_str(&result_text(result));
            out.push_str("\n</tool_response>\n");
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let trimmed = body.trim();
        // The references' fallback: a body that is not `<invoke …>` markup is a JSON call.
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            let start = block.body.start + (body.len() - body.trim_start().len());
            let span = Span::new(start, start + trimmed.len());
            push_json_calls(out, text, span, block.span, self.id(), "the call object");
            return;
        }
        // The references give such a block back as content: text that quotes the marker.
        if !trimmed.contains(MARKUP.invoke_open) {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!("the {OPEN} block holds no call; its text is read as prose"),
                block.span,
            );
            return;
        }
        for invoke in decode_invokes(text, block, &MARKUP, out) {
            push_untyped(out, text, invoke.span, self.id(), &invoke);
        }
    }
}
