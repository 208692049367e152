//! Kimi K3 (Moonshot): "XTML", elements built from the special tokens `<|open|>`, `<|close|>`
//! and `<|sep|>`, with the calls in a `tools` channel after the `response` channel.
//!
//! ```text
//! <|open|>response<|sep|>On it.<|close|>response<|sep|>
//! <|open|>tools<|sep|>
//! <|open|>call tool="NAME" index="1"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//! <|open|>argument key="days" type="integer"<|sep|>2<|close|>argument<|sep|>
//! <|close|>call<|sep|>
//! <|close|>tools<|sep|><|close|>message<|sep|>
//! ```
//!
//! Follows vLLM's `KimiK3ToolParser` (`kimi_k3_tool_parser.py`) and `KimiK3ReasoningParser`.
//! Each argument says its type: `type="string"` values are the raw text (not unescaped, not
//! trimmed: the template writes them as they are), any other type is decoded as JSON, so
//! requests are typed. Attribute values are escaped by the template (`&quot;`, `&amp;`) and
//! unescaped here. A call without a `tool` attribute is skipped. Reasoning is the `think`
//! channel, whose opener the serving layer may put in the prompt (text before a lone
//! `<|close|>think<|sep|>` is reasoning); the `response` channel's markers and the end-of-turn
//! `<|close|>message<|sep|>` are dropped from the content. Tools are declared as JSON in a
//! `tool-declare` system message; each result is a `tool` message naming the tool and the
//! call's index, as the chat template renders them.
//!
//! Deliberate differences from the reference:
//! - a call may hold its arguments as one `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`
//!   element (written so by some K3 encoders); the reference reads no arguments from it;
//! - a value whose type is not `string` but which is not JSON is kept as text with a warning
//!   and the request is marked untyped (the engine then types it from the schema); the
//!   reference keeps the text silently;
//! - a call not closed before the next one is skipped with an error; one the reply ends in keeps
//!   its complete arguments and is marked incomplete (the reference drops it); text between
//!   elements is ignored with a warning;
//! - markers must be written without spaces inside them (the reference also accepts
//!   `<|open|> tools <|sep|>`, which only a detokenizer adding spaces produces); a `tools`
//!   marker quoted in inline code is prose (`framing::prose`).

use serde_json::Value;

use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::function_definitions;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

mod channel;

pub const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
pub const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";
pub(crate) const OPEN: &str = "<|open|>";
pub(crate) const CLOSE: &str = "<|close|>";
pub(crate) const SEP: &str = "<|sep|>";
pub(crate) const CALL_OPEN: &str = "<|open|>call";
pub(crate) const CALL_CLOSE: &str = "<|close|>call<|sep|>";
pub(crate) const ARGUMENT_OPEN: &str = "<|open|>argument";
pub(crate) const ARGUMENT_CLOSE: &str = "<|close|>argument<|sep|>";
pub(crate) const JSON_OPEN: &str = "<|open|>json";
pub(crate) const JSON_CLOSE: &str = "<|close|>json<|sep|>";

const FRAMING: Framing = Framing {
    rules: &[
        // vLLM reads a `tools` channel the reply ends in, so a cut-off channel is decoded.
        Rule::call(TOOLS_OPEN, Close::Marker(TOOLS_CLOSE))
            .lenient()
            .markup_body(),
        Rule::reasoning("<|open|>think<|sep|>", "<|close|>think<|sep|>").may_start_open(),
        Rule::token("<|open|>response<|sep|>"),
        Rule::token("<|close|>response<|sep|>"),
        Rule::end_of_turn("<|close|>message<|sep|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct KimiK3;

impl Protocol for KimiK3 {
    fn id(&self) -> &'static str {
        "kimi_k3"
    }

    fn label(&self) -> &'static str {
        "Kimi K3 XTML <|open|>tools<|sep|>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let definitions: Vec<Value> = function_definitions(tools);
        format!(
            "<|open|>message role=\"system\" type=\"tool-declare\"<|sep|># Tools\n\n{}\n\n\
             To call tools, write after your response:\n\
             <|open|>tools<|sep|><|open|>call tool=\"NAME\" index=\"1\"<|sep|>\
             <|open|>argument key=\"KEY\" type=\"string\"<|sep|>raw text<|close|>argument<|sep|>\
             <|open|>argument key=\"OTHER\" type=\"integer\"<|sep|>2<|close|>argument<|sep|>\
             <|close|>call<|sep|><|close|>tools<|sep|>\n\
             String values are written as they are; other types as JSON.\
             <|close|>message<|sep|><|end_of_msg|>",
            Value::Array(definitions)
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for (index, result) in results.iter().enumerate() {
            out.push_str(&format!(
                "<|open|>message role=\"tool\" tool=\"{}\" index=\"{}\"<|sep|>{}\
                 <|close|>message<|sep|><|end_of_msg|>",
                escape_attr(&result.tool_name),
                index + 1,
                result_text(result)
            ));
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        channel::decode_channel(text, block, self.id(), out);
    }
}

/// The template's attribute escaping, for results.
fn escape_attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;")
}
