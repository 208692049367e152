//! Sber GigaChat 3.5: "GCML" markup, DeepSeek V3.2's DSML grammar with `｜GCML｜` in the tag
//! names and a `tool_calls` wrapper.
//!
//! ```text
//! I'll check.<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather">
//! <｜GCML｜parameter name="city" string="true">Tokyo</｜GCML｜parameter>
//! <｜GCML｜parameter name="days" string="false">3</｜GCML｜parameter>
//! </｜GCML｜invoke></｜GCML｜tool_calls>
//! ```
//!
//! Follows vLLM's `gigachat35` parser (`vllm/tool_parsers/gigachat35_tool_parser.py`, tests
//! `tests/tool_parsers/test_gigachat35_tool_parser.py`) and SGLang's `GigaChat35Detector`
//! (`python/sglang/srt/function_call/gigachat35_detector.py`). A `string="true"` value is text,
//! a `string="false"` value is JSON; the typing is DeepSeek V3.2's ([`super::deepseek_v32`]), the
//! tag scanner the XML-ish family's ([`crate::xml_markup`]). GigaChat's turn tokens
//! `<|message_sep|>` and `</s>` are dropped from the content, as both references do, and
//! `<think>` text is reasoning.
//!
//! Deliberate differences from the references:
//! - a parameter without a `string` attribute is kept as text with a warning and its call
//!   marked untyped, so the engine types it from the schema (vLLM takes it as a string,
//!   SGLang drops the parameter);
//! - a `string="false"` value that is not JSON is kept as text with a warning (both keep it);
//! - one newline after an opening tag and before a closing tag is layout (the DSML rule);
//! - every `<｜GCML｜tool_calls>` block holds calls (both references read only the first) and a
//!   block the reply ends in is decoded up to its last complete invoke (as vLLM does);
//! - an invoke that is not closed before the next one is an error that keeps its neighbours
//!   (the references' regex reads it up to the next `</｜GCML｜invoke>`).
//!
//! No GigaChat 3.5 chat template was available: tools are presented with the GCML layout in
//! the DSML prompt's words, and results go back in GigaChat 3's `function result` turns (the
//! role tokens both models share).

use crate::calls::{push_request, Call};
use crate::deepseek_v32::typed_args;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::gigachat3::{MESSAGE_SEP, ROLE_SEP};
use crate::prompt::{each_result, function_definitions};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, result_text, Markup, TagStyle, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<｜GCML｜tool_calls>";
pub const CLOSE: &str = "</｜GCML｜tool_calls>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
        Rule::token("<|message_sep|>"),
        Rule::token("</s>"),
    ],
};

const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<｜GCML｜invoke",
    invoke_close: "</｜GCML｜invoke>",
    param_open: "<｜GCML｜parameter",
    param_close: "</｜GCML｜parameter>",
    style: TagStyle::Attributes,
    json_body: true,
    value_layout: ValueLayout::OneNewline,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct GigaChat35;

impl Protocol for GigaChat35 {
    fn id(&self) -> &'static str {
        "gigachat35"
    }

    fn label(&self) -> &'static str {
        "GigaChat 3.5 GCML <｜GCML｜tool_calls>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "## Tools\n\nYou can call the functions below by writing a \"<｜GCML｜tool_calls>\" \
             block like this one:\n<｜GCML｜tool_calls>\n\
             <｜GCML｜invoke name=\"$FUNCTION_NAME\">\n\
             <｜GCML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE\
             </｜GCML｜parameter>\n...\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>\n\n\
             Write text values as they are, with string=\"true\"; write numbers, booleans, \
             arrays and objects as JSON, with string=\"false\".\n\n\
             The functions, as JSON Schema:\n<functions>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str("</functions>\n");
        out
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
        for invoke in decode_invokes(text, block, &MARKUP, out) {
            if let Some((args, untyped)) = typed_args(text, &invoke, out) {
                let call = Call {
                    name: invoke.name.to_owned(),
                    args,
                    id: None,
                };
                push_request(out, text, invoke.span, self.id(), call, untyped);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    #[test]
    fn string_and_json_parameters_and_turn_tokens() {
        let v = summary(
            &GigaChat35,
            "I will check.<｜GCML｜tool_calls><｜GCML｜invoke name=\"typed\">\
             <｜GCML｜parameter name=\"s\" string=\"true\">7</｜GCML｜parameter>\
             <｜GCML｜parameter name=\"n\" string=\"false\">7</｜GCML｜parameter>\
             <｜GCML｜parameter name=\"o\" string=\"false\">{\"a\": [1, null]}</｜GCML｜parameter>\
             </｜GCML｜invoke></｜GCML｜tool_calls><|message_sep|>",
        );
        assert_eq!(
            v["calls"][0]["args"],
            json!({"s": "7", "n": 7, "o": {"a": [1, null]}})
        );
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "I will check.");
    }

    #[test]
    fn dsml_tags_are_not_gcml() {
        let v = summary(
            &GigaChat35,
            "<｜GCML｜tool_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜GCML｜tool_calls>",
        );
        assert_eq!(v["calls"], json!([]));
    }
}
