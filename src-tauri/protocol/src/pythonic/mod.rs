//! Pythonic tool calls (Llama 3.2, Llama 4, ToolACE): a Python list of calls,
//! `[get_weather(city='Paris'), get_time(tz='Europe/Paris')]`.
//!
//! Follows vLLM's `pythonic` and `llama4_pythonic` tool parsers and SGLang's
//! `PythonicDetector` (with their tests), and Meta's Llama 3.2 / Llama 4 prompt format. The list
//! is usually the whole reply, after optional whitespace and an optional `<think>…</think>`;
//! Llama 4 may wrap it as `<|python_start|>[…]<|python_end|>`. As SGLang does, a list may also
//! follow prose (`I'll check. [get_weather(city='Tokyo')]`), with the prose kept as content.
//! The scanner finds where the list ends (a balanced Python value), and [`super::pylit`]
//! reads it: arguments come out typed (strings, numbers, `True`/`true`, `None`/`null`, lists,
//! tuples, sets, dicts), one request per call, each spanning its own text.
//!
//! A reply that starts with `[` but does not go on like a call (`[1] See …`, `[Note] …`) is
//! prose, as vLLM treats it: it stays content and raises nothing. Later in a reply only a `[`
//! directly followed by `name(` can open a list (never `[this](link)` or `[1, 2]`), and such a
//! list counts only if at least one call in it reads cleanly (as written: nothing read
//! differently); otherwise it stays prose, with no diagnostics. Within a real list, a bad call (a
//! value that is not a literal, a positional argument) is reported and skipped while the calls
//! around it are kept, as vLLM converts each call on its own; a repeated keyword keeps its last
//! value with a warning, as vLLM's and SGLang's `ast` readers build the arguments from the
//! keywords. A list that is not Python at all (a string never closed, a bracket that does not
//! match, two calls with no comma) keeps only the calls that read whole in their own top-level
//! segment, and none when the list is one segment, as vLLM salvages an unparsable block
//! (`salvage_calls_from_unparsable_block`); a list that is called or indexed (`[f(a=1)]()`) gives
//! no call, as `ast.parse` reads an expression around it. A list cut off at the end keeps the
//! calls that completed. Results go back in Llama's `ipython` turn, as in [`super::llama3_json`].
//!
//! Deliberate differences: calls are kept whatever their name (SGLang drops names missing from
//! the request's tools; the workbench reports unknown tools instead); SGLang's detector drops a
//! positional value silently and keeps its call (vLLM now rejects the call, as here); vLLM's
//! plain `pythonic` parser does not read a list after prose, SGLang's does, and so do we.

use crate::balanced::Syntax;
use crate::framing::{Block, Close, Framing, Open, Rule, THINK};
use crate::prompt::function_definitions;
use crate::pylit;
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

mod list;

pub use list::push_call_list;

pub const PYTHON_START: &str = "<|python_start|>";
pub const PYTHON_END: &str = "<|python_end|>";

const PYTHON_LIST: Close = Close::Balanced {
    after: "",
    syntax: Syntax::Python,
};

const FRAMING: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(PYTHON_START, PYTHON_LIST).lenient(),
        Rule::at_text_start("[", PYTHON_LIST).lenient(),
        Rule::call_list(PYTHON_LIST).lenient(),
        // The list ends at its bracket, so the wrapper's end is only a token to drop, like the
        // end-of-turn tokens a raw Llama 3.2 / Llama 4 completion may carry.
        Rule::token(PYTHON_END),
        Rule::token("<|eot_id|>"),
        Rule::token("<|eom_id|>"),
        Rule::token("<|eot|>"),
        Rule::token("<|eom|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Pythonic;

impl Protocol for Pythonic {
    fn id(&self) -> &'static str {
        "pythonic"
    }

    fn label(&self) -> &'static str {
        "Pythonic call list [f(a=1)]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        // Meta's Llama 3.2 / Llama 4 wording: the models were tuned on it.
        let mut out = String::from(
            "You are an expert in composing functions. You are given a question and a set of \
             possible functions. Based on the question, you will need to make one or more \
             function/tool calls to achieve the purpose. If none of the functions can be used, \
             point it out. If the given question lacks the parameters required by the function, \
             also point it out.\n\n\
             If you decide to invoke any of the function(s), you MUST put it in the format of \
             [func_name1(params_name1=params_value1, params_name2=params_value2...), \
             func_name2(params)]\n\
             You SHOULD NOT include any other text in the response.\n\n\
             Here is a list of functions in JSON format that you can invoke.\n\n",
        );
        let definitions = serde_json::Value::Array(function_definitions(tools));
        out.push_str(&serde_json::to_string_pretty(&definitions).unwrap_or_default());
        out.push('\n');
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        crate::llama3_json::ipython_turns(results)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let Some(body) = text.get(block.body.start..block.body.end) else {
            return;
        };
        let open = FRAMING.rules.get(block.rule).map(|rule| rule.open);
        let as_prose = |out: &mut ParseOutput| {
            let span = text.get(block.span.start..block.span.end);
            out.content.push_str(span.unwrap_or_default());
        };
        match open {
            // Only a bare reply can be prose: after <|python_start|> the model said it writes code.
            Some(Open::TextStart(_)) if !pylit::looks_like_call_list(body) => as_prose(out),
            // After prose, a list that yields no clean call was prose too: nothing to report.
            Some(Open::CallList) => {
                let mut list = ParseOutput::default();
                let clean = push_call_list(&mut list, text, block.body, block.span, self.id());
                if clean == 0 {
                    as_prose(out);
                } else {
                    out.requests.append(&mut list.requests);
                    out.diagnostics.append(&mut list.diagnostics);
                    out.content.push_str(&list.content);
                }
            }
            _ => {
                push_call_list(out, text, block.body, block.span, self.id());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{DiagnosticCode, Severity};
    use serde_json::json;

    fn parse(text: &str) -> ParseOutput {
        Pythonic.parse_tool_requests(text)
    }

    fn calls(out: &ParseOutput) -> Vec<(String, serde_json::Value)> {
        out.requests
            .iter()
            .map(|r| {
                (
                    r.tool_name.clone(),
                    serde_json::Value::Object(r.args.clone()),
                )
            })
            .collect()
    }

    #[test]
    fn a_bare_list_gives_one_typed_request_per_call_with_its_own_span() {
        let text = "  [get_weather(city='Paris', days=3), functions.get_time(tz=None)]\n";
        let out = parse(text);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(
            calls(&out),
            vec![
                (
                    "get_weather".to_owned(),
                    json!({"city": "Paris", "days": 3})
                ),
                ("functions.get_time".to_owned(), json!({"tz": null})),
            ]
        );
        assert_eq!(
            out.requests[0].raw_block,
            "get_weather(city='Paris', days=3)"
        );
        assert_eq!(out.requests[1].raw_block, "functions.get_time(tz=None)");
        assert!(out
            .requests
            .iter()
            .all(|r| !r.untyped_args && r.format == "pythonic"));
        assert_eq!(out.content, "");
    }

    #[test]
    fn reasoning_is_skipped_and_llama4_wrapper_is_understood() {
        let out = parse("<think>maybe [rm(all=True)]</think>\n[ls(path='/')]");
        assert_eq!(calls(&out), vec![("ls".to_owned(), json!({"path": "/"}))]);
        let out = parse("<|python_start|>[ls(path='/')]<|python_end|><|eom|>");
        assert_eq!(calls(&out), vec![("ls".to_owned(), json!({"path": "/"}))]);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(out.content, "");
    }

    #[test]
    fn prose_starting_with_a_bracket_is_content() {
        for text in [
            "[1] Smith et al. (2020)",
            "[Note] see f(x=1)",
            "[TOOL_CALLS] [{}]",
        ] {
            let out = parse(text);
            assert!(out.requests.is_empty(), "{text}");
            assert!(out.diagnostics.is_empty(), "{text}: {:?}", out.diagnostics);
            assert_eq!(out.content, text);
        }
        // Later in a reply, brackets that do not open a clean call are prose as well.
        for text in [
            "see [this](link) and [1, 2]",
            "xs[f(a=1)] indexes",
            "call it as [f('x')] please",
            "[Note] [g(",
        ] {
            let out = parse(text);
            assert!(out.requests.is_empty(), "{text}");
            assert!(!out.has_errors(), "{text}: {:?}", out.diagnostics);
            assert_eq!(out.content, text);
        }
    }

    #[test]
    fn a_list_after_prose_is_read_as_sglang_does() {
        let out = parse("I will check the weather for you. [get_weather(city='Tokyo')] Done.");
        assert_eq!(
            calls(&out),
            vec![("get_weather".to_owned(), json!({"city": "Tokyo"}))]
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert_eq!(out.content, "I will check the weather for you.  Done.");
    }

    #[test]
    fn a_bad_call_is_reported_and_its_neighbours_kept() {
        let text = "[f(a=1), g(x), h(b=2)]";
        let out = parse(text);
        assert_eq!(
            calls(&out),
            vec![
                ("f".to_owned(), json!({"a": 1})),
                ("h".to_owned(), json!({"b": 2}))
            ]
        );
        assert_eq!(out.diagnostics.len(), 1);
        let d = &out.diagnostics[0];
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(&text[d.span.start..d.span.end], "x");
        assert!(d.message.contains("positional"), "{}", d.message);
    }

    #[test]
    fn a_cut_off_list_keeps_the_calls_that_completed() {
        let out = parse("[f(a=1), g(b='unfinish");
        assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": 1}))]);
        let codes: Vec<_> = out.diagnostics.iter().map(|d| d.code).collect();
        assert!(codes.contains(&DiagnosticCode::UnclosedBlock), "{codes:?}");
        assert!(codes.contains(&DiagnosticCode::UnclosedValue), "{codes:?}");
    }

    #[test]
    fn a_list_that_is_not_python_keeps_only_the_calls_that_stand_whole() {
        // Not Python (a bracket that does not match): as vLLM salvages it, part by part.
        let text = "[f(a=[1), g(b=2)] Thanks!";
        let out = parse(text);
        assert_eq!(calls(&out), vec![("g".to_owned(), json!({"b": 2}))]);
        assert!(out
            .diagnostics
            .iter()
            .any(|d| d.message.contains("not Python")));
        // One part only: nothing is salvaged, the text stays content.
        let text = "[f(a=[1, 2]))]";
        let out = parse(text);
        assert!(out.requests.is_empty());
        assert_eq!(out.content, text);
        assert!(out.has_errors());
        // A value Python reads but JSON cannot hold: that call alone is lost.
        let out = parse("[f(a=b'x'), g(b=2)] Thanks!");
        assert_eq!(calls(&out), vec![("g".to_owned(), json!({"b": 2}))]);
        assert_eq!(out.content, "Thanks!");
        // A call inside an expression is not an item of the list.
        let out = parse("[f(a=1), g(b=2) / h(c=3)]");
        assert_eq!(calls(&out), vec![("f".to_owned(), json!({"a": 1}))]);
        // A list called like a function is an expression around the list.
        let text = "[f(a=1)]()";
        let out = parse(text);
        assert!(out.requests.is_empty());
        assert_eq!(out.content, text);
        assert!(out.has_errors());
    }

    #[test]
    fn an_empty_list_warns() {
        let out = parse("[]");
        assert!(out.requests.is_empty());
        assert_eq!(out.diagnostics.len(), 1);
        assert_eq!(out.diagnostics[0].severity, Severity::Warning);
    }

    #[test]
    fn definitions_and_results_use_llamas_wording() {
        let prompt = Pythonic.generate_tool_definitions(&[]);
        assert!(prompt.contains("[func_name1(params_name1=params_value1"));
        let result = ToolExecutionResult {
            request_id: "r1".into(),
            tool_name: "echo_echo".into(),
            status: crate::result::ExecutionStatus::Success,
            result: "{\"ok\":true}".into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        };
        let fed = Pythonic.format_tool_results(&[result]);
        assert_eq!(
            fed,
            "<|start_header_id|>ipython<|end_header_id|>\n\n{\"ok\":true}<|eot_id|>"
        );
    }
}
