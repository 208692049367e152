//! Built-in tools, a tool provider like the HTTP and MCP ones: they implement the engine's
//! [`toolscope_engine::Tool`] and are registered by the app and the CLI with [`register_all`].
//!
//! They work with no configuration and exercise every executor path (success, tool errors,
//! timeouts, cancellation, the output cap, the agent-callable gate and confirmation of
//! destructive methods), with realistic schemas for the forms to render.

pub mod calculator;
pub mod clock;
pub mod devtools;
pub mod echo;
pub mod synthetic;
pub mod workspace;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};

use toolscope_engine::registry::{Registry, RegistryError};
use toolscope_engine::tool::ToolFailure;
use toolscope_protocol::method::{Annotations, MethodMetadata};

/// What the built-in tools need from their host.
#[derive(Debug, Clone)]
pub struct BuiltinOptions {
    /// The directory the workspace file tool is confined to (created if missing).
    pub workspace_root: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("cannot use '{root}' as the workspace root: {source}")]
    WorkspaceRoot {
        root: PathBuf,
        source: std::io::Error,
    },
}

/// Registers every built-in tool.
pub fn register_all(registry: &Registry, options: &BuiltinOptions) -> Result<(), BuiltinError> {
    let workspace = workspace::WorkspaceTool::new(&options.workspace_root).map_err(|source| {
        BuiltinError::WorkspaceRoot {
            root: options.workspace_root.clone(),
            source,
        }
    })?;
    registry.register(Arc::new(calculator::CalculatorTool))?;
    registry.register(Arc::new(clock::ClockTool))?;
    registry.register(Arc::new(devtools::DevTools::default()))?;
    registry.register(Arc::new(echo::EchoTool))?;
    registry.register(Arc::new(workspace))?;
    Ok(())
}

pub(crate) fn read_only() -> Annotations {
    Annotations {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    }
}

pub(crate) fn method(
    name: &str,
    description: &str,
    parameters: Value,
    annotations: Annotations,
) -> MethodMetadata {
    MethodMetadata {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
        agent_callable: true,
        protocol_config: None,
        annotations,
        output_schema: None,
    }
}

/// A required string argument.
pub(crate) fn arg_str<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolFailure> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ToolFailure::failed(format!(
            "'{key}' must be a string, got {other}"
        ))),
        None => Err(ToolFailure::failed(format!("'{key}' is required"))),
    }
}

/// An optional non-negative integer argument.
pub(crate) fn arg_u64(
    args: &Map<String, Value>,
    key: &str,
    default: u64,
) -> Result<u64, ToolFailure> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(value) => value.as_u64().ok_or_else(|| {
            ToolFailure::failed(format!(
                "'{key}' must be a non-negative integer, got {value}"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_engine::discovery::{Discovery, MethodFilter};
    use toolscope_protocol::ProtocolSet;

    #[test]
    fn all_builtins_register_with_valid_schemas() {
        let dir = tempfile::tempdir().expect("tempdir");
        let registry = Arc::new(Registry::new());
        register_all(
            &registry,
            &BuiltinOptions {
                workspace_root: dir.path().join("ws"),
            },
        )
        .expect("builtins register");
        assert_eq!(
            registry.tool_ids(),
            ["calculator", "devtools", "echo", "time", "workspace"]
        );
        for tool in registry.tools() {
            for method in &tool.methods {
                assert!(
                    method.validator().is_ok(),
                    "{} schema compiles",
                    method.routing_name
                );
                assert!(
                    !method.meta.description.is_empty(),
                    "{} described",
                    method.routing_name
                );
            }
        }
        let discovery = Discovery::new(registry.clone(), ProtocolSet::standard());
        let visible = discovery.discovered_methods(&MethodFilter::default());
        let names: Vec<&str> = visible
            .iter()
            .flat_map(|t| t.methods.iter().map(|m| m.routing_name.as_str()))
            .collect();
        assert!(!names.contains(&"devtools_stats"), "not agent-callable");
        assert!(names.contains(&"workspace_delete"));
        let (_, delete) = registry.resolve("workspace_delete").expect("exists");
        assert!(delete.meta.annotations.is_destructive());
    }
}
