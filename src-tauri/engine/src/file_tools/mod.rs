//! A directory of tool files kept in sync with the registry, whatever the files describe.
//!
//! Providers whose tools are files a person edits (HTTP definitions, WASM manifests) need the
//! same bookkeeping: which file registered which tool, which file wins when two define the same
//! id, what a reload added, replaced or removed. A provider reads and parses its files into
//! [`FileCandidate`]s; [`FileToolSync::sync`] does the rest. One bad file never stops the
//! others: each file either becomes a registered tool or a [`DefinitionProblem`] naming it.
//! Only what changed touches the registry, so caches keyed on the registry's generation (the
//! prompt cache) stay valid across a no-op reload. A file that becomes invalid loses its tool
//! until it is fixed. [`watch`] polls a directory and reloads on change; [`document`] holds
//! what every file format shares.

pub mod document;
pub mod watch;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

use crate::registry::Registry;
use crate::tool::Tool;

/// Why one file is not (or no longer) a registered tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DefinitionProblem {
    pub file: PathBuf,
    /// Field path inside the file (`methods[0].endpoint.url`) when one field is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for DefinitionProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {field}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// What a reload changed. Tool ids are sorted. `problems` lists every file that is not a tool
/// right now (each reload re-checks all files), not only new problems.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReloadReport {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
    /// Tools whose file says `enabled = false` (not registered).
    pub disabled: Vec<String>,
    /// The files those disabled tools are defined in.
    pub disabled_files: Vec<PathBuf>,
    pub problems: Vec<DefinitionProblem>,
}

impl ReloadReport {
    /// Whether the registry changed.
    pub fn changed_registry(&self) -> bool {
        !(self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty())
    }
}

/// Builds a file's tool; the error is a message for the person who wrote the file.
pub type BuildTool = Box<dyn FnOnce() -> Result<Arc<dyn Tool>, String> + Send>;

/// A tool a file defines. Building is deferred because most reloads change nothing: the tool
/// is built only when the sync decides it must be (re)registered, so an unchanged WASM module
/// is not compiled again.
pub struct CandidateTool {
    /// The id the built tool will have (its `info().id`).
    pub id: String,
    pub build: BuildTool,
}

impl CandidateTool {
    pub fn new(
        id: impl Into<String>,
        build: impl FnOnce() -> Result<Arc<dyn Tool>, String> + Send + 'static,
    ) -> Self {
        Self {
            id: id.into(),
            build: Box::new(build),
        }
    }
}

impl std::fmt::Debug for CandidateTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CandidateTool")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// One file as a provider read it during a reload.
#[derive(Debug)]
pub struct FileCandidate {
    pub path: PathBuf,
    /// Identifies the file's version (HTTP: the file's bytes). A file whose tool id and
    /// revision are unchanged, and whose tool is still registered, is not rebuilt.
    pub revision: Vec<u8>,
    /// `None` when the file is disabled or has a problem (reported by the provider).
    pub tool: Option<CandidateTool>,
}

/// What the sync remembers of a file between reloads.
#[derive(Debug, Clone)]
struct LoadedFile {
    revision: Vec<u8>,
    /// The tool this file registered, if it did.
    tool_id: Option<String>,
}

/// The tools one set of files registered in one registry.
#[derive(Debug)]
pub struct FileToolSync {
    registry: Arc<Registry>,
    files: Mutex<BTreeMap<PathBuf, LoadedFile>>,
}

impl FileToolSync {
    pub fn new(registry: Arc<Registry>) -> Self {
        Self {
            registry,
            files: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Ids of the tools this sync registered, sorted.
    pub fn tool_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .lock()
            .values()
            .filter_map(|f| f.tool_id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// The file that defines a registered tool.
    pub fn file_of(&self, tool_id: &str) -> Option<PathBuf> {
        self.lock()
            .iter()
            .find(|(_, f)| f.tool_id.as_deref() == Some(tool_id))
            .map(|(path, _)| path.clone())
    }

    /// Makes the registry match `candidates`, the complete current list of files: registers
    /// new files' tools, replaces changed ones, unregisters the tools of files that are gone or
    /// have no tool now. `report` already holds what the provider found while reading (problems,
    /// disabled tools); the sync adds its changes and its own problems (id clashes, build
    /// errors, registry refusals) and sorts the id lists.
    ///
    /// Calls are serialised, but a provider that reads files before calling this should hold
    /// its own lock across reading and syncing, so an older read never lands after a newer one.
    pub fn sync(&self, candidates: Vec<FileCandidate>, mut report: ReloadReport) -> ReloadReport {
        let mut files = self.lock();
        let owned: BTreeMap<String, PathBuf> = files
            .iter()
            .filter_map(|(path, f)| f.tool_id.clone().map(|id| (id, path.clone())))
            .collect();
        let claims = self.claim_ids(&candidates, &owned, &mut report);

        for (id, _) in owned.iter().filter(|(id, _)| !claims.contains_key(*id)) {
            self.registry.unregister(id);
            report.removed.push(id.clone());
        }
        let mut next: BTreeMap<PathBuf, LoadedFile> = BTreeMap::new();
        for (index, candidate) in candidates.into_iter().enumerate() {
            let claimed = candidate
                .tool
                .filter(|tool| claims.get(&tool.id) == Some(&index));
            let tool_id = claimed.and_then(|tool| {
                let previous = files.get(&candidate.path);
                let unchanged = previous.is_some_and(|p| {
                    p.tool_id.as_deref() == Some(tool.id.as_str())
                        && p.revision == candidate.revision
                }) && self.registry.get(&tool.id).is_some();
                if unchanged {
                    return Some(tool.id);
                }
                self.register(&candidate.path, tool, &owned, &mut report)
            });
            next.insert(
                candidate.path,
                LoadedFile {
                    revision: candidate.revision,
                    tool_id,
                },
            );
        }
        *files = next;
        sort_ids(&mut report);
        report
    }

    /// Unregisters every tool this sync registered and forgets every file (the directory was
    /// removed, or the provider is shutting down).
    pub fn clear(&self) -> ReloadReport {
        let mut files = self.lock();
        let mut report = ReloadReport::default();
        for id in files.values().filter_map(|f| f.tool_id.as_ref()) {
            self.registry.unregister(id);
            report.removed.push(id.clone());
        }
        files.clear();
        sort_ids(&mut report);
        report
    }

    /// Builds and registers (or replaces) one claimed tool. On failure the file gets a problem
    /// and a tool it registered before is removed: the registry never keeps a version of the
    /// file that is no longer on disk. Returns the id when the tool is registered.
    fn register(
        &self,
        path: &Path,
        tool: CandidateTool,
        owned: &BTreeMap<String, PathBuf>,
        report: &mut ReloadReport,
    ) -> Option<String> {
        let id = tool.id;
        let built = (tool.build)().and_then(|built| {
            // The bookkeeping is by id: a tool under another id would be registered but never
            // removed by a later reload.
            let actual = built.info().id;
            if actual == id {
                Ok(built)
            } else {
                Err(format!(
                    "the file's tool has id '{actual}', expected '{id}'"
                ))
            }
        });
        let outcome = built.and_then(|built| {
            self.registry
                .upsert(built)
                .map_err(|error| format!("the registry refused the tool: {error}"))
        });
        match outcome {
            Ok(_) if owned.contains_key(&id) => report.updated.push(id.clone()),
            Ok(_) => report.added.push(id.clone()),
            Err(message) => {
                report.problems.push(DefinitionProblem {
                    file: path.to_owned(),
                    field: None,
                    message,
                });
                if owned.contains_key(&id) && self.registry.unregister(&id) {
                    report.removed.push(id);
                }
                return None;
            }
        }
        Some(id)
    }

    /// Decides which file defines each tool id: a file keeps an id it already registered, then
    /// files claim ids in name order. Ids taken by another file or by a tool this sync does not
    /// own (a built-in) become problems. Returns id → candidate index.
    fn claim_ids(
        &self,
        candidates: &[FileCandidate],
        owned: &BTreeMap<String, PathBuf>,
        report: &mut ReloadReport,
    ) -> BTreeMap<String, usize> {
        let mut claims: BTreeMap<String, usize> = BTreeMap::new();
        for (index, candidate) in candidates.iter().enumerate() {
            if let Some(tool) = &candidate.tool {
                if owned.get(&tool.id) == Some(&candidate.path) {
                    claims.insert(tool.id.clone(), index);
                }
            }
        }
        for (index, candidate) in candidates.iter().enumerate() {
            let Some(tool) = &candidate.tool else {
                continue;
            };
            let id = tool.id.as_str();
            match claims.get(id) {
                Some(&holder) if holder == index => continue,
                Some(&holder) => report.problems.push(DefinitionProblem {
                    file: candidate.path.clone(),
                    field: Some("id".to_owned()),
                    message: format!(
                        "tool id '{id}' is already defined by {}; this file is ignored",
                        candidates[holder].path.display()
                    ),
                }),
                None => match self.registry.get(id) {
                    Some(existing) if !owned.contains_key(id) => {
                        report.problems.push(DefinitionProblem {
                            file: candidate.path.clone(),
                            field: Some("id".to_owned()),
                            message: format!(
                                "tool id '{id}' is already used by a registered {} tool; pick \
                                 another id",
                                existing.source.label()
                            ),
                        })
                    }
                    _ => {
                        claims.insert(id.to_owned(), index);
                    }
                },
            }
        }
        claims
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<PathBuf, LoadedFile>> {
        // A panic mid-sync leaves a map that is at worst stale; the next sync repairs it.
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn sort_ids(report: &mut ReloadReport) {
    for list in [
        &mut report.added,
        &mut report.updated,
        &mut report.removed,
        &mut report.disabled,
    ] {
        list.sort();
    }
}

/// The files directly in `directory` that `accept` takes (regular files, symlinks followed),
/// by name. Hidden files are skipped: editors and atomic saves leave temp files starting with
/// `.` beside the real ones.
pub fn list_files(
    directory: &Path,
    accept: impl Fn(&Path) -> bool,
) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(directory)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden || !accept(&path) {
            continue;
        }
        if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
