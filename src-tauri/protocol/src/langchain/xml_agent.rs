//! LangChain's XML agent: `<tool>search</tool><tool_input>weather in SF</tool_input>`, and
//! `<final_answer>…</final_answer>` to end the loop.
//!
//! References: LangChain `langchain_classic/agents/xml/base.py` (`create_xml_agent`: the model
//! is stopped at `</tool_input>`, so a real step ends inside its input; observations come back
//! as `<observation>…</observation>`) and `agents/output_parsers/xml.py`
//! (`XMLAgentOutputParser`: the name between `<tool>` tags, the input between `<tool_input>`
//! tags or empty, XML entities decoded (`unescape_xml`, on by default; its test file
//! `tests/unit_tests/agents/output_parsers/test_xml.py`); earlier releases turned back
//! `[[tool]]`-style escapes of the tags instead, and took the input up to `</tool_input>` or
//! the end of the reply).
//!
//! Rules: a `<tool>` block names a call (trimmed); the `<tool_input>` after it, up to
//! `</tool_input>` or the reply's end (where the stop sequence cut it: complete, no warning),
//! is its input, taken as LangChain hands it to the tool (see [`super::arguments_of`]), except
//! that an input that is a JSON object is the arguments. A `<tool>` with no input is called
//! with `{}`. `<final_answer>` is content. The tags are found by the shared block scanner, so
//! tags quoted in inline code are prose and `<think>` is reasoning; the reply is read whole
//! (a call needs both of its blocks), so a streamed reply is parsed when it ends.
//!
//! Deliberate differences: the current parser raises on a second `<tool>` block; here each is
//! a call, with a warning, as in the JSON agent. The parser of this release reads no input
//! from an unclosed `<tool_input>`; the earlier one (and the agent's stop sequence) make that
//! the normal ending, which is followed here.

use serde_json::{Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::detect::Signature;
use crate::framing::{Block, Close, Framing, Rule, ScanEvent, Scanner, THINK};
use crate::prompt::{function_objects, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

use super::arguments_of;

const ID: &str = "langchain_xml";
const INPUT_OPEN: &str = "<tool_input>";

const TOOL_RULE: usize = 1;
const INPUT_RULE: usize = 2;
const ANSWER_RULE: usize = 3;

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call("<tool>", Close::Marker("</tool>")),
        Rule::call(INPUT_OPEN, Close::Marker("</tool_input>")).lenient(),
        Rule::call("<final_answer>", Close::Marker("</final_answer>")).lenient(),
    ],
};

/// The escapes earlier releases of the agent wrote for its own tags inside names and inputs.
const TAG_ESCAPES: &[(&str, &str)] = &[
    ("[[tool]]", "<tool>"),
    ("[[/tool]]", "</tool>"),
    ("[[tool_input]]", "<tool_input>"),
    ("[[/tool_input]]", "</tool_input>"),
    ("[[observation]]", "<observation>"),
    ("[[/observation]]", "</observation>"),
];

/// XML's predefined entities, which the current agent escapes names, inputs and results with.
const ENTITIES: &[(&str, char)] = &[
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&amp;", '&'),
    ("&apos;", '\''),
    ("&quot;", '"'),
];

#[derive(Debug, Clone, Copy, Default)]
pub struct LangChainXml;

impl Protocol for LangChainXml {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "LangChain XML agent (<tool> / <tool_input>)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut listed = String::new();
        if let Value::Array(functions) = function_objects(tools) {
            for function in functions {
                listed.push_str(&format!(
                    "{}: {}\n",
                    function["name"].as_str().unwrap_or_default(),
                    function["description"].as_str().unwrap_or_default()
                ));
            }
        }
        format!(
            "You are a helpful assistant. Help the user answer any questions.\n\n\
             You have access to the following tools:\n\n{listed}\n\
             To use a tool, write <tool></tool> and <tool_input></tool_input> tags; the result \
             comes back in <observation></observation> tags. For example, to look up the \
             weather in SF with a tool named 'search':\n\n\
             <tool>search</tool><tool_input>weather in SF</tool_input>\n\
             <observation>64 degrees</observation>\n\n\
             When you have the answer, write it in <final_answer></final_answer> tags:\n\n\
             <final_answer>The weather in SF is 64 degrees</final_answer>\n"
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            let text = match result_value(result) {
                Value::String(text) => text,
                other => other.to_string(),
            };
            out.push_str(&format!("<observation>{}</observation>", escaped(&text)));
        }
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        let mut scanner = Scanner::new(FRAMING);
        let mut events = Vec::new();
        scanner.advance(text, true, &mut events);
        let mut steps = Steps::default();
        for event in events {
            match event {
                ScanEvent::Content(span) => steps.content.push_str(&text[span.start..span.end]),
                ScanEvent::Block(block) => steps.block(text, &block),
                ScanEvent::Diagnostic(d) if stopped_in_input(text, d.span, d.code) => {}
                ScanEvent::Diagnostic(d) => steps.out.diagnostics.push(d),
                ScanEvent::BlockStarted { .. }
                | ScanEvent::BodyDelta { .. }
                | ScanEvent::Reasoning(_) => {}
            }
        }
        steps.finish(text)
    }

    fn signature(&self) -> Signature {
        // `<tool>` alone is hermes's tag too; only the input tag is this agent's own.
        Signature {
            markers: vec![INPUT_OPEN],
            ..Signature::default()
        }
    }
}

/// An unclosed `<tool_input>` running to the reply's end: the agent's stop sequence ended it.
fn stopped_in_input(text: &str, span: Span, code: DiagnosticCode) -> bool {
    code == DiagnosticCode::UnclosedBlock
        && span.end == text.len()
        && text
            .get(span.start..)
            .is_some_and(|rest| rest.starts_with(INPUT_OPEN))
}

/// The reply's steps as the scanner hands them over: a `<tool>` waits for its input.
#[derive(Default)]
struct Steps {
    out: ParseOutput,
    content: String,
    /// The last `<tool>` block and its name, not yet given an input.
    pending: Option<(Span, String)>,
}

impl Steps {
    fn block(&mut self, text: &str, block: &Block) {
        let body = block.body_text(text);
        match block.rule {
            TOOL_RULE => {
                self.flush(text);
                self.pending = Some((block.span, unescaped(body.trim())));
            }
            INPUT_RULE => match self.pending.take() {
                Some((tool, name)) => {
                    let step = Span::new(tool.start, block.span.end);
                    self.push(text, step, name, Some(input_value(body)));
                }
                None => error(
                    &mut self.out,
                    DiagnosticCode::MissingToolName,
                    "a <tool_input> without a <tool> before it; skipped".to_owned(),
                    block.span,
                ),
            },
            ANSWER_RULE => self.content.push_str(&unescaped(body)),
            _ => {}
        }
    }

    fn push(&mut self, text: &str, step: Span, name: String, input: Option<Value>) {
        if name.is_empty() {
            error(
                &mut self.out,
                DiagnosticCode::MissingToolName,
                "the <tool> tags name no tool; the step is skipped".to_owned(),
                step,
            );
            return;
        }
        if !self.out.requests.is_empty() {
            warning(
                &mut self.out,
                DiagnosticCode::StrayText,
                "LangChain's XML agent expects one <tool> per step and would reject this \
                 reply; each is read as a call"
                    .to_owned(),
                step,
            );
        }
        let args: Map<String, Value> = arguments_of(input);
        let call = Call {
            name,
            args,
            id: None,
        };
        push_request(&mut self.out, text, step, ID, call, false);
    }

    /// A `<tool>` that got no input is called with none.
    fn flush(&mut self, text: &str) {
        if let Some((tool, name)) = self.pending.take() {
            self.push(text, tool, name, None);
        }
    }

    fn finish(mut self, text: &str) -> ParseOutput {
        self.flush(text);
        self.out.content = self.content.trim().to_owned();
        self.out
    }
}

/// An input as the tool receives it: a JSON object as the arguments, other text as is.
fn input_value(body: &str) -> Value {
    let input = unescaped(body);
    if input.trim_start().starts_with('{') {
        if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(input.trim()) {
            return object;
        }
    }
    Value::String(input)
}

/// The name or input as the agent meant it: the agent's escapes of its own tags, then XML's
/// five entities, turned back.
fn unescaped(text: &str) -> String {
    let text = if text.contains("[[") {
        TAG_ESCAPES
            .iter()
            .fold(text.to_owned(), |acc, (escape, tag)| {
                acc.replace(escape, tag)
            })
    } else {
        text.to_owned()
    };
    if !text.contains('&') {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match ENTITIES.iter().find(|(entity, _)| rest.starts_with(entity)) {
            Some((entity, ch)) => {
                out.push(*ch);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// An observation as the agent's scratchpad writes it: XML-escaped, so a `<` in a result
/// cannot close or open a tag.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
