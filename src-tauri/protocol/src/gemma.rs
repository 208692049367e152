//! Gemma 3 function calling: calls as Python in a ```tool_code``` fence, one per line,
//! `get_weather(city="Paris")` or `print(get_weather(city="Paris"))`.
//!
//! Gemma has no tool tokens; Google's function-calling guide has the prompt describe the tools
//! and ask for a ```tool_code``` block, and feeds results back in a ```tool_output``` block.
//!
//! The `default_api.` namespace: Gemini's code-execution style (and prompts written after it)
//! presents the tools as methods of a module named `default_api`, so Gemma 3 often writes
//! `print(default_api.get_weather(city="Paris"))`. That module is only where the tools live,
//! not part of their names (the declared functions have none): the call is read as
//! `get_weather`. Other dotted names are kept as written (`pylit` keeps names exactly).
//!
//! A fence whose body is a Python list of calls (`[get_weather(city="Paris")]`, what Gemma 3
//! writes when a community template asks for the pythonic list, as vLLM serves it with its
//! `pythonic` parser) is read as that list ([`crate::pythonic::push_call_list`]).

use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{function_definitions, result_value};
use crate::pylines::push_call_lines;
use crate::pylit;
use crate::pythonic::push_call_list;
use crate::request::{ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const FENCE: &str = "```tool_code";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(FENCE, Close::Marker("```")).lenient(),
        Rule::token("<end_of_turn>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Gemma;

impl Protocol for Gemma {
    fn id(&self) -> &'static str {
        "gemma"
    }

    fn label(&self) -> &'static str {
        "Gemma ```tool_code``` Python calls"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "At each turn, if you decide to invoke any of the function(s), it should be wrapped \
             with ```tool_code```. The python methods described below are imported and available, \
             you can only use defined methods. The generated code should be readable and efficient. \
             The response to a method will be wrapped in ```tool_output``` use it to call more tools \
             or generate a helpful, friendly response.\n\n",
        );
        for definition in function_definitions(tools) {
            let f = &definition["function"];
            out.push_str(&format!(
                "def {}(**kwargs):\n    \"\"\"{}\n\n    Args (JSON Schema): {}\n    \"\"\"\n\n",
                f["name"].as_str().unwrap_or_default(),
                f["description"].as_str().unwrap_or_default(),
                f["parameters"]
            ));
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::from("```tool_output\n");
        for r in results {
            out.push_str(&result_value(r).to_string());
            out.push('\n');
        }
        out.push_str("```\n");
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let first = out.requests.len();
        let body = block.body_text(text);
        let trimmed = body.trim_start();
        if trimmed.starts_with('[') {
            let lead = body.len() - trimmed.len();
            // A Python list of calls in the fence, as Gemma 3 writes when its prompt asks for
            // the pythonic list (vLLM serves it with the `pythonic` parser).
            let list = Span::new(block.body.start + lead, block.body.end);
            push_call_list(out, text, list, block.span, self.id());
        } else {
            // Gemma's calls are code the client runs: a positional argument is valid there, and
            // no JSON object of named arguments can hold it.
            push_call_lines(out, text, block.body, self.id(), pylit::Options::default());
        }
        for request in out.requests.iter_mut().skip(first) {
            if let Some(name) = without_namespace(&request.tool_name) {
                request.tool_name = name.to_owned();
            }
        }
    }
}

/// The module Gemini-style prompts put the tools in (`default_api.get_weather(…)`).
pub const TOOL_NAMESPACE: &str = "default_api.";

/// `name` without the [`TOOL_NAMESPACE`] prefix, when it has one and a name follows it.
fn without_namespace(name: &str) -> Option<&str> {
    name.strip_prefix(TOOL_NAMESPACE)
        .filter(|rest| !rest.is_empty())
}
