//! Functionary v3.1 (Llama 3.1 based): `<function=NAME>{"arg": …}</function>`.
//!
//! MeetKai's template lists the functions in the system turn and asks for one
//! `<function=name>{json arguments}</function>` per call; results come back in `ipython` turns
//! like Llama 3.1's.

use crate::calls::{error, push_named_call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<function=";
pub const CLOSE: &str = "</function>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
        Rule::token("<|eom_id|>"),
        Rule::token("<|eot_id|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionaryV31;

impl Protocol for FunctionaryV31 {
    fn id(&self) -> &'static str {
        "functionary_v31"
    }

    fn label(&self) -> &'static str {
        "Functionary v3.1 <function=name>{…}</function>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("You have access to the following functions:\n\n");
        for definition in function_definitions(tools) {
            let f = &definition["function"];
            out.push_str(&format!(
                "Use the function '{}' to '{}'\n{}\n\n",
                f["name"].as_str().unwrap_or_default(),
                f["description"].as_str().unwrap_or_default(),
                f
            ));
        }
        out.push_str(
            "If you choose to call a function ONLY reply in the following format:\n\
             <function=example_function_name>{\"example_name\": \"example_value\"}</function>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start_header_id|>ipython<|end_header_id|>\n\n{}<|eot_id|>",
                result_value(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = &text[block.body.start..block.body.end];
        let Some(gt) = body.find('>') else {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{OPEN} is not followed by name>; the call is skipped"),
                block.span,
            );
            return;
        };
        let name = body[..gt].trim();
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{OPEN}> has no function name; the call is skipped"),
                block.span,
            );
            return;
        }
        let json = Span::new(block.body.start + gt + 1, block.body.end);
        push_named_call(out, text, block.span, json, self.id(), name, None);
    }
}
