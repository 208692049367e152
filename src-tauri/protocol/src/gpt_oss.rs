//! OpenAI gpt-oss (harmony format): calls are commentary-channel messages addressed to a
//! function, `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`
//! (the recipient may also come before the channel: `to=functions.NAME<|channel|>commentary`).
//!
//! The `analysis` channel is reasoning and never parsed; the `final` channel is the answer. A
//! call message may end with `<|end|>` instead of the `<|call|>` stop token (the harmony
//! encoding ends every message with one of `<|end|>`, `<|call|>`, `<|return|>`; vLLM's harmony
//! tests read such a call): it is complete.
//! Results go back as messages from the tool: `<|start|>functions.NAME to=assistant
//! <|channel|>commentary<|message|>…<|end|>`.
//!
//! Harmony's markers are special tokens, so a server that decodes with `skip_special_tokens`
//! (or a client that logs the text) hands over the header words run together:
//! `analysis…assistantcommentary to=functions.NAME json{…}`, or `NAMEjson{…}` when the model
//! wrote `NAME<|constrain|>json`. Without `<|message|>` the arguments are the JSON object
//! right after the header (the function name, then the content type `json`, which the
//! `<|constrain|>` token may have glued to the name), and they end where that object closes:
//! the stripped `<|call|>` leaves the next message's header right behind it.

use crate::balanced::{value_end, Syntax};
use crate::calls::{error, push_named_call};
use crate::detect::{framing_signature, Signature};
use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{each_result, result_value, typescript_functions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const RECIPIENT: &str = "to=functions.";
pub const MESSAGE: &str = "<|message|>";
pub const CALL: &str = "<|call|>";
/// Opens every harmony message's channel name: only a harmony reply holds it.
const CHANNEL: &str = "<|channel|>";

const FRAMING: Framing = Framing {
    rules: &[
        // `<|start|>` opens the next message, so no message text holds it: an analysis whose
        // `<|end|>` a server dropped (llama-server logs) ends where the next message starts.
        Rule::reasoning("<|channel|>analysis<|message|>", "<|end|>").also_ended_by(&["<|start|>"]),
        // The arguments end where their JSON closes: with the special tokens decoded away
        // (`to=functions.NAME json{…}`) no `<|message|>` comes before them and no `<|call|>`
        // after, and the next header follows right behind.
        Rule::call(
            RECIPIENT,
            Close::Balanced {
                after: MESSAGE,
                syntax: Syntax::Json,
            },
        )
        .lenient(),
        Rule::token(CALL),
        Rule::token("<|start|>assistant"),
        Rule::token("<|channel|>commentary"),
        Rule::token("<|channel|>final<|message|>"),
        Rule::token("<|return|>"),
        // Every harmony message ends with `<|end|>`, `<|call|>` or `<|return|>`: a call message
        // closed by `<|end|>` (vLLM `tests/parser/test_harmony.py`
        // `test_commentary_with_recipient_excluded`) is complete.
        Rule::end_of_turn("<|end|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct GptOss;

impl Protocol for GptOss {
    fn id(&self) -> &'static str {
        "gpt_oss"
    }

    fn label(&self) -> &'static str {
        "gpt-oss harmony (to=functions.x)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("# Tools\n\n## functions\n\nnamespace functions {\n\n");
        out.push_str(&typescript_functions(tools));
        out.push_str("} // namespace functions\n");
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start|>functions.{} to=assistant<|channel|>commentary<|message|>{}<|end|>",
                r.tool_name,
                result_value(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    /// A harmony reply is gpt-oss's even without a call: its channel token names the format
    /// (a final answer that is a JSON object is not a Llama 3 call that failed).
    fn signature(&self) -> Signature {
        let mut signature = framing_signature(self.framing());
        signature.markers.push(CHANNEL);
        signature
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = &text[block.body.start..block.body.end];
        let name_end = body
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(body.len());
        let name = &body[..name_end];
        if name.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{RECIPIENT} names no function; the call is skipped"),
                block.span,
            );
            return;
        }
        let (name, json) = match body.find(MESSAGE) {
            Some(message) => {
                let header = body.get(name_end..message).unwrap_or_default();
                if let Some(extra) = header_leftover(header) {
                    error(
                        out,
                        DiagnosticCode::StrayText,
                        format!(
                            "the header after '{name}' is '{extra}', more than harmony's channel \
                             and content type (a function name ends at a space); the call is \
                             skipped"
                        ),
                        block.span,
                    );
                    return;
                }
                (
                    name,
                    Span::new(block.body.start + message + MESSAGE.len(), block.body.end),
                )
            }
            None => match stripped_header(body) {
                Some((name, start, end)) => (
                    name,
                    Span::new(block.body.start + start, block.body.start + end),
                ),
                None => {
                    error(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!(
                            "the call to '{name}' has no {MESSAGE} with its arguments; it is skipped"
                        ),
                        block.span,
                    );
                    return;
                }
            },
        };
        push_named_call(out, text, block.span, json, self.id(), name, None);
    }
}

/// The content type harmony writes before a call's arguments (`<|constrain|>json`).
const CONTENT_TYPE: &str = "json";
const CONSTRAIN: &str = "<|constrain|>";

/// The header between the function's name and `<|message|>` when it holds more than harmony's
/// own parts (the channel, then one content type: `<|constrain|>json` or a bare `code`), as
/// llama.cpp reads a header; `None` when it holds no more. `to=functions.Web Search <|constrain|>json`
/// has two content types, `Search` and `json`: the name ends at the space, and llama.cpp reads
/// no call from such a header.
fn header_leftover(header: &str) -> Option<&str> {
    let mut rest = header.trim_start();
    let mut content_type_seen = false;
    while !rest.is_empty() {
        let word_end = |from: &str| {
            from.find(|c: char| c.is_whitespace() || c == '<')
                .unwrap_or(from.len())
        };
        if let Some(after) = rest.strip_prefix(CHANNEL) {
            rest = &after[word_end(after)..];
        } else if content_type_seen {
            return Some(header.trim());
        } else if let Some(after) = rest.strip_prefix(CONSTRAIN) {
            rest = &after[word_end(after)..];
            content_type_seen = true;
        } else {
            // A bare content type (`code`, `json`): one word.
            let word = &rest[..word_end(rest)];
            if word.is_empty() {
                return Some(header.trim());
            }
            content_type_seen = true;
            rest = &rest[word.len()..];
        }
        rest = rest.trim_start();
    }
    None
}

/// A call header whose special tokens were decoded away (`NAME json{…}`, `NAMEjson{…}`,
/// `NAME {…}`): the function name and the span (in `body`) of the JSON object that follows
/// it. `None` when no closed object follows the header directly.
fn stripped_header(body: &str) -> Option<(&str, usize, usize)> {
    let start = body.find('{')?;
    let header = body[..start].trim_end();
    let split = header
        .split_once(CONSTRAIN)
        .or_else(|| header.split_once(char::is_whitespace));
    let (name, content_type) = match split {
        Some((name, rest)) => (name.trim_end(), rest.trim()),
        // `NAME<|constrain|>json` with the token removed glues the type to the name.
        None => match header.strip_suffix(CONTENT_TYPE) {
            Some(name) if !name.is_empty() => (name, CONTENT_TYPE),
            _ => (header, ""),
        },
    };
    let known_type = content_type.is_empty() || content_type == CONTENT_TYPE;
    if name.is_empty() || name.contains('<') || !known_type {
        return None;
    }
    let end = value_end(Syntax::Json, body.as_bytes(), start)?;
    Some((name, start, end))
}
