//! Naver HyperCLOVA X SEED Think 14B: the calls are a JSON list in an assistant turn whose
//! role line says `-> tool/function_call`.
//!
//! ```text
//! <|im_start|>assistant/think
//! reasoning<|im_end|>
//! <|im_start|>assistant -> tool/function_call
//! [{"name": "get_weather", "arguments": {"city": "Seoul"}}]<|im_end|>
//! ```
//!
//! Follows vLLM's `hyperclovax_seed_think_14b` parser
//! (`vllm/tool_parsers/hyperclovax_seed_think_14b_tool_parser.py`,
//! `HyperCLOVAXSeedThink14BToolParser`) and its tests: the list follows the
//! `-> tool/function_call` header and runs to `<|im_end|>` (or the reply's end); each call is
//! `{"name", "arguments"}` or `{"name", "parameters"}`. Text before the header is content; a
//! `<|im_start|>assistant/think` turn is reasoning. The abbreviated `-> tool/NAME\n{…}` that the
//! model sometimes writes unprompted is not a call, as in the reference.
//!
//! The newer HyperCLOVA X SEED Think (vLLM `hyperclovax_seed_think`) writes GLM-4.5's
//! `<tool_call>NAME<arg_key>…` layout instead: that name is an alias of `glm45` (lib.rs).
//!
//! Deliberate differences from the reference:
//! - a bare list with no header (vLLM's hand-off after its reasoning parser strips the header,
//!   read only when the request has tools) is not read here: without the header it is the
//!   `xlam` layout, which auto-detect reads with the same calls;
//! - one bad call in the list is skipped with an error and its neighbours are kept, where the
//!   reference returns the whole reply as content; a list the reply ends in keeps its complete
//!   calls, marked incomplete;
//! - the model's chat template is not stored here: tools are presented and results returned in
//!   this project's wording, in the template's `<|im_start|>` turns.

use crate::calls::push_json_calls;
use crate::framing::{Block, Framing, Rule, JSON_VALUE};
use crate::prompt::{each_result, function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

/// The role suffix of an assistant turn that holds calls.
pub const CALL_HEADER: &str = "-> tool/function_call";
const THINK_TURN: &str = "<|im_start|>assistant/think";
const ASSISTANT_TURN: &str = "<|im_start|>assistant";
const TURN_END: &str = "<|im_end|>";

const FRAMING: Framing = Framing {
    rules: &[
        // Before the assistant token: both start at the same byte and the earlier rule wins.
        Rule::reasoning(THINK_TURN, TURN_END),
        Rule::call(CALL_HEADER, JSON_VALUE).json_body().lenient(),
        Rule::token(ASSISTANT_TURN),
        Rule::end_of_turn(TURN_END),
        Rule::end_of_turn("<|endofturn|>"),
        Rule::end_of_turn("<|stop|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct HyperClovaX;

impl Protocol for HyperClovaX {
    fn id(&self) -> &'static str {
        "hyperclovax"
    }

    fn label(&self) -> &'static str {
        "HyperCLOVA X SEED Think 14B -> tool/function_call […]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "<|im_start|>tool_list\n# Tools\n\nYou may call these functions (one JSON schema per \
             line):\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&definition["function"].to_string());
            out.push('\n');
        }
        out.push_str(&format!(
            "\nTo call functions, end your turn and open an assistant turn with the header \
             {CALL_HEADER}, then write the calls as a JSON list:\n\
             {ASSISTANT_TURN} {CALL_HEADER}\n\
             [{{\"name\": \"function-name\", \"arguments\": {{\"key\": \"value\"}}}}]{TURN_END}\n\
             {TURN_END}\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |result| {
            format!(
                "<|im_start|>tool/function_call\n{}{TURN_END}\n",
                result_value(result)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        push_json_calls(
            out,
            text,
            block.body,
            block.span,
            self.id(),
            "the -> tool/function_call list",
        );
    }
}
