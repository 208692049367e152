//! Runs leave the app: a call as its backend receives it, a result as a model's API takes it
//! back, and a whole reply as a regression case.
//!
//! A person who found a problem in Toolscope wants to reproduce it where it lives: the HTTP
//! request as cURL (secrets as `$VAR`, never their values), the MCP `tools/call` as JSON-RPC
//! with the server's own tool name, the result as the tool-result message of the API their
//! agent speaks (any wire format's results block: OpenAI Chat's `role: tool` messages,
//! Anthropic's `tool_result` blocks, Responses' `function_call_output` items, ...), and a reply
//! with its calls and results as a line `toolscope eval` replays.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolscope_protocol::coerce;
use toolscope_protocol::parser::{self, ParserError};
use toolscope_protocol::result::ToolExecutionResult;
use toolscope_protocol::ProtocolSet;

use crate::cycle::CycleOutcome;
use crate::eval::{EvalCase, ExpectedCall};
use crate::registry::Registry;
use crate::request_tools::RequestTools;
use crate::tool::WireCall;

/// What a call becomes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExportKind {
    /// The HTTP request as a cURL command (HTTP tools).
    Curl,
    /// The MCP `tools/call` request (MCP tools).
    JsonRpc,
    /// The result as the wire format `format` feeds it back (`openai_chat`, `anthropic`, ...).
    Result { format: String },
}

/// One call: its routing name, id and arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallToExport {
    pub request_id: String,
    pub tool_name: String,
    pub args: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Resolve(String),
    #[error("the tool '{tool}' ({origin}) sends no {wanted}: only {who} tools have one")]
    NoWireForm {
        tool: String,
        origin: String,
        wanted: &'static str,
        who: &'static str,
    },
    #[error("the request cannot be built from these arguments: {0}")]
    Build(String),
    #[error("the call has no result yet: run it first")]
    NoResult,
    #[error(transparent)]
    UnknownFormat(#[from] ParserError),
}

/// `call` (and its `result`, for result messages) in the form `kind` asks for.
pub fn export_call(
    registry: &Registry,
    protocols: &ProtocolSet,
    kind: &ExportKind,
    call: &CallToExport,
    result: Option<&ToolExecutionResult>,
) -> Result<String, ExportError> {
    match kind {
        ExportKind::Curl | ExportKind::JsonRpc => wire_form(registry, kind, call),
        ExportKind::Result { format } => {
            let protocol = parser::named(protocols, format)?;
            let result = result.ok_or(ExportError::NoResult)?;
            Ok(protocol.format_tool_results(std::slice::from_ref(result)))
        }
    }
}

fn wire_form(
    registry: &Registry,
    kind: &ExportKind,
    call: &CallToExport,
) -> Result<String, ExportError> {
    let (tool, method) = registry
        .resolve(&call.tool_name)
        .map_err(|e| ExportError::Resolve(e.message))?;
    let wire = tool
        .tool
        .wire_call(&method.meta.name, &call.args)
        .map_err(|e| ExportError::Build(e.to_string()))?;
    let (wanted, who) = match kind {
        ExportKind::Curl => ("HTTP request", "HTTP"),
        _ => ("JSON-RPC request", "MCP"),
    };
    match (kind, wire) {
        (ExportKind::Curl, Some(WireCall::Curl { command })) => Ok(command),
        (ExportKind::JsonRpc, Some(WireCall::JsonRpc { message })) => {
            Ok(serde_json::to_string_pretty(&message).unwrap_or_else(|_| message.to_string()))
        }
        _ => Err(ExportError::NoWireForm {
            tool: tool.id.clone(),
            origin: tool.source.label().to_owned(),
            wanted,
            who,
        }),
    }
}

/// A run reply as a regression case: the calls it made are what it is expected to make (the
/// person exporting it vouches for them), typed as they ran (by the request's tools when the
/// run had them, else by the registry's methods), with those schemas as the case's tools so
/// `eval` types them the same way; the results are kept for the record.
pub fn test_case(
    reply: &str,
    outcome: &CycleOutcome,
    registry: &Registry,
    request_tools: Option<&RequestTools>,
) -> EvalCase {
    let schema_of = |name: &str| match request_tools {
        Some(tools) => tools.parameters_of(name),
        None => registry.parameters_of(name),
    };
    let results: Vec<Value> = outcome
        .results
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.tool_name,
                "status": r.status,
                "result": r.result,
            })
        })
        .collect();
    let mut tools: Vec<Value> = Vec::new();
    let mut described = std::collections::HashSet::new();
    let expected = outcome
        .parse
        .requests
        .iter()
        .map(|r| {
            let schema = schema_of(&r.tool_name);
            let mut arguments = r.args.clone();
            if r.untyped_args {
                coerce::ValueTyping::of(&r.format).apply(&mut arguments, schema.as_ref());
            }
            if let Some(schema) = schema {
                if described.insert(r.tool_name.clone()) {
                    tools.push(serde_json::json!({"type": "function", "function": {
                        "name": r.tool_name, "parameters": schema
                    }}));
                }
            }
            ExpectedCall {
                name: r.tool_name.clone(),
                arguments,
            }
        })
        .collect();
    EvalCase {
        id: Some(outcome.cycle_id.clone()),
        format: (outcome.parse.format != "none").then(|| outcome.parse.format.clone()),
        reply: reply.to_owned(),
        expected,
        tools: (!tools.is_empty()).then_some(Value::Array(tools)),
        results: (!results.is_empty()).then_some(Value::Array(results)),
    }
}

#[cfg(test)]
mod tests;
