//! Synthetic tools: many generated methods with realistic metadata, for measuring discovery,
//! search and prompt generation at scale (the benches, and the app when started with
//! `TOOLSCOPE_SYNTHETIC_METHODS=N`). Their calls return their `text` argument.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use toolscope_engine::registry::{Registry, RegistryError};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::{Annotations, MethodMetadata};

/// Methods per generated tool.
pub const METHODS_PER_TOOL: usize = 100;

#[derive(Debug, Clone)]
pub struct SyntheticTool {
    id: String,
    methods: usize,
}

impl SyntheticTool {
    pub fn new(id: impl Into<String>, methods: usize) -> Self {
        Self {
            id: id.into(),
            methods,
        }
    }
}

impl Tool for SyntheticTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: self.id.clone(),
            name: format!("Synthetic {}", self.id),
            description: "A generated tool for measuring discovery at scale.".into(),
            source: ToolSource::Builtin,
            methods: (0..self.methods)
                .map(|m| MethodMetadata {
                    name: format!("method{m}"),
                    description: format!("Generated method number {m} of {}.", self.id),
                    parameters: json!({"type": "object", "properties": {
                        "text": {"type": "string"}, "count": {"type": "integer", "default": 1}
                    }}),
                    // Every tenth method is hidden from models, like real registries.
                    agent_callable: m % 10 != 0,
                    protocol_config: None,
                    annotations: Annotations {
                        read_only: Some(true),
                        ..Default::default()
                    },
                    output_schema: None,
                })
                .collect(),
        }
    }

    fn call<'a>(
        &'a self,
        _method: &'a str,
        args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move { Ok(args.get("text").cloned().unwrap_or(Value::Null)) })
    }
}

/// Registers `methods` generated methods as tools `synthetic0`, `synthetic1`, ...
pub fn register(registry: &Registry, methods: usize) -> Result<(), RegistryError> {
    let mut remaining = methods;
    let mut index = 0;
    while remaining > 0 {
        let count = remaining.min(METHODS_PER_TOOL);
        registry.register(Arc::new(SyntheticTool::new(
            format!("synthetic{index}"),
            count,
        )))?;
        remaining -= count;
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_the_requested_number_of_methods() {
        let registry = Registry::new();
        register(&registry, 250).expect("registers");
        let total: usize = registry.tools().iter().map(|t| t.methods.len()).sum();
        assert_eq!(total, 250);
        assert_eq!(registry.tools().len(), 3);
        assert!(registry.resolve("synthetic2_method49").is_ok());
    }
}
