//! Tencent Hy3 (Hunyuan v3): key/value pairs in special tokens, inside one `<tool_calls>` group.
//!
//! ```text
//! <tool_calls:opensource>
//! <tool_call:opensource>NAME<tool_sep:opensource>
//! <arg_key:opensource>KEY</arg_key:opensource>
//! <arg_value:opensource>VALUE</arg_value:opensource>
//! </tool_call:opensource>
//! </tool_calls:opensource>
//! ```
//!
//! Follows vLLM's `HYV3ToolParser` (`hy_v3_tool_parser.py`) and its tests. Every structural
//! token carries the checkpoint's suffix: the shipping Hy3 tokenizer spells them
//! `<tool_calls:opensource>` …, the preview checkpoint `<tool_calls>` …; both spellings are read
//! (vLLM reads the suffix from the tokenizer). A call is the tool's name, `<tool_sep>`, then
//! `<arg_key>`/`<arg_value>` pairs; values are written as they are, so they are kept as text
//! (requests are untyped and the engine types them from the method's schema). Keys are trimmed,
//! values are not (the reference's regex keeps them whole). Reasoning is in `<think>`, which the
//! template opens in the prompt (`no_think` closes it right away), so a reply may start inside
//! it. Tools are listed as JSON in `<tools>`; results go back as `<tool_response>` elements of a
//! `<tool_responses>` group, as the template renders them.
//!
//! Deliberate differences from the reference:
//! - a call without `<tool_sep>` after its name is skipped with an error (the reference's regex
//!   needs the separator too); that layout is Hy4's ([`super::hunyuan_v4`]);
//! - a `<tool_call>` not closed before the next one is skipped with an error; one the reply ends
//!   in (cut off) keeps its complete pairs and is marked incomplete, as the reference reads the
//!   last open call; a pair cut off in its key or value skips that call;
//! - text between pairs is ignored with a warning, as the reference's `findall` ignores it;
//! - a group marker quoted in inline code is prose (`framing::prose`);
//! - without a schema a value that is a whole JSON literal becomes that literal (the crate's
//!   default typing); the reference keeps text when the tool or property is unknown.

use crate::framing::{Block, Close, Framing, Rule, THINK_MAY_START_OPEN};
use crate::prompt::tools_in_xml_tags;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::result_text;
use crate::{Protocol, ToolDefinitionInput};

mod group;

pub use group::decode_group;

/// The spelling of Hunyuan's structural tokens in one checkpoint family.
#[derive(Debug, Clone, Copy)]
pub struct Spelling {
    pub group_open: &'static str,
    pub group_close: &'static str,
    pub call_open: &'static str,
    pub call_close: &'static str,
    pub sep: &'static str,
    pub key_open: &'static str,
    pub key_close: &'static str,
    pub value_open: &'static str,
    pub value_close: &'static str,
}

/// The shipping tokenizers' spelling (Hy3, Hy4: `token_suffix` `:opensource`).
pub const SUFFIXED: Spelling = Spelling {
    group_open: "<tool_calls:opensource>",
    group_close: "</tool_calls:opensource>",
    call_open: "<tool_call:opensource>",
    call_close: "</tool_call:opensource>",
    sep: "<tool_sep:opensource>",
    key_open: "<arg_key:opensource>",
    key_close: "</arg_key:opensource>",
    value_open: "<arg_value:opensource>",
    value_close: "</arg_value:opensource>",
};

/// The preview checkpoints' spelling, without a suffix.
pub const BARE: Spelling = Spelling {
    group_open: "<tool_calls>",
    group_close: "</tool_calls>",
    call_open: "<tool_call>",
    call_close: "</tool_call>",
    sep: "<tool_sep>",
    key_open: "<arg_key>",
    key_close: "</arg_key>",
    value_open: "<arg_value>",
    value_close: "</arg_value>",
};

/// The rules both Hunyuan XML formats share: reasoning in either spelling, opened in the prompt,
/// then a `<tool_calls>` group in either spelling. The suffixed group comes first: a rule's
/// index tells [`spelling_of`] which tokens the group uses.
pub const RULES: &[Rule] = &[
    Rule::call(SUFFIXED.group_open, Close::Marker(SUFFIXED.group_close))
        .lenient()
        .markup_body(),
    Rule::call(BARE.group_open, Close::Marker(BARE.group_close))
        .lenient()
        .markup_body(),
    Rule::reasoning("<think:opensource>", "</think:opensource>").may_start_open(),
    THINK_MAY_START_OPEN,
];

/// The tokens of the group a block of [`RULES`] was opened by.
pub fn spelling_of(block: &Block) -> Spelling {
    if block.rule == 0 {
        SUFFIXED
    } else {
        BARE
    }
}

/// Whether a call's name is followed by `<tool_sep>` (Hy3) or directly by its pairs (Hy4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameEnd {
    Separator,
    Pairs,
}

/// The tools section of the Hy3/Hy4 system prompt, with the call layout `example` shows.
pub fn tools_prompt(tools: &[ToolDefinitionInput], example: &str) -> String {
    let mut out = tools_in_xml_tags(tools);
    out.push_str(example);
    out
}

/// Results as the template feeds them back: one `<tool_response>` each, in one group.
pub fn tool_responses(results: &[ToolExecutionResult]) -> String {
    let mut out = String::from("<tool_responses:opensource>\n");
    for result in results {
        out.push_str(&format!(
            "<tool_response:opensource>\n{}\n</tool_response:opensource>\n",
            result_text(result)
        ));
    }
    out.push_str("</tool_responses:opensource>");
    out
}

#[derive(Debug, Clone, Copy, Default)]
pub struct HunyuanV3;

impl Protocol for HunyuanV3 {
    fn id(&self) -> &'static str {
        "hunyuan_v3"
    }

    fn label(&self) -> &'static str {
        "Tencent Hy3 <tool_calls> with <tool_sep> and <arg_key>/<arg_value>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        tools_prompt(
            tools,
            "For function call returns, you should first print <tool_calls:opensource>\n\
             For each function call, you should return object like:\n\
             <tool_call:opensource>{function-name}<tool_sep:opensource>\n\
             <arg_key:opensource>{arg-key-1}</arg_key:opensource>\n\
             <arg_value:opensource>{arg-value-1}</arg_value:opensource>\n\
             <arg_key:opensource>{arg-key-2}</arg_key:opensource>\n\
             <arg_value:opensource>{arg-value-2}</arg_value:opensource>\n...\n\
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
        decode_group(text, block, NameEnd::Separator, self.id(), out);
    }
}
