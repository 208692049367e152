//! StepFun Step-Audio 2: a `<tool_call>` block holding the call's type, its name and its JSON
//! arguments, one per line.
//!
//! ```text
//! <tool_call>function
//! get_weather
//! {"location": "shanghai"}</tool_call>
//! ```
//!
//! Follows vLLM's `step_audio_2` parser (`vllm/tool_parsers/step_audio_2_tool_parser.py`,
//! `StepAudio2ToolParser`): the body splits at its first two line breaks into the type
//! (`function`), the name and the arguments, which must be JSON; text before the first block is
//! content. A block the reply ends in gives no call, as in the reference.
//!
//! The tag is hermes's (and glm45's, qwen3_coder's): a body whose first line is not `function`
//! is reported and gives no call, so auto-detect (which keeps the candidate without errors)
//! leaves those replies to their formats, and their replies never parse as calls here.
//!
//! Deliberate differences from the reference:
//! - the reference drops calls to tools the request does not define; a parser here has no tool
//!   list, so every call is kept and the engine's strict mode drops unknown tools;
//! - a bad block is reported and skipped, its neighbours kept (as in the reference), and text
//!   after the calls is content (the reference appends only the text after the last block);
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording.

use crate::calls::{error, push_named_call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::hermes::{CALL_CLOSE, CALL_OPEN};
use crate::prompt::schema_lines;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

/// The call type the model writes on the block's first line.
const CALL_TYPE: &str = "function";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).json_body(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct StepAudio2;

impl Protocol for StepAudio2 {
    fn id(&self) -> &'static str {
        "step_audio2"
    }

    fn label(&self) -> &'static str {
        "Step-Audio 2 <tool_call>function\\nNAME\\n{…}</tool_call>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = schema_lines(tools);
        out.push_str(&format!(
            "\nWrite each call as:\n{CALL_OPEN}{CALL_TYPE}\nfunction-name\n{{\"key\": \"value\"}}\
             {CALL_CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        results
            .iter()
            .map(|result| format!("<tool_response>{}</tool_response>\n", result_text(result)))
            .collect()
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let start = block.body.start;
        let end = block.body.end.min(text.len());
        let body = text.get(start..end).unwrap_or_default();
        let Some(type_end) = body.find('\n') else {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {CALL_OPEN} block is not '{CALL_TYPE}', a name and JSON arguments on \
                     their own lines; it is skipped"
                ),
                block.span,
            );
            return;
        };
        let call_type = body[..type_end].trim();
        if call_type != CALL_TYPE {
            let preview: String = call_type.chars().take(40).collect();
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the {CALL_OPEN} block starts with '{preview}', not '{CALL_TYPE}' and a \
                     name line; it is skipped"
                ),
                block.span,
            );
            return;
        }
        let rest = &body[type_end + 1..];
        let Some(name_end) = rest.find('\n') else {
            error(
                out,
                DiagnosticCode::UnclosedValue,
                format!(
                    "the {CALL_OPEN} block has no arguments line after the name; it is skipped"
                ),
                block.span,
            );
            return;
        };
        let name = rest[..name_end].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not name a tool ('{name}'); it is skipped"),
                block.span,
            );
            return;
        }
        let json_start = start + type_end + 1 + name_end + 1;
        push_named_call(
            out,
            text,
            block.span,
            Span::new(json_start, end),
            self.id(),
            name,
            None,
        );
    }
}
