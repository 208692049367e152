//! Reading the tool directories: where manifests are, and one manifest into a registry
//! candidate or a problem naming the file and field.
//!
//! A directory added by a person is either one tool (it holds a manifest) or a folder of tools
//! (each subdirectory holding a manifest), so both "add this tool" and "add my tools folder"
//! work.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use toolscope_engine::file_tools::document::{DocumentError, FileFormat};
use toolscope_engine::file_tools::{list_files, CandidateTool, DefinitionProblem, FileCandidate};

use crate::manifest::{self, Manifest, WasmToolSpec, MANIFEST_NAMES};
use crate::runtime::{ModuleDigest, WasmRuntime};
use crate::tool::WasmTool;

/// A tool whose manifest asks for grants nobody approved yet; not registered until then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingGrants {
    pub tool_id: String,
    pub manifest: PathBuf,
    /// One line per grant, as the person approves them.
    pub grants: Vec<String>,
    /// What approving stores ([`crate::Grants::approval_key`]).
    pub key: String,
}

/// The manifest of a tool directory, if it has one (`manifest.toml` before `manifest.json`).
pub(crate) fn manifest_in(directory: &Path) -> Option<PathBuf> {
    MANIFEST_NAMES
        .iter()
        .map(|name| directory.join(name))
        .find(|path| path.is_file())
}

/// The tool directories under an added directory: itself when it holds a manifest, else its
/// non-hidden subdirectories that do, by name.
pub(crate) fn tool_directories(directory: &Path) -> std::io::Result<Vec<PathBuf>> {
    if manifest_in(directory).is_some() {
        return Ok(vec![directory.to_owned()]);
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(directory)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') || !path.is_dir() {
            continue;
        }
        if manifest_in(&path).is_some() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Every file whose change should trigger a reload: the added directories' entries and every
/// file in each tool directory (the manifest and, usually, its module).
pub(crate) fn watched_files(directories: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for directory in directories {
        paths.push(directory.clone());
        let Ok(tools) = tool_directories(directory) else {
            continue;
        };
        for tool in tools {
            paths.push(tool.clone());
            paths.extend(list_files(&tool, |_| true).unwrap_or_default());
        }
    }
    paths
}

/// The outcome of reading one tool directory.
pub(crate) enum ReadTool {
    Ready(FileCandidate),
    Disabled {
        candidate: FileCandidate,
        id: String,
    },
    NeedsApproval {
        candidate: FileCandidate,
        pending: PendingGrants,
    },
    Problem {
        candidate: FileCandidate,
        problem: DefinitionProblem,
    },
}

fn problem(file: &Path, field: Option<String>, message: impl Into<String>) -> DefinitionProblem {
    DefinitionProblem {
        file: file.to_owned(),
        field,
        message: message.into(),
    }
}

/// Reads, checks and prepares the tool whose manifest is `manifest_path`. `approved` says
/// whether a grant list (by its key) was approved.
pub(crate) fn read_tool(
    runtime: &WasmRuntime,
    manifest_path: &Path,
    approved: impl Fn(&str) -> bool,
) -> ReadTool {
    let text = std::fs::read(manifest_path);
    let mut revision = text.as_ref().map(Vec::clone).unwrap_or_default();
    let no_tool = |revision: Vec<u8>| FileCandidate {
        path: manifest_path.to_owned(),
        revision,
        tool: None,
    };
    let spec = match parse(manifest_path, text) {
        Ok(spec) => spec,
        Err(problem) => {
            return ReadTool::Problem {
                candidate: no_tool(revision),
                problem,
            }
        }
    };
    if !spec.enabled {
        return ReadTool::Disabled {
            id: spec.id().to_owned(),
            candidate: no_tool(revision),
        };
    }
    let module_field = Some("module".to_owned());
    let bytes = match std::fs::read(&spec.module_path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return ReadTool::Problem {
                candidate: no_tool(revision),
                problem: problem(
                    manifest_path,
                    module_field,
                    format!("cannot read {}: {e}", spec.module_path.display()),
                ),
            }
        }
    };
    let digest = ModuleDigest::of(&bytes);
    revision.extend_from_slice(&digest.to_bytes());
    if !spec.grants.is_empty() {
        let key = spec.grants.approval_key(spec.id());
        if !approved(&key) {
            let pending = PendingGrants {
                tool_id: spec.id().to_owned(),
                manifest: manifest_path.to_owned(),
                grants: spec.grants.describe(),
                key,
            };
            return ReadTool::NeedsApproval {
                candidate: no_tool(revision),
                pending,
            };
        }
        // An approval changes what the tool may do: part of its revision.
        revision.push(1);
    }
    match runtime.prepare(&spec, &bytes, digest) {
        Ok(module) => {
            let id = spec.id().to_owned();
            let tool: Arc<dyn toolscope_engine::Tool> = Arc::new(WasmTool::new(spec, module));
            ReadTool::Ready(FileCandidate {
                path: manifest_path.to_owned(),
                revision,
                tool: Some(CandidateTool::new(id, move || Ok(tool))),
            })
        }
        Err(load) => ReadTool::Problem {
            candidate: no_tool(revision),
            problem: problem(manifest_path, load.field, load.message),
        },
    }
}

fn parse(path: &Path, text: std::io::Result<Vec<u8>>) -> Result<WasmToolSpec, DefinitionProblem> {
    let text = text.map_err(|e| problem(path, None, format!("cannot read the file: {e}")))?;
    let text = std::str::from_utf8(&text).map_err(|e| {
        problem(
            path,
            None,
            format!("cannot read the file: not UTF-8 text: {e}"),
        )
    })?;
    let format = FileFormat::from_path(path)
        .ok_or_else(|| problem(path, None, "a manifest is a .toml or .json file"))?;
    let manifest: Manifest = format.read(text).map_err(|error| match error {
        DocumentError::Syntax { .. } => problem(path, None, error.to_string()),
        DocumentError::Field(field) => problem(path, Some(field.field), field.message),
    })?;
    let directory = path.parent().unwrap_or(Path::new("."));
    manifest::compile(&manifest, directory)
        .map_err(|field| problem(path, Some(field.field), field.message))
}
