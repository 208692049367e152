//! DeepSeek V3.1 special-token calls: the V3 markers without the call type and the code fence.
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//! ```
//!
//! The template lists the tools under `## Tools` (name, description, JSON parameters) and feeds
//! each result back as `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`. Framing, name checks and
//! argument decoding are [`super::deepseek_v3`]'s; a V3-style body (`function<｜tool▁sep｜>name`
//! and a fence) is not this format and is reported, so auto-detect tells the two apart.

use crate::calls::error;
use crate::deepseek_v3::{
    call_block, checked_name, output_content, push_call, split_at_sep, CALLS_BEGIN, CALLS_END,
    CALL_BEGIN, CALL_END, FRAMING, OUTPUT_BEGIN, OUTPUT_END, SEP,
};
use crate::framing::{Block, Framing};
use crate::prompt::{each_result, function_definitions};
use crate::request::{DiagnosticCode, ParseOutput};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

const ID: &str = "deepseek_v31";

#[derive(Debug, Clone, Copy, Default)]
pub struct DeepSeekV31;

impl Protocol for DeepSeekV31 {
    fn id(&self) -> &'static str {
        ID
    }

    fn label(&self) -> &'static str {
        "DeepSeek V3.1 <｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from("## Tools\nYou have access to the following tools:\n");
        for definition in function_definitions(tools) {
            let function = &definition["function"];
            out.push_str(&format!(
                "\n### {}\nDescription: {}\n\nParameters: {}\n",
                function["name"].as_str().unwrap_or_default(),
                function["description"].as_str().unwrap_or_default(),
                function["parameters"],
            ));
        }
        out.push_str(&format!(
            "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n\
             {CALLS_BEGIN}{CALL_BEGIN}tool_call_name{SEP}tool_call_arguments{CALL_END}\
             {{{{additional_tool_calls}}}}{CALLS_END}\n\n\
             Where:\n\n\
             - `tool_call_name` must be an exact match to one of the available tools\n\
             - `tool_call_arguments` must be valid JSON that strictly follows the tool's \
             Parameters Schema\n\
             - For multiple tool calls, chain them directly without separators or spaces\n"
        ));
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("{OUTPUT_BEGIN}{}{OUTPUT_END}", output_content(r))
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let block = &call_block(text, block, out);
        let Some((head, args)) = split_at_sep(text, block.body, block.span, out) else {
            return;
        };
        let Some(name) = checked_name(text, head, block.span, out) else {
            return;
        };
        let json = text[args.start..args.end].trim_start();
        if name == "function" && !json.is_empty() && !json.starts_with('{') {
            error(
                out,
                DiagnosticCode::MissingToolName,
                format!(
                    "'function{SEP}NAME' and a ```json fence is DeepSeek V3's layout, not \
                     V3.1's (NAME{SEP}{{…}}); the call is skipped (parse it as deepseek_v3)"
                ),
                block.span,
            );
            return;
        }
        push_call(out, text, block, ID, name, args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parse(text: &str) -> ParseOutput {
        DeepSeekV31.parse_tool_requests(text)
    }

    fn calls(out: &ParseOutput) -> Vec<(String, Value)> {
        out.requests
            .iter()
            .map(|r| (r.tool_name.clone(), Value::Object(r.args.clone())))
            .collect()
    }

    fn call(name: &str, args: &str) -> String {
        format!("{CALL_BEGIN}{name}{SEP}{args}{CALL_END}")
    }

    #[test]
    fn chained_calls() {
        let text = format!(
            "Sure.{CALLS_BEGIN}{}{}{CALLS_END}",
            call(
                "get_weather",
                r#"{"city": "Zürich", "nested": {"a": [1, {"b": null}]}}"#
            ),
            call("time_now", " {} ")
        );
        let out = parse(&text);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(
            calls(&out),
            vec![
                (
                    "get_weather".to_owned(),
                    json!({"city": "Zürich", "nested": {"a": [1, {"b": null}]}})
                ),
                ("time_now".to_owned(), json!({})),
            ]
        );
        assert!(out
            .requests
            .iter()
            .all(|r| r.format == ID && !r.untyped_args));
        assert_eq!(out.content, "Sure.");
    }

    #[test]
    fn v3_bodies_and_broken_calls_are_reported_and_neighbours_kept() {
        for broken in [
            format!("{CALL_BEGIN}function{SEP}f\n```json\n{{}}\n```{CALL_END}"),
            call("", "{}"),
            call("f", "{\"a\": 1,}"),
            call("f", "\"text\""),
            format!("{CALL_BEGIN}f {{\"a\": 1}}{CALL_END}"),
        ] {
            let out = parse(&format!(
                "{CALLS_BEGIN}{}{broken}{}{CALLS_END}",
                call("a", "{}"),
                call("b", "{}")
            ));
            assert_eq!(out.requests.len(), 2, "{broken}");
            assert!(out.has_errors(), "{broken}");
        }
    }

    #[test]
    fn think_and_cut_off_replies() {
        let out = parse(&format!("<think>{}</think>", call("rm", "{}")));
        assert!(out.requests.is_empty() && out.diagnostics.is_empty());
        let out = parse(&format!("{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{\"a\": 1}}"));
        assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": 1}))]);
        assert!(!out.has_errors(), "{:?}", out.diagnostics);
        let out = parse(&format!("{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{\"a\": "));
        assert!(out.requests.is_empty());
        assert!(out
            .diagnostics
            .iter()
            .any(|d| d.code == DiagnosticCode::InvalidJson));
    }

    #[test]
    fn results_and_definitions() {
        let result = ToolExecutionResult {
            request_id: "1".into(),
            tool_name: "f".into(),
            status: crate::result::ExecutionStatus::Success,
            result: "42".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        assert_eq!(
            DeepSeekV31.format_tool_results(&[result.clone(), result]),
            format!("{OUTPUT_BEGIN}42{OUTPUT_END}{OUTPUT_BEGIN}42{OUTPUT_END}")
        );
        let prompt = DeepSeekV31.generate_tool_definitions(&[]);
        assert!(prompt.contains(&format!(
            "{CALLS_BEGIN}{CALL_BEGIN}tool_call_name{SEP}tool_call_arguments{CALL_END}\
             {{{{additional_tool_calls}}}}{CALLS_END}"
        )));
    }
}
