//! DeepSeek V3 / R1 special-token calls:
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//! ```json
//! {"location": "Paris"}
//! ```<｜tool▁call▁end｜>
//! <｜tool▁call▁begin｜>…<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//! ```
//!
//! (The bars and the space mark are the full-width `｜` U+FF5C and `▁` U+2581 of DeepSeek's
//! tokenizer.) The outer begin/end markers only structure the reply; each call is a block:
//! its type (`function`), `<｜tool▁sep｜>`, the name on its own line, then the arguments as JSON
//! in a ```json fence. Results go back as
//! `<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>…<｜tool▁output▁end｜>…<｜tool▁outputs▁end｜>`.
//!
//! DeepSeek V3.1 ([`super::deepseek_v31`]) keeps the markers and drops the type and the fence;
//! the framing and the argument decoding are shared from here.
//!
//! Leniency: another call type than `function`, or arguments without (or with an unclosed)
//! fence, are read with a warning; a missing `<｜tool▁sep｜>`, a missing or malformed name, and
//! arguments that are not one JSON object skip the call (error). A reply cut off after a
//! complete JSON object is decoded with a warning; one cut inside the JSON skips the call. A call
//! whose `<｜tool▁call▁end｜>` is missing but whose list is closed by `<｜tool▁calls▁end｜>` ends
//! there (warning), and the text after the list is content again. An empty argument text is
//! `{}` in a closed call.
//!
//! As in llama.cpp's R1 and V3.1 parsers (`common/chat.cpp`), the list may open with a
//! misspelled token (`<｜tool▁calls｜>`, `<｜tool_calls_begin｜>`, `<｜tool calls begin｜>`,
//! `<｜tool\_calls\_begin｜>`), and after one the first call's `<｜tool▁call▁begin｜>` is optional.
//! In thinking mode the template opens `<think>` in the prompt, so a reply may start inside the
//! reasoning: when `</think>` comes before any `<think>`, everything before it is reasoning and
//! calls written there are not calls; a reply with no `</think>` is content (llama.cpp's
//! `thinking_forced_open`). Deliberate difference: llama.cpp only does so when the template
//! forced thinking open; a parser that does not see the prompt applies it to every reply, which
//! only matters for a non-thinking reply that writes `</think>` in prose.

use serde_json::Value;

use crate::calls::{
    arguments, error, find_marker_in, parse_json, push_request, warning, ArgumentsOf, Call,
};
use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::{function_definitions, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
pub const CALLS_END: &str = "<｜tool▁calls▁end｜>";
pub const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
pub const CALL_END: &str = "<｜tool▁call▁end｜>";
pub const SEP: &str = "<｜tool▁sep｜>";
pub const OUTPUTS_BEGIN: &str = "<｜tool▁outputs▁begin｜>";
pub const OUTPUTS_END: &str = "<｜tool▁outputs▁end｜>";
pub const OUTPUT_BEGIN: &str = "<｜tool▁output▁begin｜>";
pub const OUTPUT_END: &str = "<｜tool▁output▁end｜>";
pub const END_OF_SENTENCE: &str = "<｜end▁of▁sentence｜>";
/// Misspellings of [`CALLS_BEGIN`] that llama.cpp's DeepSeek R1 and V3.1 parsers accept as the
/// start of the call list (`common/chat.cpp`): models emit them when the token is sampled as
/// text. After one of them the first call's `<｜tool▁call▁begin｜>` is optional, as there.
pub const CALLS_BEGIN_VARIANTS: [&str; 4] = [
    "<｜tool▁calls｜>",
    "<｜tool_calls_begin｜>",
    "<｜tool calls begin｜>",
    "<｜tool\\_calls\\_begin｜>",
];

const ID: &str = "deepseek_v3";
const FENCE: &str = "```";

/// A call opened by `open`, ended at `<｜tool▁call▁end｜>` outside its JSON's strings.
const fn call_rule(open: &'static str) -> Rule {
    Rule::call(open, Close::Marker(CALL_END))
        .lenient()
        .json_body()
}

/// The framing of every DeepSeek special-token format: only a call's body differs. A call ends
/// at the `<｜tool▁call▁end｜>` outside its JSON's strings: the templates write arguments as they
/// are, so a value may quote the markers (`Rule::json_body`).
pub(super) const FRAMING: Framing = Framing {
    rules: &[
        // In thinking mode the template opens `<think>` in the prompt (llama.cpp's
        // `thinking_forced_open`): a reply may start inside the reasoning.
        THINK_MAY_START_OPEN,
        Rule::token(CALLS_BEGIN),
        Rule::token(CALLS_END),
        call_rule(CALL_BEGIN),
        Rule::token(END_OF_SENTENCE),
        // A misspelled list opener starts the first call itself: its `<｜tool▁call▁begin｜>` may
        // be missing (`<｜tool▁calls｜>function<｜tool▁sep｜>…` in llama.cpp's test-chat.cpp).
        call_rule(CALLS_BEGIN_VARIANTS[0]),
        call_rule(CALLS_BEGIN_VARIANTS[1]),
        call_rule(CALLS_BEGIN_VARIANTS[2]),
        call_rule(CALLS_BEGIN_VARIANTS[3]),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct DeepSeekV3;

impl Protocol for DeepSeekV3 {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "DeepSeek V3 / R1 <｜tool▁call▁begin｜>function<｜tool▁sep｜>name ```json"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = format!(
            "You are a helpful assistant with tool calling capabilities. When a tool call is \
             needed, you MUST use the following format to issue the call:\n\
             {CALLS_BEGIN}{CALL_BEGIN}function{SEP}FUNCTION_NAME\n```json\n\
             {{\"param1\": \"value1\", \"param2\": \"value2\"}}\n```{CALL_END}{CALLS_END}\n\n\
             Make sure the JSON is valid.\n\n## Tools\n\n### Function\n\n\
             You have the following functions available:\n\n"
        );
        for definition in function_definitions(tools) {
            let name = definition["function"]["name"].as_str().unwrap_or_default();
            out.push_str(&format!("- `{name}`:\n```json\n{definition}\n```\n"));
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        if results.is_empty() {
            return String::new();
        }
        let outputs: Vec<String> = results
            .iter()
            .map(|r| format!("{OUTPUT_BEGIN}{}{OUTPUT_END}", output_content(r)))
            .collect();
        format!("{OUTPUTS_BEGIN}{}{OUTPUTS_END}", outputs.join("\n"))
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let block = &call_block(text, block, out);
        let Some((head, rest)) = split_at_sep(text, block.body, block.span, out) else {
            return;
        };
        // The name is the rest of the line; the arguments follow.
        let line_end = text[rest.start..rest.end]
            .find('\n')
            .map_or(rest.end, |i| rest.start + i);
        let Some(name) = checked_name(text, Span::new(rest.start, line_end), block.span, out)
        else {
            return;
        };
        let kind = text[head.start..head.end].trim();
        if kind != "function" {
            let found = if kind.is_empty() {
                "no call type".to_owned()
            } else {
                format!("the call type '{kind}'")
            };
            warning(
                out,
                DiagnosticCode::StrayText,
                format!("{found} before {SEP}, 'function' expected; read as a function call"),
                Span::new(block.span.start, rest.start),
            );
        }
        let args = fenced_json(
            text,
            Span::new(line_end, rest.end),
            name,
            block.complete,
            out,
        );
        push_call(out, text, block, ID, name, args);
    }
}

/// The call block to decode. A call the model never closed (so the scanner ran it to the end
/// of the reply) but followed by `<｜tool▁calls▁end｜>` ends there: the call is complete, and
/// what follows the list is the reply's content again.
pub(super) fn call_block(text: &str, block: &Block, out: &mut ParseOutput) -> Block {
    let block = &after_call_begin(text, block);
    if block.complete {
        return *block;
    }
    let body = &text[block.body.start..block.body.end];
    let Some(at) = body.find(CALLS_END) else {
        return *block;
    };
    let end = block.body.start + at;
    warning(
        out,
        DiagnosticCode::UnclosedBlock,
        format!("the call is not closed by {CALL_END}; read up to {CALLS_END}"),
        Span::new(block.span.start, end),
    );
    let after = &text[end + CALLS_END.len()..block.body.end];
    out.content.push_str(&after.replace(END_OF_SENTENCE, ""));
    Block {
        rule: block.rule,
        span: Span::new(block.span.start, end),
        body: Span::new(block.body.start, end),
        complete: true,
    }
}

/// A block opened by a misspelled list opener may start with the first call's
/// `<｜tool▁call▁begin｜>`: the call's body starts after it.
fn after_call_begin(text: &str, block: &Block) -> Block {
    let body = &text[block.body.start..block.body.end];
    let lead = body.len() - body.trim_start().len();
    match body[lead..].strip_prefix(CALL_BEGIN) {
        Some(_) => Block {
            body: Span::new(block.body.start + lead + CALL_BEGIN.len(), block.body.end),
            ..*block
        },
        None => *block,
    }
}

/// Splits a call's body at `<｜tool▁sep｜>`: what comes before and after it.
pub(super) fn split_at_sep(
    text: &str,
    body: Span,
    block: Span,
    out: &mut ParseOutput,
) -> Option<(Span, Span)> {
    let Some(at) = find_marker_in(&text[body.start..body.end], SEP) else {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("the call has no {SEP}, so no function name; it is skipped"),
            block,
        );
        return None;
    };
    let sep = body.start + at;
    Some((
        Span::new(body.start, sep),
        Span::new(sep + SEP.len(), body.end),
    ))
}

/// The trimmed function name at `span`, if it looks like one (one word, no JSON or tags).
pub(super) fn checked_name<'t>(
    text: &'t str,
    span: Span,
    block: Span,
    out: &mut ParseOutput,
) -> Option<&'t str> {
    let name = text[span.start..span.end].trim();
    let valid = !name.is_empty()
        && !name.contains(|c: char| {
            c.is_whitespace() || matches!(c, '{' | '}' | '[' | ']' | '"' | '<' | '>' | '`')
        });
    if valid {
        return Some(name);
    }
    let message = if name.is_empty() {
        format!("the call has no function name after {SEP}; it is skipped")
    } else {
        let shown: String = name.chars().take(40).collect();
        format!("'{shown}' is not a function name; the call is skipped")
    };
    error(out, DiagnosticCode::MissingToolName, message, block);
    None
}

/// The JSON inside a ```json fence (the fence itself is optional, with a warning).
fn fenced_json(text: &str, span: Span, name: &str, complete: bool, out: &mut ParseOutput) -> Span {
    let slice = &text[span.start..span.end];
    let start = span.start + (slice.len() - slice.trim_start().len());
    let end = span.start + slice.trim_end().len();
    if start >= end {
        return Span::new(start, start);
    }
    let inner = &text[start..end];
    let Some(after_fence) = inner.strip_prefix(FENCE) else {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("the arguments of '{name}' are not in a ```json fence; read as bare JSON"),
            Span::new(start, end),
        );
        return Span::new(start, end);
    };
    // The fence's language tag (`json`), if any.
    let tag = after_fence
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(after_fence.len());
    let json_start = start + FENCE.len() + tag;
    // The closing fence; where the reply was cut off, maybe only its first backticks.
    let json = &text[json_start..end];
    let unfenced = json.trim_end_matches('`');
    if json.len() - unfenced.len() < FENCE.len() && complete {
        warning(
            out,
            DiagnosticCode::StrayText,
            format!("the ```json fence of '{name}' is not closed"),
            Span::new(start, end),
        );
    }
    Span::new(json_start, json_start + unfenced.trim_end().len())
}

/// Decodes `text[args]` as the call's JSON arguments and adds the request. No arguments at all
/// are `{}` in a closed call, and a cut-off call where the reply ended.
pub(super) fn push_call(
    out: &mut ParseOutput,
    text: &str,
    block: &Block,
    format: &str,
    name: &str,
    args: Span,
) {
    let what = ArgumentsOf(name);
    let empty = text[args.start..args.end].trim().is_empty();
    let value = if empty && block.complete {
        Value::Object(serde_json::Map::new())
    } else if empty {
        error(
            out,
            DiagnosticCode::UnclosedValue,
            format!("the reply ends before {what}; the call is skipped"),
            block.span,
        );
        return;
    } else {
        let Some(value) = parse_json(text, args, what, out) else {
            return;
        };
        value
    };
    match arguments("arguments", value) {
        Ok(args) => push_request(
            out,
            text,
            block.span,
            format,
            Call {
                name: name.to_owned(),
                args,
                id: None,
            },
            false,
        ),
        Err((code, message)) => error(out, code, format!("{message}; the call is skipped"), args),
    }
}

/// A result as the template feeds it back: text as is, other values as JSON.
pub(super) fn output_content(result: &ToolExecutionResult) -> String {
    match result_value(result) {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
