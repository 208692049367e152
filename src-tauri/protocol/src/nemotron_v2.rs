//! NVIDIA Nemotron Nano v2: `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>`.
//!
//! Follows llama.cpp's `COMMON_CHAT_FORMAT_NEMOTRON_V2` (`common/chat-parser.cpp`, tests in
//! `tests/test-chat.cpp`), vLLM's `nemotron_nano_v2` / `nemotron_json` tool parsers and the
//! model's chat template (`models/templates/NVIDIA-Nemotron-Nano-v2.jinja`). The template lists
//! the tools as JSON function objects in `<AVAILABLE_TOOLS>[…]</AVAILABLE_TOOLS>` in the system
//! turn, the model answers with a JSON list between `<TOOLCALL>` and `</TOOLCALL>` (after an
//! optional `<think>…</think>`), and every tool message of a turn goes back in one user turn as
//! `<TOOL_RESPONSE>[result1, result2]</TOOL_RESPONSE>`. `<SPECIAL_12>` ends a turn.
//!
//! Nemotron 3 Nano (and later Nemotron 3 models) dropped this syntax for Qwen3-Coder's
//! `<tool_call><function=…><parameter=…>` XML: their replies are the `qwen3_coder` format.
//!
//! Deliberate differences:
//! - `<think>` is reasoning, never calls or content (as llama.cpp with a reasoning format);
//!   vLLM's tool parser leaves the think block in the content.
//! - A block that is not valid JSON keeps its well-formed calls (read one by one) with a
//!   diagnostic; vLLM drops the whole reply to content, llama.cpp rejects the message.
//! - A single call object without the list (`<TOOLCALL>{…}</TOOLCALL>`) is read, as vLLM's
//!   parser wraps it; llama.cpp requires the list.
//! - A reply cut off inside `<TOOLCALL>` keeps the calls that were complete, with a warning.
//! - The template's generation prompt opens `<think>`, so a reply may start inside its thoughts
//!   and close them with a lone `</think>`: what comes before it is reasoning, as llama.cpp reads
//!   it when told thinking was forced open (`THINK_MAY_START_OPEN`).

use serde_json::Value;

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{function_objects, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const TOOL_CALL: &str = "<TOOLCALL>";
pub const TOOL_CALL_END: &str = "</TOOLCALL>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN,
        Rule::call(TOOL_CALL, Close::Marker(TOOL_CALL_END)).lenient(),
        Rule::token("<SPECIAL_12>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct NemotronV2;

impl Protocol for NemotronV2 {
    fn id(&self) -> &'static str {
        "nemotron_v2"
    }

    fn label(&self) -> &'static str {
        "NVIDIA Nemotron Nano v2 <TOOLCALL>[…]</TOOLCALL>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // The template writes each function object with `tojson`, joined by ", ".
        let listed: Vec<String> = match function_objects(tools) {
            Value::Array(objects) => objects.iter().map(Value::to_string).collect(),
            _ => Vec::new(),
        };
        format!(
            "You can use these tools to help the user when needed:\n\
             <AVAILABLE_TOOLS>[{}]</AVAILABLE_TOOLS>\n\n\
             To call tools, write:\n\
             <TOOLCALL>[{{\"name\": \"tool_name1\", \"arguments\": \"tool_args1\"}}, \
             {{\"name\": \"tool_name2\", \"arguments\": \"tool_args2\"}}]</TOOLCALL>\n\n\
             The responses come back as:\n\
             <TOOL_RESPONSE>[{{\"tool_response1\"}}, {{\"tool_response2\"}}]</TOOL_RESPONSE>\n\n\
             With the responses you may call more tools, fix failed calls, or answer the \
             user.",
            listed.join(", ")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // Consecutive tool messages share one user turn and one <TOOL_RESPONSE> list; the
        // template writes each message's content as it is (a JSON text stays JSON).
        let listed: Vec<String> = results
            .iter()
            .map(|r| match result_value(r) {
                Value::String(text) => text,
                other => other.to_string(),
            })
            .collect();
        format!(
            "<SPECIAL_11>User\n<TOOL_RESPONSE>[{}]</TOOL_RESPONSE>\n\n",
            listed.join(", ")
        )
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
            "the list in <TOOLCALL>",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ExecutionStatus;

    fn success(id: &str, result: &str) -> ToolExecutionResult {
        ToolExecutionResult {
            request_id: id.into(),
            tool_name: "t_f".into(),
            status: ExecutionStatus::Success,
            result: result.into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        }
    }

    #[test]
    fn results_share_one_tool_response_list() {
        let results = [success("a", "{\"ok\": true}"), success("b", "plain")];
        assert_eq!(
            NemotronV2.format_tool_results(&results),
            "<SPECIAL_11>User\n<TOOL_RESPONSE>[{\"ok\":true}, plain]</TOOL_RESPONSE>\n\n"
        );
    }
}
