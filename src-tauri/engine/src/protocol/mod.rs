//! Wire formats between a model and the tool system.
//!
//! A [`Protocol`] decides how tools are presented to a model, how the model's calls are written
//! in its reply, and how results are fed back. One module per format; [`ProtocolSet`] lists them
//! so the parser facade, the CLI and the app pick new formats up with no special cases.

mod schema_summary;
pub mod vcp;

use std::sync::Arc;

use crate::types::{MethodMetadata, ParseOutput, ToolExecutionResult};

pub use schema_summary::{example_args, parameter_summary};

/// One enabled tool with its agent-callable methods, as discovery hands it to a protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinitionInput {
    pub tool_id: String,
    pub tool_name: String,
    pub description: String,
    pub methods: Vec<MethodMetadata>,
}

impl ToolDefinitionInput {
    pub fn routing_name(&self, method: &MethodMetadata) -> String {
        format!("{}_{}", self.tool_id, method.name)
    }
}

pub trait Protocol: Send + Sync {
    /// Stable id used in configs, the CLI (`--format`) and parsed requests.
    fn id(&self) -> &'static str;

    /// Human-readable name.
    fn label(&self) -> &'static str;

    /// The text (or JSON payload, for API formats) that presents the tools to a model.
    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String;

    /// Extracts every call in `text`. Must not panic on any input; problems become diagnostics.
    fn parse_tool_requests(&self, text: &str) -> ParseOutput;

    /// Renders results the way this format feeds them back to the model.
    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String;
}

/// The protocols the engine knows, in auto-detect priority order.
#[derive(Clone)]
pub struct ProtocolSet {
    protocols: Vec<Arc<dyn Protocol>>,
}

impl std::fmt::Debug for ProtocolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

impl Default for ProtocolSet {
    fn default() -> Self {
        Self::standard()
    }
}

impl ProtocolSet {
    /// Every protocol built into the engine.
    pub fn standard() -> Self {
        Self {
            protocols: vec![Arc::new(vcp::VcpProtocol)],
        }
    }

    pub fn get(&self, id: &str) -> Option<Arc<dyn Protocol>> {
        self.protocols
            .iter()
            .find(|p| p.id().eq_ignore_ascii_case(id))
            .cloned()
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.protocols.iter().map(|p| p.id()).collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Protocol>> {
        self.protocols.iter()
    }
}
