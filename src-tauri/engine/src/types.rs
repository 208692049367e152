//! What the engine adds to the wire formats' vocabulary: a registered tool and where it comes from.
//!
//! Method metadata, parsed requests and results belong to `toolscope-protocol` (a format is
//! handed or produces them); a tool's identity and source only exist once it is registered.

use serde::{Deserialize, Serialize};
use toolscope_protocol::method::MethodMetadata;

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    Builtin,
    Http,
    Mcp,
    /// A person's own tool definitions, imported from JSON; answered by mocks.
    Imported,
    Wasm,
}

impl ToolSource {
    /// How the source is named in messages.
    pub fn label(self) -> &'static str {
        match self {
            Self::Builtin => "built-in",
            Self::Http => "HTTP",
            Self::Mcp => "MCP",
            Self::Imported => "imported",
            Self::Wasm => "WASM",
        }
    }
}

/// A tool as shown to users: identity plus its methods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolInfo {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: ToolSource,
    pub methods: Vec<MethodMetadata>,
}
