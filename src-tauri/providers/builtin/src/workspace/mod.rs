//! Workspace file tool: list, read, write and delete files inside one directory.
//!
//! Tool calling is only worth debugging against tools that do something real, and file access is
//! what agents ask for first. This tool gives every Toolscope install a working, zero-config set
//! of methods with realistic schemas (defaults, enums, nested objects) that drive the generated
//! forms, plus `delete`: the one built-in destructive method, which exercises the executor's
//! confirmation path. Everything stays inside the workspace root; [`sandbox`] enforces that
//! against `..`, absolute paths and symbolic links that point outside.

mod args;
mod operations;
pub mod sandbox;
mod schema;

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};

use args::{DeleteOptions, ListOptions, ReadOptions, WriteOptions};
use operations::{delete, list, read, write};
use schema::{delete_meta, list_meta, read_meta, write_meta};

pub use sandbox::{Intent, Resolved, Sandbox, SandboxError};

/// Default and bounds of `list.maxEntries`.
const DEFAULT_MAX_ENTRIES: u64 = 500;
const MAX_ENTRIES_LIMIT: u64 = 10_000;
/// Default and bounds of `read.maxBytes`.
const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
const MAX_BYTES_LIMIT: u64 = 16 * 1024 * 1024;

/// The built-in `workspace` tool, confined to one root directory.
#[derive(Debug, Clone)]
pub struct WorkspaceTool {
    sandbox: Sandbox,
}

impl WorkspaceTool {
    /// Creates the root if it is missing and canonicalises it.
    pub fn new(root: impl Into<PathBuf>) -> io::Result<Self> {
        Ok(Self {
            sandbox: Sandbox::new(root)?,
        })
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        self.sandbox.root()
    }

    /// Checks a user-supplied path and maps it into the root (see [`Sandbox::resolve`]).
    pub fn resolve(&self, user_path: &str, intent: Intent) -> Result<Resolved, SandboxError> {
        self.sandbox.resolve(user_path, intent)
    }
}

impl From<SandboxError> for ToolFailure {
    fn from(error: SandboxError) -> Self {
        ToolFailure::Failed(error.to_string())
    }
}

impl Tool for WorkspaceTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "workspace".to_owned(),
            name: "Workspace files".to_owned(),
            description: "List, read, write and delete files in the workspace directory. Paths \
                          are relative to the workspace root; nothing outside it can be reached, \
                          not even through symbolic links."
                .to_owned(),
            source: ToolSource::Builtin,
            methods: vec![list_meta(), read_meta(), write_meta(), delete_meta()],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            if ctx.cancel.is_cancelled() {
                return Err(ToolFailure::failed(
                    "the call was cancelled before it started",
                ));
            }
            let sandbox = self.sandbox.clone();
            match method {
                "list" => {
                    let options = ListOptions::parse(&args)?;
                    blocking(move || list(&sandbox, &options)).await
                }
                "read" => {
                    let options = ReadOptions::parse(&args)?;
                    blocking(move || read(&sandbox, &options)).await
                }
                "write" => {
                    let options = WriteOptions::parse(&args)?;
                    blocking(move || write(&sandbox, &options)).await
                }
                "delete" => {
                    let options = DeleteOptions::parse(&args)?;
                    blocking(move || delete(&sandbox, &options)).await
                }
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

/// Runs file-system work off the async threads.
async fn blocking<F>(work: F) -> Result<Value, ToolFailure>
where
    F: FnOnce() -> Result<Value, ToolFailure> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolFailure::failed(format!("the workspace operation did not finish: {e}")))?
}

#[cfg(test)]
mod tests;
