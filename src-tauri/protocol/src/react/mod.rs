//! ReAct text calls: `Thought: …` / `Action: NAME` / `Action Input: {…}` / `Observation: …`.
//!
//! Agent frameworks prompt models that have no native tool format (and many that do) to reason
//! in this loop; the framework stops the model at `Observation:`, runs the action and appends
//! the result. Reference parsers: LLaMA-Factory `src/llamafactory/data/tool_utils.py`
//! (`DefaultToolUtils.tool_extractor`: every `Action:` / `Action Input:` pair, JSON input, an
//! input ends at the next `Action:`), LangChain
//! `libs/langchain/langchain/agents/output_parsers/react_single_input.py` (numbered
//! `Action 1:` / `Action Input 1:`, the raw input string as the tool's single input, a reply with
//! both an action and `Final Answer:` rejected), Qwen-Agent `qwen_agent/agents/react_chat.py`
//! (`_detect_tool`: the input ends at `Observation:`, which the model may leave out) and the
//! Qwen-7B/14B-Chat ReAct prompt, and llama-index
//! `llama-index-core/llama_index/core/agent/react/output_parser.py` (`extract_tool_use`: the
//! name ends at a space or `(`, blank lines may come between the lines, a Python
//! dict is read when the input is not JSON).
//!
//! Rules chosen from them:
//! - An action is a line starting (after indentation) with `Action:` or `Action N:`; its name is
//!   the rest of the line (LangChain and Qwen-Agent: tool names may have spaces), up to a `(`
//!   remark (llama-index), without backticks, asterisks or quotes around it. The
//!   `Action Input:` line (also `Action Input N:`, `Action N Input:`, `ActionInput:`) follows it,
//!   with only blank lines between, or on the same line (`Action: search Action Input: x`).
//! - The input is a JSON (or Python) object when it starts with `{`, optionally in a ``` fence,
//!   and ends where the value balances; other input runs to the next line labelled
//!   `Observation:`, `Thought:`, `Action:` or `Final Answer:`, or to the reply's end.
//! - Input that is not an object becomes `{"input": "<the text>"}`: LangChain hands the raw
//!   string to the tool as its single input, and `input` is the key LLaMA-Factory's prompt
//!   shows. Surrounding `"` are stripped, as LangChain does. Empty input is `{}`.
//! - Every action in the reply is a call, in order (LLaMA-Factory); `<think>` is reasoning.
//! - `Action: Final Answer` is the answer, not a call.
//!
//! Deliberate differences: LangChain rejects a reply with both an action and `Final Answer:`,
//! and llama-index prefers the answer; here the actions are kept with a warning (LLaMA-Factory
//! and Qwen-Agent keep the action). An input that starts with `{` but is neither JSON nor a
//! Python literal is an error for that call only (LLaMA-Factory drops every call; llama-index
//! also reads comments and falls back to a regex over `"key": "value"` pairs). `Action:` in the
//! middle of a line is prose (LangChain and LLaMA-Factory match it anywhere), so a sentence
//! about an action is never a call. LangChain's input runs to the end of the reply and would
//! swallow an `Observation:` the model made up; here it ends at that line, as in Qwen-Agent. The
//! name is the whole Action line, not its first word as in llama-index, so tools named with
//! spaces keep their names. The JSON-blob variant (`{"action": …, "action_input": …}`, LangChain's
//! `ReActJsonSingleInputOutputParser`) has no Action Input line: it is the `langchain_json`
//! format ([`crate::langchain`]).

mod steps;

use serde_json::{Map, Value};

use crate::calls::{error, parse_json, push_request, warning, ArgumentsOf, Call};
use crate::detect::Signature;
use crate::prompt::{function_objects, result_value};
use crate::pylit::parse_literal;
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};
use steps::{action_name, input_on_same_line, label, measure_input, Label};

/// The key a non-object Action Input is passed under.
pub const SINGLE_INPUT_KEY: &str = "input";

#[derive(Debug, Clone, Copy, Default)]
pub struct React;

impl Protocol for React {
    fn id(&self) -> &'static str {
        "react"
    }

    fn label(&self) -> &'static str {
        "ReAct Action / Action Input text steps"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut described = String::new();
        let mut names = Vec::new();
        if let Value::Array(functions) = function_objects(tools) {
            for function in functions {
                let name = function["name"].as_str().unwrap_or_default().to_owned();
                described.push_str(&format!(
                    "{name}: {} Parameters: {} Format the arguments as a JSON object.\n\n",
                    function["description"].as_str().unwrap_or_default(),
                    function["parameters"]
                ));
                names.push(name);
            }
        }
        format!(
            "Answer the question as well as you can. You may use these tools:\n\n{described}\
             Use this format:\n\n\
             Question: the question you must answer\n\
             Thought: what to do next\n\
             Action: the tool to use, one of [{}]\n\
             Action Input: the tool's arguments\n\
             Observation: the tool's result\n\
             ... (Thought / Action / Action Input / Observation may repeat)\n\
             Thought: I now know the final answer\n\
             Final Answer: the answer to the question\n\n\
             Begin!\n",
            names.join(",")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // Qwen-Agent appends each result as an Observation and opens the next Thought.
        let mut out = String::new();
        for result in results {
            let text = match result_value(result) {
                Value::String(text) => text,
                other => other.to_string(),
            };
            out.push_str(&format!("Observation: {text}\n"));
        }
        out.push_str("Thought:");
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut out = ParseOutput::default();
        let mut content = String::new();
        let mut final_answer = None;
        for (from, to) in outside_reasoning(text) {
            // Prose up to here is in `content`; `pending` is an Action line awaiting its input.
            let mut kept = from;
            let mut pending: Option<(usize, Span)> = None;
            let mut cursor = from;
            while cursor < to {
                let start = cursor;
                let rest = &text[start..to];
                let (line, next) = match rest.find('\n') {
                    Some(nl) => (&rest[..nl], start + nl + 1),
                    None => (rest, to),
                };
                let line = line.strip_suffix('\r').unwrap_or(line);
                cursor = next;
                let input_at = match label(line) {
                    Some(Label::Action(after)) => {
                        let rest = &line[after..];
                        let (name_part, same_line) = match input_on_same_line(rest) {
                            Some((at, input)) => (&rest[..at], Some(start + after + input)),
                            None => (rest, None),
                        };
                        if name_part.trim().starts_with("Final Answer") {
                            final_answer.get_or_insert(Span::new(start, start + line.len()));
                            pending = None;
                            continue;
                        }
                        if name_part.contains("Final Answer:") {
                            // LangChain's `Action: search Final Answer:` test: both at once.
                            final_answer.get_or_insert(Span::new(start, start + line.len()));
                        }
                        let name = action_name(name_part);
                        let indent = line.len() - line.trim_start().len();
                        let name_span =
                            Span::new(start + after + name.start, start + after + name.end);
                        pending = Some((start + indent, name_span));
                        match same_line {
                            Some(input) => input,
                            None => continue,
                        }
                    }
                    Some(Label::Input(after)) => start + after,
                    Some(Label::FinalAnswer) => {
                        final_answer.get_or_insert(Span::new(start, start + line.len()));
                        pending = None;
                        continue;
                    }
                    // Blank lines may stand between the Action and its input (llama-index).
                    _ if line.trim().is_empty() => continue,
                    _ => {
                        pending = None;
                        continue;
                    }
                };
                let input = measure_input(text, input_at, to);
                // What follows the value on its line (`, along those lines.`) stays prose.
                cursor = input.end.max(input_at);
                let Some((action_start, name)) = pending.take() else {
                    error(
                        &mut out,
                        DiagnosticCode::MissingToolName,
                        "an Action Input line without an Action line before it; skipped".to_owned(),
                        Span::new(start, cursor),
                    );
                    continue;
                };
                let step = Span::new(action_start, cursor);
                content.push_str(&text[kept..action_start]);
                kept = step.end;
                self.push_step(text, step, name, input.value, input.cut_off, &mut out);
            }
            content.push_str(&text[kept..to]);
        }
        if let (Some(answer), false) = (final_answer, out.requests.is_empty()) {
            warning(
                &mut out,
                DiagnosticCode::StrayText,
                "the reply gives a Final Answer as well as actions; the actions are kept \
                 (LangChain would reject the reply)"
                    .to_owned(),
                answer,
            );
        }
        out.content = content.trim().to_owned();
        out
    }

    fn signature(&self) -> Signature {
        // Both labels, not `Action:` alone: prose says "Action:" far more often than a
        // reply that acts without an `Action Input` line.
        Signature {
            markers: vec!["Action Input", "ActionInput"],
            ..Signature::default()
        }
    }
}

impl React {
    /// Decodes one step's input and pushes its call, or a diagnostic.
    fn push_step(
        &self,
        text: &str,
        step: Span,
        name: Span,
        input: Span,
        cut_off: bool,
        out: &mut ParseOutput,
    ) {
        let name_text = text.get(name.start..name.end).unwrap_or_default();
        if name_text.is_empty() {
            error(
                out,
                DiagnosticCode::MissingToolName,
                "the Action line names no tool; the step is skipped".to_owned(),
                step,
            );
            return;
        }
        let Some(args) = decode_input(text, input, name_text, out) else {
            return;
        };
        let first = out.requests.len();
        let call = Call {
            name: name_text.to_owned(),
            args,
            id: None,
        };
        push_request(out, text, step, self.id(), call, false);
        if cut_off {
            if let Some(request) = out.requests.get_mut(first) {
                request.incomplete = true;
            }
            warning(
                out,
                DiagnosticCode::UnclosedValue,
                format!("the reply ends inside the Action Input of '{name_text}'"),
                input,
            );
        }
    }
}

/// The arguments an Action Input stands for (see the module's rules), or `None` after a
/// diagnostic.
fn decode_input(
    text: &str,
    input: Span,
    name: &str,
    out: &mut ParseOutput,
) -> Option<Map<String, Value>> {
    let raw = text.get(input.start..input.end).unwrap_or_default().trim();
    if raw.is_empty() {
        return Some(Map::new());
    }
    if raw.starts_with('{') {
        let value = serde_json::from_str::<Value>(raw)
            .ok()
            .or_else(|| parse_literal(raw).ok())
            .or_else(|| parse_json(text, input, ArgumentsOf(name), out))?;
        return match value {
            Value::Object(args) => Some(args),
            _ => None,
        };
    }
    let single = raw.trim_matches('"');
    let mut args = Map::new();
    args.insert(SINGLE_INPUT_KEY.to_owned(), Value::from(single));
    Some(args)
}

/// The stretches of `text` outside `<think>…</think>` reasoning (a reasoning block the reply
/// ends in runs to the end).
fn outside_reasoning(text: &str) -> Vec<(usize, usize)> {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let mut stretches = Vec::new();
    let mut at = 0;
    while let Some(found) = text[at..].find(OPEN) {
        let open = at + found;
        stretches.push((at, open));
        match text[open + OPEN.len()..].find(CLOSE) {
            Some(close) => at = open + OPEN.len() + close + CLOSE.len(),
            None => return stretches,
        }
    }
    stretches.push((at, text.len()));
    stretches
}
