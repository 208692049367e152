//! Salesforce xLAM: the reply is a JSON list of calls, `[{"name": …, "arguments": {…}}]`,
//! bare or in a ```json fence (sometimes after `<think>`), or in a fence with no language, as
//! vLLM's `preprocess_model_output` also reads (its pattern makes `json` optional). A fence
//! holding anything but a list (code, another language, one object) stays content, as vLLM
//! reads only a list as calls.
//!
//! xLAM's system prompt asks for exactly that list and nothing else; results go back as a
//! JSON list of `{"name", "results"}` objects.
//!
//! Follows vLLM's `xlam` parser (`vllm/tool_parsers/xlam_tool_parser.py`,
//! `preprocess_model_output`, tests `tests/tool_parsers/test_xlam_tool_parser.py`), which also
//! reads the list inside `<tool_call>…</tool_call>` tags, as xLAM models fine-tuned from Qwen
//! bases write it: read when xlam is named, left out of its auto-detect signature (hermes owns
//! the tag there and reads the same calls). Deliberate difference: the list after
//! `[TOOL_CALLS]`, which vLLM's xLAM parser also reads, is left to mistral (auto-detect finds
//! it there): named here it would make every Mistral reply parse as xLAM too, since a reply
//! starting with `[` is xLAM's signature.

use serde_json::{json, Value};

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{function_objects, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call("```json", Close::Marker("```")).lenient(),
        Rule::at_text_start("[", JSON_VALUE).lenient(),
        // Another format's wrapper (see the module docs); not in the signature.
        Rule::call("<tool_call>", Close::Marker("</tool_call>")).lenient(),
        // A fence without `json` (after the rule above it, so ```json stays that rule's). Not in
        // the signature either: every fenced snippet would make a reply an xLAM candidate.
        Rule::call("```", Close::Marker("```")).lenient(),
    ],
};

/// Indices of the fences into [`FRAMING`]'s rules.
const JSON_FENCE_RULE: usize = 1;
const BARE_FENCE_RULE: usize = 4;

/// Rules before this index make xlam's auto-detect signature.
const WRAPPER_RULES: usize = 3;

#[derive(Debug, Clone, Copy, Default)]
pub struct Xlam;

impl Protocol for Xlam {
    fn id(&self) -> &'static str {
        "xlam"
    }

    fn label(&self) -> &'static str {
        "Salesforce xLAM JSON call list"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = function_objects(tools);
        format!(
            "[BEGIN OF AVAILABLE TOOLS]\n{}\n[END OF AVAILABLE TOOLS]\n\n[BEGIN OF FORMAT INSTRUCTION]\n\
             The output MUST strictly adhere to the following JSON format, and NO other text MUST be \
             included.\n```json\n[{{\"name\": \"tool_name\", \"arguments\": {{\"arg\": \"value\"}}}}]\n```\n\
             [END OF FORMAT INSTRUCTION]\n",
            list
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let list: Vec<Value> = results
            .iter()
            .map(|r| json!({"name": r.tool_name, "results": result_value(r)}))
            .collect();
        Value::Array(list).to_string()
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn signature(&self) -> crate::detect::Signature {
        crate::detect::framing_signature(Some(Framing {
            rules: FRAMING.rules.get(..WRAPPER_RULES).unwrap_or(FRAMING.rules),
        }))
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let fenced = matches!(block.rule, JSON_FENCE_RULE | BARE_FENCE_RULE);
        if fenced && !body.trim_start().starts_with('[') {
            // Another snippet (code, a language tag, an object): vLLM reads a fence's JSON only
            // when it is a list ("Tool calls data is not an array" otherwise).
            out.content.push_str(
                text.get(block.span.start..block.span.end)
                    .unwrap_or_default(),
            );
            return;
        }
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the call list",
        );
    }
}
