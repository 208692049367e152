//! Sber GigaChat 3 / 3.1: one JSON call `{"name": …, "arguments": {…}}` after a role header,
//! `function call<|role_sep|>\n` (GigaChat 3, following the assistant's `<|message_sep|>`) or the
//! `<|function_call|>` token (GigaChat 3.1).
//!
//! ```text
//! I'll check that.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Paris"}}
//! ```
//!
//! Follows vLLM's `gigachat3` tool parser (`vllm/tool_parsers/gigachat3_tool_parser.py`, tests
//! `tests/tool_parsers/test_gigachat3_tool_parser.py`) and the GigaChat 3 chat template (llama.cpp
//! `models/templates/GigaChat3-10B-A1.8B.jinja`): every turn is `ROLE<|role_sep|>\nTEXT
//! <|message_sep|>\n\n`; tools are declared in a `function descriptions` turn as a TypeScript
//! `namespace functions`, and each result comes back in a `function result` turn. `</s>` ends
//! the reply.
//!
//! Deliberate differences from vLLM:
//! - the call is the balanced JSON value after the header, so text after it is content, and a
//!   second header is a second call (vLLM reads one call, to the end of the reply);
//! - the call object may use the common variants (`parameters`, arguments as a JSON string) that
//!   the shared decoder reads; vLLM wants `arguments` as an object;
//! - a cut-off call is reported as an error (vLLM: no call, the text as content).

#[cfg(test)]
mod tests;
mod typescript;

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{each_result, function_definitions};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const ROLE_SEP: &str = "<|role_sep|>\n";
pub const MESSAGE_SEP: &str = "<|message_sep|>\n\n";
/// GigaChat 3's call header: the `function call` role.
pub const CALL_HEADER: &str = "function call<|role_sep|>";
/// GigaChat 3.1's call token.
pub const CALL_TOKEN: &str = "<|function_call|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_HEADER, JSON_VALUE),
        Rule::call(CALL_TOKEN, JSON_VALUE),
        Rule::token("<|message_sep|>"),
        Rule::token("</s>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct GigaChat3;

impl Protocol for GigaChat3 {
    fn id(&self) -> &'static str {
        "gigachat3"
    }

    fn label(&self) -> &'static str {
        "GigaChat 3 function call<|role_sep|> JSON"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut sections = vec!["namespace functions {".to_owned()];
        for definition in function_definitions(tools) {
            let f = &definition["function"];
            let mut lines: Vec<String> = f["description"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| format!("// {line}"))
                .collect();
            let name = f["name"].as_str().unwrap_or_default();
            let has_properties = f["parameters"]["properties"]
                .as_object()
                .is_some_and(|p| !p.is_empty());
            lines.push(if has_properties {
                format!(
                    "type {name} = (_: {}) => any;\n",
                    typescript::typescript(&f["parameters"], "  ")
                )
            } else {
                format!("type {name} = () => any;\n")
            });
            sections.push(lines.join("\n"));
        }
        sections.push("} // namespace functions".to_owned());
        format!(
            "function descriptions{ROLE_SEP}{}\n\n{MESSAGE_SEP}",
            sections.join("\n")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("function result{ROLE_SEP}{}{MESSAGE_SEP}", result_text(r))
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the function call",
        );
    }
}
