//! MiniCPM 5: each call is a `<function>` element whose arguments are `<param>` elements.
//!
//! ```text
//! <function name="NAME"><param name="KEY">VALUE</param><param name="K2"><![CDATA[multi
//! line]]></param></function>
//! ```
//!
//! Follows vLLM's `MiniCPM5XMLToolParser` (`minicpm5xml_tool_parser.py`, `--tool-call-parser
//! minicpm5`), SGLang's `MiniCPM5Detector` and ollama's `minicpm5.go`. Calls stand anywhere in
//! the reply, one element each, and may follow one another; ollama also drops `<tool_call>` /
//! `</tool_call>` wrappers around them, so those are structural tokens here. The name is the
//! `name` attribute (quoted with `"` or `'`); the tags are special tokens that some detokenizers
//! glue to the attribute (`<functionname="…">`, `<paramname="…">`) or join with `Ġ` (U+0120)
//! instead of a space, and vLLM reads those spellings too, so they are read here. Params may sit
//! in an `<arguments>` element. A value wrapped whole in `<![CDATA[…]]>` is its inside, verbatim;
//! any other value is trimmed, as SGLang, ollama and vLLM's regex path do. Values are text
//! (requests are untyped): the engine types them from the method's schema, as the references
//! type non-string parameters with `json.loads` / `ast.literal_eval`.
//!
//! Broken calls (each skipped with an error, its neighbours kept): a `<param>` without a name, a
//! parameter given twice (vLLM and SGLang reject both), an unclosed `<param>`, and text inside
//! `<function>` that is not a `<param>` (a JSON body is the hermes `<function name="…">{…}`
//! form, which hermes reads). A `<function>` the reply ends in gives no call, as vLLM's test
//! `test_incomplete_missing_function_end` expects. Reasoning is in `<think>`; vLLM keeps only
//! what follows the last `</think>` as content, so a `</think>` before any `<think>` ends
//! reasoning that began at the reply's start.
//!
//! Deliberate differences: the references check each call against the request's tools (unknown
//! tool, missing required parameter, a parameter the schema lacks: the block stays content) and
//! vLLM rewrites a few tool names and a `properties` / `arguments` parameter holding the real
//! arguments; a parser that sees no tool list does neither (the engine's strict mode drops
//! unknown tools). XML entities are not decoded (`&lt;` stays `&lt;`, as in the rest of the
//! XML family here); vLLM's lxml path decodes them. `Ġ` / `Ċ` in prose are left as they are.
//! The prompt and result wording are this project's (the model's chat template is not stored):
//! tools as JSON lines in `<tools>`, results as `<tool_response>` elements.

use serde_json::{Map, Value};

use crate::calls::{error, push_request, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{each_result, function_definitions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<function name=\"";
const CALL_OPEN_SINGLE_QUOTE: &str = "<function name='";
/// The tag token glued to its attribute by a detokenizer.
const CALL_OPEN_GLUED: &str = "<functionname=\"";
/// `Ġ`, a byte-level tokenizer's space, left in place of the space.
const CALL_OPEN_BYTE_SPACE: &str = "<function\u{120}name=\"";
pub const CALL_CLOSE: &str = "</function>";
const FUNCTION_TAG: &str = "<function";
const PARAM_TAG: &str = "<param";
const PARAM_CLOSE: &str = "</param>";
const CDATA_OPEN: &str = "<![CDATA[";
const CDATA_CLOSE: &str = "]]>";

/// Each call rule reads markup: a `</function>` inside a value's text is text.
const fn call(open: &'static str) -> Rule {
    Rule::call(open, Close::Marker(CALL_CLOSE)).markup_body()
}

const FRAMING: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN,
        call(CALL_OPEN),
        call(CALL_OPEN_SINGLE_QUOTE),
        call(CALL_OPEN_GLUED),
        call(CALL_OPEN_BYTE_SPACE),
        // ollama treats a `<tool_call>` wrapper as transparent.
        Rule::token("<tool_call>"),
        Rule::token("</tool_call>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MiniCpm5Xml;

impl Protocol for MiniCpm5Xml {
    fn id(&self) -> &'static str {
        "minicpm5_xml"
    }

    fn label(&self) -> &'static str {
        "MiniCPM 5 <function name=…><param name=…> XML"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\
             The functions are listed in JSONSchema format within <tools></tools>:\n<tools>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(
            "</tools>\n\nTo call a function, write one element per call:\n\
             <function name=\"function-name\"><param name=\"key-1\">value-1</param>\
             <param name=\"key-2\">value-2</param></function>\n\
             Write strings as they are and other values as JSON; wrap a value that spans \
             lines in <![CDATA[…]]>.\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<tool_response>\n{}\n</tool_response>\n",
                result_text(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        if let Some(call) = read_function(text, block.span.start, end, out) {
            push_request(out, text, block.span, self.id(), call, true);
        }
    }
}

/// The call in the `<function …>` element at `start`, whose content ends at `end` (its
/// `</function>`). `None`, with an error, when it is broken.
fn read_function(text: &str, start: usize, end: usize, out: &mut ParseOutput) -> Option<Call> {
    let whole = Span::new(start, end);
    let Some((name, mut cursor)) = name_attribute(text, start + FUNCTION_TAG.len(), end) else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            "the <function> tag has no quoted name and '>'; the call is skipped".into(),
            whole,
        );
        return None;
    };
    let name = name.trim();
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            "the <function> tag names no tool; the call is skipped".into(),
            whole,
        );
        return None;
    }
    let mut args = Map::new();
    loop {
        cursor = skip_whitespace(text, cursor, end);
        if cursor >= end {
            break;
        }
        let rest = text.get(cursor..end).unwrap_or_default();
        // An `<arguments>` wrapper around the params is layout.
        if let Some(wrapper) = ["<arguments>", "</arguments>"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            cursor += wrapper.len();
            continue;
        }
        if !rest.starts_with(PARAM_TAG) {
            let what = if rest.starts_with('{') {
                "a JSON body (the hermes form)"
            } else {
                "text that is not a <param> element"
            };
            error(
                out,
                DiagnosticCode::StrayText,
                format!("'{name}' holds {what}; the call is skipped"),
                Span::new(cursor, end),
            );
            return None;
        }
        let tag_end = text
            .get(cursor..end)
            .and_then(|r| r.find('>'))
            .map_or(end, |at| cursor + at + 1);
        let Some((key, value_start)) = name_attribute(text, cursor + PARAM_TAG.len(), end) else {
            error(
                out,
                DiagnosticCode::UnknownKey,
                format!("a parameter of '{name}' has no name; the call is skipped"),
                Span::new(cursor, tag_end),
            );
            return None;
        };
        let Some(close) = text
            .get(value_start..end)
            .and_then(|r| memchr::memmem::find(r.as_bytes(), PARAM_CLOSE.as_bytes()))
            .map(|at| value_start + at)
        else {
            error(
                out,
                DiagnosticCode::UnclosedValue,
                format!("parameter '{key}' of '{name}' is not closed by '{PARAM_CLOSE}'; the call is skipped"),
                Span::new(cursor, end),
            );
            return None;
        };
        let raw = text.get(value_start..close).unwrap_or_default();
        let value = raw
            .strip_prefix(CDATA_OPEN)
            .and_then(|inner| inner.strip_suffix(CDATA_CLOSE))
            .unwrap_or_else(|| raw.trim());
        let key = key.trim();
        let span = Span::new(cursor, close + PARAM_CLOSE.len());
        if args
            .insert(key.to_owned(), Value::String(value.to_owned()))
            .is_some()
        {
            error(
                out,
                DiagnosticCode::DuplicateKey,
                format!("parameter '{key}' of '{name}' is given twice; the call is skipped"),
                span,
            );
            return None;
        }
        cursor = span.end;
    }
    Some(Call {
        name: name.to_owned(),
        args,
        id: None,
    })
}

/// Reads ` name="VALUE" …>` right after a tag's name: optional spaces (or `Ġ`), `name=`, a
/// quoted value, then anything but `<` up to `>`. Returns the value and where the tag ends.
fn name_attribute(text: &str, at: usize, end: usize) -> Option<(&str, usize)> {
    let rest = text.get(at..end)?;
    let attr = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{120}');
    let quoted = attr.strip_prefix("name=")?;
    let quote = quoted.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    let value_and_rest = &quoted[1..];
    let value_len = value_and_rest.find(quote)?;
    let value = &value_and_rest[..value_len];
    let after_value = &value_and_rest[value_len + 1..];
    let gt = after_value
        .find(['>', '<'])
        .filter(|&i| after_value[i..].starts_with('>'))?;
    let consumed = rest.len() - after_value.len() + gt + 1;
    Some((value, at + consumed))
}

fn skip_whitespace(text: &str, at: usize, end: usize) -> usize {
    let rest = text.get(at..end).unwrap_or_default();
    at + (rest.len() - rest.trim_start().len())
}
