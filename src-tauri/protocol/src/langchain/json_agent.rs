//! LangChain's JSON action blob: `{"action": "search", "action_input": "weather in SF"}`,
//! usually in a ```` ``` ```` or ```` ```json ```` fence after `Thought:` / `Action:` lines.
//!
//! References: LangChain `langchain_classic/agents/output_parsers/json.py`
//! (`JSONAgentOutputParser`: the blob found by `parse_json_markdown`, a list read as its first
//! element, `action_input` missing or null taken as `{}`),
//! `react_json_single_input.py` (`ReActJsonSingleInputOutputParser`: the first fenced blob; a
//! reply with both a blob and `Final Answer:` rejected) and
//! `structured_chat/output_parser.py` (`StructuredChatOutputParser`: the first fenced blob,
//! `"action": "Final Answer"` ends the loop with `action_input` as the answer).
//!
//! Rules: a JSON object whose first key is `action` (or `action_input`) is a step: in a fence
//! with `action` alone, standing in the prose only with `action_input` too (the agent's
//! instructions ask for both; `{"action": "none"}` in a sentence is data). A list of such
//! objects is several steps. Its `action` string names the
//! tool (trimmed, as the ReAct JSON parser does); `action_input` gives the arguments (see
//! [`super::arguments_of`]). A step whose action is `Final Answer` is the answer: its input is
//! content, not a call. `<think>` is reasoning.
//!
//! Deliberate differences: LangChain runs one action per step, so it reads only the first
//! blob (or list element); here every one is a call, as the `react` format does (a list's
//! further elements with a warning). A reply with a blob and a `Final Answer:` line keeps its
//! action (the ReAct JSON parser raises). Each blob is decoded on its own, so a streamed reply
//! gives the same calls and diagnostics as the whole one. An object that is not JSON
//! is read with the crate's lenient JSON reading, as the other JSON formats do; LangChain's
//! `parse_partial_json` also closes a cut-off blob, which here is read with a warning too.

use serde_json::{json, Map, Value};

use crate::balanced::element_spans;
use crate::calls::{error, parse_json, push_request, warning, Call};
use crate::detect::{framing_signature, Signature};
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::function_objects;
use crate::react::React;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

use super::{arguments_of, FINAL_ANSWER};

const ID: &str = "langchain_json";

/// The keys a blob may start with.
const BLOB_KEYS: &[&str] = &["\"action\"", "\"action_input\""];

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::object_with_key(BLOB_KEYS, JSON_VALUE).lenient(),
        Rule::object_list(BLOB_KEYS, JSON_VALUE).lenient(),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct LangChainJson;

impl Protocol for LangChainJson {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "LangChain JSON action blob (action / action_input)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // The structured chat agent's prompt: each tool with its argument schema, then how to
        // write one step as a fenced blob.
        let mut listed = String::new();
        let mut names = Vec::new();
        if let Value::Array(functions) = function_objects(tools) {
            for function in functions {
                let name = function["name"].as_str().unwrap_or_default().to_owned();
                let args = &function["parameters"]["properties"];
                listed.push_str(&format!(
                    "{name}: {}, args: {}\n",
                    function["description"].as_str().unwrap_or_default(),
                    if args.is_null() {
                        json!({})
                    } else {
                        args.clone()
                    }
                ));
                names.push(format!("{name:?}"));
            }
        }
        format!(
            "Answer as helpfully as you can. These tools are available:\n\n{listed}\n\
             Choose a tool by writing a JSON blob with an \"action\" key (the tool's name) and \
             an \"action_input\" key (its input).\n\n\
             Valid \"action\" values: \"{FINAL_ANSWER}\" or {}\n\n\
             Write exactly one action per blob, in this form:\n\n\
             ```\n{{\n  \"action\": $TOOL_NAME,\n  \"action_input\": $INPUT\n}}\n```\n\n\
             Then follow this loop:\n\n\
             Question: the question to answer\n\
             Thought: what to do next\n\
             Action:\n```\n$JSON_BLOB\n```\n\
             Observation: the tool's result\n\
             ... (Thought / Action / Observation may repeat)\n\
             Thought: I know what to answer\n\
             Action:\n```\n{{\n  \"action\": \"{FINAL_ANSWER}\",\n  \"action_input\": \"the answer\"\n}}\n```\n",
            names.join(", ")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // The agent's scratchpad is ReAct's: each observation, then the next thought opened.
        React.format_tool_results(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let Some(value) = parse_json(text, block.body, "the action blob", out) else {
            return;
        };
        let steps: Vec<(Span, Value)> = match value {
            Value::Array(items) => {
                let spans = element_spans(text, block.body);
                let aligned = spans.len() == items.len();
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| (if aligned { spans[i] } else { block.span }, item))
                    .collect()
            }
            other => vec![(block.span, other)],
        };
        let fenced = in_fence(text, block.span.start);
        let several = steps.len() > 1;
        for (index, (span, step)) in steps.into_iter().enumerate() {
            if !fenced && !has_input(&step) {
                // `{"action": "none"}` in a sentence is data, not a step: outside a fence a
                // blob must carry both keys the agent's instructions ask for.
                out.content
                    .push_str(text.get(span.start..span.end).unwrap_or_default());
                continue;
            }
            if several && index > 0 {
                warning(
                    out,
                    DiagnosticCode::StrayText,
                    "LangChain runs one action per step and reads only the first of a list; \
                     this one is read as a further call"
                        .to_owned(),
                    span,
                );
            }
            decode_step(text, span, step, out);
        }
    }

    fn signature(&self) -> Signature {
        // A blob's own key is evidence only this format has; the bare `{` it shares with
        // every format that reads call objects in prose.
        let mut signature = framing_signature(Some(FRAMING));
        signature.markers.push("\"action_input\"");
        signature
    }
}

/// Whether the block opens a fenced code block (```` ``` ```` or ```` ```json ```` just
/// before it).
fn in_fence(text: &str, start: usize) -> bool {
    let before = text.get(..start).unwrap_or_default().trim_end();
    let before = before
        .strip_suffix("json")
        .or_else(|| before.strip_suffix("JSON"))
        .unwrap_or(before);
    before.ends_with("```")
}

fn has_input(step: &Value) -> bool {
    step.get("action_input").is_some()
}

/// One blob: a call, the final answer (content), or a diagnostic.
fn decode_step(text: &str, span: Span, step: Value, out: &mut ParseOutput) {
    let Value::Object(mut blob) = step else {
        error(
            out,
            DiagnosticCode::InvalidJson,
            "an action blob must be a JSON object with \"action\" and \"action_input\"; \
             it is skipped"
                .to_owned(),
            span,
        );
        return;
    };
    let name = match blob.remove("action") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        _ => {
            error(
                out,
                DiagnosticCode::MissingToolName,
                "the action blob has no \"action\" naming a tool; it is skipped".to_owned(),
                span,
            );
            return;
        }
    };
    let input = blob.remove("action_input");
    if name == FINAL_ANSWER {
        let answer = match input {
            Some(Value::String(answer)) => answer,
            Some(other) => other.to_string(),
            None => String::new(),
        };
        out.content.push_str(&answer);
        return;
    }
    let args: Map<String, Value> = arguments_of(input);
    push_request(
        out,
        text,
        span,
        ID,
        Call {
            name,
            args,
            id: None,
        },
        false,
    );
}
