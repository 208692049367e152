//! GLM-4-9B-chat (the 2024 GLM-4; GLM-4.5 and later are [`crate::glm45`]): a tool call is the
//! whole assistant turn, the tool's name on the first line and its JSON arguments after it.
//!
//! ```text
//! get_weather
//! {"location": "Beijing, China", "unit": "celsius"}
//! ```
//!
//! References: THUDM/GLM-4 `basic_demo/glm_server.py` `process_response` (the stripped output's
//! first line is the name, when it names a requested tool; the second line must start with `{`;
//! the remaining lines, stripped, must be one JSON document) and its streaming twin
//! `predict_stream`; the chat template of the model repository (every turn is
//! `<|role|>METADATA\nCONTENT`, a call turn's metadata is the tool's name; tools are listed in
//! the system turn under `# 可用工具`, each as `## NAME` and its function object as indented
//! JSON followed by one sentence asking for JSON arguments; results come back in `<|observation|>`
//! turns). The Berkeley Function Calling Leaderboard's `GLMHandler` reads the same shape.
//!
//! Rules: the reply is split into assistant turns ([`crate::chatglm3::turns`]); a turn is a
//! call when its first non-blank line is a tool-name token alone (ASCII letters, digits, `_`,
//! `-`, `.`, starting with a letter or `_`), the next line starts with `{`, and the rest of the
//! turn is exactly one JSON object. Anything else is prose. A reply with no role tokens is one
//! turn, so without them only a reply that is nothing but the call is read: a word line before a
//! JSON object inside prose is never a call, and auto-detect claims only such whole turns.
//!
//! Deliberate differences: the parser does not know the request's tools, so the name is checked
//! for shape instead of membership (the reference reads any first line that names a tool); the
//! word `json` is not a name (it is a fence's language tag that lost its backticks); each
//! `<|assistant|>` turn is read, so a transcript with several call turns (as the template
//! writes parallel calls) yields each call; the All Tools specials (`cogview`,
//! `simple_browser`, whose arguments are not JSON) are not read; a turn whose JSON is broken or
//! cut off is reported (the reference returns the text), and one with text after the JSON is
//! prose with a warning.

use serde_json::Value;

use crate::balanced::{value_end, Syntax};
use crate::calls::{push_named_call, warning};
use crate::chatglm3::indented_json;
use crate::chatglm3::turns::{assistant_turns, push_content, slice, Turn, ASSISTANT};
use crate::detect::{Signature, NAME_LINE_THEN_OBJECT};
use crate::prompt::{each_result, function_objects};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

/// The system turn's sentence after each tool (the template's wording: the model was tuned on it).
const TOOL_SUFFIX: &str = "在调用上述函数时，请使用 Json 格式表示调用的参数。";

#[derive(Debug, Clone, Copy, Default)]
pub struct Glm4Chat;

impl Protocol for Glm4Chat {
    fn id(&self) -> &'static str {
        "glm4_chat"
    }

    fn label(&self) -> &'static str {
        "GLM-4-9B-chat name line + JSON arguments"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("<|system|>\n# 可用工具");
        if let Value::Array(functions) = function_objects(tools) {
            for function in functions {
                let name = function["name"].as_str().unwrap_or_default();
                out.push_str(&format!(
                    "\n\n## {name}\n\n{}\n{TOOL_SUFFIX}",
                    indented_json(&function)
                ));
            }
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| format!("<|observation|>\n{}", result_text(r)))
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content = String::new();
        for turn in assistant_turns(text) {
            if !self.read_turn(text, &turn, &mut out) {
                push_content(&mut content, slice(text, turn.span));
            }
        }
        out.content = content;
        out
    }

    fn signature(&self) -> Signature {
        // A `{` in prose is no evidence: only a reply that starts with a name line over a `{`
        // line, or has role tokens, is a candidate; the parser then claims only whole turns.
        Signature {
            markers: vec![ASSISTANT],
            prefixes: vec![NAME_LINE_THEN_OBJECT],
            ..Signature::default()
        }
    }
}

/// Whether `line` is a tool-name token alone.
pub fn is_tool_name(line: &str) -> bool {
    let mut chars = line.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && !line.eq_ignore_ascii_case("json")
}

impl Glm4Chat {
    /// Reads `turn` as a call; false when it is prose.
    fn read_turn(&self, text: &str, turn: &Turn, out: &mut ParseOutput) -> bool {
        let name = slice(text, turn.metadata);
        if !is_tool_name(name) || !slice(text, turn.rest).starts_with('{') {
            return false;
        }
        let json_start = turn.rest.start;
        let bytes = text.as_bytes().get(..turn.span.end).unwrap_or_default();
        let json_end = match value_end(Syntax::Json, bytes, json_start) {
            Some(end) => end,
            // Unbalanced to the turn's end: cut off (or broken), for the JSON reader to report.
            None => turn.span.end,
        };
        let after = slice(text, Span::new(json_end, turn.span.end));
        if !after.trim().is_empty() {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!(
                    "text after the arguments of '{name}': a GLM-4 call is the whole turn, so \
                     this turn is read as prose"
                ),
                Span::new(json_end, turn.span.end),
            );
            return false;
        }
        let block = Span::new(turn.metadata.start, json_end);
        push_named_call(
            out,
            text,
            block,
            Span::new(json_start, json_end),
            self.id(),
            name,
            None,
        );
        true
    }
}
