//! Nexusflow NexusRaven-V2: one line of Python calls after `Call:`, joined by `;`, ended by
//! the `<bot_end>` token, optionally followed by an explanation after `Thought:`.
//!
//! ```text
//! Call: get_weather_data(coordinates=get_coordinates_from_city(city_name='Seattle'))<bot_end>
//! Thought: The function call …
//! ```
//!
//! References: Nexusflow's nexusraven-pip `nexusraven/client.py` (`_process_response` cuts
//! the generation at `<bot_end>`, or, when the server dropped that special token, at
//! `Thought:`; `_parse_tool_calls` removes `Call:`, splits the calls at `;` and reads each with
//! Python's `ast`: keyword arguments by name, a call as a value becomes
//! `{name, arguments (positional), keywords}`), and the NexusRaven-V2 model card and
//! `How-To-Prompt.ipynb` (the prompt: each function as `Function:` and a Python `def` with its
//! docstring, then `User Query: …<human_end>`; several calls are `;`-joined).
//!
//! Rules: the first line starting with `Call:` and a Python call ([`find_call_line`]) opens
//! the calls; they run to `<bot_end>`, else to a line starting `Thought:`, else to the end.
//! Text before `Call:` and the `Thought:` explanation are content. Values are typed as
//! Python literals ([`crate::pylit`]); a cut-off or unreadable call is a diagnostic.
//!
//! Deliberate differences: nested calls are read as nexusraven-pip reads them (the Berkeley
//! leaderboard's Nexus handler keeps only flat calls; the references disagree, and the model's
//! own README shows a nested call, so the client that ships with the model wins); positional
//! arguments of a top-level call are reported and the call skipped (they cannot be named);
//! only the first `Call:` line is read (the reference reads one); a bare name as a value is an
//! error (nexusraven-pip would fail on it too). The model defines no result turn, so results
//! go back as text the next query can quote: see [`NexusRaven::format_tool_results`].

use serde_json::Value;

use crate::detect::{find_call_line, Signature, CALL_LINE};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::pylines::push_item;
use crate::pylit;
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const END: &str = "<bot_end>";
const THOUGHT: &str = "\nThought:";

#[derive(Debug, Clone, Copy, Default)]
pub struct NexusRaven;

impl Protocol for NexusRaven {
    fn id(&self) -> &'static str {
        "nexusraven"
    }

    fn label(&self) -> &'static str {
        "NexusRaven-V2 Call: f(a=1); g(b=2)<bot_end>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // The model card's prompt: every function, then the query the user's text completes,
        // ended by `<human_end>`.
        let mut out: String = function_definitions(tools)
            .iter()
            .map(|d| signature(&d["function"]))
            .collect();
        out.push_str("User Query: ");
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // No result turn exists (the model is single-turn): each result is a line of text,
        // named after its call, that a follow-up `User Query:` can carry.
        each_result(results, |r| {
            format!("Result of {}: {}\n", r.tool_name, result_value(r))
        })
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text, self.id())
    }

    fn signature(&self) -> Signature {
        Signature {
            prefixes: vec![CALL_LINE],
            ..Signature::default()
        }
    }
}

fn parse(text: &str, id: &str) -> ParseOutput {
    let mut out = ParseOutput::default();
    let Some(at) = find_call_line(text) else {
        out.content = text.replace(END, "").trim().to_owned();
        return out;
    };
    let calls_start = at + "Call:".len();
    let rest = text.get(calls_start..).unwrap_or_default();
    // `<bot_end>` ends the calls; without it (special tokens stripped) the explanation does.
    let (calls_end, after) = match rest.find(END) {
        Some(end) => (calls_start + end, calls_start + end + END.len()),
        None => match rest.find(THOUGHT) {
            Some(end) => (calls_start + end, calls_start + end + 1),
            None => (text.len(), text.len()),
        },
    };
    read_calls(text, Span::new(calls_start, calls_end), id, &mut out);
    let before = text.get(..at).unwrap_or_default().trim();
    let after = text.get(after..).unwrap_or_default().replace(END, "");
    out.content = [before, after.trim()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    out
}

/// Reads `text[span]` as `;`-joined calls, each good one a request, each bad one a diagnostic.
fn read_calls(text: &str, span: Span, id: &str, out: &mut ParseOutput) {
    let piece = text.get(span.start..span.end).unwrap_or_default();
    let trimmed = piece.trim_start();
    let base = span.start + (piece.len() - trimmed.len());
    let trimmed = trimmed.trim_end();
    // The reader takes a bracketed list; the brackets go around a copy, so each offset it
    // reports is one past the reply's.
    let wrapped = format!("[{trimmed}]");
    let options = pylit::Options {
        separator: b';',
        nested_calls: true,
        ..pylit::Options::default()
    };
    let list = pylit::parse_call_list_with(&wrapped, options);
    let at = |offset: usize| (base + offset.saturating_sub(1)).min(base + trimmed.len());
    for item in list.items {
        push_item(out, text, id, item, |start, end| {
            Span::new(at(start), at(end))
        });
    }
}

/// A function as the model card shows it: `Function:`, a `def` with its parameters (typed,
/// optional ones defaulting to `None`) and a docstring with the description and `Args:`.
fn signature(function: &Value) -> String {
    let name = function["name"].as_str().unwrap_or_default();
    let description = function["description"].as_str().unwrap_or_default().trim();
    let empty = serde_json::Map::new();
    let properties = function["parameters"]["properties"]
        .as_object()
        .unwrap_or(&empty);
    let required: Vec<&str> = function["parameters"]["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Required parameters first: Python puts those without defaults before the others.
    let (needed, optional): (Vec<_>, Vec<_>) = properties
        .iter()
        .partition(|(key, _)| required.contains(&key.as_str()));
    let params: Vec<String> = needed
        .iter()
        .map(|(key, spec)| format!("{key}: {}", py_type(spec)))
        .chain(
            optional
                .iter()
                .map(|(key, spec)| format!("{key}: {} = None", py_type(spec))),
        )
        .collect();
    let mut out = format!(
        "Function:\ndef {name}({}):\n    \"\"\"\n    {description}\n",
        params.join(", ")
    );
    if !properties.is_empty() {
        out.push_str("\n    Args:\n");
        for (key, spec) in needed.iter().chain(optional.iter()) {
            let about = spec["description"].as_str().unwrap_or_default();
            out.push_str(&format!("    {key} ({}): {about}\n", py_type(spec)));
        }
    }
    out.push_str("    \"\"\"\n\n");
    out
}

fn py_type(spec: &Value) -> &'static str {
    match spec["type"].as_str() {
        Some("string") => "str",
        Some("integer") => "int",
        Some("number") => "float",
        Some("boolean") => "bool",
        Some("array") => "list",
        Some("object") => "dict",
        _ => "Any",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_end_at_bot_end_or_thought() {
        let text = "Call: f(a=1); g(b=h(2, k='x'))<bot_end>\nThought: because";
        let out = NexusRaven.parse_tool_requests(text);
        assert_eq!(out.requests.len(), 2);
        assert_eq!(out.requests[1].args["b"]["keywords"]["k"], "x");
        assert_eq!(out.requests[1].raw_block, "g(b=h(2, k='x'))");
        assert_eq!(out.content, "Thought: because");
        let out = NexusRaven.parse_tool_requests("Call: f(a=1); \nThought: x; y(z=1)");
        assert_eq!(out.requests.len(), 1);
        assert!(out.diagnostics.is_empty());
    }

    #[test]
    fn prose_and_cut_off_calls() {
        let out = NexusRaven.parse_tool_requests("Call: us on 555-0100 (anytime).");
        assert!(out.requests.is_empty() && out.diagnostics.is_empty());
        let out = NexusRaven.parse_tool_requests("Call: f(a='x");
        assert!(out.requests.is_empty() && out.has_errors());
    }

    #[test]
    fn a_megabyte_reply_parses() {
        let text = format!("Call: {}f(a=1)", "f(a='xx'); ".repeat(100_000));
        assert_eq!(
            NexusRaven.parse_tool_requests(&text).requests.len(),
            100_001
        );
    }
}
