//! Cohere Command R7B and Command A: `<|START_THINKING|>…<|END_THINKING|>` then
//! `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …, "parameters": {…}}]<|END_ACTION|>`,
//! or an answer in `<|START_RESPONSE|>…<|END_RESPONSE|>`.
//!
//! Follows llama.cpp's `COMMON_CHAT_FORMAT_COMMAND_R7B` (`common/chat.cpp` /
//! `common/chat-parser.cpp`, tests in `tests/test-chat.cpp`), vLLM's Cohere command tool parsers
//! (`cohere_command3` / `cohere_command4`, `tests/tool_parsers/test_cohere_command_tool_parser.py`)
//! and the R7B tool-use template (`models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja`;
//! Command A's template uses the same tokens). The template lists the tools as a ```json list of
//! `{"name", "description", "parameters", "responses"}` under "## Available Tools"; results
//! come back in a system turn as `<|START_TOOL_RESULT|>[{"tool_call_id", "results": {"0": …},
//! "is_error": null}]<|END_TOOL_RESULT|>`.
//!
//! The older Command R / R+ `Action: ```json` form is the `command_r` format: its framing,
//! prompt and results differ, so it is a separate module.
//!
//! Deliberate differences:
//! - The thinking block is reasoning wherever it is, never calls or content (llama.cpp only
//!   extracts it at the start, and keeps it in the content when no reasoning format is set).
//! - A bad call in the list is reported and its neighbours kept; llama.cpp rejects the whole
//!   message. A reply cut off inside the action keeps the calls that were complete.
//! - Grounding spans (`<co>…</co: 0:[1]>`) stay in the content as written; vLLM's Melody filter
//!   strips them. They never hold calls.

use serde_json::{json, Value};

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{function_objects, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const START_ACTION: &str = "<|START_ACTION|>";
pub const END_ACTION: &str = "<|END_ACTION|>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<|START_THINKING|>", "<|END_THINKING|>"),
        Rule::call(START_ACTION, Close::Marker(END_ACTION)).lenient(),
        Rule::token("<|START_RESPONSE|>"),
        Rule::token("<|END_RESPONSE|>"),
        Rule::token("<|START_TEXT|>"),
        Rule::token("<|END_TEXT|>"),
        Rule::token("<|END_OF_TURN_TOKEN|>"),
    ],
};

/// The template's tool-use loop (its "## Tool Use" section: plan, act, observe, reflect,
/// respond), in our words: the same steps and the same tokens.
const TOOL_USE: &str = "## Tool Use\n\
Plan how to use the tools, then carry the plan out.\n\n\
0. Plan: write <|START_THINKING|>, a step-by-step plan naming the tool calls you need, then \
<|END_THINKING|>. Skip this when the answer needs no tools.\n\
1. Action: write <|START_ACTION|>, a JSON list of tool calls, each with \"tool_name\" and \
\"parameters\" fields (list independent calls together), then <|END_ACTION|>.\n\
2. Observation: the results come back in the next turn as JSON between <|START_TOOL_RESULT|> \
and <|END_TOOL_RESULT|>, each linked to its call by \"tool_call_id\". Never invent results.\n\
3. Reflection: start the next turn with <|START_THINKING|>, what you learned and what you will \
do next, then <|END_THINKING|>.\n\
Repeat steps 1 to 3 as often as needed (possibly never).\n\n\
4. Response: write <|START_RESPONSE|>, your answer to the user's last request, then \
<|END_RESPONSE|>.\n";

#[derive(Debug, Clone, Copy, Default)]
pub struct CommandA;

impl Protocol for CommandA {
    fn id(&self) -> &'static str {
        "command_a"
    }

    fn label(&self) -> &'static str {
        "Cohere Command R7B / Command A <|START_ACTION|>[…]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let Value::Array(functions) = function_objects(tools) else {
            return String::new();
        };
        // One tool per line, as the template writes them, with "responses": null.
        let listed: Vec<String> = functions
            .iter()
            .map(|f| {
                let entry = json!({
                    "name": f["name"],
                    "description": f["description"],
                    "parameters": f["parameters"],
                    "responses": null,
                });
                format!("    {entry}")
            })
            .collect();
        format!(
            "{TOOL_USE}\n## Available Tools\nUse only these tools. Each is a JSON object with \
             \"name\", \"description\", \"parameters\" (JSON Schema) and \"responses\".\n\n\
             ```json\n[\n{}\n]\n```\n",
            listed.join(",\n\n")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // Each result keyed by its call's id, the content as the template's `tojson` of it.
        let entries: Vec<String> = results
            .iter()
            .map(|r| {
                let content = match result_value(r) {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                format!(
                    "    {{\n        \"tool_call_id\": {},\n        \"results\": {{\n            \
                     \"0\": {}\n        }},\n        \"is_error\": null\n    }}",
                    Value::from(r.request_id.clone()),
                    Value::from(content)
                )
            })
            .collect();
        format!(
            "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|><|START_TOOL_RESULT|>[\n{}\n]\
             <|END_TOOL_RESULT|><|END_OF_TURN_TOKEN|>",
            entries.join(",\n")
        )
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        // `tool_name`, `tool_call_id` and `parameters` are among the shared call keys.
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the list in <|START_ACTION|>",
        );
    }
}
