//! Kimi K2 (Moonshot): special tokens around a call id and JSON arguments.
//!
//! ```text
//! <|tool_calls_section_begin|>
//! <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>
//! <|tool_calls_section_end|>
//! ```
//!
//! The call id `functions.NAME:IDX` is kept as the request id (the template feeds results back
//! under it) and NAME is the tool. A call whose id is not `NAME:IDX` (with or without the
//! `functions.` prefix, as vLLM accepts) is skipped with an error, as vLLM and SGLang skip it:
//! its tool is a guess. (vLLM also guesses the tool of a bare `0` id from the request's tools;
//! a parser with no tool list cannot, so such a call is skipped too.) Each `<|tool_call_begin|>` is a block of its own, so a broken
//! call never hides the others and calls stream one by one; the section tokens (also in their
//! singular spelling, which some checkpoints emit) only structure the reply. Reasoning (K2
//! Thinking) is in `<think>`, which the template may open in the prompt (text before a lone
//! `</think>` is reasoning); a `<think>` never closed ends at the first call section or call
//! token in it, as vLLM's `kimi_k2` reasoning parser reads it, and a call section ends it even
//! when a `</think>` comes after the section (K2 Thinking calls from inside its reasoning). Tools are declared as a JSON
//! list in a `tool_declare` system turn; each result is a `tool` turn headed `## Return of ID`.
//!
//! A call ends at the first `<|tool_call_end|>` outside the JSON arguments' strings
//! (`Rule::json_body`): the template writes arguments as they are, so a value may quote the
//! token (a tokenizer then emits its id there, which detokenizes to the same text). The vendors'
//! regexes end at the first one and lose such a call. A raw line break ends a string for this
//! purpose (JSON strings cannot hold one), so a broken string still meets its end token and the
//! diagnostic for a missing end token stays.
//!
//! Every marker is a special token, so a server decoding with `skip_special_tokens` (the
//! default in vLLM and SGLang, and in clients logging the text) leaves only the call id and its
//! arguments: `functions.NAME:IDX{…}` (or with spaces around them). Such an id followed by a
//! JSON object is a call, ending where the object closes. The tokens are stripped all together
//! or not at all: inside a `<|tool_call_begin|>` block the argument token is still required
//! (vLLM and SGLang skip such a call), and in a reply that holds any call token a bare id is
//! the model's own text (K2.5 writing `functions.exec:5 {…}` after a real section), reported
//! and not read, as the references read it.

use crate::balanced::Syntax;
use crate::calls::{arguments, error, parse_json, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Open, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{each_result, function_definitions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<|tool_call_begin|>";
pub const CALL_CLOSE: &str = "<|tool_call_end|>";
pub const ARGUMENTS: &str = "<|tool_call_argument_begin|>";
const SECTION_OPEN: &str = "<|tool_calls_section_begin|>";
/// The call id's namespace, which opens a call whose special tokens were stripped.
const STRIPPED_OPEN: &str = "functions.";
const SECTION_OPEN_SINGULAR: &str = "<|tool_call_section_begin|>";
/// How every call and section token starts: a reply holding one kept its special tokens.
const TOKEN_START: &str = "<|tool_call";

const FRAMING: Framing = Framing {
    rules: &[
        // The K2 Thinking template may open the reasoning in the prompt, and the model may start
        // its calls without closing it: vLLM's `kimi_k2` reasoning parser reads both. A call
        // section ends the reasoning even when `</think>` follows it (K2 Thinking writes its
        // calls inside the reasoning): the section tokens are special tokens no reasoning text
        // holds, and vLLM's streaming reasoning parser and llama.cpp (tool calls inside
        // thinking) read the calls there.
        THINK_MAY_START_OPEN
            .ends_unclosed_at(&[SECTION_OPEN, SECTION_OPEN_SINGULAR, CALL_OPEN], &[])
            .also_ended_by(&[SECTION_OPEN, SECTION_OPEN_SINGULAR]),
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE))
            .lenient()
            .json_body(),
        // `functions.NAME:IDX{…}` with the tokens around it decoded away.
        Rule::call_id(
            STRIPPED_OPEN,
            Close::Balanced {
                after: ARGUMENTS,
                syntax: Syntax::Json,
            },
        )
        .lenient(),
        Rule::token(SECTION_OPEN),
        Rule::token("<|tool_calls_section_end|>"),
        // The `</think>` after a section that already ended the reasoning: not content.
        Rule::token("</think>"),
        Rule::token(SECTION_OPEN_SINGULAR),
        Rule::token("<|tool_call_section_end|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct KimiK2;

impl Protocol for KimiK2 {
    fn id(&self) -> &'static str {
        "kimi_k2"
    }

    fn label(&self) -> &'static str {
        "Kimi K2 <|tool_call_begin|> tokens"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let list = serde_json::Value::Array(function_definitions(tools));
        format!("<|im_system|>tool_declare<|im_middle|>{list}<|im_end|>")
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|im_system|>tool<|im_middle|>## Return of {}\n{}<|im_end|>",
                r.request_id,
                result_text(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        // A stripped call's id begins with its opener (`functions.`), the others' in the body.
        let stripped = matches!(
            FRAMING.rules.get(block.rule).map(|r| r.open),
            Some(Open::CallId(_))
        );
        if stripped && text.contains(TOKEN_START) {
            let id = text
                .get(block.span.start..block.body.end)
                .and_then(|t| t.split(|c: char| c == '{' || c.is_whitespace()).next())
                .unwrap_or_default();
            warning(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "'{id}' comes without the call tokens in a reply that holds them, so no \
                     server decoded them away: it is the model's text, not a call (vLLM and \
                     SGLang read calls only between {CALL_OPEN} and {CALL_CLOSE})"
                ),
                block.span,
            );
            return;
        }
        let id_from = if stripped {
            block.span.start
        } else {
            block.body.start
        };
        let Some((id_end, args_start)) = arguments_at(text, id_from, block.body, stripped) else {
            let why = if block.complete {
                "has no"
            } else {
                "is cut off before its"
            };
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the call '{}' {why} {ARGUMENTS}; it is skipped",
                    body.trim()
                ),
                block.span,
            );
            return;
        };
        let raw_id = text.get(id_from..id_end).unwrap_or_default();
        let id = raw_id.trim();
        let id_start = id_from + (raw_id.len() - raw_id.trim_start().len());
        let id_span = Span::new(id_start, id_start + id.len());
        let Some(name) = tool_of_id(id) else {
            // vLLM and SGLang only take ids of the form NAME:IDX; guessing a tool from anything
            // else (`functions.get_weather.0`) could run a call the model did not make.
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the call id '{id}' is not in the form functions.NAME:IDX; the call is skipped"
                ),
                id_span,
            );
            return;
        };
        let json = Span::new(args_start, block.body.end);
        let what = format!("the arguments of '{id}'");
        let Some(value) = parse_json(text, json, &what, out) else {
            return;
        };
        match arguments("arguments", value) {
            Ok(args) => push_request(
                out,
                text,
                block.span,
                self.id(),
                Call {
                    name: name.to_owned(),
                    args,
                    id: Some(id.to_owned()),
                },
                false,
            ),
            Err((code, message)) => error(out, code, message, json),
        }
    }
}

/// Where a call's id ends and its JSON arguments begin (offsets into `text`): after
/// `<|tool_call_argument_begin|>`, or, in a `stripped` call, at the `{` right after a call id
/// (`functions.NAME:IDX{…}`).
fn arguments_at(text: &str, id_from: usize, body: Span, stripped: bool) -> Option<(usize, usize)> {
    let body_text = text.get(body.start..body.end)?;
    if let Some(marker) = body_text.find(ARGUMENTS) {
        let at = body.start + marker;
        return Some((at, at + ARGUMENTS.len()));
    }
    if !stripped {
        return None;
    }
    let brace = body.start + body_text.find('{')?;
    tool_of_id(text.get(id_from..brace)?.trim()).map(|_| (brace, brace))
}

/// The tool a call id names: `functions.NAME:IDX` (or `NAME:IDX`, which vLLM also accepts) →
/// `NAME`; `None` when there is no numeric `:IDX` or no name.
fn tool_of_id(id: &str) -> Option<&str> {
    let (name, index) = id.rsplit_once(':')?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = name.strip_prefix("functions.").unwrap_or(name).trim();
    let plain = !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '<');
    plain.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::{json, Value};

    fn parse(text: &str) -> Value {
        summary(&KimiK2, text)
    }

    #[test]
    fn ids_names_and_arguments() {
        let text = "Let me check.<|tool_calls_section_begin|><|tool_call_begin|>functions.weather_get:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|> functions.time_now:1 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
        let out = KimiK2.parse_tool_requests(text);
        assert_eq!(out.requests.len(), 2);
        assert_eq!(out.requests[0].request_id, "functions.weather_get:0");
        assert_eq!(out.requests[0].tool_name, "weather_get");
        assert_eq!(out.requests[1].request_id, "functions.time_now:1");
        assert_eq!(out.content, "Let me check.");
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    }

    #[test]
    fn split_ids() {
        assert_eq!(tool_of_id("functions.a_b:3"), Some("a_b"));
        assert_eq!(tool_of_id("a_b:12"), Some("a_b"));
        assert_eq!(tool_of_id("functions.a_b"), None);
        assert_eq!(tool_of_id("functions.invalid.0"), None);
        assert_eq!(tool_of_id("functions.ns:tool:x"), None);
        assert_eq!(tool_of_id("functions.:0"), None);
        assert_eq!(tool_of_id("0"), None);
    }

    #[test]
    fn calls_with_malformed_ids_are_skipped_not_renamed() {
        // vLLM's test_invalid_funcall_id_skipped.
        let out = KimiK2.parse_tool_requests(
            "<|tool_call_begin|>functions.invalid.0 <|tool_call_argument_begin|>{}<|tool_call_end|>\
             <|tool_call_begin|>functions.valid:1 <|tool_call_argument_begin|>{}<|tool_call_end|>",
        );
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].tool_name, "valid");
        assert_eq!(out.diagnostics.len(), 1);
        assert!(out.diagnostics[0].message.contains("functions.invalid.0"));
    }

    #[test]
    fn broken_calls_keep_their_neighbours() {
        let v = parse(
            "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": }<|tool_call_end|>\
             <|tool_call_begin|>functions.b:1{}<|tool_call_end|>\
             <|tool_call_begin|>functions.:2<|tool_call_argument_begin|>{}<|tool_call_end|>\
             <|tool_call_begin|>functions.c:3<|tool_call_argument_begin|>[1]<|tool_call_end|>\
             <|tool_call_begin|>functions.d:4<|tool_call_argument_begin|>{\"ok\": true}<|tool_call_end|>",
        );
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["calls"][0]["args"], json!({"ok": true}));
        assert_eq!(v["calls"][0]["untyped"], false);
        let codes: Vec<&Value> = v["diagnostics"]
            .as_array()
            .map(|d| d.iter().map(|d| &d["code"]).collect())
            .unwrap_or_default();
        assert_eq!(
            codes,
            [
                &json!("invalid_json"),
                &json!("invalid_json"),
                &json!("missing_tool_name"),
                &json!("invalid_json"),
            ]
        );
        assert_eq!(v["diagnostics"][0]["at"], "}");
        assert_eq!(v["diagnostics"][3]["at"], "[1]");
    }

    #[test]
    fn cut_off_calls() {
        let v = parse("<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": 1}");
        assert_eq!(v["calls"][0]["args"], json!({"x": 1}));
        assert_eq!(v["diagnostics"][0]["severity"], "warning");
        let v = parse("<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": ");
        assert_eq!(v["calls"], json!([]));
        assert_eq!(v["diagnostics"][1]["severity"], "error");
    }

    #[test]
    fn results_use_the_call_id() {
        let result = ToolExecutionResult {
            request_id: "functions.a:0".into(),
            tool_name: "a".into(),
            status: crate::result::ExecutionStatus::Success,
            result: "42".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        assert_eq!(
            KimiK2.format_tool_results(&[result]),
            "<|im_system|>tool<|im_middle|>## Return of functions.a:0\n42<|im_end|>"
        );
    }
}
