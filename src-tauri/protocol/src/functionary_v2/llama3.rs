//! Functionary v2 on Llama 3 (`functionary-small-v2.5`, `functionary-medium-v2.5`): text, then
//! `<|reserved_special_token_249|>NAME\n{…}` per call, before `<|eot_id|>`.
//!
//! Reference: MeetKai/functionary `functionary/prompt_template/llama3_prompt_template.py`
//! (`Llama3Template.parse_assistant_response`), its chat template
//! `functionary/prompt_template/jinja_templates/v2.llama3.txt` and
//! `tests/prompt_test_v2.llama3.txt`. The reply's text comes first, with no recipient; each
//! call follows a `<|reserved_special_token_249|>` separator (the function's name, a line
//! break, the JSON arguments) and runs to the next separator or the end of the turn
//! (`<|eot_id|>` or `<|end_of_text|>`). `python` may be followed by raw code, which becomes
//! `{"code": …}` as in [`super`]. Results go back as Llama 3 `tool` turns, `name=NAME` then
//! the content. A format of its own beside `functionary_v2`: the same models' family, but not
//! one token in common, and neither `functionary_v31` nor `functionary_v32` reads it.
//!
//! Deliberate differences: a separator whose name has no line break after it is reported (the
//! reference cuts the name's last character off and takes the whole chunk as arguments), and so
//! is a name with spaces in it. `<think>` is reasoning (the project's rule). The function
//! definitions are those of [`super`].

use crate::calls::error;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::each_result;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const SEPARATOR: &str = "<|reserved_special_token_249|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(SEPARATOR, Close::UntilNext),
        Rule::end_of_turn("<|eot_id|>"),
        Rule::end_of_turn("<|end_of_text|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionaryV2Llama3;

impl Protocol for FunctionaryV2Llama3 {
    fn id(&self) -> &'static str {
        "functionary_v2_llama3"
    }

    fn label(&self) -> &'static str {
        "Functionary v2.5 (Llama 3) <|reserved_special_token_249|>name"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        super::namespace(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start_header_id|>tool<|end_header_id|>\n\nname={}\n{}<|eot_id|>",
                r.tool_name,
                super::result_text(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let Some(nl) = body.find('\n') else {
            error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!(
                    "{SEPARATOR}{} has no line break before its arguments; the call is skipped",
                    body.trim()
                ),
                block.span,
            );
            return;
        };
        let name = body[..nl].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{SEPARATOR} must be followed by a function name on its own line; the block is skipped"),
                block.span,
            );
            return;
        }
        let args = Span::new(block.body.start + nl + 1, block.body.end);
        super::push_call(out, text, block.span, args, self.id(), name);
    }
}
