//! MiniMax-M3: XML whose every tag is prefixed by the namespace token `]<]minimax[>[`, with
//! parameters named by their tags and nested arguments written as nested tags.
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="create_order">]<]minimax[>[<user_id>42]<]minimax[>[</user_id>
//! ]<]minimax[>[<shipping>]<]minimax[>[<city>Singapore]<]minimax[>[</city>]<]minimax[>[</shipping>
//! ]<]minimax[>[<items>]<]minimax[>[<item>…]<]minimax[>[</item>]<]minimax[>[</items>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Follows vLLM's `MinimaxM3ToolParser` (a bridge to its Rust parser crate) as its tests
//! (`test_minimax_m3_tool_parser.py`) pin it down: one wrapper holds one or more `<invoke>`s,
//! each a call; a tag holding tags is an object of them (a tag repeated in it becomes a list),
//! and one holding only `<item>` tags is a list. The top-level values are text, so requests are
//! untyped and the engine types them from the method's schema; a nested leaf that is a JSON
//! number, `true`, `false` or `null` becomes that value (the schema typing does not reach into
//! nested values). Whitespace around a leaf is removed, as MiniMax-M2's parsers do. A closing
//! tag written without the namespace token (`]<]minimax[>[<query>x</query>`, seen in real
//! outputs) closes its element. Reasoning is in `<think>`. The wrapper is the namespace token
//! and `<tool_call>`, so a reply without the token is not this format.
//!
//! Deliberate differences from the reference:
//! - the reference types nested leaves from the schema (`"018956"` for an integer `zip` is
//!   18956); without a schema at parse time a nested leaf is typed only when it is a JSON
//!   literal (`"018956"` stays text, validation reports it);
//! - lists are told from objects by the `<item>` tag alone (the reference asks the schema): an
//!   object whose only key is `item` reads as a list;
//! - a broken element (a closing tag of another element, a tag never closed) skips its call
//!   with an error and keeps its neighbours; a call the reply ends in after its last complete
//!   parameter is kept, marked incomplete; the reference streams the committed calls and turns
//!   the rest into content;
//! - the prompt and the result turn follow MiniMax-M2's template with M3's tags (M3's own
//!   template is not public here).

use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::minimax_m2::{tools_section, MinimaxM2};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

mod tree;

/// The namespace token before every structural tag.
pub const NS: &str = "]<]minimax[>[";
pub const OPEN: &str = "]<]minimax[>[<tool_call>";
pub const CLOSE: &str = "]<]minimax[>[</tool_call>";

const FRAMING: Framing = Framing {
    rules: &[THINK, Rule::call(OPEN, Close::Marker(CLOSE)).lenient()],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct MinimaxM3;

impl Protocol for MinimaxM3 {
    fn id(&self) -> &'static str {
        "minimax_m3"
    }

    fn label(&self) -> &'static str {
        "MiniMax-M3 ]<]minimax[>[<tool_call> namespaced XML"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = tools_section(tools);
        out.push_str(&format!(
            "\nWhen making tool calls, prefix every tag with {NS} and name each \
             parameter by its tag; nest tags for objects and use <item> tags for list elements:\n\n\
             {OPEN}\n{NS}<invoke name=\"tool-name\">{NS}<param-key-1>param-value-1{NS}</param-key-1>\
             {NS}<param-key-2>{NS}<item>value{NS}</item>{NS}</param-key-2>{NS}</invoke>\n{CLOSE}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        MinimaxM2.format_tool_results(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        tree::decode_wrapper(text, block, self.id(), out);
    }
}
