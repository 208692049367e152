//! Continue's system-message tools: for models without native tool calling, Continue describes
//! the tools in the system message and reads calls written as a ```` ```tool ```` block:
//!
//! ````text
//! ```tool
//! TOOL_NAME: read_file
//! BEGIN_ARG: filepath
//! path/to/the_file.txt
//! END_ARG
//! ```
//! ````
//!
//! References: Continue `core/tools/systemMessageTools/` — `detectToolCallStart.ts` and the
//! framework's `acceptedToolCallStarts` (`toolCodeblocks/index.ts`), `interceptSystemToolCalls.ts`
//! (the reply split into pieces at every ```` ``` ```` and line feed), and
//! `toolCodeblocks/parseSystemToolCall.ts` (`handleToolCallBuffer`), with their tests
//! (`toolCodeblocks/*.vitest.ts`); the prompt is `buildToolsSystemMessage.ts` with the framework's
//! `toolToSystemToolDefinition`, results `convertSystemTools.ts`.
//!
//! Grammar, as the reference reads it:
//! - a call starts at ```` ```tool ```` followed by a line feed (any case; the fence may follow
//!   prose on the same line), or at a line that starts with `tool_name:` (any case): weak models
//!   forget the fence, so Continue accepts that start too;
//! - the line after the fence (or the `tool_name:` line itself) names the tool: the text after
//!   `tool_name:` / `toolname:` (any case), trimmed;
//! - then arguments: a line holding `BEGIN_ARG:` (or `begin_arg:` / `beginarg:`) names one, the
//!   lines after it are its value, and the first line holding `END_ARG` (or `endarg`, any case,
//!   anywhere in the line) ends it; the value is trimmed and read as JSON when it is JSON
//!   (`123`, `true`, `"x"`, a list or object whose strings may hold raw line feeds), else kept
//!   as text;
//! - outside an argument, any other line ends the call: the closing fence, a blank line or
//!   prose; several calls may follow one another;
//! - a reply that ends inside an argument's value loses that argument (it was never closed);
//!   the call keeps the arguments closed before it.
//!
//! Deliberate differences:
//! - the reply's end ends its last line, so `END_ARG` (or the name line, or the closing fence)
//!   without a final line feed counts; Continue waits for a line feed that never comes;
//! - a `tool_name:` line without a fence starts a call only when the name looks like a tool's
//!   (letters, digits, `_`, `-`, `.`) and a `BEGIN_ARG:` line or the reply's end follows it:
//!   otherwise it is prose (a `key: value` list, VCP's `tool_name:「始」…` field), which
//!   Continue would read as a call;
//! - after a fence, a line without a name, or a `BEGIN_ARG:` without an argument name, is an
//!   error that skips that call and reading goes on (Continue throws, ending the whole reply);
//! - prose on the line that ends a call stays content (Continue drops that line);
//! - inside a code block of another kind (```` ```tool_definition ````, ```` ```python ````)
//!   neither start counts: a `TOOL_NAME:` line there is a quoted example (Continue would start
//!   a call at it); after a ```` ```tool ```` whose name line is missing, the block up to its
//!   closing fence is text;
//! - `<think>…</think>` is reasoning: a block drafted there is not a call;
//! - a list or object value that is not JSON keeps its text as written (Continue keeps the copy
//!   in which it escaped the line feeds).

mod read;
#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::detect::Signature;
use crate::prompt::{pretty, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "continue_tool";

#[derive(Debug, Clone, Copy, Default)]
pub struct ContinueTool;

impl Protocol for ContinueTool {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "Continue system-message tools (```tool TOOL_NAME: / BEGIN_ARG: / END_ARG)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut definitions = String::new();
        for tool in tools {
            for method in &tool.methods {
                definitions.push_str(&tool_definition(&tool.routing_name(method), method));
                definitions.push_str("\n\n");
            }
        }
        format!(
            "<tool_use_instructions>\n\
             You can call tools. To call one, answer with a tool code block in exactly the form \
             below; do not use XML tags or JSON objects for tool calls.\n\n\
             These are the tools you can call:\n\n{definitions}\
             For example, this tool definition:\n\n\
             ```tool_definition\nTOOL_NAME: example_tool\nTOOL_ARG: arg_1 (string, required)\n\
             Description of the first argument\nEND_ARG\nTOOL_ARG: arg_2 (number, optional)\n\
             END_ARG\n```\n\n\
             is called like this:\n\n\
             ```tool\nTOOL_NAME: example_tool\nBEGIN_ARG: arg_1\nThe value\nof arg 1\nEND_ARG\n\
             BEGIN_ARG: arg_2\n3\nEND_ARG\n```\n\n\
             Rules:\n\
             1. Start the tool code block on a new line.\n\
             2. Call one tool at a time.\n\
             3. End your answer with the tool code block: stop right after its closing fence.\n\
             4. Only call the tools listed above.\n\
             </tool_use_instructions>"
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = Vec::new();
        for result in results {
            let text = match result_value(result) {
                Value::String(text) => text,
                other => pretty(&other),
            };
            out.push(format!(
                "Tool output for {} tool call:\n\n{text}",
                result.tool_name
            ));
        }
        out.join("\n\n")
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content = String::new();
        for (start, end) in read::visible_regions(text) {
            read::read_region(text, start, end, &mut out, &mut content);
        }
        out.content = content.trim().to_owned();
        out
    }

    fn signature(&self) -> Signature {
        Signature {
            markers: vec![
                "```tool\n",
                "```tool\r\n",
                "```Tool\n",
                "```TOOL\n",
                "TOOL_NAME:",
                "tool_name:",
                "Tool_Name:",
                "Tool_name:",
            ],
            ..Signature::default()
        }
    }
}

/// One method as Continue's `toolToSystemToolDefinition` shows it.
fn tool_definition(name: &str, method: &crate::method::MethodMetadata) -> String {
    let mut out = format!("```tool_definition\nTOOL_NAME: {name}\n");
    if !method.description.is_empty() {
        out.push_str(&format!("TOOL_DESCRIPTION:\n{}\n", method.description));
    }
    let required: Vec<&str> = method
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = method
        .parameters
        .get("properties")
        .and_then(Value::as_object)
    {
        for (key, property) in properties {
            let kind = property
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("string");
            let needed = if required.contains(&key.as_str()) {
                "required"
            } else {
                "optional"
            };
            out.push_str(&format!("TOOL_ARG: {key} ({kind}, {needed})\n"));
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                out.push_str(description);
                out.push('\n');
            }
            out.push_str("END_ARG\n");
        }
    }
    out.push_str("```");
    out
}
