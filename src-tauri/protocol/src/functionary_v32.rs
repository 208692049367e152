//! Functionary v3.2 (Llama 3 based): `>>>NAME\n{"arg": …}` per call, `>>>all\n…` for text.
//!
//! Follows llama.cpp's functionary v3.2 handling (`common/chat.cpp`,
//! `models/templates/meetkai-functionary-medium-v3.2.jinja`, `tests/test-chat.cpp`). Each
//! recipient line starts with `>>>`; the block runs to the next `>>>` or the end of the reply.
//! `all` is the user (plain text, kept as content); any other recipient is a function whose
//! arguments are the JSON that follows. The code interpreter, `python`, may instead be followed
//! by raw code, which becomes a `python` call with `{"code": "<the code>"}` as llama.cpp reads
//! it. The template's generation prompt ends in `>>>`, so a reply may begin straight with
//! `all\n` or `python\n`; those first blocks are read too.
//!
//! Deliberate difference: llama.cpp also takes a first `NAME\n{` without `>>>`; only `all` and
//! `python` are recognised at the reply's start here, since any word on its own line followed
//! by a brace would otherwise turn ordinary prose into a call.

use crate::calls::{error, push_named_call, push_request, Call};
use crate::framing::{Block, Close, Framing, Rule, THINK};
use crate::prompt::{each_result, result_value, typescript_functions};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const RECIPIENT: &str = ">>>";

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(RECIPIENT, Close::UntilNext),
        // The generation prompt ends in `>>>`: the first recipient may come without it.
        Rule::at_text_start("all\n", Close::UntilNext),
        Rule::at_text_start("python\n", Close::UntilNext),
        Rule::token("<|eot_id|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionaryV32;

impl Protocol for FunctionaryV32 {
    fn id(&self) -> &'static str {
        "functionary_v32"
    }

    fn label(&self) -> &'static str {
        "Functionary v3.2 >>>name"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("// Supported function definitions that should be called when necessary.\nnamespace functions {\n\n");
        out.push_str(&typescript_functions(tools));
        out.push_str("} // namespace functions\n");
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!(
                "<|start_header_id|>tool<|end_header_id|>\n\nname={}\n{}<|eot_id|>",
                r.tool_name,
                result_value(r)
            )
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        let (name, rest_at) = match body.find('\n') {
            Some(nl) => (body[..nl].trim(), nl + 1),
            None => (body.trim(), body.len()),
        };
        if name == "all" {
            // Text for the user: content, not a call.
            out.content.push_str(body[rest_at..].trim());
            return;
        }
        if name.is_empty() || name.contains(char::is_whitespace) {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!("{RECIPIENT} must be followed by a function name on its own line; the block is skipped"),
                block.span,
            );
            return;
        }
        let json = Span::new(block.body.start + rest_at, block.body.end);
        let rest = body[rest_at..].trim();
        if name == "python" && !rest.starts_with('{') {
            // Raw code for the interpreter: its one argument, as llama.cpp reads it.
            let mut args = serde_json::Map::new();
            args.insert("code".to_owned(), serde_json::Value::from(rest));
            let call = Call {
                name: name.to_owned(),
                args,
                id: None,
            };
            push_request(out, text, block.span, self.id(), call, false);
            return;
        }
        push_named_call(out, text, block.span, json, self.id(), name, None);
    }
}
