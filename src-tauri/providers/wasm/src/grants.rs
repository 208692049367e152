//! What a module may reach outside its sandbox, and the exact words a person approves.
//!
//! A module gets nothing by default: no preopened directory, no environment variable, no
//! socket (WASI preview 1 cannot open one). A manifest may ask for environment variables and
//! directories; the set registers such a tool only once someone approved that exact list
//! ([`Grants::approval_key`]), the way an MCP server's command line is approved. Changing the
//! list in the manifest changes the key, so an edit cannot widen an earlier approval.

use std::path::{Path, PathBuf};

use serde::Serialize;
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// One directory a module may open, under the name it sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DirectoryGrant {
    /// Absolute host path (a relative path in the manifest is resolved against the tool's
    /// directory at load, so the approval names the real place).
    pub host: PathBuf,
    /// The path the module opens it as (`/data`).
    pub guest: String,
    pub writable: bool,
}

/// Everything a manifest asks for beyond pure computation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Grants {
    /// Names of host environment variables passed through (their values are read at each call,
    /// never stored).
    pub env: Vec<String>,
    pub dirs: Vec<DirectoryGrant>,
}

impl Grants {
    pub fn is_empty(&self) -> bool {
        self.env.is_empty() && self.dirs.is_empty()
    }

    /// One line per grant, as shown to the person who approves them.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .env
            .iter()
            .map(|name| format!("read the environment variable {name}"))
            .collect();
        lines.extend(self.dirs.iter().map(|dir| {
            format!(
                "{} the directory {} (seen as {})",
                if dir.writable {
                    "read and write"
                } else {
                    "read"
                },
                dir.host.display(),
                dir.guest
            )
        }));
        lines
    }

    /// What an approval is stored under: the tool id and every grant line, so approving one
    /// list never covers another.
    pub fn approval_key(&self, tool_id: &str) -> String {
        let mut key = tool_id.to_owned();
        for line in self.describe() {
            key.push('\n');
            key.push_str(&line);
        }
        key
    }

    /// The WASI context of one call: only the granted variables (those set on the host) and
    /// directories; no arguments, stdio discarded.
    pub(crate) fn wasi_ctx(&self) -> Result<WasiP1Ctx, String> {
        let mut builder = WasiCtxBuilder::new();
        for name in &self.env {
            if let Ok(value) = std::env::var(name) {
                builder.env(name, value);
            }
        }
        for dir in &self.dirs {
            let perms = if dir.writable {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            builder
                .preopened_dir(&dir.host, &dir.guest, perms)
                .map_err(|e| {
                    format!(
                        "cannot open the granted directory {}: {e}",
                        dir.host.display()
                    )
                })?;
        }
        Ok(builder.build_p1())
    }
}

/// Resolves a manifest's host path against the tool's directory.
pub(crate) fn resolve_host_path(tool_directory: &Path, host: &str) -> PathBuf {
    let path = Path::new(host);
    if path.is_absolute() {
        path.to_owned()
    } else {
        tool_directory.join(path)
    }
}
