//! Google Gemma 4 native tool tokens: `<|tool_call>call:NAME{key:value,…}<tool_call|>`, values in
//! the Gemma notation with strings between `<|"|>` tokens ([`crate::gemma_syntax`]).
//!
//! ```text
//! <|tool_call>call:get_weather{location:<|"|>Paris<|"|>,days:3}<tool_call|>
//! ```
//!
//! Follows vLLM's `gemma4` tool parser (`vllm/tool_parsers/gemma4_tool_parser.py`, with
//! `gemma4_utils.py` for the reasoning channel), SGLang's `Gemma4Detector`
//! (`python/sglang/srt/function_call/gemma4_detector.py`) and the chat template (llama.cpp
//! `models/templates/gemma4.jinja`): tools are declared in the system turn as
//! `<|tool>declaration:NAME{description:…,parameters:{…}}<tool|>`, results come back as
//! `<|tool_response>response:NAME{key:value}<tool_response|>`, thinking is in the channel
//! `<|channel>thought\n…<channel|>` and never parsed. Calls follow each other with no separator.
//!
//! Deliberate differences:
//! - a call whose arguments are complete but whose `<tool_call|>` never comes (the reply ends,
//!   or the model closes it with `<turn|>` as vLLM's `gemma4_utils` tolerates) is decoded with a
//!   warning; vLLM's server parser needs the end token, and a call cut off inside its arguments
//!   is skipped with an error here as there;
//! - the call ends with its balanced `}` (as SGLang and `gemma4_utils` read it), not at the first
//!   `}<tool_call|>` (vLLM's regex); text after it inside the block is reported;
//! - content is all prose outside calls and the channel (vLLM: the text before the first call);
//! - vLLM's fallbacks for calls without `<|tool_call>` (a bare `call:NAME{…}` after `<channel|>`,
//!   `<call>NAME{…}`) are not read: prose may say `call:` and only the token marks a call. A
//!   stray `:` before `call:` is tolerated;
//! - a `<|tool_call>` inside a reasoning channel that is never closed stays reasoning (vLLM and
//!   SGLang end the reasoning at that token): text inside reasoning is never a call here.

use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::gemma_syntax::{push_call, write};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<|tool_call>";
pub const CALL_CLOSE: &str = "<tool_call|>";
/// The string delimiter: one token in Gemma 4's vocabulary.
pub const QUOTE: &str = "<|\"|>";
pub const TURN_END: &str = "<turn|>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<|channel>", "<channel|>"),
        THINK,
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
        Rule::token("<|tool_response>"),
        Rule::token("<tool_response|>"),
        Rule::token(TURN_END),
        Rule::token("<eos>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Gemma4;

impl Protocol for Gemma4 {
    fn id(&self) -> &'static str {
        "gemma4"
    }

    fn label(&self) -> &'static str {
        "Gemma 4 <|tool_call>call:name{…}<tool_call|>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        format!(
            "<|turn>system\n{}<turn|>\n",
            write::declarations(tools, "<|tool>", "<tool|>", QUOTE)
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        write::responses(results, "<|tool_response>", "<tool_response|>", QUOTE)
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
            &[TURN_END, "<eos>"],
            false,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    fn result(text: &str) -> ToolExecutionResult {
        ToolExecutionResult {
            request_id: "1".into(),
            tool_name: "get_weather".into(),
            status: crate::result::ExecutionStatus::Success,
            result: text.into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        }
    }

    #[test]
    fn calls_reasoning_and_content() {
        let v = summary(
            &Gemma4,
            "<|channel>thought\nCall <|tool_call>call:rm{}<tool_call|> maybe.<channel|>Sure. \
             <|tool_call>call:get_weather{location:<|\"|>Paris<|\"|>,days:3}<tool_call|>\
             <|tool_call>call:get_time{}<tool_call|><|tool_response>",
        );
        assert_eq!(v["calls"][0]["name"], "get_weather");
        assert_eq!(
            v["calls"][0]["args"],
            json!({"location": "Paris", "days": 3})
        );
        assert_eq!(v["calls"][1]["name"], "get_time");
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(2));
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "Sure.");
    }

    #[test]
    fn turn_end_closes_a_call_with_a_warning() {
        let out = Gemma4.parse_tool_requests(
            "<|tool_call>call:gdb{args:<|\"|>-batch -ex run /tmp/poc<|\"|>}<turn|>",
        );
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].args["args"], "-batch -ex run /tmp/poc");
        assert!(!out.has_errors(), "{:?}", out.diagnostics);
    }

    #[test]
    fn results_and_declarations() {
        assert_eq!(
            Gemma4.format_tool_results(&[result(r#"{"temp": 15, "sky": "clear"}"#), result("ok")]),
            "<|tool_response>response:get_weather{sky:<|\"|>clear<|\"|>,temp:15}<tool_response|>\
             <|tool_response>response:get_weather{value:<|\"|>ok<|\"|>}<tool_response|>"
        );
        assert_eq!(
            Gemma4.generate_tool_definitions(&[]),
            "<|turn>system\n<turn|>\n"
        );
    }
}
