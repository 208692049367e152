//! Shared by the engine's fault-injection and soak tests (each test file uses part of it).

#![allow(dead_code)]

pub mod fault_tool;

use std::path::Path;
use std::sync::Arc;

use toolscope_builtin::{register_all, BuiltinOptions};
use toolscope_engine::Registry;

use fault_tool::{quiet_fault_panics, FaultTool};

/// A registry with the built-in tools (workspace under `dir/ws`) and a [`FaultTool`], with the
/// fault tool's deliberate panics kept out of the test output.
pub fn registry_with_faults(dir: &Path) -> (Arc<Registry>, Arc<FaultTool>) {
    quiet_fault_panics();
    let registry = Arc::new(Registry::new());
    register_all(
        &registry,
        &BuiltinOptions {
            workspace_root: dir.join("ws"),
        },
    )
    .expect("builtins");
    let fault = Arc::new(FaultTool::default());
    registry.register(fault.clone()).expect("fault tool");
    (registry, fault)
}
