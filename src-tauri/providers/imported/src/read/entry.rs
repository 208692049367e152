//! One entry of a tools array: which vendor wrote it, and the definition it holds.

use serde_json::{json, Map, Value};
use toolscope_protocol::method::Annotations;
use toolscope_protocol::request::json_kind;

use super::{Definition, Finding, FindingLevel, Shape};
use crate::schema;

/// What one entry turned out to be.
pub(super) enum Read<'v> {
    /// A definition whose argument schema (at the path given) is yet to be compiled: the
    /// reader compiles only the definitions it keeps, not every repeat.
    Definition(Box<Definition>, Vec<Finding>, String),
    /// A Gemini `tools` entry: a list of declarations to read one by one.
    Group(&'v [Value]),
    /// Not imported: a bad entry, or a vendor's server tool.
    Finding(Finding),
}

/// Whether an object is itself one definition (a single pasted tool).
pub(super) fn looks_like_definition(object: &Map<String, Value>) -> bool {
    object.contains_key("name")
        && [
            "parameters",
            "input_schema",
            "inputSchema",
            "parametersJsonSchema",
            "description",
        ]
        .iter()
        .any(|k| object.contains_key(*k))
        || object.get("type") == Some(&Value::from("function")) && object.contains_key("function")
}

fn finding(path: &str, level: FindingLevel, message: String) -> Finding {
    Finding {
        path: path.to_owned(),
        level,
        message,
    }
}

pub(super) fn read_entry<'v>(value: &'v Value, path: &str, hint: Option<Shape>) -> Read<'v> {
    let Some(object) = value.as_object() else {
        return Read::Finding(finding(
            path,
            FindingLevel::Error,
            format!(
                "expected a tool definition (an object), found {}",
                json_kind(value)
            ),
        ));
    };
    for key in ["functionDeclarations", "function_declarations"] {
        if let Some(Value::Array(declarations)) = object.get(key) {
            return Read::Group(declarations);
        }
    }
    let kind = object.get("type").and_then(Value::as_str);
    if kind == Some("function") {
        return match object.get("function") {
            Some(Value::Object(function)) => definition(
                function,
                &format!("{path}/function"),
                Shape::OpenaiChat,
                "parameters",
            ),
            Some(other) => Read::Finding(finding(
                &format!("{path}/function"),
                FindingLevel::Error,
                format!("`function` must be an object, found {}", json_kind(other)),
            )),
            None => definition(object, path, Shape::OpenaiResponses, "parameters"),
        };
    }
    if object.contains_key("input_schema") {
        return definition(object, path, Shape::Anthropic, "input_schema");
    }
    if object.contains_key("inputSchema") {
        return definition(object, path, Shape::Mcp, "inputSchema");
    }
    if let Some(kind) = kind {
        // Anthropic server tools (`web_search_20250305`), OpenAI built-ins (`web_search`,
        // `file_search`), free-text `custom` tools: the vendor runs them or they take no JSON.
        let name = object
            .get("name")
            .or_else(|| object.get("custom").and_then(|c| c.get("name")))
            .and_then(Value::as_str)
            .map(|n| format!(" '{n}'"))
            .unwrap_or_default();
        return Read::Finding(finding(
            path,
            FindingLevel::Info,
            format!("skipped the `{kind}` tool{name}: it has no JSON Schema arguments to import (a vendor-run or free-text tool)"),
        ));
    }
    if let Some(builtin) = [
        "googleSearch",
        "google_search",
        "googleSearchRetrieval",
        "google_search_retrieval",
        "codeExecution",
        "code_execution",
        "urlContext",
        "url_context",
    ]
    .iter()
    .find(|k| object.contains_key(**k))
    {
        return Read::Finding(finding(
            path,
            FindingLevel::Info,
            format!("skipped Gemini's built-in `{builtin}` tool: Google runs it, it has no declaration to import"),
        ));
    }
    if object.contains_key("name") {
        let (shape, key) = if object.contains_key("parametersJsonSchema") {
            (Shape::Gemini, "parametersJsonSchema")
        } else if object.contains_key("parameters_json_schema") {
            (Shape::Gemini, "parameters_json_schema")
        } else {
            (hint.unwrap_or_else(|| sniff(object)), "parameters")
        };
        return definition(object, path, shape, key);
    }
    let keys: Vec<&str> = object.keys().map(String::as_str).take(8).collect();
    Read::Finding(finding(
        path,
        FindingLevel::Error,
        format!(
            "not a tool definition: no `name`, `function`, `input_schema` or `inputSchema` (keys: {})",
            keys.join(", ")
        ),
    ))
}

/// A bare `{name, description, parameters}`: OpenAI's legacy functions, a Gemini declaration
/// or a BFCL function, told apart by their schemas' type names.
fn sniff(object: &Map<String, Value>) -> Shape {
    match object
        .get("parameters")
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str)
    {
        Some("dict") => Shape::Bfcl,
        Some(t) if t.chars().all(|c| c.is_ascii_uppercase()) => Shape::Gemini,
        _ => Shape::OpenaiFunctions,
    }
}

fn definition<'v>(
    object: &Map<String, Value>,
    path: &str,
    shape: Shape,
    schema_key: &str,
) -> Read<'v> {
    let name = match object.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) => {
            return Read::Finding(finding(
                &format!("{path}/name"),
                FindingLevel::Error,
                "the name is empty".into(),
            ))
        }
        Some(other) => {
            return Read::Finding(finding(
                &format!("{path}/name"),
                FindingLevel::Error,
                format!("the name must be a string, found {}", json_kind(other)),
            ))
        }
        None => {
            return Read::Finding(finding(
                path,
                FindingLevel::Error,
                "the definition has no `name`".into(),
            ))
        }
    };
    let mut findings = Vec::new();
    let description = match object.get("description") {
        Some(Value::String(text)) => text.trim().to_owned(),
        None | Some(Value::Null) => String::new(),
        Some(other) => {
            findings.push(finding(
                &format!("{path}/description"),
                FindingLevel::Warning,
                format!(
                    "the description is {}, not a string; left out",
                    json_kind(other)
                ),
            ));
            String::new()
        }
    };
    let schema_path = format!("{path}/{schema_key}");
    let parameters = match schema_value(object.get(schema_key), "argument schema") {
        Ok(mut schema) => {
            if let Err(message) = normalise_schema(&mut schema, &schema_path, &mut findings, false)
            {
                return Read::Finding(finding(&schema_path, FindingLevel::Error, message));
            }
            schema
        }
        Err(message) => {
            return Read::Finding(finding(
                &schema_path,
                FindingLevel::Error,
                format!("'{name}': {message}"),
            ))
        }
    };
    let output_schema = match object.get("outputSchema") {
        None | Some(Value::Null) => None,
        Some(raw) => {
            let output_path = format!("{path}/outputSchema");
            match schema_value(Some(raw), "output schema").and_then(|mut s| {
                normalise_schema(&mut s, &output_path, &mut findings, true).map(|()| s)
            }) {
                Ok(schema) => Some(schema),
                Err(message) => {
                    findings.push(finding(
                        &output_path,
                        FindingLevel::Warning,
                        format!("{message}; the output schema is left out"),
                    ));
                    None
                }
            }
        }
    };
    let annotations = object.get("annotations").map(hints).unwrap_or_default();
    let description = if description.is_empty() {
        object
            .get("title")
            .or_else(|| object.get("annotations").and_then(|a| a.get("title")))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    } else {
        description
    };
    Read::Definition(
        Box::new(Definition {
            name,
            description,
            parameters,
            output_schema,
            annotations,
            shape,
        }),
        findings,
        schema_path,
    )
}

/// The schema under a key: absent means "no arguments"; anything but an object is refused.
fn schema_value(raw: Option<&Value>, what: &str) -> Result<Value, String> {
    match raw {
        None | Some(Value::Null) => Ok(json!({"type": "object", "properties": {}})),
        Some(Value::Object(_)) => Ok(raw.cloned().unwrap_or_default()),
        Some(Value::String(text)) if serde_json::from_str::<Map<String, Value>>(text).is_ok() => Err(format!(
            "the {what} is a string holding JSON, not a JSON object: the API refuses it; decode it before sending"
        )),
        Some(other) => Err(format!(
            "the {what} must be a JSON Schema object, found {}",
            json_kind(other)
        )),
    }
}

/// Rewrites dialects into JSON Schema, checks the root is an object schema and, with
/// `check`, that the validator accepts it ([`compile`]).
fn normalise_schema(
    schema: &mut Value,
    path: &str,
    findings: &mut Vec<Finding>,
    check: bool,
) -> Result<(), String> {
    let changes = schema::normalise(schema);
    if !changes.is_empty() {
        findings.push(finding(
            path,
            FindingLevel::Info,
            format!("rewritten as JSON Schema: {}", schema::describe(&changes)),
        ));
    }
    match schema.get("type") {
        None => {
            if let Some(object) = schema.as_object_mut() {
                object.insert("type".into(), Value::from("object"));
            }
        }
        Some(Value::String(t)) if t == "object" => {}
        Some(other) => {
            return Err(format!(
                "the root of an argument schema must be of type \"object\", found {other}"
            ))
        }
    }
    if check {
        compile(schema)?;
    }
    Ok(())
}

/// Whether the validator accepts `schema` (as the registry will compile it).
pub(super) fn compile(schema: &Value) -> Result<(), String> {
    toolscope_engine::registry::compile_schema(schema)
        .map(|_| ())
        .map_err(|e| format!("not a valid JSON Schema: {e}"))
}

/// MCP's tool annotations (`readOnlyHint`, ...), kept as hints.
fn hints(value: &Value) -> Annotations {
    let flag = |key: &str| value.get(key).and_then(Value::as_bool);
    Annotations {
        read_only: flag("readOnlyHint"),
        destructive: flag("destructiveHint"),
        idempotent: flag("idempotentHint"),
        open_world: flag("openWorldHint"),
    }
}
