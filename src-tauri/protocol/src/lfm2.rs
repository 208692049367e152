//! Liquid LFM2: `<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>`.
//!
//! LFM2 writes a pythonic call list between its own tokens (the list is read by
//! [`super::pythonic::push_call_list`]); tools are listed as JSON between `<|tool_list_start|>`
//! and `<|tool_list_end|>`, and results come back between `<|tool_response_start|>` and
//! `<|tool_response_end|>`.

use crate::calls::error;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_objects, result_value};
use crate::pythonic::push_call_list;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_START: &str = "<|tool_call_start|>";
pub const CALL_END: &str = "<|tool_call_end|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_START, Close::Marker(CALL_END)).lenient(),
        Rule::token("<|im_end|>"),
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
        let body = &text[block.body.start..block.body.end];
        let lead = body.len() - body.trim_start().len();
        let trimmed = body.trim();
        let list = Span::new(
            block.body.start + lead,
            block.body.start + lead + trimmed.len(),
        );
        if !trimmed.starts_with('[') {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!("{CALL_START} must be followed by a Python list of calls, [f(a=1)]; the block is skipped"),
                block.span,
            );
            return;
        }
        push_call_list(out, text, list, block.span, self.id());
    }
}
