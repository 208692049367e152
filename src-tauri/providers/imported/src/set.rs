//! A named set of imported definitions with their mocks: what is saved, and the tool it becomes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolscope_engine::naming::{tool_id_for, MethodNames};
use toolscope_engine::request_tools::{RequestTool, RequestTools};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_protocol::method::MethodMetadata;

use crate::mock::Mock;
use crate::read::{read_definitions, Definition, Finding, FindingLevel, ReadError};

/// The longest set name.
pub const MAX_NAME_CHARS: usize = 64;

/// One import, as saved in the data directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolSet {
    /// What the person called it; unique among sets.
    pub name: String,
    /// The registry's tool id, derived from the name (the prefix of its routing names).
    pub id: String,
    /// When it was (re-)imported, RFC 3339.
    pub imported_at: String,
    /// Where the definitions came from: a file path, or "pasted".
    #[serde(default)]
    pub origin: String,
    pub definitions: Vec<Definition>,
    /// Mocks by the definition's own name.
    #[serde(default)]
    pub mocks: BTreeMap<String, Mock>,
}

/// Why a name cannot name a set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the set needs a name")]
    Empty,
    #[error("the name is {0} characters; at most {MAX_NAME_CHARS}")]
    TooLong(usize),
}

/// Checks a set name and gives its tool id.
pub fn tool_id(name: &str) -> Result<String, NameError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong(chars));
    }
    Ok(tool_id_for(name, "imported"))
}

impl ToolSet {
    /// The method name each definition gets (see `toolscope_engine::naming`).
    pub fn method_names(&self) -> MethodNames {
        MethodNames::assign(self.definitions.iter().map(|d| d.name.as_str()))
    }

    /// The set as the tools of a request: the names the model sees, each routed to its method,
    /// so checked calls can run against the set's mocks.
    pub fn request_tools(&self) -> RequestTools {
        let names = self.method_names();
        RequestTools::new(self.definitions.iter().map(|definition| {
            RequestTool {
                name: definition.name.clone(),
                parameters: definition.parameters.clone(),
                routing_name: names
                    .method_name(&definition.name)
                    .map(|method| format!("{}_{method}", self.id)),
            }
        }))
    }

    /// The tool the registry holds for this set.
    pub fn tool(&self) -> ImportedTool {
        let names = self.method_names();
        let methods = self
            .definitions
            .iter()
            .filter_map(|definition| {
                let method = names.method_name(&definition.name)?.to_owned();
                let mut description = definition.description.clone();
                if method != definition.name {
                    description
                        .push_str(&format!("\n(name in the definitions: {})", definition.name));
                }
                Some(MethodMetadata {
                    name: method,
                    description: description.trim().to_owned(),
                    parameters: definition.parameters.clone(),
                    agent_callable: true,
                    protocol_config: None,
                    annotations: definition.annotations.clone(),
                    output_schema: definition.output_schema.clone(),
                })
            })
            .collect();
        let origin = if self.origin.is_empty() {
            "an import"
        } else {
            self.origin.as_str()
        };
        ImportedTool {
            info: ToolInfo {
                id: self.id.clone(),
                name: self.name.clone(),
                description: format!(
                    "{} tool definitions imported from {origin}; calls answer from their mocks",
                    self.definitions.len()
                ),
                source: ToolSource::Imported,
                methods,
            },
            names,
            mocks: Arc::new(self.mocks.clone()),
        }
    }
}

/// An imported set in the registry: no backend, so each call answers from its mock.
pub struct ImportedTool {
    info: ToolInfo,
    names: MethodNames,
    mocks: Arc<BTreeMap<String, Mock>>,
}

impl Tool for ImportedTool {
    fn info(&self) -> ToolInfo {
        self.info.clone()
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let original = self
                .names
                .original(method)
                .ok_or_else(|| ToolFailure::UnknownMethod(method.to_owned()))?;
            match self.mocks.get(original) {
                Some(mock) => mock.answer(args).await,
                None => Err(ToolFailure::Failed(format!(
                    "no implementation: '{original}' is an imported definition of the set '{}', which has no backend; give it a mock result (Sources pane, or `toolscope imported mock`) to run it",
                    self.info.name
                ))),
            }
        })
    }
}

/// Definitions read from a request but not imported: its tools, with nothing to run behind them.
pub fn request_tools(definitions: &[Definition]) -> RequestTools {
    RequestTools::new(definitions.iter().map(|definition| RequestTool {
        name: definition.name.clone(),
        parameters: definition.parameters.clone(),
        routing_name: None,
    }))
}

/// Why pasted or filed request tools give nothing to check against.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestToolsError {
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Every entry was refused; the findings say why.
    #[error("no usable tool definitions")]
    NoneUsable(Vec<Finding>),
}

/// A request's tools from JSON in any shape an import reads, with the findings worth telling
/// (refused entries and warnings; rewrites are left out). Refused when no definition is usable.
pub fn read_request_tools(text: &str) -> Result<(RequestTools, Vec<Finding>), RequestToolsError> {
    let import = read_definitions(text)?;
    let findings = import
        .findings
        .into_iter()
        .filter(|f| f.level != FindingLevel::Info)
        .collect();
    if import.definitions.is_empty() {
        return Err(RequestToolsError::NoneUsable(findings));
    }
    Ok((request_tools(&import.definitions), findings))
}
