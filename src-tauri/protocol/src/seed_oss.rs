//! ByteDance Seed-OSS: qwen3-coder-style functions in a `<seed:tool_call>` block.
//!
//! ```text
//! <seed:tool_call>
//! <function=NAME>
//! <parameter=KEY>VALUE</parameter>
//! </function>
//! </seed:tool_call>
//! ```
//!
//! A block may hold several functions, each a call. Values are text, possibly over several
//! lines (one leading and one trailing newline are removed, as vLLM's `seed_oss_tool_parser`
//! does; XML entities are not decoded: the template does not escape), so requests are untyped and the engine types them from the
//! method's schema. Reasoning is in `<seed:think>` (with `<seed:cot_budget_reflect>` notes).
//! The default template presents tools as Python signatures with docstrings; results go back
//! as `tool` turns between `<seed:bos>` and `<seed:eos>`.

use serde_json::Value;

use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{each_result, function_definitions};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::xml_markup::{decode_invokes, push_untyped, result_text, Markup, TagStyle, ValueLayout};
use crate::{Protocol, ToolDefinitionInput};

pub const OPEN: &str = "<seed:tool_call>";
pub const CLOSE: &str = "</seed:tool_call>";

const FRAMING: Framing = Framing {
    rules: &[
        Rule::reasoning("<seed:think>", "</seed:think>"),
        Rule::reasoning("<seed:cot_budget_reflect>", "</seed:cot_budget_reflect>"),
        Rule::call(OPEN, Close::Marker(CLOSE)).lenient(),
    ],
};

const MARKUP: Markup = Markup {
    block: OPEN,
    invoke_open: "<function=",
    invoke_close: "</function>",
    param_open: "<parameter=",
    param_close: "</parameter>",
    style: TagStyle::Equals,
    json_body: false,
    value_layout: ValueLayout::OneNewline,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct SeedOss;

impl Protocol for SeedOss {
    fn id(&self) -> &'static str {
        "seed_oss"
    }

    fn label(&self) -> &'static str {
        "Seed-OSS <seed:tool_call> <function=…>"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(
            "You are Doubao, a helpful AI assistant. You may call one or more functions to \
             assist with the user query.\n",
        );
        for definition in function_definitions(tools) {
            out.push_str(&signature(&definition["function"]));
        }
        out.push_str(
            "工具调用请遵循如下格式:\n<seed:tool_call>\n<function=example_function_name>\n\
             <parameter=example_parameter_1>value_1</parameter>\n\
             <parameter=example_parameter_2>This is the value for the second parameter\n\
             that can span\nmultiple lines</parameter>\n</function>\n</seed:tool_call>\n",
        );
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        each_result(results, |r| {
            format!("<seed:bos>tool\n{}<seed:eos>", result_text(r))
        })
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        for invoke in decode_invokes(text, block, &MARKUP, out) {
            push_untyped(out, text, invoke.span, self.id(), &invoke);
        }
    }
}

/// A function as the template's Python-style signature and docstring.
fn signature(function: &Value) -> String {
    let name = function["name"].as_str().unwrap_or_default();
    let description = function["description"].as_str().unwrap_or_default().trim();
    let parameters = &function["parameters"];
    let empty = serde_json::Map::new();
    let properties = parameters["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = parameters["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let arguments: Vec<String> = properties
        .iter()
        .map(|(key, spec)| format!("{key}: {}", py_type(spec)))
        .collect();
    let mut out = format!(
        "\nFunction:\ndef {name}({}):\n\"\"\"\n{description}\n",
        arguments.join(",")
    );
    if !properties.is_empty() {
        out.push_str("\nArgs:\n");
        for (key, spec) in properties {
            let needed = if required.contains(&key.as_str()) {
                "必填"
            } else {
                "选填"
            };
            let about = spec["description"].as_str().unwrap_or_default();
            out.push_str(&format!(
                "- {key} ({}) [{needed}]: {about}\n",
                py_type(spec)
            ));
        }
    }
    out.push_str("\"\"\"\n");
    out
}

fn py_type(spec: &Value) -> &'static str {
    match spec["type"].as_str() {
        Some("string") => "str",
        Some("integer") => "int",
        Some("number") => "float",
        Some("boolean") => "bool",
        Some("array") => "list",
        Some("object") => "dict",
        _ => "Any",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::MethodMetadata;
    use crate::xml_markup::summary;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        summary(&SeedOss, text)
    }

    #[test]
    fn functions_and_multi_line_values() {
        let v = parse(
            "<seed:think>maybe <seed:tool_call><function=no></function></seed:tool_call></seed:think>\
             On it.\n<seed:tool_call>\n<function=files_write>\n<parameter=path>a.md</parameter>\n\
             <parameter=text>\n# Title\nbody\n</parameter>\n</function>\n<function=time_now>\n</function>\n</seed:tool_call>",
        );
        assert_eq!(v["calls"][0]["name"], "files_write");
        assert_eq!(
            v["calls"][0]["args"],
            json!({"path": "a.md", "text": "# Title\nbody"})
        );
        assert_eq!(v["calls"][1]["name"], "time_now");
        assert_eq!(v["calls"].as_array().map(Vec::len), Some(2));
        assert_eq!(v["diagnostics"], json!([]));
        assert_eq!(v["content"], "On it.");
    }

    #[test]
    fn malformed_functions() {
        let v = parse(
            "<seed:tool_call><function=a\n<parameter=x>1</parameter></function>\
             <function=>\n</function>\
             <function=b><parameter=>1</parameter></function>\
             <function=c><parameter=k>1</parameter></seed:tool_call>",
        );
        assert_eq!(v["calls"], json!([]));
        let at: Vec<&Value> = v["diagnostics"]
            .as_array()
            .map(|d| d.iter().map(|d| &d["at"]).collect())
            .unwrap_or_default();
        assert_eq!(
            at,
            [
                &json!("\n"),
                &json!("<function=>\n</function>"),
                &json!("<parameter=>"),
                &json!("<function=c><parameter=k>1</parameter>"),
            ]
        );
    }

    #[test]
    fn definitions_read_like_python() {
        let tools = [ToolDefinitionInput {
            tool_id: "weather".into(),
            tool_name: "Weather".into(),
            description: String::new(),
            methods: vec![MethodMetadata {
                name: "get".into(),
                description: "Current weather.".into(),
                parameters: json!({
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name"},
                                   "days": {"type": "integer"}},
                    "required": ["city"]
                }),
                agent_callable: true,
                protocol_config: None,
                annotations: Default::default(),
                output_schema: None,
            }],
        }];
        let text = SeedOss.generate_tool_definitions(&tools);
        assert!(
            text.contains("def weather_get(city: str,days: int):"),
            "{text}"
        );
        assert!(text.contains("- city (str) [必填]: City name"), "{text}");
        assert!(text.contains("- days (int) [选填]: "), "{text}");
    }
}
