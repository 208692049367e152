//! XML_Tag (seed 003 §2.2, for tag-sensitive models such as Claude or DeepSeek R1): each call is
//! a JSON payload in `<tool_code>` tags, `<tool_code>{"name": …, "arguments": {…}}</tool_code>`,
//! as many as the reply needs.
//!
//! The seed keeps JSON inside the tag (§4.3) so code in the arguments cannot break the XML. A
//! payload wrapped in a ```json fence inside the tag is read too; a JSON list in one tag gives
//! one call per element. Reasoning in `<think>` or `<thinking>` is never parsed (isolating
//! thought from tool instructions is the point of the paradigm, §2.2). A reply cut off inside
//! its last `<tool_code>` is still decoded, with a warning. Results are the same
//! `{"tool_call_result": {"toolCallId", "result"}}` message as JSON_Strict (seed 003 §3.3).

use crate::calls::push_json_calls;
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::json_strict::{example_call, tool_call_results};
use crate::prompt::{function_definitions, pretty};
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<tool_code>";
pub const CALL_CLOSE: &str = "</tool_code>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::reasoning("<thinking>", "</thinking>"),
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)).lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct XmlTag;

impl Protocol for XmlTag {
    fn id(&self) -> &'static str {
        "xml_tag"
    }

    fn label(&self) -> &'static str {
        "XML_Tag (<tool_code> JSON)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou can call the following tools, given as JSON function definitions:\n\n",
        );
        out.push_str(&pretty(&serde_json::Value::Array(function_definitions(
            tools,
        ))));
        let example = example_call(tools, None);
        out.push_str(&format!(
            "\n\nTo call a tool, write its name and arguments as JSON inside <tool_code> tags, \
             one tag per call; you may make several calls in one reply:\n\n\
             {CALL_OPEN}{example}{CALL_CLOSE}\n\n\
             Think before calling if you need to, but keep your reasoning outside the tags. If \
             an argument contains the text </tool_code>, write it as <\\/tool_code>. The \
             results come back in a user message, one line per call:\n\
             {{\"tool_call_result\": {{\"toolCallId\": \"...\", \"result\": \"...\"}}}}\n\
             When you have the results, continue your answer.\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        tool_call_results(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        if !block.complete && !body.trim_start().starts_with(['{', '[', '`']) {
            // The reply ends after a `<tool_code>` that starts no JSON: the tag was mentioned
            // in prose. The scanner already warned that it is not closed; keep the text.
            out.content.push_str(
                text.get(block.span.start..block.span.end)
                    .unwrap_or_default(),
            );
            return;
        }
        let before = out.diagnostics.len();
        push_json_calls(
            out,
            text,
            unfenced(text, block.body),
            block.span,
            self.id(),
            "the <tool_code> body",
        );
        if block.complete {
            // JSON cut short by the closing tag: most likely a string holds "</tool_code>".
            for diagnostic in &mut out.diagnostics[before..] {
                if diagnostic.message.contains("is cut off") {
                    diagnostic.message.push_str(
                        " (if an argument contains \"</tool_code>\", the tag ends there: \
                         write it as \"<\\/tool_code>\" inside JSON strings)",
                    );
                }
            }
        }
    }
}

/// The body without a ``` fence around it (```json … ``` inside the tag), or as it is.
fn unfenced(text: &str, body: Span) -> Span {
    let Some(slice) = text.get(body.start..body.end) else {
        return body;
    };
    let lead = slice.len() - slice.trim_start().len();
    let inner = slice.trim();
    let Some(after_ticks) = inner.strip_prefix("```") else {
        return body;
    };
    let Some(newline) = after_ticks.find('\n') else {
        return body;
    };
    let start = body.start + lead + 3 + newline + 1;
    let rest = &after_ticks[newline + 1..];
    let end = match rest.trim_end().strip_suffix("```") {
        Some(before) => start + before.len(),
        None => start + rest.len(),
    };
    Span::new(start, end.max(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_tags_and_a_fenced_payload() {
        let text = "<thinking>maybe <tool_code>{\"name\": \"no\"}</tool_code></thinking>\
                    Sure.\n<tool_code> {\"name\": \"f\", \"arguments\": {\"a\": 1}} </tool_code>\n\
                    <tool_code>\n```json\n{\"name\": \"g\", \"arguments\": {}}\n```\n</tool_code>";
        let out = XmlTag.parse_tool_requests(text);
        assert_eq!(out.diagnostics, vec![]);
        let names: Vec<&str> = out.requests.iter().map(|r| r.tool_name.as_str()).collect();
        assert_eq!(names, vec!["f", "g"]);
        assert_eq!(out.content, "Sure.");
    }
}
