//! Anthropic's XML tool-use text: `<invoke name="…">` elements with `<parameter name="…">`
//! children, in a `<function_calls>` block or on their own.
//!
//! ```text
//! <function_calls>
//! <invoke name="Bash">
//! <parameter name="command">ls</parameter>
//! </invoke>
//! </function_calls>
//! ```
//!
//! Claude's tool-use prompt (as published system prompts of Claude.ai show it) asks for this
//! block and says that string and scalar parameters are written as they are, lists and objects
//! as JSON. Claude's API turns it into `tool_use` blocks (the `anthropic` format), but the text
//! leaks into outputs: Claude Code transcripts where a call was printed instead of run
//! (anthropics/claude-code issues 64108, 71487: `<invoke name="Edit">…</invoke>` with no
//! wrapper), proxies that forward Claude's text, and models trained on such transcripts. There
//! is no serving-stack parser for it; the grammar is the one DeepSeek V3.2's DSML copies with
//! `｜DSML｜` tag names, so it is read by the same scanner (`xml_markup`), with the tag spellings
//! above.
//!
//! Values are text (requests are untyped: the engine types them from the method's schema, so a
//! JSON list or object given for such a parameter becomes that value). The prompt says
//! whitespace in values is not stripped; only one newline after the opening tag and one before
//! the closing tag are layout (as DSML's encoder writes multi-line values). A `<function_calls>`
//! block holds one or more invokes; an invoke written without the block, at the start of a line
//! (as the leaks show it), is a call on its own, ending at `</invoke>`; one in the middle of a
//! sentence is prose. Text around the calls is content (Claude writes prose before its
//! calls). Reasoning is `<think>` for models that learned the layout; Claude's own thinking never
//! appears in its text.
//!
//! Deliberate differences and limits: OLMo 3 also writes `<function_calls>`, with Python call
//! lines inside (`olmo3`); a block whose body is Python lines is that format's (reported here,
//! no call). A MiniMax-M2 block (`<minimax:tool_call>`, the same invokes) is MiniMax-M2's: it is
//! skipped here with a warning, so a MiniMax reply is not read twice; so are bare invokes that
//! end at `</minimax:tool_call>` (MiniMax-M2.7 leaving its opener out, which MiniMax's parsers
//! in vLLM, SGLang and llama.cpp read no call from).
//!
//! The older Claude 2.1 tool-use beta layout (`<invoke><tool_name>X</tool_name><parameters>
//! <k>v</k></parameters></invoke>`, from Anthropic's `anthropic-tools` SDK and LangChain's
//! `ChatAnthropicTools`) is read too, inside a `<function_calls>` block: see [`beta`].

use crate::calls::warning;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::function_definitions;
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{
    decode_invokes, push_untyped, result_text, starts_line, Markup, TagStyle, ValueLayout,
};
use crate::{Protocol, ToolDefinitionInput};

mod beta;

pub const OPEN: &str = "<function_calls>";
pub const CLOSE: &str = "</function_calls>";
/// An invoke standing on its own: the evidence of a call without the block.
pub const BARE_INVOKE: &str = "<invoke name=";
pub const INVOKE_CLOSE: &str = "</invoke>";

const ID: &str = "anthropic_xml";

/// Indices into [`FRAMING`]'s rules.
const BLOCK_RULE: usize = 1;
const BARE_INVOKE_RULE: usize = 2;
const MINIMAX_BLOCK_RULE: usize = 3;

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // Values are written as they are: the block's tags count only where a tag may stand.
        Rule::call(OPEN, Close::Marker(CLOSE))
            .lenient()
            .markup_body(),
        // Leaked invokes are often one line (`…</parameter>...</invoke>`): `</invoke>` ends
        // the element wherever it stands.
        Rule::call(BARE_INVOKE, Close::Marker(INVOKE_CLOSE)).lenient(),
        // MiniMax-M2 writes the same invokes inside its own block: that block is MiniMax-M2's.
        Rule::call(
            crate::minimax_m2::OPEN,
            Close::Marker(crate::minimax_m2::CLOSE),
        )
        .lenient(),
    ],
};

const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<invoke",
    invoke_close: INVOKE_CLOSE,
    param_open: "<parameter",
    param_close: "</parameter>",
    style: TagStyle::Attributes,
    json_body: false,
    value_layout: ValueLayout::OneNewline,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicXml;

impl Protocol for AnthropicXml {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Anthropic XML (function_calls/invoke)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "You can use the tools below to answer. To call tools, write a <function_calls> \
             block in your reply, one <invoke> per call:\n<function_calls>\n\
             <invoke name=\"TOOL_NAME\">\n<parameter name=\"PARAMETER_NAME\">VALUE</parameter>\n\
             ...\n</invoke>\n</function_calls>\n\n\
             Write strings and numbers as they are; write lists and objects as JSON.\n\n\
             The tools, in JSON Schema:\n<functions>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&format!(
                "<function>{}</function>\n",
                definition["function"]
            ));
        }
        out.push_str("</functions>\n");
        out
    }

    /// Results as the `<function_results>` block the same prompts show.
    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("<function_results>\n");
        for result in results {
            let tag = if result.error.is_some() {
                "error"
            } else {
                "stdout"
            };
            out.push_str(&format!(
                "<result>\n<tool_name>{}</tool_name>\n<{tag}>{}</{tag}>\n</result>\n",
                result.tool_name,
                result_text(result)
            ));
        }
        out.push_str("</function_results>");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    /// The block and a bare invoke; not MiniMax-M2's block, which is that format's evidence.
    fn signature(&self) -> crate::detect::Signature {
        crate::detect::Signature {
            markers: vec![OPEN, BARE_INVOKE],
            ..crate::detect::Signature::default()
        }
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        match block.rule {
            BLOCK_RULE => {
                let body = block.body_text(text);
                if crate::olmo3::holds_python_calls(body) {
                    warning(
                        out,
                        DiagnosticCode::StrayText,
                        format!(
                            "this {OPEN} block holds Python call lines (OLMo 3's layout), not \
                             <invoke> elements; it is skipped (parse the reply as olmo3)"
                        ),
                        block.span,
                    );
                    return;
                }
                if beta::is_beta(body) {
                    beta::decode(text, block, ID, out);
                    return;
                }
                for invoke in decode_invokes(text, block, &MARKUP, out) {
                    push_untyped(out, text, invoke.span, ID, &invoke);
                }
            }
            BARE_INVOKE_RULE if !stands_on_its_line(text, block.span.start) => {
                // Mid-sentence (`I would write <invoke name="x"> there`): prose, not a call.
                out.content.push_str(
                    text.get(block.span.start..block.span.end)
                        .unwrap_or_default(),
                );
            }
            BARE_INVOKE_RULE if closed_by_minimax(text, block.span.end) => warning(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "this invoke is followed by '{}' without its opener: MiniMax-M2's block \
                     with '{}' lost, which MiniMax's parsers read no call from; it is skipped",
                    crate::minimax_m2::CLOSE,
                    crate::minimax_m2::OPEN
                ),
                block.span,
            ),
            BARE_INVOKE_RULE => {
                // The whole element is the invoke: the scanner's body starts inside its tag.
                let element = Block {
                    body: block.span,
                    ..*block
                };
                for invoke in decode_invokes(text, &element, &BARE_MARKUP, out) {
                    push_untyped(out, text, invoke.span, ID, &invoke);
                }
            }
            MINIMAX_BLOCK_RULE => warning(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "'{}' is MiniMax-M2's call block; it is skipped (parse the reply as \
                     minimax_m2)",
                    crate::minimax_m2::OPEN
                ),
                block.span,
            ),
            _ => {}
        }
    }
}

/// Whether the invokes from `at` on (whitespace and further bare invokes between) end at
/// MiniMax-M2's closing tag: a MiniMax block whose opening tag the model left out, not a
/// leaked Claude call (MiniMax-M2.7 in agent exports writes exactly this).
fn closed_by_minimax(text: &str, mut at: usize) -> bool {
    loop {
        let rest = text.get(at..).unwrap_or_default().trim_start();
        if rest.starts_with(crate::minimax_m2::CLOSE) {
            return true;
        }
        if !rest.starts_with(BARE_INVOKE) {
            return false;
        }
        let Some(end) = rest.find(INVOKE_CLOSE) else {
            return false;
        };
        at = text.len() - rest.len() + end + INVOKE_CLOSE.len();
    }
}

/// Whether `at` starts a line of `text` (or the reply): where leaked invokes stand.
fn stands_on_its_line(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or_default();
    before.trim_end_matches([' ', '\t']).is_empty() || starts_line(text, at)
}

/// [`MARKUP`] for an invoke without the block, so messages name what was there.
const BARE_MARKUP: Markup = Markup {
    block: "<invoke>",
    ..MARKUP
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_markup::summary;
    use serde_json::json;

    #[test]
    fn block_and_bare_invokes_are_calls() {
        let text = "I'll list it.\n<function_calls>\n<invoke name=\"Bash\">\n\
                    <parameter name=\"command\">ls -la</parameter>\n</invoke>\n</function_calls>";
        let out = summary(&AnthropicXml, text);
        assert_eq!(out["calls"][0]["name"], "Bash");
        assert_eq!(out["calls"][0]["args"], json!({"command": "ls -la"}));
        assert_eq!(out["content"], "I'll list it.");

        let bare =
            "court\n<invoke name=\"Read\">\n<parameter name=\"file_path\">/a.md</parameter>\n\
                    </invoke>";
        let out = summary(&AnthropicXml, bare);
        assert_eq!(out["calls"][0]["args"], json!({"file_path": "/a.md"}));
        assert_eq!(out["content"], "court");
    }

    #[test]
    fn the_claude_2_1_beta_layout_is_read() {
        let text = "Let me check.\n<function_calls>\n<invoke>\n<tool_name>search</tool_name>\n\
                    <parameters>\n<query>a < b</query>\n<tags><tag>x</tag><tag>y</tag></tags>\n\
                    <n>3</n>\n</parameters>\n</invoke>\n</function_calls>";
        let out = summary(&AnthropicXml, text);
        assert_eq!(out["calls"][0]["name"], "search");
        assert_eq!(
            out["calls"][0]["args"],
            json!({"query": "a < b", "tags": {"tag": ["x", "y"]}, "n": "3"})
        );
        assert_eq!(out["content"], "Let me check.");
        // Deep or unbalanced nesting never panics; an unclosed argument skips its call.
        let deep = format!(
            "<function_calls><invoke><tool_name>f</tool_name><parameters><a>{}x{}</a>\
             </parameters></invoke></function_calls>",
            "<b>".repeat(100),
            "</b>".repeat(100)
        );
        assert_eq!(summary(&AnthropicXml, &deep)["calls"][0]["name"], "f");
        let broken = "<function_calls><invoke><tool_name>f</tool_name><parameters><a>1\
                      </parameters></invoke></function_calls>";
        assert_eq!(summary(&AnthropicXml, broken)["calls"], json!([]));
    }

    #[test]
    fn olmo_lines_and_minimax_blocks_are_not_read() {
        let olmo = "<function_calls>\nget_weather(city=\"Paris\")\n</function_calls>";
        assert_eq!(summary(&AnthropicXml, olmo)["calls"], json!([]));
        let minimax = "<minimax:tool_call>\n<invoke name=\"f\">\n</invoke>\n</minimax:tool_call>";
        assert_eq!(summary(&AnthropicXml, minimax)["calls"], json!([]));
        // Its invokes with the opener left out, closed by MiniMax's tag: still MiniMax's.
        let opener_lost = "Let me check.\n\n<invoke name=\"f\">\n</invoke>\n<invoke name=\"g\">\n</invoke>\n</minimax:tool_call>";
        let read = summary(&AnthropicXml, opener_lost);
        assert_eq!(read["calls"], json!([]));
        assert_eq!(read["diagnostics"].as_array().map(Vec::len), Some(2));
    }
}
