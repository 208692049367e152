//! Hermes (NousResearch Hermes 2 Pro, Qwen 2.5 / QwQ / Qwen3 instruct): JSON in `<tool_call>` tags.
//!
//! The chat template lists the tools as JSON inside `<tools></tools>` and asks for
//! `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` per call; results go back in
//! `<tool_response>` tags. A reply cut off inside its last `<tool_call>` (generation stopped at
//! end-of-sequence) is still decoded, with a warning.
//!
//! Follows vLLM's `hermes` parser (`vllm/tool_parsers/hermes_tool_parser.py`) and llama.cpp's
//! Hermes 2 Pro parser (`common/chat.cpp` `common_chat_parse_hermes_2_pro`, tests
//! `test_hermes_2_pro_parser`), which also reads what Qwen 2.5 models write instead of the
//! template's tag: the call object in `<tools>`, `<tool>`, `<response>`, `<json>`, `<JSON>` or
//! `<xml>` tags (also inside a ```` ```xml ```` fence), `<function=NAME>{…}</function>` inside
//! `<tool_call>`, the call object in a ```` ```json ```` fence inside `<tool_call>`, and
//! `<function name="NAME">{…}</function>`. Those other tags count only when the body is a call
//! object (`{"name": …`); otherwise they are prose. The call object is read as JSON first, as
//! llama.cpp does: `<tool_call>` or `</tool_call>` inside one of its strings (the Qwen3 template
//! writes arguments as they are) is text. Several objects in one `<tool_call>` (`{…}, {…}`, or
//! one per line) are one call each, as SGLang's streaming detector reads them.
//!
//! Named (not auto-detected), hermes also reads what llama.cpp's open pattern reads without a
//! tag: a bare `<function=NAME>{…}</function>`, `<function_call>{…}</function_call>`, and a
//! call object standing on its own (`{"name": …}`, also in a ```` ```json ```` fence). Those
//! rules are left out of its auto-detect signature, so such replies still detect as llama3_json,
//! functionary_v31 or granite_20b_fc, which read the same calls.
//!
//! Reasoning: QwQ, Qwen3 Thinking and Qwen3.5 templates open `<think>` in the prompt, so text
//! before a lone `</think>` is reasoning and calls drafted there are not calls (vLLM's `qwen3`
//! reasoning parser, llama.cpp's `thinking_forced_open`). A `<think>` never closed ends at its
//! first `<tool_call>` when a call object or `<function=` follows (vLLM's Qwen3 parser: Qwen3.5
//! opens calls without closing its reasoning). `<|im_end|>` / `<|endoftext|>` left in a raw
//! completion end a `<tool_call>` that was never closed.
//!
//! `<|im_end|>` (ChatML's end of turn) also ends the reply: it is the stop token of the models
//! that write this format (Hermes 2 Pro's and Qwen's `eos_token`; llama.cpp's vocabulary loader
//! counts it as end-of-generation, and vLLM and SGLang stop at the model's EOS tokens), so no
//! reference parser ever sees text after it. A raw completion that runs on (the next
//! `<|im_start|>` turn, a made-up `<tool_response>`, more calls) is not read, with a warning,
//! as llama3_json does at `<|eot_id|>`. `<|endoftext|>` only ends an unclosed call: glaive-style
//! transcripts put several turns around it.
//!
//! A `<tool_call>` opens a call only where a call's body follows it (a JSON or Python object or
//! list, a code fence, `<function=`), as llama.cpp's Hermes parser takes the tag only before
//! `{"name"`: Hermes 4 writes its reasoning in a `<tool_call>` it never closes, and the call it
//! makes after it must not be swallowed. Such a tag is text, reported as an error (a warning
//! where it stands in a sentence). vLLM pairs it with the first `</tool_call>` and reads no call.
//!
//! Hermes 2 Pro writes Python dicts too (`{'arguments': {…}, 'name': …}`), and its authors'
//! parser (Hermes-Function-Calling `utils.py`) falls back to `ast.literal_eval` when `json.loads`
//! fails; so does this one, for `<tool_call>` bodies, with a warning.
//!
//! Deliberate differences: vLLM, SGLang and llama.cpp read `<tool_call>` bodies as JSON only and
//! drop a Python dict; here the model's own parser decides. A `<tool_call>` holding `<function=NAME>` with `<parameter=…>` XML
//! (Qwen3-Coder's layout) is qwen3_coder's, which auto-detect picks: here it is reported, as
//! llama.cpp's and SGLang's Hermes parsers read only JSON there.

use crate::balanced::{value_end, Syntax};
use crate::calls::{
    error, find_marker_in, push_json_calls, push_named_call, push_object_in_prose,
    push_value_calls, warning,
};
use crate::framing::{Block, Close, Framing, Rule, JSON_VALUE, THINK_MAY_START_OPEN};
use crate::prompt::{result_value, tools_in_xml_tags};
use crate::pylit::parse_python_literal;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<tool_call>";
pub const CALL_CLOSE: &str = "</tool_call>";

const FRAMING: Framing = Framing {
    rules: &[
        // QwQ, Qwen3 Thinking and Qwen3.5 templates open `<think>` in the prompt; a model may
        // also start a call without closing its reasoning (see the module docs).
        THINK_MAY_START_OPEN
            .ends_unclosed_at(&[CALL_OPEN], &[&["{", "\"name\""], &[FUNCTION_OPEN]]),
        // Only where a call's body starts (llama.cpp's Hermes parser: the tag, then `{"name"`):
        // Hermes 4 writes its reasoning in a `<tool_call>` it never closes.
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE))
            .lenient()
            .json_body()
            .only_before(CALL_BODY_STARTS),
        Rule::call(NAMED_FUNCTION_OPEN, Close::Marker(FUNCTION_CLOSE)).lenient(),
        Rule::call("<tools>", Close::Marker("</tools>")).lenient(),
        Rule::call("<tool>", Close::Marker("</tool>")).lenient(),
        Rule::call("<response>", Close::Marker("</response>")).lenient(),
        Rule::call("<json>", Close::Marker("</json>")).lenient(),
        Rule::call("<JSON>", Close::Marker("</JSON>")).lenient(),
        Rule::call("<xml>", Close::Marker("</xml>")).lenient(),
        // Left in raw completions; they end an unclosed final call. `<|im_end|>` is also where
        // the model stops (see the module docs): what a raw completion writes after it is not
        // read.
        Rule::end_of_turn("<|im_end|>").ends_reply(),
        Rule::end_of_turn("<|endoftext|>"),
        // llama.cpp's open pattern without a tag: a bare `<function=NAME>{…}</function>`, and a
        // call object standing on its own (also in a ```` ```json ```` fence). Read when hermes
        // is named; left out of its auto-detect signature (see `signature`).
        Rule::call(FUNCTION_OPEN, Close::Marker(FUNCTION_CLOSE)).lenient(),
        Rule::object_with_key(&["\"name\""], JSON_VALUE).lenient(),
        // granite_20b_fc's tag, which llama.cpp's Hermes parser also reads.
        Rule::call("<function_call>", Close::Marker("</function_call>")).lenient(),
    ],
};

/// How a `<tool_call>` body starts: a JSON (or Python) object or list, a code fence around one,
/// or Qwen3-Coder's `<function=` (read here as llama.cpp does).
const CALL_BODY_STARTS: &[&str] = &["{", "[", "```", "<function"];

/// Rules before this index make hermes's auto-detect signature.
const UNTAGGED_RULES: usize = 11;
const BARE_FUNCTION_RULE: usize = 11;
const BARE_OBJECT_RULE: usize = 12;

/// Indices into [`FRAMING`]'s rules; the rest are the other tags Qwen models use.
const TOOL_CALL_RULE: usize = 1;
const NAMED_FUNCTION_RULE: usize = 2;

const NAMED_FUNCTION_OPEN: &str = "<function name=\"";
const FUNCTION_OPEN: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";

#[derive(Debug, Clone, Copy, Default)]
pub struct Hermes;

impl Protocol for Hermes {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Hermes / Qwen <tool_call> JSON"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_in_xml_tags(tools);
        out.push_str(
            "For each function call, return a json object with function name and \
             arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
             {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let body = serde_json::json!({
                "name": result.tool_name,
                "tool_call_id": result.request_id,
                "content": result_value(result),
            });
            out.push_str("<tool_response>\n");
            out.push_str(&body.to_string());
            out.push_str("\n</tool_response>\n");
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    /// The tags only: a bare call object or `<function=…>` is llama3_json's and
    /// functionary_v31's to claim in auto-detect, which read the same calls.
    fn signature(&self) -> crate::detect::Signature {
        crate::detect::framing_signature(Some(Framing {
            rules: FRAMING.rules.get(..UNTAGGED_RULES).unwrap_or(FRAMING.rules),
        }))
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let lead = body.len() - body.trim_start().len();
        match block.rule {
            TOOL_CALL_RULE if body.trim_start().starts_with(FUNCTION_OPEN) => {
                let after = block.body.start + lead + FUNCTION_OPEN.len();
                function_call(text, block, Span::new(after, block.body.end), ">", out);
            }
            TOOL_CALL_RULE => {
                let body = unfenced(text, block.body);
                for object in call_objects(text, body) {
                    push_tool_call_body(out, text, object, block.span);
                }
            }
            NAMED_FUNCTION_RULE => function_call(text, block, block.body, "\">", out),
            BARE_FUNCTION_RULE => function_call(text, block, block.body, ">", out),
            // An object in the prose with no arguments names something; it is not a call.
            BARE_OBJECT_RULE => {
                push_object_in_prose(out, text, block, ID, &crate::call_json::ARGUMENT_KEYS);
            }
            // Several objects one after the other are each a call here too: which tag the
            // model chose does not change how its calls are written.
            _ if starts_call_object(body) => {
                for object in call_objects(text, block.body) {
                    push_json_calls(out, text, object, block.span, ID, "the tag's body");
                }
            }
            // A tag around another of the format's tags (`<response><tools>{…}</tools>`, as
            // Qwen2 served by mlx-omni-server writes): llama.cpp takes a tag only before
            // `{"name"`, so it reads the inner one; so is it read here.
            _ if opens_a_tag(body) => {
                let mut inner = crate::framing::parse(self, body);
                inner.shift(block.body.start);
                out.requests.append(&mut inner.requests);
                out.diagnostics.append(&mut inner.diagnostics);
                out.content.push_str(&inner.content);
            }
            // A tag around prose, not a call.
            _ => out.content.push_str(
                text.get(block.span.start..block.span.end)
                    .unwrap_or_default(),
            ),
        }
    }
}

const ID: &str = "hermes";

/// Whether `body` starts with a tag that opens one of the format's call blocks.
fn opens_a_tag(body: &str) -> bool {
    let body = body.trim_start();
    FRAMING.rules.iter().any(|rule| match rule.open {
        crate::framing::Open::Marker(marker) if rule.kind == crate::framing::BlockKind::Call => {
            body.starts_with(marker)
        }
        _ => false,
    })
}

/// `{` then `"name"`: the body of a tag other than `<tool_call>` is a call only then, as in
/// llama.cpp (`<tag>\s*\{\s*"name"`).
fn starts_call_object(body: &str) -> bool {
    body.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"name\""))
}

/// A `<tool_call>` body read as Hermes-Function-Calling's own parser reads it (`utils.py`
/// `validate_and_extract_tool_calls`): JSON first, then, when that fails, a Python literal as
/// `ast.literal_eval` reads it. Hermes 2 Pro was trained on, and writes, Python dicts
/// (`{'arguments': {'symbol': 'TSLA'}, 'name': …}`). JSON is tried first so the usual body is
/// read once; only a body that is not JSON pays for the second reading, and its JSON error is
/// kept when it is no Python literal either.
fn push_tool_call_body(out: &mut ParseOutput, text: &str, body: Span, block_span: Span) {
    const WHAT: &str = "the <tool_call> body";
    let (requests, diagnostics) = (out.requests.len(), out.diagnostics.len());
    push_json_calls(out, text, body, block_span, ID, WHAT);
    let slice = text.get(body.start..body.end).unwrap_or_default();
    // A call of the wrong shape is JSON all the same: its error stands.
    let not_json = out.requests.len() == requests
        && serde_json::from_str::<serde::de::IgnoredAny>(slice).is_err();
    if !not_json {
        return;
    }
    let Ok(value) = parse_python_literal(slice.trim()) else {
        return;
    };
    out.diagnostics.truncate(diagnostics);
    warning(
        out,
        DiagnosticCode::InvalidJson,
        format!(
            "{WHAT} is a Python literal, not JSON; read as Hermes-Function-Calling's parser \
             reads it (ast.literal_eval)"
        ),
        body,
    );
    push_value_calls(out, text, value, body, block_span, ID, WHAT);
}

/// The call objects in a `<tool_call>` body (or another tag's: `<tools>`, `<response>`, …):
/// usually one, but several objects one after the other (`{…}, {…}` or one per line) are each a
/// call, as SGLang's streaming detector reads them (`test_function_call_parser.py`
/// `TestBaseFormatDetector.test_sequential_tool_index_assignment`). Anything else (one value, a
/// list, text that is not JSON) is the whole body, for the decoder to read or report.
fn call_objects(text: &str, body: Span) -> Vec<Span> {
    let bytes = text.as_bytes();
    let skip = |mut i: usize, separators: bool| {
        while i < body.end
            && (bytes[i].is_ascii_whitespace() || (separators && matches!(bytes[i], b',' | b';')))
        {
            i += 1;
        }
        i
    };
    let mut objects = Vec::new();
    let mut at = skip(body.start, false);
    while at < body.end && bytes[at] == b'{' {
        let Some(end) = value_end(Syntax::Json, &bytes[..body.end], at) else {
            break;
        };
        objects.push(Span::new(at, end));
        at = skip(end, true);
    }
    if objects.len() < 2 || at < body.end {
        return vec![body];
    }
    objects
}

/// The JSON inside a code fence that fills a `<tool_call>` body (```` ```json ````, ```` ```xml ````
/// or ```` ``` ````, a line break, the value, an optional closing ```` ``` ````), as Qwen 2.5
/// models write it and llama.cpp's Hermes parser reads it; otherwise the body as it is.
fn unfenced(text: &str, body: Span) -> Span {
    let slice = text.get(body.start..body.end).unwrap_or_default();
    let Some(info) = slice.trim_start().strip_prefix("```") else {
        return body;
    };
    let info = ["json", "xml"]
        .iter()
        .find_map(|lang| info.strip_prefix(lang))
        .unwrap_or(info);
    // `after` is a suffix of the body: where it starts follows from its length.
    let Some((line, after)) = info.split_once('\n') else {
        return body;
    };
    if !line.trim().is_empty() || !after.trim_start().starts_with(['{', '[']) {
        return body;
    }
    let inner = after.trim_end();
    let inner = inner.strip_suffix("```").unwrap_or(inner);
    let start = body.end - after.len();
    Span::new(start, start + inner.len())
}

/// `NAME<name_end>{…}` up to `</function>` (or the block's end): a call of NAME with the JSON
/// object as its arguments. `rest` starts at the name.
fn function_call(text: &str, block: &Block, rest: Span, name_end: &str, out: &mut ParseOutput) {
    let slice = text.get(rest.start..rest.end).unwrap_or_default();
    let Some(name_len) = find_marker_in(slice, name_end) else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("the function's name is not closed by '{name_end}'; the call is skipped"),
            block.span,
        );
        return;
    };
    let name = slice[..name_len].trim();
    let json_start = rest.start + name_len + name_end.len();
    let inner = &slice[name_len + name_end.len()..];
    let json_end = json_start + find_marker_in(inner, FUNCTION_CLOSE).unwrap_or(inner.len());
    let json = text.get(json_start..json_end).unwrap_or_default();
    if name.is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            "the function has no name; the call is skipped".to_owned(),
            block.span,
        );
    } else if json.contains("<parameter=") {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "'{name}' has <parameter=…> XML arguments (the Qwen3-Coder layout, read by the \
                 qwen3_coder format), not a JSON object; the call is skipped"
            ),
            block.span,
        );
    } else {
        let span = Span::new(json_start, json_end);
        push_named_call(out, text, block.span, span, ID, name, None);
    }
}
