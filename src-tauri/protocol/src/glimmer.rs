//! Muse Glimmer: messages addressed by recipient, calls in ATEM markup in a tool's message.
//!
//! ```text
//!  to=self<|message|>reasoning<|eom|>
//! <|start|>assistant to=get_weather<|message|><atem:function_calls>
//! <atem:invoke name="get_weather">
//! <atem:parameter name="city">SF</atem:parameter>
//! </atem:invoke>
//! </atem:function_calls><|eom|>
//! <|start|>assistant to=user<|message|>final answer<|eot|>
//! ```
//!
//! Follows vLLM's `MuseGlimmerToolParser` (`muse_glimmer_tool_parser.py`, `--tool-call-parser
//! muse_glimmer`) and ollama's `glimmer.go`, which read the same grammar. A message is a header
//! (`<|start|>assistant`, optional when the prompt ends with it, then ` to=RECIPIENT`, then
//! `<|message|>`) and a body ended by `<|eom|>` or `<|eot|>`. `to=self` is reasoning; `to=user`
//! or no recipient is the answer; any other recipient is a tool, whose body is an
//! `<atem:function_calls>` block of `<atem:invoke name="…">` elements, each with
//! `<atem:parameter name="…">VALUE</atem:parameter>` children (vLLM also reads an
//! `<atem:invoke>` without the wrapper). The call's name is the invoke's `name` (as vLLM; ollama
//! also requires it to match the recipient); a `<|message|>` the model fumbled into it is
//! dropped (ollama). Values are text kept as written (one newline of layout around a multi-line
//! value removed), so requests are untyped and the engine types them from the method's schema,
//! or reads JSON literals without one, as vLLM's `json.loads`-else-text does; a value may hold
//! the message tokens as text. A reasoning message whose `<|eom|>` is missing ends at the next
//! `<|start|>assistant` header (or at a bare `to=NAME<|message|>` right before ATEM), as vLLM's
//! segmenter ends it; one whose `<|eom|>` comes later still runs to that `<|eom|>` here.
//!
//! An ATEM block in an answer (`to=user`, or a header without a recipient) is the answer's text
//! unless it is the whole message: ollama then reads it as the call the model meant (a fumbled
//! recipient), vLLM never does; here it is read, as ollama. With no header at all (a server
//! that stripped the tokens) every ATEM block is read, as both references fall back to.
//! A block the reply ends in gives its complete invokes (with the cut-off warning), as vLLM
//! reads complete invokes from a truncated message.
//!
//! Deliberate differences: the references map a doubled `ns.ns` name back to a declared `ns`
//! and ollama rejects undeclared recipients; a parser that sees no tool list keeps the name as
//! written. The header looked back at is within 4 KiB before a block (farther prose counts as
//! no header), which keeps a reply of many blocks linear. The prompt and result wording are
//! this project's (the model's template is not stored); results go back as
//! `<|start|>tool NAME<|message|><tool_output name="NAME">…</tool_output><|eom|>` messages.

use crate::framing::{self, Block, Close, Framing, Rule, ScanEvent, Scanner};
use crate::prompt::{each_result, function_definitions};
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, push_untyped, result_text, Markup, TagStyle, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

pub const CALLS_OPEN: &str = "<atem:function_calls>";
pub const CALLS_CLOSE: &str = "</atem:function_calls>";
const INVOKE_OPEN: &str = "<atem:invoke";
const INVOKE_CLOSE: &str = "</atem:invoke>";
const START: &str = "<|start|>";
const MESSAGE: &str = "<|message|>";
const END_MESSAGE: &str = "<|eom|>";
const END_TURN: &str = "<|eot|>";
/// How far back a block looks for the header of its message.
const HEADER_WINDOW: usize = 4096;

const FRAMING: Framing = Framing {
    rules: &[
        // Never closed, it ends at the next header: `<|start|>assistant`, or a bare tool
        // header's `<|message|>` right before ATEM (a defect vLLM's tests keep).
        Rule::reasoning("to=self<|message|>", END_MESSAGE).ends_unclosed_at(
            &[START, MESSAGE],
            &[&["assistant"], &[CALLS_OPEN], &[INVOKE_OPEN]],
        ),
        Rule::call(CALLS_OPEN, Close::Marker(CALLS_CLOSE))
            .markup_body()
            .lenient(),
        Rule::call(INVOKE_OPEN, Close::Marker(INVOKE_CLOSE))
            .markup_body()
            .lenient(),
        Rule::token(START),
        Rule::token(MESSAGE),
        Rule::token(END_MESSAGE),
        Rule::token(END_TURN),
    ],
};

const MARKUP: Markup = Markup {
    block: CALLS_OPEN,
    invoke_open: INVOKE_OPEN,
    invoke_close: INVOKE_CLOSE,
    param_open: "<atem:parameter",
    param_close: "</atem:parameter>",
    style: TagStyle::Attributes,
    json_body: false,
    value_layout: ValueLayout::OneNewline,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Glimmer;

impl Protocol for Glimmer {
    fn id(&self) -> &'static str {
        "glimmer"
    }

    fn label(&self) -> &'static str {
        "Muse Glimmer to=tool messages with <atem:invoke> XML"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nAddress a message to a tool (to=NAME) to call it. The tools, in \
             JSONSchema format:\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str(
            "\nA call is a message to the tool whose body is:\n<atem:function_calls>\n\
             <atem:invoke name=\"NAME\">\n<atem:parameter name=\"KEY\">VALUE</atem:parameter>\n\
             </atem:invoke>\n</atem:function_calls>\nWrite strings as they are and other \
             values as JSON.\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            let name = &result.tool_name;
            format!(
                "<|start|>tool {name}<|message|><tool_output name=\"{name}\">\n{}\n\
                     </tool_output><|eom|>",
                result_text(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        if is_quoted_in_answer(text, block.span) {
            // Part of the answer's text, as both references show it.
            out.content.push_str(
                text.get(block.span.start..block.span.end)
                    .unwrap_or_default(),
            );
            return;
        }
        // A bare `<atem:invoke` block: its opener and closer are part of the markup to read.
        let whole = Block {
            body: block.span,
            ..*block
        };
        let markup_block = if text
            .get(block.span.start..)
            .is_some_and(|rest| rest.starts_with(INVOKE_OPEN))
        {
            &whole
        } else {
            block
        };
        for invoke in decode_invokes(text, markup_block, &MARKUP, out) {
            let first = out.requests.len();
            push_untyped(out, text, invoke.span, self.id(), &invoke);
            if invoke.name.contains(MESSAGE) {
                // `name="read<|message|>"`: the header's token echoed into the name (ollama).
                let name = invoke.name.replace(MESSAGE, "");
                for request in out.requests.iter_mut().skip(first) {
                    request.tool_name = name.clone();
                }
            }
        }
    }

    /// The shared scan, except that message headers (`assistant to=NAME` before `<|message|>`)
    /// are not content.
    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut scanner = Scanner::new(FRAMING);
        let mut events = Vec::new();
        scanner.advance(text, true, &mut events);
        let mut out = ParseOutput::default();
        let mut content = String::new();
        for event in events {
            match event {
                ScanEvent::Content(span) if !is_header(text, span) => {
                    content.push_str(text.get(span.start..span.end).unwrap_or_default());
                }
                ScanEvent::Block(block) => {
                    framing::decode(self, text, &block, &mut out);
                    content.push_str(&std::mem::take(&mut out.content));
                }
                ScanEvent::Diagnostic(d) => out.diagnostics.push(d),
                _ => {}
            }
        }
        out.content = content.trim().to_owned();
        out
    }
}

/// The recipient of the message whose header is the `<|message|>` ending at `end`: `Some("")`
/// for a header without one (`<|message|>` alone, or `<|start|>assistant<|message|>`).
fn recipient_before(text: &str, end: usize) -> Option<&str> {
    let from = boundary_at_or_after(text, end.saturating_sub(MESSAGE.len() + 128));
    let header = text.get(from..end.checked_sub(MESSAGE.len())?)?;
    match header.rfind("to=") {
        Some(at) if !header[at..].contains(['\n', '>']) => Some(&header[at + 3..]),
        _ => Some(""),
    }
}

/// Whether the block at `span` stands in an answer (`to=user`, or a header without a
/// recipient) beside other text of that message: it is then quoted, not called.
fn is_quoted_in_answer(text: &str, span: Span) -> bool {
    let from = boundary_at_or_after(text, span.start.saturating_sub(HEADER_WINDOW));
    let window = text.get(from..span.start).unwrap_or_default();
    let Some(at) = window.rfind(MESSAGE) else {
        // No header: the tokens were stripped; every block is read.
        return false;
    };
    let message_end = span.start - window.len() + at + MESSAGE.len();
    let recipient = recipient_before(text, message_end).unwrap_or_default();
    if !(recipient.is_empty() || recipient == "user") {
        return false;
    }
    let before = text.get(message_end..span.start).unwrap_or_default();
    let after = text.get(span.end..).unwrap_or_default().trim_start();
    let whole_message = before.trim().is_empty()
        && (after.is_empty()
            || [END_MESSAGE, END_TURN, START]
                .iter()
                .any(|t| after.starts_with(t)));
    !whole_message
}

/// Whether the prose at `span` is a message header: `assistant`, ` to=NAME` or both, right
/// before `<|message|>` (or the reasoning opener `to=self<|message|>`).
fn is_header(text: &str, span: Span) -> bool {
    let after = text.get(span.end..).unwrap_or_default();
    if !(after.starts_with(MESSAGE)
        || after.starts_with("to=self")
        || after.starts_with(" to=self"))
    {
        return false;
    }
    let piece = text.get(span.start..span.end).unwrap_or_default().trim();
    let rest = piece
        .strip_prefix("assistant")
        .unwrap_or(piece)
        .trim_start();
    rest.is_empty()
        || rest
            .strip_prefix("to=")
            .is_some_and(|name| !name.contains(char::is_whitespace) && !name.contains('<'))
}

/// The first char boundary at or after `at`.
fn boundary_at_or_after(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}
