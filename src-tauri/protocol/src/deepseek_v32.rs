//! DeepSeek V3.2: "DSML" markup, XML-ish tags whose names start with `｜DSML｜` (U+FF5C bars).
//!
//! ```text
//! <｜DSML｜function_calls>
//! <｜DSML｜invoke name="NAME">
//! <｜DSML｜parameter name="KEY" string="true">raw text</｜DSML｜parameter>
//! <｜DSML｜parameter name="OTHER" string="false">{"json": 1}</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//! ```
//!
//! Unlike the rest of the XML-ish family, each parameter says whether it is a string: `true`
//! values are taken as text (one leading and one trailing newline removed, XML entities not
//! decoded: the template does not escape), `false` values are decoded as JSON, so requests are
//! typed. A value that should be JSON but is not, or a parameter with no `string` attribute, is
//! kept as text with a warning and that request is marked untyped, so the engine still types it
//! from the schema. An invocation holding a JSON object instead of parameters (seen in the wild)
//! is read as its arguments. The encoder writes one `<｜DSML｜invoke` per line and values as they
//! are: when the calls are laid out so, an invoke opener in the middle of a line is a value's
//! text (`xml_markup::invokes`). Reasoning is in `<think>`, which the encoder opens in the
//! prompt in thinking mode (`<｜Assistant｜><think>`): text before a lone `</think>` is
//! reasoning, as in DeepSeek V3.1 ([`super::deepseek_v3`]). Tools are listed as JSON in
//! `<functions>`; results go back as `<result>` elements of `<function_results>`.
//!
//! DeepSeek V4 keeps this grammar and only renames the wrapper to `<｜DSML｜tool_calls>` (vLLM's
//! `DeepSeekV4ToolParser` subclasses the V3.2 parser with just that change), so either wrapper
//! holds calls here.
//!
//! DeepSeek V4.1 keeps it too, with tag names that start with a space: `<｜DSML｜ calls>`,
//! `<｜DSML｜ invoke name="…">`, `<｜DSML｜ parameter name="…" string="…">` (SGLang's
//! `DeepSeekV41Detector` subclasses the V3.2 detector changing only those names; vLLM's
//! `deepseek_v41` parser and SGLang's `encoding_dsv41.py` write the same). Inside a
//! `<｜DSML｜ calls>` block only the spaced names are tags; the unspaced blocks read only the
//! unspaced names, so the two spellings never mix. Tools are still presented in V3.2's words
//! (as for V4): the aliases `deepseek_v41` / `deepseekv41` name this format.

use serde_json::{Map, Value};

use crate::calls::{arguments, error, parse_json, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::function_definitions;
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{
    decode_invokes, insert_arg, result_text, Markup, RawInvoke, TagStyle, ValueLayout,
};
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<｜DSML｜function_calls>";
pub const CLOSE: &str = "</｜DSML｜function_calls>";
/// DeepSeek V4's name for the same wrapper.
pub const V4_OPEN: &str = "<｜DSML｜tool_calls>";
pub const V4_CLOSE: &str = "</｜DSML｜tool_calls>";
/// DeepSeek V4.1's wrapper: the tag name starts with a space.
pub const V41_OPEN: &str = "<｜DSML｜ calls>";
pub const V41_CLOSE: &str = "</｜DSML｜ calls>";
/// The indices of V4's and V4.1's rules in [`FRAMING`]: their blocks use [`V4_MARKUP`] and
/// [`V41_MARKUP`].
const V4_RULE: usize = 2;
const V41_RULE: usize = 3;

const FRAMING: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN,
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
        Rule::call(V4_OPEN, Close::Marker(V4_CLOSE)).lenient(),
        Rule::call(V41_OPEN, Close::Marker(V41_CLOSE)).lenient(),
    ],
};

const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<｜DSML｜invoke",
    invoke_close: "</｜DSML｜invoke>",
    param_open: "<｜DSML｜parameter",
    param_close: "</｜DSML｜parameter>",
    style: TagStyle::Attributes,
    json_body: true,
    value_layout: ValueLayout::OneNewline,
};

/// DeepSeek V4's: the same tags in its own wrapper (named in diagnostics).
const V4_MARKUP: Markup = Markup {
    block: V4_OPEN,
    ..MARKUP
};

/// DeepSeek V4.1's spellings of the same markup.
const V41_MARKUP: Markup = Markup {
    block: V41_OPEN,
    invoke_open: "<｜DSML｜ invoke",
    invoke_close: "</｜DSML｜ invoke>",
    param_open: "<｜DSML｜ parameter",
    param_close: "</｜DSML｜ parameter>",
    ..MARKUP
};

#[derive(Debug, Clone, Copy, Default)]
pub struct DeepSeekV32;

impl Protocol for DeepSeekV32 {
    fn id(&self) -> &'static str {
        "deepseek_v32"
    }

    fn label(&self) -> &'static str {
        "DeepSeek V3.2 DSML <｜DSML｜function_calls>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "## Tools\n\nYou have access to a set of tools you can use to answer the user's \
             question.\nYou can invoke functions by writing a \"<｜DSML｜function_calls>\" block \
             like the following as part of your reply to the user:\n<｜DSML｜function_calls>\n\
             <｜DSML｜invoke name=\"$FUNCTION_NAME\">\n\
             <｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE\
             </｜DSML｜parameter>\n...\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"$FUNCTION_NAME2\">\n\
             ...\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n\n\
             String and scalar parameters should be specified as is without any escaping or \
             quotes, while lists and objects should use JSON format. The \"string\" attribute \
             should be set to \"true\" for string type parameters and \"false\" for other types \
             (numbers, booleans, arrays, objects).\n\n\
             Here are the functions available in JSONSchema format:\n<functions>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str("</functions>\n");
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<function_results>\n");
        for result in results {
            out.push_str(&format!("<result>{}</result>\n", result_text(result)));
        }
        out.push_str("</function_results>");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let markup = match block.rule {
            V4_RULE => &V4_MARKUP,
            V41_RULE => &V41_MARKUP,
            _ => &MARKUP,
        };
        for invoke in decode_invokes(text, block, markup, out) {
            if let Some((args, untyped)) = typed_args(text, &invoke, out) {
                push_request(
                    out,
                    text,
                    invoke.span,
                    self.id(),
                    Call {
                        name: invoke.name.to_owned(),
                        args,
                        id: None,
                    },
                    untyped,
                );
            }
        }
    }
}

/// The arguments, typed by each parameter's `string` attribute; the flag says some stayed text
/// that was not declared as a string. GigaChat 3.5's GCML markup shares this typing.
pub(crate) fn typed_args(
    text: &str,
    invoke: &RawInvoke<'_>,
    out: &mut ParseOutput,
) -> Option<(Map<String, Value>, bool)> {
    let name = invoke.name;
    if let Some(json) = invoke.json {
        let what = format!("the JSON arguments of '{name}'");
        let value = parse_json(text, json, &what, out)?;
        return match arguments("arguments", value) {
            Ok(args) => Some((args, false)),
            Err((code, message)) => {
                error(out, code, message, json);
                None
            }
        };
    }
    let mut args = Map::new();
    let mut untyped = false;
    for param in &invoke.params {
        let key = param.key;
        let kind = param
            .attrs
            .iter()
            .find(|a| a.key == "string")
            .map(|a| a.value);
        let value = match kind {
            Some("true") => Value::String(param.value.to_owned()),
            Some("false") => match serde_json::from_str::<Value>(param.value.trim()) {
                Ok(value) => value,
                Err(e) => {
                    warning(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!(
                            "parameter '{key}' of '{name}' says string=\"false\" but is not JSON \
                             ({e}); it is kept as text"
                        ),
                        param.value_span,
                    );
                    untyped = true;
                    Value::String(param.value.to_owned())
                }
            },
            other => {
                let found = other.map_or_else(
                    || "has no string attribute".to_owned(),
                    |v| format!("has string=\"{v}\""),
                );
                warning(
                    out,
                    DiagnosticCode::UnknownKey,
                    format!(
                        "parameter '{key}' of '{name}' {found} (expected \"true\" or \"false\"); \
                         its value is kept as text"
                    ),
                    param.span,
                );
                untyped = true;
                Value::String(param.value.to_owned())
            }
        };
        insert_arg(&mut args, key, value, param.span, name, out);
    }
    Some((args, untyped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        summary(&DeepSeekV32, text)
    }

    #[test]
    fn string_and_json_parameters() {
        let v = parse(
            "<think>no <｜DSML｜function_calls></think>Looking.\n\n<｜DSML｜function_calls>\n\
             <｜DSML｜invoke name=\"search_web\">\n\
             <｜DSML｜parameter name=\"query\" string=\"true\">rust \"serde\" 1.0</｜DSML｜parameter>\n\
             <｜DSML｜parameter name=\"limit\" string=\"false\">5</｜DSML｜parameter>\n\
             <｜DSML｜parameter name=\"filters\" string=\"false\">{\"lang\": [\"en\", \"中文\"]}</｜DSML｜parameter>\n\
             <｜DSML｜parameter name=\"id\" string=\"true\">5</｜DSML｜parameter>\n\
             </｜DSML｜invoke>\n</｜DSML｜function_calls>",
        );
        assert_eq!(
            v["calls"][0]["args"],
            json!({"query": "rust \"serde\" 1.0", "limit": 5, "filters": {"lang": ["en", "中文"]}, "id": "5"})
        );
        assert_eq!(v["calls"][0]["untyped"], false);
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "Looking.");
    }

    #[test]
    fn attribute_problems_keep_the_value_as_text() {
        let v = parse(
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\">\
             <｜DSML｜parameter name=\"a\" string=\"false\">{oops</｜DSML｜parameter>\
             <｜DSML｜parameter name=\"b\">7</｜DSML｜parameter>\
             </｜DSML｜invoke></｜DSML｜function_calls>",
        );
        assert_eq!(v["calls"][0]["args"], json!({"a": "{oops", "b": "7"}));
        assert_eq!(v["calls"][0]["untyped"], true);
        assert_eq!(v["diagnostics"][0]["at"], "{oops");
        assert_eq!(v["diagnostics"][1]["code"], "unknown_key");
    }

    #[test]
    fn a_json_body_is_the_arguments() {
        let v = parse(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n{\"a\": 1}\n</｜DSML｜invoke>\n\
             <｜DSML｜invoke name=\"g\">\n{\"a\": }\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        );
        assert_eq!(v["calls"][0]["args"], json!({"a": 1}));
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["diagnostics"][0]["at"], "}");
    }

    #[test]
    fn a_broken_invoke_keeps_its_neighbours() {
        let v = parse(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"a\">\n\
             <｜DSML｜parameter name=\"x\" string=\"true\">1</｜DSML｜parameter>\n\
             <｜DSML｜invoke name=\"b\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        );
        assert_eq!(v["calls"][0]["name"], "b");
        assert_eq!(v["diagnostics"][0]["code"], "unclosed_block");
    }
}
