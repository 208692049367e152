//! Cohere Command R / R+: `Action: ```json\n[{"tool_name": …, "parameters": {…}}]\n````.
//!
//! Command R's tool-use template asks the model to write "Action:" followed by a JSON list of
//! `{"tool_name", "parameters"}` in a ```json fence; "Plan:" / "Reflection:" lines before it are
//! prose. Results come back as numbered `Document:` entries in `<results>`.

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call("Action: ```json", Close::Marker("```")).lenient(),
        Rule::call("Action:```json", Close::Marker("```")).lenient(),
        Rule::token("<|END_OF_TURN_TOKEN|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct CommandR;

impl Protocol for CommandR {
    fn id(&self) -> &'static str {
        "command_r"
    }

    fn label(&self) -> &'static str {
        "Cohere Command R Action: ```json"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "## Available Tools\nHere is a list of tools that you have available to you:\n\n",
        );
        for definition in function_definitions(tools) {
            let f = &definition["function"];
            out.push_str(&format!(
                "```python\ndef {}(**kwargs) -> List[Dict]:\n    \"\"\"{}\n\n    Args (JSON Schema):\n        {}\n    \"\"\"\n    pass\n```\n\n",
                f["name"].as_str().unwrap_or_default(),
                f["description"].as_str().unwrap_or_default(),
                f["parameters"]
            ));
        }
        out.push_str(
            "Write 'Action:' followed by a json-formatted list of actions that you want to perform \
             in order to produce a good response to the user's last input:\n```json\n[\n    {\n        \
             \"tool_name\": title of the tool in the specification,\n        \"parameters\": a dict of \
             parameters to input into the tool as they are defined in the specs\n    }\n]```\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<results>\n");
        for (i, r) in results.iter().enumerate() {
            out.push_str(&format!(
                "Document: {i}\ntool: {}\n{}\n\n",
                r.tool_name,
                result_value(r)
            ));
        }
        out.push_str("</results>");
        out
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
            "the Action list",
        );
    }
}
