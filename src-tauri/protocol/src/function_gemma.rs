//! FunctionGemma (`google/functiongemma-270m-it`): `<start_function_call>call:NAME{…}
//! <end_function_call>`, values in the Gemma notation with strings between `<escape>` tokens
//! ([`crate::gemma_syntax`]).
//!
//! ```text
//! <start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>
//! ```
//!
//! Follows vLLM's `functiongemma` tool parser (`vllm/tool_parsers/functiongemma_tool_parser.py`)
//! and the model's chat template: a `developer` turn says "You are a model that can do function
//! calling with the following functions" and declares each tool as
//! `<start_function_declaration>declaration:NAME{description:…,parameters:{…}}
//! <end_function_declaration>`; after its calls the model writes `<start_function_response>`
//! (a structural token here) and each result comes back as
//! `<start_function_response>response:NAME{key:value}<end_function_response>`.
//!
//! Deliberate differences from vLLM:
//! - every value the template can write is read: bare numbers and booleans, nested objects and
//!   lists (vLLM's regex reads only `key:<escape>…<escape>` pairs and drops the rest);
//! - like vLLM, an escaped string that is a whole JSON literal (`<escape>42<escape>`) becomes that
//!   literal: the vLLM tests expect `42`, not `"42"`;
//! - a call cut off before `<end_function_call>` is decoded with a warning when its arguments are
//!   complete, and skipped with an error when they are cut off too (vLLM decodes whatever
//!   `key:<escape>…<escape>` pairs it finds);
//! - names are any text before `{` without spaces (vLLM: `\w+`);
//! - content is all prose outside calls (vLLM: the text before the first call).

use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::gemma_syntax::{push_call, write};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<start_function_call>";
pub const CALL_CLOSE: &str = "<end_function_call>";
pub const QUOTE: &str = "<escape>";
const RESPONSE_OPEN: &str = "<start_function_response>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
        Rule::token(RESPONSE_OPEN),
        Rule::token("<end_of_turn>"),
        Rule::token("<eos>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionGemma;

impl Protocol for FunctionGemma {
    fn id(&self) -> &'static str {
        "function_gemma"
    }

    fn label(&self) -> &'static str {
        "FunctionGemma <start_function_call>call:name{…}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        format!(
            "<start_of_turn>developer\nYou are a model that can do function calling with the \
             following functions{}<end_of_turn>\n",
            write::declarations(
                tools,
                "<start_function_declaration>",
                "<end_function_declaration>",
                QUOTE
            )
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        write::responses(results, RESPONSE_OPEN, "<end_function_response>", QUOTE)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_call(
            out,
            text,
            block,
            self.id(),
            QUOTE,
            &[RESPONSE_OPEN, "<end_of_turn>", "<eos>"],
            true,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    #[test]
    fn calls_typed_like_vllm() {
        let v = summary(
            &FunctionGemma,
            "Let me check. <start_function_call>call:search{query:<escape>python<escape>\
             limit:<escape>10<escape>,exact:true,tags:[<escape>a<escape>]}<end_function_call>\
             <start_function_call>call:get_time{timezone:<escape>UTC<escape>}<end_function_call>\
             <start_function_response>",
        );
        assert_eq!(
            v["calls"][0]["args"],
            json!({"query": "python", "limit": 10, "exact": true, "tags": ["a"]})
        );
        assert_eq!(v["calls"][1]["args"], json!({"timezone": "UTC"}));
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "Let me check.");
    }

    #[test]
    fn results_and_declarations() {
        let result = ToolExecutionResult {
            request_id: "1".into(),
            tool_name: "get_time".into(),
            status: crate::result::ExecutionStatus::Success,
            result: "12:00".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        assert_eq!(
            FunctionGemma.format_tool_results(&[result]),
            "<start_function_response>response:get_time{value:<escape>12:00<escape>}\
             <end_function_response>"
        );
        assert!(FunctionGemma
            .generate_tool_definitions(&[])
            .ends_with("following functions<end_of_turn>\n"));
    }
}
