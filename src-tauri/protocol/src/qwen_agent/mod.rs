//! Qwen-Agent's function-call text protocol: `✿FUNCTION✿: name` then `✿ARGS✿: {…}`.
//!
//! Qwen-Agent prompts Qwen 1.5 / Qwen 2 models (served without a tool parser, or through
//! Qwen-Agent's own `fncall_prompt_type: qwen`) with this plain-text protocol, and many agents
//! built on it log such replies. Reference: QwenLM/Qwen-Agent
//! `qwen_agent/llm/fncall_prompts/qwen_fncall_prompt.py` (`QwenFnCallPrompt`): the system
//! prompt (`# Tools` with one `### name` section per function, then the command list, in English
//! or Chinese, single-call or parallel), results fed back as `✿RESULT✿: …` lines closed by
//! `✿RETURN✿`, and `postprocess_fncall_messages`, which reads the reply. Qwen-Agent's
//! `qwen_agent/utils/utils.py` (`json_loads`, `extract_code`) says how a tool reads the
//! arguments string. A module of its own: no other format uses these markers.
//!
//! Rules: text before the first `✿FUNCTION✿:` is content; each `✿FUNCTION✿:` names a function
//! (up to its `✿ARGS✿:`, which may stand on the same line) and every `✿ARGS✿:` after it is one
//! call to that function (the reference's parallel form). Arguments are a JSON object, else a
//! Python/JSON5-style object (single quotes; Qwen-Agent falls back to `json5`), with a warning;
//! a fenced block (`` ```py … ``` ``) is the code interpreter's code, `{"code": …}`, unless it
//! holds a JSON object. `✿RESULT✿` and `✿RETURN✿` are stop words: they end a call and are
//! dropped; text after them is prose. A reply that continues after `✿RETURN✿` starts with `:`,
//! which is dropped, and a marker cut off at the reply's end is not content. `<think>` is
//! reasoning (the project's rule).
//!
//! Deliberate differences: text after a call's arguments (a trailing comment, a sentence) is
//! kept as content; the reference drops it. Every call is read, as with the reference's
//! `parallel_function_calls`; without it the reference keeps only the first, and the prompt
//! rendered here is the parallel one to match. A name with spaces in it, or a `✿FUNCTION✿:`
//! with no `✿ARGS✿:`, is reported and skipped; the reference would pass it on and let the
//! tool fail. A reply that begins with `✿ARGS✿:` (the name forced into the prompt by
//! `function_choice`) is reported: the name is not in the reply. The `:` after `✿FUNCTION✿`
//! and `✿ARGS✿` may be missing (the reference splits only where it is there). The prompt is
//! in Chinese when a tool's name or description is; the reference decides from the whole
//! conversation. The reference asks for a fenced block from a function named
//! `code_interpreter`; here from any whose routing name ends so (`python_code_interpreter`).

use serde_json::{Map, Value};

use crate::balanced::{value_end, Syntax};
use crate::calls::{error, find_marker_in, push_named_call, push_request, warning, Call};
use crate::framing::{self, Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_objects, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

mod system;

pub const FUNCTION: &str = "✿FUNCTION✿";
pub const ARGS: &str = "✿ARGS✿";
pub const RESULT: &str = "✿RESULT✿";
pub const RETURN: &str = "✿RETURN✿";

/// Index of the rule for a reply that starts with `✿ARGS✿` (no name).
const FORCED_ARGS_RULE: usize = 2;

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(FUNCTION, Close::UntilNext).json_body(),
        Rule::at_text_start(ARGS, Close::UntilNext),
        // Stop words: the colon the prompt writes after them goes with them.
        Rule::token("✿RESULT✿:"),
        Rule::token(RESULT),
        Rule::token("✿RETURN✿:"),
        Rule::token(RETURN),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct QwenAgent;

impl Protocol for QwenAgent {
    fn id(&self) -> &'static str {
        "qwen_agent"
    }

    fn label(&self) -> &'static str {
        "Qwen-Agent ✿FUNCTION✿ / ✿ARGS✿"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        system::system_prompt(&function_objects(tools))
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // Each result on its own `✿RESULT✿:` line, then `✿RETURN✿` without its `: `, as the
        // reference leaves it for the model to continue (the reply then starts with `:`).
        let mut out = String::new();
        for result in results {
            let text = result_text(result);
            out.push_str(&format!("{RESULT}: {text}\n"));
        }
        out.push_str(RETURN);
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = framing::parse(self, text);
        out.content = tidy_content(&out.content);
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        if block.rule == FORCED_ARGS_RULE {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "the reply starts with {ARGS}: the function's name was written into the \
                     prompt (function_choice) and is not in the reply; the call is skipped"
                ),
                block.span,
            );
            return;
        }
        let body = block.body_text(text);
        let first_args = find_marker_in(body, ARGS);
        let head = &body[..first_args.unwrap_or(body.len())];
        let name = head.trim_start();
        let name = name.strip_prefix(':').unwrap_or(name).trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{FUNCTION}: must be followed by a function name, then {ARGS}:; the block is skipped"),
                block.span,
            );
            return;
        }
        let Some(mut at) = first_args else {
            error(
                out,
                DiagnosticCode::UnclosedBlock,
                format!("'{FUNCTION}: {name}' has no {ARGS}: line; the call is skipped"),
                block.span,
            );
            return;
        };
        // One call per `✿ARGS✿:`; the first call's span starts at `✿FUNCTION✿`.
        let mut call_start = block.span.start;
        loop {
            let from = at + ARGS.len();
            let next = find_marker_in(&body[from..], ARGS).map(|n| from + n);
            let mut args_start = block.body.start + from;
            if text.as_bytes().get(args_start) == Some(&b':') {
                args_start += 1;
            }
            let args_end = block.body.start + next.unwrap_or(body.len());
            let args = Span::new(args_start, args_end);
            self.decode_args(text, call_start, args, name, out);
            match next {
                Some(n) => {
                    at = n;
                    call_start = block.body.start + n;
                }
                None => break,
            }
        }
    }
}

impl QwenAgent {
    /// Decodes one `✿ARGS✿:` value, `text[args]`, and pushes its call (spanning from
    /// `call_start`) or a diagnostic; text after the value is content.
    fn decode_args(
        &self,
        text: &str,
        call_start: usize,
        args: Span,
        name: &str,
        out: &mut ParseOutput,
    ) {
        let slice = &text[args.start..args.end];
        let lead = slice.len() - slice.trim_start().len();
        let start = args.start + lead;
        let rest = &text[start..args.end];
        if rest.trim().is_empty() {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!("the arguments of '{name}' are empty; the call is skipped"),
                Span::new(call_start, args.end),
            );
            return;
        }
        let bytes = &text.as_bytes()[..args.end];
        let (value, end) = if rest.starts_with("```") {
            fenced(text, start, args.end)
        } else if rest.starts_with(['{', '[']) {
            let end = value_end(Syntax::Json, bytes, start).unwrap_or(args.end);
            (Span::new(start, end), end)
        } else {
            let end = start + rest.trim_end().len();
            (Span::new(start, end), end)
        };
        let span = Span::new(call_start, end);
        if rest.starts_with("```") {
            let code = &text[value.start..value.end];
            if !code.trim_start().starts_with('{') {
                // The code interpreter's code, as Qwen-Agent's `extract_code` reads it.
                let mut map = Map::new();
                map.insert("code".to_owned(), Value::from(code));
                let call = Call {
                    name: name.to_owned(),
                    args: map,
                    id: None,
                };
                push_request(out, text, span, self.id(), call, false);
                out.content.push_str(&text[end..args.end]);
                return;
            }
        }
        let raw = &text[value.start..value.end];
        let lenient = match serde_json::from_str::<serde::de::IgnoredAny>(raw) {
            Ok(_) => None,
            // Qwen-Agent retries with json5; a Python-style object is what models write then.
            Err(_) => crate::pylit::parse_literal(raw).ok(),
        };
        match lenient {
            Some(Value::Object(map)) => {
                warning(
                    out,
                    DiagnosticCode::InvalidJson,
                    format!(
                        "the arguments of '{name}' are not JSON; read as a Python/JSON5 object"
                    ),
                    value,
                );
                let call = Call {
                    name: name.to_owned(),
                    args: map,
                    id: None,
                };
                push_request(out, text, span, self.id(), call, false);
            }
            _ => push_named_call(out, text, span, value, self.id(), name, None),
        }
        out.content.push_str(&text[end..args.end]);
    }
}

/// A result as the prompt shows it: the tool's text as it is (Qwen-Agent appends the function
/// message's content); a failure as the JSON error object every format gives.
fn result_text(result: &ToolExecutionResult) -> String {
    if result.error.is_none() {
        return result.result.clone();
    }
    match result_value(result) {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// A fenced value starting at `start`: (the code inside, where the fence ends). A fence never
/// closed runs to `limit`.
fn fenced(text: &str, start: usize, limit: usize) -> (Span, usize) {
    let rest = &text[start..limit];
    let Some(line_end) = rest.find('\n') else {
        return (Span::new(limit, limit), limit);
    };
    let inner = line_end + 1;
    match find_marker_in(&rest[inner..], "```") {
        Some(close) => (
            Span::new(start + inner, start + inner + close),
            start + inner + close + 3,
        ),
        None => (Span::new(start + inner, limit), limit),
    }
}

/// The content as the reference shows it: without the `:` a continuation after `✿RETURN✿`
/// starts with, and without a marker the reply was cut off inside.
fn tidy_content(content: &str) -> String {
    let mut content = content.strip_prefix(':').unwrap_or(content).trim();
    if let Some(at) = content.rfind('✿') {
        let tail = &content[at..];
        if [FUNCTION, ARGS, RESULT, RETURN]
            .iter()
            .any(|marker| marker.starts_with(tail))
        {
            content = content[..at].trim_end();
        }
    }
    content.to_owned()
}
