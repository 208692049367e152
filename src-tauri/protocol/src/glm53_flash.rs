//! GLM-5.3-Flash: GLM's `<tool_call>` token, the tool's name, `>` (or a newline) and a JSON
//! object of arguments, with no closing token needed.
//!
//! ```text
//! <tool_call>get_weather>{"city": "Beijing"}<tool_call>Weather/get_time>{"tz": "UTC"}
//! ```
//!
//! Follows SGLang's `Glm53FlashDetector` (`python/sglang/srt/function_call/glm53_flash_detector.py`).
//! A call runs to the next `<tool_call>`, a `</tool_call>` (dropped from the content), `<think>`,
//! or the end of the reply, so a reply that ends after a complete JSON object is a finished
//! call. A name written as `Display/name` is the part after the last `/` (the reference matches
//! the parts against the request's tools). Arguments are typed JSON. Reasoning is in `<think>`
//! (opened in the prompt, as GLM-4.7's template does). The shared `<tool_call>` tag puts this
//! format after hermes, qwen3_coder and glm45 in auto-detect: they win a tie.
//!
//! Deliberate differences from the reference:
//! - the model's other layout, GLM-4.5's `<tool_call>NAME<arg_key>…</arg_key><arg_value>…
//!   </arg_value></tool_call>` (or a name alone for no arguments), is left to the `glm45`
//!   format, which reads it with the same pair reader ([`crate::arg_pairs`]): such a block is an
//!   error here. The reference reads every such block, in a reply of JSON calls too (its tag
//!   regex in `detect_and_parse` when the reply holds `<arg_key>` and `</tool_call>`, its tag
//!   branch per block when streaming); here that would make every GLM-4.5 reply read two ways
//!   in auto-detect, and reading them only in a reply that also holds JSON calls cannot be
//!   decided when a block closes, so streaming would read it otherwise than the whole reply.
//!   A reply that mixes both layouts therefore reads its JSON calls here and its pair blocks
//!   under `glm45`. The simplified `<arg_key>key=value</arg_value>` pair (read by the reference
//!   when a block has no whole pair) is read by neither;
//! - the request's tools are not known here: names are not matched to tools (beyond the `/`
//!   rule), arguments are not re-shaped to a schema (the reference wraps an object or a bare
//!   list in the array property the schema requires), and unknown tools are kept;
//! - arguments that are not one JSON object (a list, unparsable text) are an error that skips
//!   the call (the reference gives `{}`, or wraps a list as above); text after the object is
//!   ignored with a warning;
//! - the reference's tests spell the tokens `<![` and with zero-width spaces, which its own
//!   detector does not read; only the `<tool_call>` spelling is read here.
//!
//! No GLM-5.3-Flash chat template was available: tools are listed as GLM-4.5's template lists
//! them, with the JSON call layout, and results go back as GLM-4.5's (`<|observation|>` with
//! `<tool_response>` elements, [`super::glm45`]).

use serde_json::{Map, Value};

use crate::arg_pairs::GLM;
use crate::balanced::{value_end, Syntax};
use crate::calls::{error, parse_json, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::glm45::Glm45;
use crate::hermes::{CALL_CLOSE, CALL_OPEN};
use crate::prompt::tools_in_xml_tags;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const KEY_OPEN: &str = GLM.key_open;
const VALUE_OPEN: &str = GLM.value_open;

const FRAMING: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN,
        // A call runs to the next marker of the format: `</tool_call>` (a token, dropped from
        // the content), the next `<tool_call>`, `<think>`, or the end of the reply.
        Rule::call(CALL_OPEN, Close::UntilNext),
        Rule::token(CALL_CLOSE),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Glm53Flash;

impl Protocol for Glm53Flash {
    fn id(&self) -> &'static str {
        "glm53_flash"
    }

    fn label(&self) -> &'static str {
        "GLM-5.3-Flash <tool_call>name>{…}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_in_xml_tags(tools);
        out.push_str(
            "For each function call, output the function name and its arguments as \
             a JSON object:\n<tool_call>{function-name}>{\"arg-key-1\": arg-value-1}\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        Glm45.format_tool_results(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = block.body_text(text);
        let start = block.body.start + (body.len() - body.trim_start().len());
        let rest = body.trim_start();
        let name_len = rest.find(['>', '\n', '<']).unwrap_or(rest.len());
        let written = rest[..name_len].trim();
        let name = written.rsplit('/').next().unwrap_or_default().trim();
        if name.is_empty()
            || name.contains(char::is_whitespace)
            || name.contains(['{', '}', '"', '[', ']'])
            || !name.contains(char::is_alphanumeric)
        {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not start with a tool name; it is skipped"),
                Span::new(start, (start + name_len).max(start)),
            );
            return;
        }
        let after_name = start + name_len;
        let args_text = text.get(after_name..end).unwrap_or_default();
        let glm45_layout = args_text.trim_start().starts_with(KEY_OPEN)
            || (!args_text.starts_with('>') && args_text.trim().is_empty());
        if glm45_layout {
            // GLM-4.5's layout (pairs, or a name alone): glm45 reads it, and every GLM-4.5
            // reply auto-detects as glm45, so a reply in it is not read two ways.
            error(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "'{name}' is written in GLM-4.5's layout ({KEY_OPEN}/{VALUE_OPEN} pairs, or \
                     the name alone), which the glm45 format reads; here the call is skipped"
                ),
                Span::new(start, end.max(start)),
            );
            return;
        }
        let after = args_text.strip_prefix('>').unwrap_or(args_text);
        let json_start = end - after.trim_start().len();
        let Some(args) = json_arguments(text, json_start, end, name, out) else {
            return;
        };
        let call = Call {
            name: name.to_owned(),
            args,
            id: None,
        };
        push_request(out, text, block.span, self.id(), call, false);
    }
}

/// The JSON object at `text[start..end]` (nothing there: no arguments).
fn json_arguments(
    text: &str,
    start: usize,
    end: usize,
    name: &str,
    out: &mut ParseOutput,
) -> Option<Map<String, Value>> {
    if start >= end {
        return Some(Map::new());
    }
    let bytes = text.as_bytes().get(..end).unwrap_or_default();
    let Some(value_stop) = value_end(Syntax::Json, bytes, start) else {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "the arguments of '{name}' are not a complete JSON object; the call is skipped"
            ),
            Span::new(start, end),
        );
        return None;
    };
    let span = Span::new(start, value_stop);
    let what = format!("the arguments of '{name}'");
    let value = parse_json(text, span, &what, out)?;
    let Value::Object(args) = value else {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!("{what} are not a JSON object; the call is skipped"),
            span,
        );
        return None;
    };
    let trailing = text.get(value_stop..end).unwrap_or_default().trim();
    if !trailing.is_empty() {
        let at =
            value_stop + (text[value_stop..end].len() - text[value_stop..end].trim_start().len());
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("text after {what} is ignored"),
            Span::new(at, at + trailing.len()),
        );
    }
    Some(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    #[test]
    fn json_calls_need_no_close() {
        let v = summary(
            &Glm53Flash,
            "我来查询。<tool_call>get_weather>{\"city\": \"北京\"}\
             <tool_call>Weather/get_weather>{\"city\": \"上海\"}",
        );
        assert_eq!(v["calls"][0]["args"], json!({"city": "北京"}));
        assert_eq!(v["calls"][1]["name"], "get_weather");
        assert_eq!(v["calls"][1]["args"], json!({"city": "上海"}));
        assert_eq!(v["content"], "我来查询。");
    }

    #[test]
    fn pairs_are_left_to_glm45() {
        let v = summary(
            &Glm53Flash,
            "<tool_call>glob<arg_key>pattern</arg_key><arg_value>*.py</arg_value></tool_call>",
        );
        assert_eq!(v["calls"], json!([]));
        assert_eq!(v["diagnostics"][0]["code"], "stray_text");
    }
}
