//! Llama 3.1 / 3.2 / 3.3 (and Llama 4 JSON) tool calling: `{"name": …, "parameters": {…}}`,
//! after `<|python_tag|>` or bare, several calls separated by `;`; Llama 3.1's built-in tools
//! as `<|python_tag|>brave_search.call(query="…")`.
//!
//! Follows vLLM's `llama3_json` parser (`vllm/tool_parsers/llama_tool_parser.py` and its tests
//! `tests/tool_parsers/test_llama3_json_tool_parser.py`), llama.cpp's Llama 3.x parser
//! (`common/chat.cpp` `common_chat_parse_llama_3_1`, tests `test_llama_3_x_parser`) and Meta's
//! template, which asks for `{"name": function name, "parameters": dictionary of argument name
//! and its value}` and feeds results back in an `ipython` turn. `<|eom_id|>` / `<|eot_id|>`
//! end the reply: they are the model's stop tokens (Meta's prompt-format guide: `<|eom_id|>`
//! ends the message so the tool can run; llama.cpp stops generation at both), so a raw
//! completion that runs on past the first of them (the `ipython` turn, a made-up result, the
//! next assistant turn with more calls) is not read, with a warning.
//!
//! What is a call:
//! - after `<|python_tag|>` (up to the next end-of-turn token), or between Llama 4's
//!   `<|python_start|>` and `<|python_end|>` (vLLM's parser, registered as `llama4_json` too,
//!   tries every `{` in the reply, so it reads JSON calls there): JSON calls separated by `;` or
//!   `,` (or a JSON list of them); a built-in tool call `name.call(arg="…", …)` with
//!   Python-literal arguments (llama.cpp's builtin-tools grammar), read as the call `name`.
//!   Anything else (raw code, which Meta's own stack runs in its code interpreter) is content
//!   with a warning, as vLLM (no `{`), SGLang (no JSON) and llama.cpp's Llama 3.x parser
//!   (no `name.call(`) all leave it;
//! - a reply that is a JSON call (the `{` first), with `;` or `,` between several;
//! - a JSON object in the prose, as vLLM finds them: standing on its own (not inside a list or
//!   after a tag, which other formats own), first key `"name"` (or `"type"`, for
//!   `{"type": "function", "name": …, "parameters": …}`), holding `"parameters"` or
//!   `"arguments"`. One without those keys is prose, as in vLLM; calls written one after
//!   another need no separator, and `;` or `,` may stand between them (vLLM tries every `{`;
//!   SGLang skips one separator byte);
//! - a JSON list standing on its own (the whole reply, or after prose) whose first element is
//!   such an object: each element a call, as vLLM reads the objects in it. Auto-detect still
//!   gives a reply that starts with such a list to xLAM, whose whole format it is.
//!
//! Deliberate differences: the prose around calls stays content (vLLM drops it when it finds a
//! call); a bad call is reported and skipped while the others are kept (vLLM's batch parser
//! drops every call when one fails).

use serde_json::{Map, Value};

use crate::balanced::{value_end, Syntax};
use crate::calls::{error, push_json_calls, push_object_in_prose, push_request, warning, Call};
use crate::framing::{Block, Close, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::pythonic::{PYTHON_END, PYTHON_START};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const PYTHON_TAG: &str = "<|python_tag|>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // Stop tokens: Meta's servers and llama.cpp end the reply at either.
        Rule::token("<|eom_id|>").ends_reply(),
        Rule::token("<|eot_id|>").ends_reply(),
        Rule::call(PYTHON_TAG, Close::UntilNext),
        Rule::at_text_start("{", JSON_VALUE)
            .lenient()
            .separated_by(SEPARATORS),
        Rule::object_with_key(CALL_KEYS, JSON_VALUE)
            .lenient()
            .separated_by(SEPARATORS),
        Rule::object_list(CALL_KEYS, JSON_VALUE).lenient(),
        Rule::call(PYTHON_START, Close::Marker(PYTHON_END)).lenient(),
    ],
};

/// What a call object's first key is: `{"name": …}`, or `{"type": "function", …}`.
const CALL_KEYS: &[&str] = &["\"name\"", "\"type\""];

/// Between calls: `;` as Llama's template asks, or `,` as models also write (vLLM tries every
/// `{`; SGLang's Llama 3.2 detector skips one separator byte after each object).
const SEPARATORS: &[u8] = b";,";

/// Indices into [`FRAMING`]'s rules.
const PYTHON_TAG_RULE: usize = 3;
const IN_PROSE_RULE: usize = 5;
const PYTHON_START_RULE: usize = 7;

#[derive(Debug, Clone, Copy, Default)]
pub struct Llama3Json;

impl Protocol for Llama3Json {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Llama 3.x JSON (<|python_tag|>)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "Given the following functions, please respond with a JSON for a function call with \
             its proper arguments that best answers the given prompt.\n\n\
             Respond in the format {\"name\": function name, \"parameters\": dictionary of \
             argument name and its value}. Do not use variables.\n\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&serde_json::to_string_pretty(&definition).unwrap_or_default());
            out.push_str("\n\n");
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        ipython_turns(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        match block.rule {
            PYTHON_TAG_RULE | PYTHON_START_RULE => decode_python_tag(text, block, out),
            _ if !block.complete && decode_restarted(text, block, out) => {}
            IN_PROSE_RULE => push_object_in_prose(out, text, block, ID, ARGUMENT_KEYS),
            _ => push_json_calls(out, text, block.body, block.span, ID, "the JSON call"),
        }
    }
}

const ID: &str = "llama3_json";

/// Results as Llama 3's template feeds them back: one `ipython` turn each, the value as JSON.
/// The pythonic format (Llama 3.2 / 4) returns results the same way.
pub fn ipython_turns(results: &[ToolExecutionResult]) -> String {
    let mut out = String::new();
    for result in results {
        out.push_str("<|start_header_id|>ipython<|end_header_id|>\n\n");
        out.push_str(&result_value(result).to_string());
        out.push_str("<|eot_id|>");
    }
    out
}

/// A call object the reply ends in (it never closes): when a complete call object starts inside
/// it (`{"name": "f", "parameters": {{"name": "f", "parameters": {}}`, a model restarting its
/// call), that one and any after it are read and the broken start is reported, as vLLM (every
/// `{` is tried) and SGLang (a failed decode resumes at the next `{"name"`, test
/// `TestLlama32Detector.test_invalid_then_valid_json`) read it. False when there is none: the
/// block is then decoded as usual.
fn decode_restarted(text: &str, block: &Block, out: &mut ParseOutput) -> bool {
    let mut objects: Vec<Span> = Vec::new();
    // In start order, so the objects nested in an accepted call come right after it.
    for object in closed_objects(text.as_bytes(), block.body) {
        if object.start <= block.body.start
            || objects.last().is_some_and(|last| object.start < last.end)
        {
            continue;
        }
        let json = text.get(object.start..object.end).unwrap_or_default();
        let key = json.get(1..).unwrap_or_default().trim_start();
        if key.starts_with("\"name\"") && is_call_object(json) {
            objects.push(object);
        }
    }
    let Some(first) = objects.first() else {
        return false;
    };
    error(
        out,
        DiagnosticCode::InvalidJson,
        "the JSON call is not complete before another call object starts in it; it is skipped"
            .to_owned(),
        Span::new(block.span.start, first.start),
    );
    for object in objects {
        push_json_calls(out, text, object, object, ID, "the JSON call");
    }
    true
}

/// Every object in `body` that closes before it ends, in start order, found in one pass with
/// JSON strings skipped. Trying each `{` with its own balanced walk would read a long unclosed
/// body once per brace: quadratic on a reply of nested, never-closed objects. A `{"name"` inside
/// a string ends that string: valid JSON cannot hold it there (its `"` would close the string),
/// so the string was never closed and a call starts anew (Llama 3.1 leaving its last value open
/// before `; {"name": …}`; SGLang's Llama 3.2 detector resumes at the next `{"name"` too).
fn closed_objects(bytes: &[u8], body: Span) -> Vec<Span> {
    let mut open = Vec::new();
    let mut closed = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for (at, &b) in bytes.iter().enumerate().take(body.end).skip(body.start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'{' if names_a_call(bytes.get(at + 1..body.end).unwrap_or_default()) => {
                    in_string = false;
                    open.push(at);
                }
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => open.push(at),
            b'}' => {
                if let Some(start) = open.pop() {
                    closed.push(Span::new(start, at + 1));
                }
            }
            _ => {}
        }
    }
    closed.sort_unstable_by_key(|span| span.start);
    closed
}

/// Whether `rest` (what follows a `{`) starts with the `"name"` key, whitespace allowed.
fn names_a_call(rest: &[u8]) -> bool {
    let key = rest
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    rest.get(key..)
        .is_some_and(|rest| rest.starts_with(b"\"name\""))
}

/// The keys vLLM takes a call's arguments from.
const ARGUMENT_KEYS: &[&str] = &["parameters", "arguments"];

/// A JSON object holding a call's arguments under one of [`ARGUMENT_KEYS`], as vLLM requires.
fn is_call_object(json: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(json)
        .is_ok_and(|o| ARGUMENT_KEYS.iter().any(|key| o.contains_key(*key)))
}

/// What follows `<|python_tag|>`: JSON calls, a built-in tool call, or code.
fn decode_python_tag(text: &str, block: &Block, out: &mut ParseOutput) {
    let body = block.body_text(text);
    let tag = FRAMING
        .rules
        .get(block.rule)
        .map_or(PYTHON_TAG, |rule| rule.open.text());
    let code = body.trim();
    if code.is_empty() {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!("nothing follows {tag}; expected a call"),
            block.span,
        );
    } else if code.starts_with(['{', '[']) {
        json_calls(text, block, out);
    } else if let Some(name_end) = builtin_call(code) {
        builtin(text, block, code, name_end, out);
    } else {
        // Raw code: no reference parser calls a tool for it, so it is the reply's text.
        warning(
            out,
            DiagnosticCode::StrayText,
            format!(
                "what follows {tag} is neither a JSON call nor a built-in tool call \
                 ('name.call(…)'); it is kept as content (raw code for a code interpreter is no \
                 call in vLLM, SGLang or llama.cpp)"
            ),
            block.span,
        );
        out.content.push_str(code);
    }
}

/// JSON calls separated by `;` or `,` (or only whitespace) in `text[block.body]`, each its own
/// request (spanned from the tag or its separator); prose after them stays content. Llama's
/// template asks for `;`, but models also write `{…}, {…}`, which vLLM (every `{` is tried) and
/// SGLang (a failed decode resumes at the next `{"name":`) both read as calls.
fn json_calls(text: &str, block: &Block, out: &mut ParseOutput) {
    let bytes = text.as_bytes();
    let body = block.body;
    let mut at = body.start;
    let mut call_start = block.span.start;
    while at < body.end {
        match bytes[at] {
            b';' | b',' => {
                call_start = at;
                at += 1;
            }
            b if b.is_ascii_whitespace() => at += 1,
            b'{' | b'[' => {
                let end = value_end(Syntax::Json, &bytes[..body.end], at).unwrap_or(body.end);
                let call = Span::new(call_start, end);
                push_json_calls(out, text, Span::new(at, end), call, ID, "the JSON call");
                at = end;
            }
            _ => {
                out.content
                    .push_str(text.get(at..body.end).unwrap_or_default());
                return;
            }
        }
    }
}

/// `name.call(`: the end of `name` when `code` starts a built-in tool call.
fn builtin_call(code: &str) -> Option<usize> {
    let name_end = code
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|&end| end > 0)?;
    let rest = code[name_end..].trim_start().strip_prefix('.')?;
    rest.trim_start()
        .strip_prefix("call")?
        .trim_start()
        .starts_with('(')
        .then_some(name_end)
}

/// `name.call(a="…", …)`: the call `name`, its keyword arguments read as Python literals.
fn builtin(text: &str, block: &Block, code: &str, name_end: usize, out: &mut ParseOutput) {
    let name = &code[..name_end];
    let list = crate::pylit::parse_call_list(&format!("[{code}]"));
    match list.items.into_iter().next() {
        Some(Ok(call)) if list.end.is_some() => {
            let call = Call {
                name: name.to_owned(),
                args: call.args,
                id: None,
            };
            push_request(out, text, block.span, ID, call, false);
        }
        Some(Err(e)) => error(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "the built-in tool call '{name}.call(…)' is not valid: {}; it is skipped",
                e.message
            ),
            block.span,
        ),
        _ => error(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "the built-in tool call '{name}.call(…)' is not one complete call; it is skipped"
            ),
            block.span,
        ),
    }
}
