//! K2 Horizon (K2-v3) "IFM" tool calls: `<ifm|…>` tokens, one call per `<ifm|tool_call>`,
//! the calls of a turn grouped in `<ifm|tool_calls>`.
//!
//! ```text
//! <ifm|think>…</ifm|think>
//! <ifm|tool_calls>
//! <ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value></ifm|tool_call>
//! <ifm|tool_call>lookup<ifm|arg_key>limit</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call>
//! <ifm|tool_call>{"name": "ping", "arguments": {}}</ifm|tool_call>
//! </ifm|tool_calls>
//! ```
//!
//! Follows SGLang's `K2V3Detector` (`python/sglang/srt/function_call/k2_v3_detector.py`, tests
//! `test/registered/unit/function_call/test_k2_v3_detector.py`) and vLLM's `k2_horizon` parser
//! (`vllm/tool_parsers/k2_horizon_tool_parser.py`, tests
//! `tests/tool_parsers/test_k2_horizon_tool_parser.py`). A block's body says its dialect: one
//! that starts with `{` or `[` is a JSON call object (or a list of them, the shared decoder's
//! variants); otherwise it is the tool's name, then `<ifm|arg_key>` / optional `<ifm|arg_type>`
//! / `<ifm|arg_value>` triples with only whitespace between them (read by the shared
//! [`crate::arg_pairs`] reader, which takes the optional type element). A value is its text as written
//! (not trimmed); with an `arg_type` other than `string` or `any` it is read as JSON, and without
//! one it stays text and the call is untyped, so the engine types it from the schema (without a
//! schema a JSON literal becomes that literal, as the references' best-effort `json.loads`).
//! Reasoning is `<ifm|think>`, `<ifm|think_fast>` or `<ifm|think_faster>`; the prompt may open
//! `<ifm|think>`, so a lone `</ifm|think>` ends reasoning that began at the reply's start. The
//! group tokens are dropped from the content.
//!
//! Deliberate differences from the references:
//! - a broken block is an error that keeps its neighbours; SGLang forwards a whole group as
//!   text when one of its blocks is broken, and vLLM also rejects a group whose
//!   `</ifm|tool_calls>` is missing (SGLang then reads its blocks one by one, as here);
//! - a block the reply ends in gives no call (reported), as both references keep it as text;
//! - JSON arguments are kept as written (`"2"` stays a string); the references convert them to
//!   the schema's type when the request declares one;
//! - the request's tools are not known here: unknown tools are kept, and the references'
//!   `tool_call_format` request switch (which rejects the other dialects) does not apply.
//!
//! No K2 Horizon chat template was available: tools are presented as JSON with the XML call
//! layout, and results go back as one JSON result object per line.

use serde_json::{Map, Value};

use crate::arg_pairs::{CallContext, PairReader, PairSyntax, Stray};
use crate::calls::{error, push_json_calls, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::insert_arg;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<ifm|tool_call>";
pub const CALL_CLOSE: &str = "</ifm|tool_call>";
pub const GROUP_OPEN: &str = "<ifm|tool_calls>";
pub const GROUP_CLOSE: &str = "</ifm|tool_calls>";
const KEY_OPEN: &str = "<ifm|arg_key>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<ifm|think>", "</ifm|think>").may_start_open(),
        Rule::reasoning("<ifm|think_fast>", "</ifm|think_fast>"),
        Rule::reasoning("<ifm|think_faster>", "</ifm|think_faster>"),
        // Not lenient: a cut-off block is text to both references.
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)),
        Rule::token(GROUP_OPEN),
        Rule::token(GROUP_CLOSE),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct K2V3;

impl Protocol for K2V3 {
    fn id(&self) -> &'static str {
        "k2_v3"
    }

    fn label(&self) -> &'static str {
        "K2 Horizon (K2-v3) <ifm|tool_call>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("# Tools\n\nThe functions you may call, as JSON Schema:\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str(
            "\nTo call functions, write them in one <ifm|tool_calls> block, one \
             <ifm|tool_call> each:\n<ifm|tool_calls>\n<ifm|tool_call>{function-name}\
             <ifm|arg_key>{key}</ifm|arg_key><ifm|arg_value>{value}</ifm|arg_value>\
             </ifm|tool_call>\n</ifm|tool_calls>\nWrite text values as they are and other \
             values as JSON.\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        results
            .iter()
            .map(|r| result_value(r).to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = block.body_text(text);
        let lead = body.len() - body.trim_start().len();
        let start = block.body.start + lead;
        let rest = body.trim();
        if rest.starts_with('{') || rest.starts_with('[') {
            let span = Span::new(start, start + rest.len());
            let what = format!("the {CALL_OPEN} body");
            push_json_calls(out, text, span, block.span, self.id(), &what);
            return;
        }
        let name_len = rest.find(KEY_OPEN).unwrap_or(rest.len());
        let name = rest[..name_len].trim();
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the {CALL_OPEN} block does not start with a tool name; it is skipped"),
                block.span,
            );
            return;
        }
        let Some((args, untyped)) = arguments(text, start + name_len, end, name, out) else {
            return;
        };
        let call = Call {
            name: name.to_owned(),
            args,
            id: None,
        };
        push_request(out, text, block.span, self.id(), call, untyped);
    }
}

/// How K2 Horizon writes its pairs: `<ifm|…>` tags with an optional declared type, values as
/// written, whitespace the only layout, any other text skipping the call (both references
/// match the whole body).
const PAIRS: PairSyntax = PairSyntax {
    key_open: KEY_OPEN,
    key_close: "</ifm|arg_key>",
    value_open: "<ifm|arg_value>",
    value_close: "</ifm|arg_value>",
    type_tags: Some(("<ifm|arg_type>", "</ifm|arg_type>")),
    trim_values: false,
    literal_newlines: false,
    value_ends_at_next_key: false,
    stray: Stray::SkipsTheCall,
};

/// Reads `text[from..end]` as argument triples; `None` (with an error) when it is anything else.
/// The flag says some value had no `arg_type`, so it is text for the engine to type.
fn arguments(
    text: &str,
    from: usize,
    end: usize,
    name: &str,
    out: &mut ParseOutput,
) -> Option<(Map<String, Value>, bool)> {
    let mut args = Map::new();
    let mut untyped = false;
    let call = CallContext {
        name,
        close: CALL_CLOSE,
        complete: true,
    };
    let read = PairReader::new(text, end, PAIRS).read_all(from, call, out, |pair, out| {
        let as_text = Value::String(pair.value.to_owned());
        let typed = match pair.declared_type {
            None => {
                untyped = true;
                as_text
            }
            Some("string" | "str" | "text" | "any") => as_text,
            Some(kind) => match serde_json::from_str::<Value>(pair.value.trim()) {
                Ok(parsed) => parsed,
                Err(e) => {
                    warning(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!(
                            "argument '{}' of '{name}' is declared {kind} but is not JSON ({e}); \
                             it is kept as text",
                            pair.key
                        ),
                        pair.value_span,
                    );
                    untyped = true;
                    as_text
                }
            },
        };
        insert_arg(&mut args, pair.key, typed, pair.span, name, out);
    });
    read.then_some((args, untyped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    #[test]
    fn typed_and_untyped_values() {
        let v = summary(
            &K2V3,
            "<ifm|tool_call>get_weather\n<ifm|arg_key>city</ifm|arg_key>\n\
             <ifm|arg_type>string</ifm|arg_type>\n<ifm|arg_value>  Boston  </ifm|arg_value>\n\
             <ifm|arg_key>days</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type>\
             <ifm|arg_value>3</ifm|arg_value>\n</ifm|tool_call>",
        );
        assert_eq!(
            v["calls"][0]["args"],
            json!({"city": "  Boston  ", "days": 3})
        );
        assert_eq!(v["calls"][0]["untyped"], false);
        assert_eq!(v["diagnostics"], json!([]));
    }

    #[test]
    fn a_broken_block_keeps_its_neighbours() {
        let v = summary(
            &K2V3,
            "<ifm|tool_calls><ifm|tool_call>a<ifm|arg_key>x</ifm|arg_key></ifm|tool_call>\
             <ifm|tool_call>{\"name\": \"b\", \"arguments\": {\"n\": 1}}</ifm|tool_call>\
             </ifm|tool_calls>",
        );
        assert_eq!(v["calls"][0]["name"], "b");
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["diagnostics"][0]["code"], "unclosed_value");
        assert_eq!(v["content"], "");
    }
}
