//! Functionary v2 (MeetKai, `functionary-small-v2.4` and earlier): `<|from|>assistant`
//! `<|recipient|>NAME` `<|content|>{…}` turns ending in `<|stop|>`.
//!
//! Reference: MeetKai/functionary `functionary/prompt_template/prompt_template_v2.py`
//! (`PromptTemplateV2.parse_assistant_response`), its chat template
//! `functionary/prompt_template/jinja_templates/v2.txt` and `tests/prompt_test_v2.txt`. Every
//! message is a turn `<|from|>ROLE\n<|recipient|>RECIPIENT\n<|content|>CONTENT`; an assistant
//! turn to `all` is text for the user, to any other recipient a call whose content is the
//! JSON arguments, and to `python` the code interpreter, whose content may be raw code
//! (`{"code": …}`, as functionary's `convert_code_interpreter_tool_calls` wraps it). The
//! generation prompt ends in `<|from|>assistant\n<|recipient|>`, so a reply usually begins
//! with just `NAME\n<|content|>…`; the reference puts that prefix back before splitting on
//! `<|from|>`, and so does this parser. Results go back as turns from the function to `all`.
//!
//! The Llama-3-based v2 (`functionary-small-v2.5`) writes calls differently, with
//! `<|reserved_special_token_249|>` separators: its own format, [`llama3`].
//!
//! This format is parsed as a whole document (its first call has no marker in front of it, so
//! the shared scanner cannot frame it); streaming buffers it. `<think>` is reasoning (the
//! project's rule).
//!
//! Deliberate differences: the reference keeps only the last `all` turn as the content; here
//! every text turn and any prose outside turns is kept, in order. A `<|stop|>` inside the reply
//! (the model went on after it) ends its turn; the reference only strips one at the end. A
//! recipient that is empty or has spaces in it is reported, not made into a call, and a turn
//! with no `<|content|>` is reported (the reference would slice at index -1). The function
//! definitions are the template's TypeScript namespace with each function's parameters as
//! their JSON Schema (as for `functionary_v32`), not converted to TypeScript types.

use memchr::memmem;
use serde_json::{Map, Value};

use crate::calls::{error, push_named_call, push_request, Call};
use crate::detect::Signature;
use crate::prompt::{each_result, result_value, typescript_functions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub mod llama3;

pub const FROM: &str = "<|from|>";
pub const RECIPIENT: &str = "<|recipient|>";
pub const CONTENT: &str = "<|content|>";
pub const STOP: &str = "<|stop|>";

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionaryV2;

impl Protocol for FunctionaryV2 {
    fn id(&self) -> &'static str {
        "functionary_v2"
    }

    fn label(&self) -> &'static str {
        "Functionary v2 <|recipient|>name <|content|>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        namespace(tools)
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // Each result is a turn from the function to `all`, on its own line.
        each_result(results, |r| {
            format!(
                "{FROM}{}\n{RECIPIENT}all\n{CONTENT}{}\n",
                r.tool_name,
                result_text(r)
            )
        })
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content = String::new();
        // Whether the reply's text began before this stretch (reasoning aside).
        let mut begun = false;
        for (from, to) in outside_reasoning(text) {
            let first = !begun;
            begun |= !text[from..to].trim().is_empty();
            let mut piece_start = from;
            let mut implicit = true;
            let finder = memmem::Finder::new(FROM);
            let turns = finder
                .find_iter(&text.as_bytes()[from..to])
                .map(|at| from + at)
                .chain(std::iter::once(to));
            for at in turns {
                // The first piece continues the generation prompt `<|from|>assistant\n<|recipient|>`
                // (the reply's first stretch only; later ones are prose unless they hold a turn).
                let piece = Span::new(piece_start, at);
                self.turn(text, piece, implicit, first, &mut out, &mut content);
                piece_start = (at + FROM.len()).min(to);
                implicit = false;
            }
        }
        out.content = content.trim().to_owned();
        out
    }

    fn signature(&self) -> Signature {
        Signature {
            markers: vec![RECIPIENT, CONTENT, FROM],
            ..Signature::default()
        }
    }
}

impl FunctionaryV2 {
    /// Reads one turn, `text[piece]` (after its `<|from|>`, or with none when `implicit`).
    fn turn(
        &self,
        text: &str,
        piece: Span,
        implicit: bool,
        first: bool,
        out: &mut ParseOutput,
        content: &mut String,
    ) {
        let p = &text[piece.start..piece.end];
        let turn_start = if implicit {
            piece.start + (p.len() - p.trim_start().len())
        } else {
            piece.start.saturating_sub(FROM.len())
        };
        let Some(content_at) = memmem::find(p.as_bytes(), CONTENT.as_bytes()) else {
            match memmem::find(p.as_bytes(), RECIPIENT.as_bytes()) {
                Some(at) => error(
                    out,
                    DiagnosticCode::UnclosedBlock,
                    format!(
                        "the turn to '{}' has no {CONTENT}; it is skipped",
                        p[at + RECIPIENT.len()..].trim()
                    ),
                    Span::new(turn_start, piece.end),
                ),
                // Prose, or a role line with nothing after it (cut off).
                None if implicit => push_text(content, p),
                None => push_text(content, p.split_once('\n').map_or("", |(_, rest)| rest)),
            }
            return;
        };
        let head = &p[..content_at];
        let name = match memmem::find(head.as_bytes(), RECIPIENT.as_bytes()) {
            Some(at) => head[at + RECIPIENT.len()..].trim(),
            // Only the reply's start may leave out `<|recipient|>`: the generation prompt has it.
            None if implicit && first => head.trim(),
            None => "",
        };
        let body_start = piece.start + content_at + CONTENT.len();
        let body = &text[body_start..piece.end];
        // A `<|stop|>` ends the turn; what the model wrote after it is prose.
        let body_end = match memmem::find(body.as_bytes(), STOP.as_bytes()) {
            Some(at) => {
                push_text(content, &body[at + STOP.len()..]);
                body_start + at
            }
            None => piece.end,
        };
        let span = Span::new(turn_start, body_end);
        if name == "all" {
            push_text(content, &text[body_start..body_end]);
            return;
        }
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{RECIPIENT} must name a function before {CONTENT}; the turn is skipped"),
                span,
            );
            return;
        }
        push_call(
            out,
            text,
            span,
            Span::new(body_start, body_end),
            self.id(),
            name,
        );
    }
}

/// Pushes a call to `name` whose arguments are `text[args]`: JSON, or for `python` raw code.
pub(crate) fn push_call(
    out: &mut ParseOutput,
    text: &str,
    span: Span,
    args: Span,
    format: &str,
    name: &str,
) {
    let raw = text.get(args.start..args.end).unwrap_or_default().trim();
    if name == "python" && !raw.starts_with('{') {
        // Raw code for the interpreter, wrapped as functionary's server wraps it.
        let mut map = Map::new();
        map.insert("code".to_owned(), Value::from(raw));
        let call = Call {
            name: name.to_owned(),
            args: map,
            id: None,
        };
        push_request(out, text, span, format, call, false);
        return;
    }
    push_named_call(out, text, span, args, format, name, None);
}

/// The template's function definitions: a TypeScript `functions` namespace.
pub(crate) fn namespace(tools: &[ToolDefinitionInput]) -> String {
    let mut out = String::from(
        "// Supported function definitions that should be called when necessary.\nnamespace functions {\n\n",
    );
    out.push_str(&typescript_functions(tools));
    out.push_str("} // namespace functions");
    out
}

/// A result as the template shows it: the tool's text as it is; a failure as the JSON error
/// object every format gives (kind, message, suggestion).
pub(crate) fn result_text(result: &ToolExecutionResult) -> String {
    if result.error.is_none() {
        return result.result.clone();
    }
    match result_value(result) {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

fn push_text(content: &mut String, text: &str) {
    let text = text.replace(STOP, "");
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !content.is_empty() {
        content.push('\n');
    }
    content.push_str(text);
}

/// The stretches of `text` outside `<think>…</think>` (an unclosed one runs to the end).
fn outside_reasoning(text: &str) -> Vec<(usize, usize)> {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let bytes = text.as_bytes();
    let mut stretches = Vec::new();
    let mut from = 0;
    while let Some(open) = memmem::find(&bytes[from..], OPEN.as_bytes()).map(|at| from + at) {
        stretches.push((from, open));
        let after = open + OPEN.len();
        match memmem::find(&bytes[after..], CLOSE.as_bytes()) {
            Some(close) => from = after + close + CLOSE.len(),
            None => return stretches,
        }
    }
    stretches.push((from, text.len()));
    stretches
}
