//! ChatGLM3-6B: a tool call is an assistant turn whose metadata line is the tool's name and
//! whose content is a Python fence calling `tool_call` with keyword arguments.
//!
//! ````text
//! <|assistant|>get_current_weather
//! ```python
//! tool_call(location="beijing", unit="celsius")
//! ```
//! ````
//!
//! References: THUDM/ChatGLM3 `openai_api_demo/utils.py` `process_response` (splits the
//! output at `<|assistant|>`; a turn's first line is its metadata, the tool's name when not
//! blank; the content's first and last lines, the fences, are dropped and the rest evaluated
//! with `tool_call(**kwargs)` returning the arguments), the composite demo's tool mode
//! (`composite_demo/demo_tool.py`: the name is the first line, the arguments the last fenced
//! block, evaluated the same way), `PROMPT.md` / `PROMPT_en.md` (the chat format and its tool
//! example) and `tools_using_demo/`. Tools are listed in the system turn after one sentence, as
//! an indented JSON list (the tokenizer's `build_chat_input` appends `json.dumps(tools,
//! indent=4)`); each result comes back in an `<|observation|>` turn.
//!
//! Rules: the reply is split into assistant turns ([`turns`]); a turn is a call when its first
//! non-blank line is a name (no whitespace, no backtick) and what follows it, after
//! whitespace, is a ```` ``` ```` fence (any language tag) whose code starts with
//! `tool_call(`. The call is read with the project's Python literal reader ([`crate::pylit`]),
//! so values come out typed. Other turns are prose (their text is the content), including the
//! code interpreter's `interpreter` turns, whose fence holds plain code.
//!
//! Deliberate differences: every call turn is read, not only the last (`process_response`
//! overwrites earlier turns); nothing is evaluated — only literal keyword arguments are read,
//! a positional argument is reported (the demos ignore it or fail); a metadata line with
//! whitespace in it is prose, not a name (the reference takes any non-blank line), so a
//! sentence before a fence is never a tool; the fence may be left out (`tool_call(…)` right
//! after the name line); a second call in one fence is reported and skipped (Python's `eval`
//! rejects the fence); a fence the reply ends in is read with a warning and marked incomplete.

#[cfg(test)]
mod tests;
pub mod turns;

use serde_json::Value;

use crate::calls::{error, push_request, warning, Call};
use crate::detect::Signature;
use crate::prompt::{each_result, function_objects};
use crate::pylines::diagnostic_code;
use crate::pylit;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};
use turns::{assistant_turns, push_content, slice, Turn, ASSISTANT};

/// The function the fenced code calls; its keyword arguments are the tool's arguments.
pub const CALL_FUNCTION: &str = "tool_call(";
const FENCE: &str = "```";

#[derive(Debug, Clone, Copy, Default)]
pub struct ChatGlm3;

impl Protocol for ChatGlm3 {
    fn id(&self) -> &'static str {
        "chatglm3"
    }

    fn label(&self) -> &'static str {
        "ChatGLM3 name line + ```python tool_call(…)```"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        format!(
            "<|system|>\nAnswer the following questions as best as you can. You have access \
             to the following tools:\n{}",
            indented_json(&function_objects(tools))
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| format!("<|observation|>\n{}", result_text(r)))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content = String::new();
        for turn in assistant_turns(text) {
            if !self.read_turn(text, &turn, &mut out, &mut content) {
                push_content(&mut content, slice(text, turn.span));
            }
        }
        out.content = content;
        out
    }

    fn signature(&self) -> Signature {
        // `tool_call(` is the format's own word; `<|assistant|>` is shared with GLM-4.
        Signature {
            markers: vec![CALL_FUNCTION, ASSISTANT],
            ..Signature::default()
        }
    }
}

/// JSON with Python's `indent=4` layout, as the tokenizer writes the tool list.
pub fn indented_json(value: &Value) -> String {
    let mut buffer = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffer, formatter);
    match serde::Serialize::serialize(value, &mut serializer) {
        Ok(()) => String::from_utf8(buffer).unwrap_or_default(),
        Err(_) => value.to_string(),
    }
}

/// Whether `line` can be a turn's tool name: no whitespace or backtick in it.
fn is_name(line: &str) -> bool {
    !line.is_empty() && !line.chars().any(|c| c.is_whitespace() || c == '`')
}

/// Where the fenced code sits in a call turn: the code, the end of the call block, and whether
/// the fence was closed.
struct Code {
    code: Span,
    block_end: usize,
    closed: bool,
}

fn locate_code(text: &str, rest: Span) -> Option<Code> {
    let body = slice(text, rest);
    let lead = body.len() - body.trim_start().len();
    let start = rest.start + lead;
    let after = slice(text, Span::new(start, rest.end));
    if after.starts_with(CALL_FUNCTION) {
        return Some(Code {
            code: Span::new(start, rest.end),
            block_end: rest.end,
            closed: true,
        });
    }
    let tagged = after.strip_prefix(FENCE)?;
    let code_start = start + FENCE.len() + tagged.find('\n')? + 1;
    let code_text = slice(text, Span::new(code_start, rest.end));
    if !code_text.trim_start().starts_with(CALL_FUNCTION) {
        return None;
    }
    Some(match code_text.find(FENCE) {
        Some(close) => Code {
            code: Span::new(code_start, code_start + close),
            block_end: code_start + close + FENCE.len(),
            closed: true,
        },
        None => Code {
            code: Span::new(code_start, rest.end),
            block_end: rest.end,
            closed: false,
        },
    })
}

impl ChatGlm3 {
    /// Reads `turn` as a call turn; false when it is prose.
    fn read_turn(
        &self,
        text: &str,
        turn: &Turn,
        out: &mut ParseOutput,
        content: &mut String,
    ) -> bool {
        let name = slice(text, turn.metadata);
        if !is_name(name) {
            return false;
        }
        let Some(code) = locate_code(text, turn.rest) else {
            return false;
        };
        let block = Span::new(turn.metadata.start, code.block_end);
        let base = code.code.start;
        let mut first = true;
        pylit::for_each_call_line(slice(text, code.code), pylit::Options::default(), |item| {
            match item {
                Ok(call) if !first => error(
                    out,
                    DiagnosticCode::StrayText,
                    format!(
                    "a second call ('{}') in the fence of '{name}': a turn holds one call, so it \
                     is skipped",
                    call.name
                ),
                    Span::new(base + call.start, base + call.end),
                ),
                Ok(call) if call.name != "tool_call" => {
                    first = false;
                    error(
                        out,
                        DiagnosticCode::MissingToolName,
                        format!(
                        "the fence of '{name}' calls '{}', not tool_call(…); the call is skipped",
                        call.name
                    ),
                        Span::new(base + call.start, base + call.end),
                    );
                }
                Ok(call) => {
                    first = false;
                    push_request(
                        out,
                        text,
                        block,
                        self.id(),
                        Call {
                            name: name.to_owned(),
                            args: call.args,
                            id: None,
                        },
                        false,
                    );
                }
                Err(e) => {
                    first = false;
                    let code_kind = diagnostic_code(e.kind);
                    let start = (base + e.offset).min(code.code.end);
                    let end = (start + e.len).min(code.code.end);
                    error(
                        out,
                        code_kind,
                        format!("the call of '{name}': {}", e.message),
                        Span::new(start, end),
                    );
                }
            }
        });
        if !code.closed {
            warning(
                out,
                DiagnosticCode::UnclosedBlock,
                format!("the fence of '{name}' was never closed (the reply was cut off)"),
                block,
            );
            if let Some(request) = out.requests.last_mut().filter(|r| r.span == block) {
                request.incomplete = true;
            }
        }
        push_content(
            content,
            slice(text, Span::new(code.block_end, turn.span.end)),
        );
        true
    }
}
