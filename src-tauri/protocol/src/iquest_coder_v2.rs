//! iQuest Coder V2 / IQuest Q1: GLM-style key/value pairs in the model's own call tag.
//!
//! ```text
//! <iquestcoder_tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></iquestcoder_tool_call>
//! ```
//!
//! Follows vLLM's `iquest_coder_v2` parser (`vllm/tool_parsers/iquest_coder_v2_tool_parser.py`,
//! `IquestCoderV2ToolParser`) and its tests, and SGLang's `IQuestQ1Detector`
//! (`python/sglang/srt/function_call/iquest_q1_detector.py`), which reads the same body in
//! `<iquest_tool_call>` tags; both tags are read here. The name runs to the first `<arg_key>` (or
//! the block's end: a call without arguments); whitespace may separate the pairs (read by the
//! shared [`crate::arg_pairs`] reader, values as written); text before the first call is content. Values are kept as text (untyped requests: the engine types them
//! from the method's schema, or reads JSON literals without one, as the references'
//! `json.loads` fallback does). A block the reply ends in gives no call, as in both references.
//!
//! The first iQuest Coder parser (vLLM `iquest_coder`) reads Qwen3-Coder's
//! `<tool_call><function=…>` layout: that name is an alias of `qwen3_coder` (lib.rs).
//!
//! Deliberate differences from the references:
//! - a malformed call is skipped with an error, as in the references, but text between pairs
//!   is also reported with the span it sits at; a name with whitespace in it is an error
//!   (prose quoting the tag is not a call), where the references take any text as the name;
//! - values that are not strings in the schema are typed by the engine; without a schema a
//!   value is text unless it is a whole JSON literal (the references' fallback);
//! - the chat template is not stored here: tools are presented and results returned in this
//!   project's wording.

use serde_json::{Map, Value};

use crate::arg_pairs::{self, CallContext, PairReader, PairSyntax, Stray};
use crate::calls::{error, push_request, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, function_definitions};
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::xml_markup::{insert_arg, result_text};
use crate::{Protocol, ToolDefinitionInput};

pub const CALL_OPEN: &str = "<iquestcoder_tool_call>";
pub const CALL_CLOSE: &str = "</iquestcoder_tool_call>";
/// SGLang's IQuest Q1 spelling of the same tag.
pub const Q1_OPEN: &str = "<iquest_tool_call>";
pub const Q1_CLOSE: &str = "</iquest_tool_call>";
const KEY_OPEN: &str = PAIRS.key_open;
const KEY_CLOSE: &str = PAIRS.key_close;
const VALUE_OPEN: &str = PAIRS.value_open;
const VALUE_CLOSE: &str = PAIRS.value_close;

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        // Not markup bodies: `</iquestcoder_tool_call>` follows a bare name right after it in a
        // call without arguments, and the references end a block at the first closing tag.
        Rule::call(CALL_OPEN, Close::Marker(CALL_CLOSE)),
        Rule::call(Q1_OPEN, Close::Marker(Q1_CLOSE)),
    ],
};

/// The index of the `<iquest_tool_call>` rule in [`FRAMING`].
const Q1_RULE: usize = 2;

#[derive(Debug, Clone, Copy, Default)]
pub struct IquestCoderV2;

impl Protocol for IquestCoderV2 {
    fn id(&self) -> &'static str {
        "iquest_coder_v2"
    }

    fn label(&self) -> &'static str {
        "iQuest Coder V2 <iquestcoder_tool_call> with <arg_key>/<arg_value>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "# Tools\n\nYou may call one or more functions. Their signatures, in <tools></tools> \
             tags:\n<tools>\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out.push_str(&format!(
            "</tools>\n\nWrite each call as:\n{CALL_OPEN}function-name{KEY_OPEN}key-1{KEY_CLOSE}\
             {VALUE_OPEN}value-1{VALUE_CLOSE}{KEY_OPEN}key-2{KEY_CLOSE}{VALUE_OPEN}value-2\
             {VALUE_CLOSE}{CALL_CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<tool_response>\n{}\n</tool_response>\n",
                result_text(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let end = block.body.end.min(text.len());
        let body = block.body_text(text);
        let name_len = body.find(KEY_OPEN).unwrap_or(body.len());
        let name = body[..name_len].trim();
        if name.is_empty() || name.contains(char::is_whitespace) || name.contains('<') {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("the call block does not start with a tool name ('{name}'); it is skipped"),
                block.span,
            );
            return;
        }
        let close = if block.rule == Q1_RULE {
            Q1_CLOSE
        } else {
            CALL_CLOSE
        };
        let call = CallContext {
            name,
            close,
            complete: block.complete,
        };
        let mut args = Map::new();
        let from = block.body.start + name_len;
        let read = PairReader::new(text, end, PAIRS).read_all(from, call, out, |pair, out| {
            let value = Value::String(pair.value.to_owned());
            insert_arg(&mut args, pair.key, value, pair.span, name, out);
        });
        if !read {
            return;
        }
        push_request(
            out,
            text,
            block.span,
            self.id(),
            Call {
                name: name.to_owned(),
                args,
                id: None,
            },
            true,
        );
    }
}

/// How iQuest writes its pairs: GLM's tags, values kept as written (the references do not strip
/// them), whitespace the only layout, and any other text between pairs skipping the call.
const PAIRS: PairSyntax = PairSyntax {
    trim_values: false,
    literal_newlines: false,
    value_ends_at_next_key: false,
    stray: Stray::SkipsTheCall,
    ..arg_pairs::GLM
};
