//! StepFun Step-3: `steptml` invocations between full-width special tokens.
//!
//! ```text
//! <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
//! <steptml:parameter name="KEY">VALUE</steptml:parameter>
//! </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
//! ```
//!
//! (`｜` is U+FF5C.) Each `<｜tool_call_begin｜>` is a block of its own holding one call of type
//! `function`; the section tokens only structure the reply. Values are text (the template writes
//! strings as they are and other values as JSON; whitespace around a value is removed, as vLLM's
//! and SGLang's parsers `.strip()` it; XML entities are not decoded), so requests are untyped and the engine types them
//! from the method's schema. Reasoning ends with `</think>`; the model does not write the opening
//! `<think>` (the template does), so what comes before the first `</think>` is reasoning, calls
//! written there included (vLLM's Step3 reasoning parser); a reply without `</think>` is content. Tools are listed as JSON in `<tools>`;
//! results go back as `tool_response` turns.

use crate::calls::{error, warning};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{each_result, function_definitions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, push_untyped, result_text, Markup, TagStyle, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<｜tool_call_begin｜>";
pub const CALL_CLOSE: &str = "<｜tool_call_end｜>";
pub const SEP: &str = "<｜tool_sep｜>";

const FRAMING: Framing = Framing {
    rules: &[
        // Step-3 never writes `<think>`: its template opens the reasoning, and vLLM's Step3
        // reasoning parser reads everything before `</think>` as reasoning.
        THINK_MAY_START_OPEN,
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
        Rule::token("<｜tool_calls_begin｜>"),
        Rule::token("<｜tool_calls_end｜>"),
        // Some replies put one between calls, outside any call.
        Rule::token(SEP),
    ],
};

const MARKUP: Markup = Markup {
    block: CALL_OPEN,
    invoke_open: "<steptml:invoke",
    invoke_close: "</steptml:invoke>",
    param_open: "<steptml:parameter",
    param_close: "</steptml:parameter>",
    style: TagStyle::Attributes,
    json_body: false,
    value_layout: ValueLayout::Trimmed,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Step3;

impl Protocol for Step3 {
    fn id(&self) -> &'static str {
        "step3"
    }

    fn label(&self) -> &'static str {
        "Step-3 <｜tool_call_begin｜> steptml"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools \nYou may call one or more tools to assist with the user query. You are \
             provided with tool schemas within <tools></tools> XML tags: <tools>",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(
            "</tools> When making tool calls, use XML format to invoke tools and pass \
             parameters: <｜tool_calls_begin｜>\n<｜tool_call_begin｜>\nfunction<｜tool_sep｜>\
             <steptml:invoke name=\"tool_name0\"><steptml:parameter name=\"parameter_name0\">\
             [parameter value]</steptml:parameter>...</steptml:invoke><｜tool_call_end｜>\n\
             <｜tool_call_begin｜>\nfunction<｜tool_sep｜><steptml:invoke name=\"tool_name1\">\
             <steptml:parameter name=\"parameter_name1\">[parameter value]</steptml:parameter>\
             ...</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>\nNote: * You can \
             invoke one or more tools in parallel. * Each tool call must be complete and \
             self-contained within a single <｜tool_call_begin｜>…<｜tool_call_end｜> block.\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("<|BOT|>tool_response\n{}<|EOT|>", result_text(r))
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let mut calls = *block;
        match body.find(SEP) {
            Some(sep) => {
                let kind = body[..sep].trim();
                if kind != "function" {
                    let lead = body.len() - body.trim_start().len();
                    let at = block.body.start + lead.min(sep);
                    error(
                        out,
                        DiagnosticCode::StrayText,
                        format!(
                            "the call is of type '{kind}' before {SEP}; only 'function' calls \
                             are tools, so it is skipped"
                        ),
                        Span::new(at, at + kind.len()),
                    );
                    return;
                }
                calls.body.start += sep + SEP.len();
            }
            None => {
                let lead = body.len() - body.trim_start().len();
                let at = block.body.start + lead;
                warning(
                    out,
                    DiagnosticCode::StrayText,
                    format!("the call does not start with 'function{SEP}'; read as a function"),
                    Span::new(block.span.start, at.max(block.body.start)),
                );
            }
        }
        let invokes = decode_invokes(text, &calls, &MARKUP, out);
        // The grammar has one call per block: then the request is the whole block.
        let whole = invokes.len() == 1;
        for invoke in &invokes {
            let span = if whole { block.span } else { invoke.span };
            push_untyped(out, text, span, self.id(), invoke);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::{json, Value};

    fn parse(text: &str) -> Value {
        summary(&Step3, text)
    }

    #[test]
    fn calls_between_tokens() {
        let text = "Checking.<｜tool_calls_begin｜>\n<｜tool_call_begin｜>\nfunction<｜tool_sep｜><steptml:invoke name=\"weather_get\">\n\
                    <steptml:parameter name=\"city\">Paris</steptml:parameter>\n<steptml:parameter name=\"days\">2</steptml:parameter>\n\
                    </steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"time_now\"></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>";
        let v = parse(text);
        assert_eq!(v["calls"][0]["name"], "weather_get");
        assert_eq!(v["calls"][0]["args"], json!({"city": "Paris", "days": "2"}));
        assert!(v["calls"][0]["raw"]
            .as_str()
            .is_some_and(|raw| raw.starts_with(CALL_OPEN) && raw.ends_with(CALL_CLOSE)));
        assert_eq!(v["calls"][1]["name"], "time_now");
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "Checking.");
    }

    #[test]
    fn other_call_types_and_missing_separators() {
        let v = parse(
            "<｜tool_call_begin｜>code_interpreter<｜tool_sep｜>print(1)<｜tool_call_end｜>\
             <｜tool_call_begin｜><steptml:invoke name=\"f\"></steptml:invoke><｜tool_call_end｜><｜tool_sep｜>",
        );
        assert_eq!(v["calls"][0]["name"], "f");
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["diagnostics"][0]["severity"], "error");
        assert_eq!(v["diagnostics"][0]["at"], "code_interpreter");
        assert_eq!(v["diagnostics"][1]["severity"], "warning");
        assert_eq!(v["diagnostics"][1]["at"], "<｜tool_call_begin｜>");
        assert_eq!(v["content"], "");
    }

    #[test]
    fn a_broken_call_keeps_its_neighbours() {
        let v = parse(
            "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"a\"><steptml:parameter name=\"x\">1</steptml:invoke><｜tool_call_end｜>\
             <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"b\"></steptml:invoke><｜tool_call_end｜>",
        );
        assert_eq!(v["calls"][0]["name"], "b");
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["diagnostics"][0]["code"], "unclosed_value");
        assert_eq!(v["diagnostics"][0]["at"], "<steptml:parameter name=\"x\">1");
    }
}
