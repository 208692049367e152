//! Inkling: typed content blocks, each opened by a special token and closed by
//! `<|end_message|>`; a call is a JSON object `{"name": …, "args": {…}}` in a tool block.
//!
//! ```text
//! <|content_thinking|>reasoning<|end_message|>
//! <|message_model|><|content_text|>visible text<|end_message|>
//! <|message_model|>get_weather<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>
//! ```
//!
//! Follows vLLM's Inkling parser (`vllm/frontend/processing/parser/inkling.py`, the
//! `inkling` tool parser, tested in `tests/parser/engine/test_inkling.py`) and SGLang's
//! `InklingDetector`. Blocks repeat in any order; `<|content_model_end_sampling|>` may end one
//! instead of `<|end_message|>` (it ends the turn). The text between `<|message_model|>` and
//! `<|content_invoke_tool_json|>` is the call's name again, header metadata: it is not content.
//! `<|content_invoke_tool_text|>` and `<|content_tool_error|>` blocks are visible text. The
//! payload's arguments are under `args` (the shared JSON call reader also takes `arguments`).
//!
//! Deliberate differences: a tool block the reply ends in is decoded when its JSON is complete
//! (with the cut-off warning) and otherwise gives no call, as SGLang (which needs
//! `<|end_message|>`); vLLM's engine salvages a partial object. A reply the prompt left inside
//! a thinking block (vLLM seeds its state from the prompt's last token) is read as content, since
//! the parser does not see the prompt. SGLang drops a call whose header names another tool than
//! its payload; here the payload's name is the call. The header name stays in the streamed
//! content (only the batch parse removes it). Tools are presented with this project's wording
//! as JSON lines (the model's template is not stored); results go back as tool messages in the
//! same block syntax.

use crate::calls::push_json_calls;
use crate::framing::{self, Block, Close, Framing, Rule, ScanEvent, Scanner};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const MESSAGE_MODEL: &str = "<|message_model|>";
pub const CALL_OPEN: &str = "<|content_invoke_tool_json|>";
pub const END_MESSAGE: &str = "<|end_message|>";
const THINKING: &str = "<|content_thinking|>";
const END_SAMPLING: &str = "<|content_model_end_sampling|>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning(THINKING, END_MESSAGE),
        Rule::call(CALL_OPEN, Close::Marker(END_MESSAGE))
            .json_body()
            .lenient(),
        Rule::end_of_turn(END_SAMPLING),
        Rule::token(MESSAGE_MODEL),
        Rule::token("<|content_text|>"),
        Rule::token("<|content_invoke_tool_text|>"),
        Rule::token("<|content_tool_error|>"),
        Rule::token(END_MESSAGE),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Inkling;

impl Protocol for Inkling {
    fn id(&self) -> &'static str {
        "inkling"
    }

    fn label(&self) -> &'static str {
        "Inkling <|content_invoke_tool_json|>{name, args}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out =
            String::from("# Tools\n\nYou may call these functions (JSONSchema, one per line):\n");
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str(&format!(
            "\nTo call one, write a tool block:\n{MESSAGE_MODEL}function-name{CALL_OPEN}\
             {{\"name\": \"function-name\", \"args\": {{\"key\": \"value\"}}}}{END_MESSAGE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<|message_tool|>{}<|content_text|>{}{END_MESSAGE}",
                result.tool_name,
                result_value(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the Inkling tool block",
        );
    }

    /// The shared scan, except that a call's header name (the prose right before a tool block,
    /// after `<|message_model|>` or at the reply's start) is not content.
    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut scanner = Scanner::new(FRAMING);
        let mut events = Vec::new();
        scanner.advance(text, true, &mut events);
        let mut out = ParseOutput::default();
        let mut content = String::new();
        for event in events {
            match event {
                ScanEvent::Content(span) if !is_call_header(text, span) => {
                    content.push_str(text.get(span.start..span.end).unwrap_or_default());
                }
                ScanEvent::Block(block) => framing::decode(self, text, &block, &mut out),
                ScanEvent::Diagnostic(d) => out.diagnostics.push(d),
                _ => {}
            }
        }
        out.content = content.trim().to_owned();
        out
    }
}

/// Whether `span` is a tool block's header: one bare name right before the call opener, after a
/// `<|message_model|>` token or at the reply's start.
fn is_call_header(text: &str, span: Span) -> bool {
    let piece = text.get(span.start..span.end).unwrap_or_default().trim();
    let before = text.get(..span.start).unwrap_or_default().trim_end();
    let after = text.get(span.end..).unwrap_or_default();
    !piece.is_empty()
        && !piece.contains(char::is_whitespace)
        && after.starts_with(CALL_OPEN)
        && (before.is_empty() || before.ends_with(MESSAGE_MODEL))
}
