//! How a method is described to a model: its name, argument schema and behaviour hints.
//!
//! A wire format is handed these (through [`crate::ToolDefinitionInput`]) to render its
//! tool-definition prompt and to type text values from a method's schema; it never needs the
//! registry they come from.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Behaviour hints for a method. `None` means "not stated"; an unstated method is treated as
/// destructive and not read-only, because a hint that was never given cannot be trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Annotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl Annotations {
    /// Only an explicit read-only hint makes a method safe to run in parallel.
    pub fn is_read_only(&self) -> bool {
        self.read_only == Some(true)
    }

    /// A method is destructive unless it says it is read-only or explicitly not destructive.
    pub fn is_destructive(&self) -> bool {
        if self.is_read_only() {
            return false;
        }
        self.destructive != Some(false)
    }
}

/// Per-protocol presentation overrides of a method.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ProtocolConfig {
    /// Command name shown in VCP definitions instead of the method name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcp_command: Option<String>,
}

/// Everything a model (or a form) needs to know about one method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MethodMetadata {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// Only agent-callable methods are discoverable and executable by a model.
    pub agent_callable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_config: Option<ProtocolConfig>,
    #[serde(default)]
    pub annotations: Annotations,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}
