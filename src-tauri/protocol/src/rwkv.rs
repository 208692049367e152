//! RWKV (vLLM `rwkv`): a bold `**Tool Call:**` label, then a ```` ```json ```` fence holding one
//! `{"name", "arguments"}` object.
//!
//! ````text
//! **Tool Call:**
//! ```json
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! ```
//! ````
//!
//! Follows vLLM's `RWKVToolParser` (`vllm/tool_parsers/rwkv_tool_parser.py`) and its tests: the
//! label and fence may be separated by a line break, a blank line, a space or nothing; the
//! arguments may be a JSON object or a string holding one; text before the first call is
//! content. Other fences (```` ```bash ````) are prose.
//!
//! Deliberate differences from the reference:
//! - only the labelled form is read. The reference, when the request defines tools, also reads
//!   an unlabelled ```` ```json ```` fence and a legacy `<tool_call>` line of Python-dict text,
//!   renaming `filePath` to `path` and reshaping `read` / `edit` arguments for its agent; a
//!   parser here has no tool list, and an unlabelled JSON fence is any JSON in prose;
//! - one bad call is reported and skipped, its neighbours kept; the reference drops every call
//!   when one labelled fence does not read, and drops calls to tools the request does not
//!   define (the engine's strict mode does that here);
//! - a fence the reply ends in is decoded when its JSON is complete, marked incomplete;
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording.

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, schema_lines};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const LABEL: &str = "**Tool Call:**";
const FENCE_END: &str = "```";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // The label and the fence's opening as the model writes them together; the block ends
        // at the closing fence outside the JSON's strings.
        Rule::call("**Tool Call:**\n```json", Close::Marker(FENCE_END))
            .json_body()
            .lenient(),
        Rule::call("**Tool Call:**\n\n```json", Close::Marker(FENCE_END))
            .json_body()
            .lenient(),
        Rule::call("**Tool Call:** ```json", Close::Marker(FENCE_END))
            .json_body()
            .lenient(),
        Rule::call("**Tool Call:**```json", Close::Marker(FENCE_END))
            .json_body()
            .lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Rwkv;

impl Protocol for Rwkv {
    fn id(&self) -> &'static str {
        "rwkv"
    }

    fn label(&self) -> &'static str {
        "RWKV **Tool Call:** ```json {name, arguments}```"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = schema_lines(tools);
        out.push_str(&format!(
            "\nWrite each call as:\n{LABEL}\n```json\n{{\"name\": \"function-name\", \
             \"arguments\": {{\"key\": \"value\"}}}}\n{FENCE_END}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "**Tool Result ({}):**\n{}\n",
                result.tool_name,
                result_text(result)
            )
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
            "the **Tool Call:** fence",
        );
    }
}
