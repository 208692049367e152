//! What formats share when they show tools to a model and feed results back: the tool list in
//! the shapes chat templates embed, and the value a template shows for a result.
//!
//! Chat templates differ in their wrappers, not in what they wrap; keeping the wrapped parts
//! here means a change to how a method or a result is rendered reaches every format at once.

use serde_json::{json, Value};

use crate::method::MethodMetadata;
use crate::result::ToolExecutionResult;
use crate::ToolDefinitionInput;

/// One value per method, in tool order, made by `shape` from the method's routing name and
/// metadata: every API names the same three things (name, description, schema) its own way.
pub fn per_method(
    tools: &[ToolDefinitionInput],
    shape: impl Fn(String, &MethodMetadata) -> Value,
) -> Vec<Value> {
    tools
        .iter()
        .flat_map(|tool| {
            let shape = &shape;
            tool.methods
                .iter()
                .map(move |method| shape(tool.routing_name(method), method))
        })
        .collect()
}

/// The tools as OpenAI-style function definitions, which most open-model chat templates embed.
pub fn function_definitions(tools: &[ToolDefinitionInput]) -> Vec<Value> {
    per_method(tools, |name, method| {
        json!({
            "type": "function",
            "function": {
                "name": name,
                "description": method.description,
                "parameters": method.parameters,
            }
        })
    })
}

/// The tools section of Qwen's chat template, which Hermes, GLM-4.5 and the templates built on
/// them repeat word for word: a heading, then one JSON function definition per line inside
/// `<tools>`. It ends after `</tools>` and a blank line; each format then says how to call.
pub fn tools_in_xml_tags(tools: &[ToolDefinitionInput]) -> String {
    let mut out = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n",
    );
    for definition in function_definitions(tools) {
        out.push_str(&definition.to_string());
        out.push('\n');
    }
    out.push_str("</tools>\n\n");
    out
}

/// A JSON payload as API formats show it: pretty-printed.
/// The tools for a model whose chat template is not published: a heading and one compact JSON
/// schema per line, the plainest listing the formats that have no wording of their own share.
pub fn schema_lines(tools: &[ToolDefinitionInput]) -> String {
    let mut out =
        String::from("# Tools\n\nYou may call these functions (one JSON schema per line):\n");
    for definition in function_definitions(tools) {
        out.push_str(&definition["function"].to_string());
        out.push('\n');
    }
    out
}

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A result's content as the JSON value a template shows: parsed if the text is JSON; a
/// failure as `{"error": {"kind", "message", "suggestion"?}}`, so the model reads what to do
/// next beside what went wrong (seed 001).
pub fn result_value(result: &ToolExecutionResult) -> Value {
    if let Some(error) = &result.error {
        let mut body = json!({"kind": error.kind.as_str(), "message": result.result});
        if let Some(suggestion) = &error.suggestion {
            body["suggestion"] = Value::from(suggestion.as_str());
        }
        return json!({ "error": body });
    }
    serde_json::from_str(&result.result).unwrap_or_else(|_| Value::String(result.result.clone()))
}

/// The tools as bare function objects (`{"name", "description", "parameters"}`), the JSON list
/// that templates without the `{"type": "function"}` wrapper embed.
pub fn function_objects(tools: &[ToolDefinitionInput]) -> Value {
    function_definitions(tools)
        .into_iter()
        .map(|mut definition| definition["function"].take())
        .collect()
}

/// The tools as TypeScript function types in a `functions` namespace body, how the harmony
/// (gpt-oss) and Functionary v3.2 templates declare them: `// description` and
/// `type name = (_: {parameters}) => any;`, one per method.
pub fn typescript_functions(tools: &[ToolDefinitionInput]) -> String {
    let mut out = String::new();
    for definition in function_definitions(tools) {
        let f = &definition["function"];
        out.push_str(&format!(
            "// {}\ntype {} = (_: {}) => any;\n\n",
            f["description"].as_str().unwrap_or_default(),
            f["name"].as_str().unwrap_or_default(),
            f["parameters"]
        ));
    }
    out
}

/// Each result rendered by `render`, concatenated: templates that send every result as its
/// own message.
pub fn each_result(
    results: &[ToolExecutionResult],
    render: impl Fn(&ToolExecutionResult) -> String,
) -> String {
    results.iter().map(render).collect()
}
