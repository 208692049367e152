//! [`WasmTool`]: a loaded module as an engine [`Tool`], so WASM tools are discovered,
//! validated, confirmed, timed out and recorded by the executor like every other tool.
//!
//! A call runs on a blocking thread (module code never yields). When the executor gives up on
//! it (timeout or cancel) it drops the call's future; a guard then marks the call abandoned and
//! the module is interrupted at its next epoch, so a runaway loop does not outlive its run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde_json::{Map, Value};
use toolscope_engine::types::ToolInfo;
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure};

use crate::abi::invoke;
use crate::manifest::WasmToolSpec;
use crate::runtime::PreparedModule;

/// A tool whose methods are functions of a sandboxed WebAssembly module.
#[derive(Debug, Clone)]
pub struct WasmTool {
    spec: Arc<WasmToolSpec>,
    module: Arc<PreparedModule>,
}

impl WasmTool {
    pub fn new(spec: WasmToolSpec, module: PreparedModule) -> Self {
        Self {
            spec: Arc::new(spec),
            module: Arc::new(module),
        }
    }

    pub fn spec(&self) -> &WasmToolSpec {
        &self.spec
    }

    /// Runs a method on the calling thread (blocking); `call` does this on a blocking thread.
    pub fn call_blocking(
        &self,
        method: &str,
        args: &[u8],
        abandoned: &Arc<AtomicBool>,
    ) -> Result<Value, ToolFailure> {
        let entry = self
            .spec
            .entry(method)
            .ok_or_else(|| ToolFailure::UnknownMethod(method.to_owned()))?;
        let text = invoke(&self.module, &self.spec, entry, args, abandoned)?;
        // JSON results stay structured (the executor serialises them for the model); any other
        // UTF-8 text is passed through as it is.
        Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }
}

/// Marks the call abandoned when dropped before it finished.
struct AbandonOnDrop {
    abandoned: Arc<AtomicBool>,
    armed: bool,
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.abandoned.store(true, Ordering::Relaxed);
        }
    }
}

impl Tool for WasmTool {
    fn info(&self) -> ToolInfo {
        self.spec.info.clone()
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let args = serde_json::to_vec(&Value::Object(args))
                .map_err(|e| ToolFailure::failed(format!("cannot encode the arguments: {e}")))?;
            let abandoned = Arc::new(AtomicBool::new(false));
            let mut guard = AbandonOnDrop {
                abandoned: Arc::clone(&abandoned),
                armed: true,
            };
            let tool = self.clone();
            let method = method.to_owned();
            let flag = Arc::clone(&abandoned);
            let task =
                tokio::task::spawn_blocking(move || tool.call_blocking(&method, &args, &flag));
            let outcome = tokio::select! {
                joined = task => joined,
                () = ctx.cancel.cancelled() => {
                    drop(guard);
                    return Err(ToolFailure::failed("the call was cancelled"));
                }
            };
            // Finished: nothing left to interrupt.
            guard.armed = false;
            outcome
                .map_err(|e| ToolFailure::failed(format!("the WASM call did not finish: {e}")))?
        })
    }
}
