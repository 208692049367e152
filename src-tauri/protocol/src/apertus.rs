//! Swiss AI Apertus: `<|tools_prefix|>[{"get_weather": {"location": "Paris"}}]<|tools_suffix|>`.
//!
//! Follows llama.cpp's `COMMON_CHAT_FORMAT_APERTUS` (`common/chat-parser.cpp`: the list after
//! `<|tools_prefix|>`, each call in "short form", an object whose single key is the tool's name
//! and whose value holds the arguments; tests in `tests/test-chat.cpp`), vLLM's `apertus` tool
//! parser (`vllm/tool_parsers/apertus_tool_parser.py` and its tests) and the model's chat
//! template (`models/templates/Apertus-8B-Instruct.jinja`). The template declares the tools as
//! TypeScript-like types under "Tool Capabilities:" in the developer turn; the model may think
//! between `<|inner_prefix|>` and `<|inner_suffix|>`; the tool outputs follow the call list in
//! the same assistant turn as a list `[output1, output2]`.
//!
//! Deliberate differences:
//! - A reply that stops after the list without `<|tools_suffix|>` keeps its calls (as vLLM);
//!   llama.cpp then treats the message as partial. One cut off inside the list keeps the calls
//!   that were complete, with a diagnostic for the rest (vLLM completes the cut-off call with
//!   a partial-JSON parser; a call whose arguments may be missing is not run here).
//! - A bad element (not an object of one key) is reported and skipped; its neighbours are
//!   kept. llama.cpp skips it silently.
//! - A lone call object without the list is read as one call, as vLLM does.

use serde_json::{Map, Value};

use crate::balanced::element_spans;
use crate::calls::{arguments, error, parse_json, push_request, warning, Call};
use crate::framing::{Block, Framing, Rule, JSON_VALUE};
use crate::prompt::{function_objects, result_value};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

pub const TOOLS_PREFIX: &str = "<|tools_prefix|>";
pub const TOOLS_SUFFIX: &str = "<|tools_suffix|>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<|inner_prefix|>", "<|inner_suffix|>"),
        Rule::call(TOOLS_PREFIX, JSON_VALUE).lenient(),
        Rule::token(TOOLS_SUFFIX),
        Rule::token("<|assistant_end|>"),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct Apertus;

impl Protocol for Apertus {
    fn id(&self) -> &'static str {
        "apertus"
    }

    fn label(&self) -> &'static str {
        "Swiss AI Apertus <|tools_prefix|>[{name: {…}}]"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let Value::Array(functions) = function_objects(tools) else {
            return String::new();
        };
        let declared: Vec<String> = functions.iter().map(typescript_declaration).collect();
        format!(
            "<|developer_start|>Deliberation: disabled\nTool Capabilities:\n{}<|developer_end|>",
            declared.join("\n")
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        // The template writes each tool message's content as it is, in one list right after
        // the call list's `<|tools_suffix|>`.
        let listed: Vec<String> = results
            .iter()
            .map(|r| match result_value(r) {
                Value::String(text) => text,
                other => other.to_string(),
            })
            .collect();
        format!("[{}]", listed.join(", "))
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let body = block.body_text(text);
        if !body.trim_start().starts_with('[') {
            push_short_form(out, text, block.body, "the call after <|tools_prefix|>");
            return;
        }
        let elements = element_spans(text, block.body);
        if elements.is_empty() {
            warning(
                out,
                DiagnosticCode::StrayText,
                "the list after <|tools_prefix|> is empty: no calls".to_owned(),
                block.span,
            );
        }
        let last = elements.len().saturating_sub(1);
        for (index, element) in elements.into_iter().enumerate() {
            let label = format!("call {} of the list", index + 1);
            if index == last && !block.complete && push_closed_call(out, text, element, &label) {
                continue;
            }
            push_short_form(out, text, element, &label);
        }
    }
}

/// A reply cut off right after a call's arguments, before the `}` that closes the call (vLLM's
/// case `[{"get_weather": {"location": "London"}`): the arguments are whole, so the call is
/// read, with a warning. True when it was.
fn push_closed_call(out: &mut ParseOutput, text: &str, span: Span, label: &str) -> bool {
    let element = text.get(span.start..span.end).unwrap_or("");
    let closed = format!("{element}}}");
    let Ok(Value::Object(object)) = crate::json_value::from_str(&closed) else {
        return false;
    };
    if object.len() != 1 {
        return false;
    }
    let Some((name, Value::Object(args))) = object.into_iter().next() else {
        return false;
    };
    if name.trim().is_empty() {
        return false;
    }
    warning(
        out,
        DiagnosticCode::UnclosedBlock,
        format!("{label} is cut off after its arguments, which are complete; it is read"),
        span,
    );
    let call = Call {
        name: name.trim().to_owned(),
        args,
        id: None,
    };
    push_request(out, text, span, "apertus", call, false);
    true
}

/// Decodes `{"name": {arguments}}` at `text[span]` and pushes its request, or reports why not.
fn push_short_form(out: &mut ParseOutput, text: &str, span: Span, label: &str) {
    let Some(value) = parse_json(text, span, label, out) else {
        return;
    };
    let Value::Object(object) = value else {
        error(
            out,
            DiagnosticCode::InvalidJson,
            format!(
                "{label} must be an object {{\"tool_name\": {{arguments}}}}, found {}; it is \
                 skipped",
                crate::request::json_kind(&value)
            ),
            span,
        );
        return;
    };
    if object.len() != 1 {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!(
                "{label} has {} keys; an Apertus call has exactly one, the tool's name, holding \
                 the arguments; it is skipped",
                object.len()
            ),
            span,
        );
        return;
    }
    let Some((name, args)) = object.into_iter().next() else {
        return;
    };
    if name.trim().is_empty() {
        error(
            out,
            DiagnosticCode::MissingToolName,
            format!("{label} names no tool (its key is empty); it is skipped"),
            span,
        );
        return;
    }
    let args = match args {
        Value::Null => Map::new(),
        other => match arguments(&name, other) {
            Ok(args) => args,
            Err((code, message)) => {
                error(out, code, format!("{label}: {message}"), span);
                return;
            }
        },
    };
    let call = Call {
        name: name.trim().to_owned(),
        args,
        id: None,
    };
    push_request(out, text, span, "apertus", call, false);
}

/// One tool as the template's `render_tools` macro declares it: `// description`, then
/// `type name = (_: {\n// param description\nparam?: type,\n…}) => any;`.
fn typescript_declaration(function: &Value) -> String {
    let name = function["name"].as_str().unwrap_or_default();
    let description = function["description"].as_str().unwrap_or_default();
    let parameters = &function["parameters"];
    let required: Vec<&str> = parameters["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = format!("// {description}\ntype {name} = ");
    match parameters["properties"]
        .as_object()
        .filter(|p| !p.is_empty())
    {
        Some(properties) => {
            out.push_str("(_: {\n");
            let last = properties.len().saturating_sub(1);
            for (index, (param, spec)) in properties.iter().enumerate() {
                if let Some(text) = spec["description"].as_str() {
                    out.push_str(&format!("// {text}\n"));
                }
                let optional = if required.contains(&param.as_str()) {
                    ""
                } else {
                    "?"
                };
                out.push_str(&format!("{param}{optional}: {}", typescript_type(spec)));
                if let Some(default) = spec.get("default") {
                    out.push_str(&format!(", // default: {default}"));
                }
                out.push_str(if index == last { "\n" } else { ",\n" });
            }
            out.push_str("}) => any;");
        }
        None => out.push_str("() => any;"),
    }
    out
}

/// The template's `render_typescript_type`, for the JSON Schema types tools use.
fn typescript_type(spec: &Value) -> String {
    let nullable = if spec["nullable"].as_bool() == Some(true) {
        " | null"
    } else {
        ""
    };
    match spec["type"].as_str() {
        Some("string") => match spec["enum"].as_array() {
            Some(values) => {
                let quoted: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                quoted.join(" | ")
            }
            None => format!("string{nullable}"),
        },
        Some("number" | "integer") => "number".to_owned(),
        Some("boolean") => "boolean".to_owned(),
        Some("array") => match spec["items"]["type"].as_str() {
            Some("string") => format!("string[]{nullable}"),
            Some("number" | "integer") => format!("number[]{nullable}"),
            Some("boolean") => format!("boolean[]{nullable}"),
            _ => format!("any[]{nullable}"),
        },
        Some("object") => match spec["properties"].as_object().filter(|p| !p.is_empty()) {
            Some(properties) => {
                let required: Vec<&str> = spec["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let fields: Vec<String> = properties
                    .iter()
                    .map(|(name, inner)| {
                        let optional = if required.contains(&name.as_str()) {
                            ""
                        } else {
                            "?"
                        };
                        format!("{name}{optional}: {}", typescript_type(inner))
                    })
                    .collect();
                format!("{{\n{}}}", fields.join(", "))
            }
            None => "object".to_owned(),
        },
        _ => "any".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn declares_tools_the_way_the_template_does() {
        let function = json!({
            "name": "get_weather",
            "description": "Weather for a place.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["c", "f"]}
                },
                "required": ["location"]
            }
        });
        assert_eq!(
            typescript_declaration(&function),
            "// Weather for a place.\ntype get_weather = (_: {\n// City name\nlocation: string,\n\
             unit?: \"c\" | \"f\"\n}) => any;"
        );
    }

    #[test]
    fn a_call_with_two_keys_is_reported_and_its_neighbours_kept() {
        let text = "<|tools_prefix|>[{\"a\": {}, \"b\": {}}, {\"f\": {\"x\": 1}}]<|tools_suffix|>";
        let out = Apertus.parse_tool_requests(text);
        assert_eq!(out.requests.len(), 1);
        assert_eq!(out.requests[0].tool_name, "f");
        assert_eq!(out.diagnostics.len(), 1);
    }
}
