//! Glaive function calling: `<functioncall> {"name": …, "arguments": '{…}'} <|endoftext|>`.
//!
//! The glaive-function-calling-v2 dataset, which many community models were fine-tuned on,
//! writes one call per assistant turn after `<functioncall>`: an object whose `arguments` value
//! is a single-quoted string holding JSON, so the object is a Python literal, not JSON. The turn
//! ends with `<|endoftext|>`; results come back as `FUNCTION RESPONSE: {…}`. The system prompt
//! lists the functions as indented JSON objects after one sentence, nothing else.
//!
//! No serving stack has a parser for it. The parsers that read it are evaluation and dataset
//! code: Anyscale's fine-tuning templates (`templates/fine-tune-llm_v2/end-to-end-examples/
//! fine-tune-function-calling/fc_utils/function_extraction_utils.py`,
//! `_parse_function_calls_glaive`: the text between `<functioncall>` and `<|endoftext|>`, text
//! before it kept as content, one call or a list) and the Berkeley Function Calling
//! Leaderboard's `GlaiveHandler` (gorilla `berkeley-function-call-leaderboard/bfcl_eval/model_handler/local_inference/glaive.py`: the
//! last `<functioncall>`). A module of its own, not a rule of hermes or llama3_json: no
//! reference parser of those formats reads this marker or this quoting.
//!
//! Rules: each `<functioncall>` opens a call that ends with its balanced value (brackets counted
//! outside `"` strings, so the JSON inside the single quotes balances as it should), not only at
//! `<|endoftext|>`, which is dropped where it appears. The value is read as Python's
//! `ast.literal_eval` reads it ([`crate::pylit::parse_python_literal`]) and the JSON inside the
//! `arguments` string is decoded; an `arguments` object is taken as is. `<think>` is reasoning.
//!
//! Deliberate differences: both references delete every `'` and then decode JSON, which loses
//! apostrophes inside values (`"Don't"` becomes `"Dont"`); here a value Python would reject
//! (an apostrophe inside the single-quoted string, JSON's `true`/`null` outside it) is read with
//! the crate's lenient Python reading instead, with a warning, and keeps its text. Every call in
//! the reply is read, not only the first (Anyscale) or the last (BFCL). The end marker is not
//! required: models served without their special tokens lose it.

use serde_json::{json, Value};

use crate::calls::{error, push_value_calls, warning};
use crate::framing::{Block, Framing, Rule, JSON_VALUE, THINK};
use crate::prompt::{function_objects, result_value};
use crate::pylit::{parse_literal, parse_python_literal};
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_MARKER: &str = "<functioncall>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(CALL_MARKER, JSON_VALUE).lenient(),
        Rule::end_of_turn("<|endoftext|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Glaive;

impl Protocol for Glaive {
    fn id(&self) -> &'static str {
        "glaive"
    }

    fn label(&self) -> &'static str {
        "Glaive <functioncall> with single-quoted arguments"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // The dataset's system turn: one sentence, then each function as indented JSON.
        let mut out = String::from(
            "SYSTEM: You are a helpful assistant with access to the following functions. \
             Use them if required -\n",
        );
        if let Value::Array(functions) = function_objects(tools) {
            for function in functions {
                out.push_str(&serde_json::to_string_pretty(&function).unwrap_or_default());
                out.push('\n');
            }
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        results
            .iter()
            .map(|r| format!("FUNCTION RESPONSE: {}", json!(result_value(r))))
            .collect::<Vec<_>>()
            .join("\n\n\n")
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        // A model that drops the quotes writes plain JSON (`true`, an arguments object): that is
        // no fault, so JSON is tried before the lenient reading, which warns.
        let strict = match parse_python_literal(body) {
            Ok(value) => Ok(value),
            Err(e) => crate::json_value::from_str(body).map_err(|_| e),
        };
        let value = match strict {
            Ok(value) => value,
            Err(strict) => match parse_literal(body) {
                Ok(value) => {
                    warning(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!(
                            "the function call is not a Python literal ({strict}); read leniently"
                        ),
                        block.body,
                    );
                    value
                }
                Err(_) => {
                    error(
                        out,
                        DiagnosticCode::InvalidJson,
                        format!(
                            "the function call is not a Python literal: {strict}; the call is skipped"
                        ),
                        block.body,
                    );
                    return;
                }
            },
        };
        push_value_calls(
            out,
            text,
            value,
            block.body,
            block.span,
            self.id(),
            "the function call",
        );
    }
}
