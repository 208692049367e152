//! Tencent Hy4 (Hunyuan v4): Hy3's key/value tokens without `<tool_sep>` and without layout.
//!
//! ```text
//! <tool_calls:opensource><tool_call:opensource>NAME<arg_key:opensource>KEY</arg_key:opensource><arg_value:opensource>VALUE</arg_value:opensource></tool_call:opensource></tool_calls:opensource>
//! ```
//!
//! Follows vLLM's `HYV4ToolParser` (`hy_v4_tool_parser.py`, which vLLM runs strict) and its
//! tests. The name runs to the first `<arg_key>` (or the call's end); the tokens carry the
//! checkpoint's suffix (`:opensource` in the shipping tokenizer, read here with the bare
//! spelling too). Values are kept as text (untyped requests, typed by the engine from the
//! schema). Grammar, reasoning, prompt and results are Hy3's otherwise: the shared reader is in
//! [`super::hunyuan_v3`].
//!
//! Deliberate differences from the reference:
//! - the reference in strict mode rejects the whole reply when any call is malformed (a
//!   missing `</tool_calls>`, unbalanced tags, text between pairs, an empty name) and returns it
//!   as content; here a malformed call is skipped with an error and its neighbours are kept,
//!   stray text between pairs is ignored with a warning, and a group the reply ends in keeps its
//!   complete calls, marked incomplete;
//! - a `<tool_sep>` after the name (Hy3's layout) skips the call with an error; the reference
//!   would make it part of the name;
//! - whitespace is allowed between the tokens (the reference allows none between
//!   `</arg_key>` and `<arg_value>`);
//! - without a schema a value that is a whole JSON literal becomes that literal (the crate's
//!   default typing); the reference keeps text when the tool or property is unknown.

use crate::framing::{Block, Framing};
use crate::hunyuan_v3::{decode_group, tool_responses, tools_prompt, NameEnd, RULES};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

#[derive(Debug, Clone, Copy, Default)]
pub struct HunyuanV4;

impl Protocol for HunyuanV4 {
    fn id(&self) -> &'static str {
        "hunyuan_v4"
    }

    fn label(&self) -> &'static str {
        "Tencent Hy4 <tool_calls> with <arg_key>/<arg_value>, no separator"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        tools_prompt(
            tools,
            "For function call returns, you should first print <tool_calls:opensource>\n\
             For each function call, you should return object like:\n\
             <tool_call:opensource>{function-name}\
             <arg_key:opensource>{arg-key-1}</arg_key:opensource>\
             <arg_value:opensource>{arg-value-1}</arg_value:opensource>\
             <arg_key:opensource>{arg-key-2}</arg_key:opensource>\
             <arg_value:opensource>{arg-value-2}</arg_value:opensource>...\
             </tool_call:opensource>\n\
             At the end of function call returns, you should print </tool_calls:opensource>\n",
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        tool_responses(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(Framing { rules: RULES })
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        decode_group(text, block, NameEnd::Pairs, self.id(), out);
    }
}
