//! [`HttpToolSet`]: a directory of definition files kept in sync with the engine's registry.
//!
//! One bad file never stops the others: each file either becomes a registered tool or a
//! [`DefinitionProblem`] naming it. Reloading only touches the registry for what changed, so
//! caches keyed on the registry's generation (the prompt cache) stay valid across a no-op
//! reload. A file that becomes invalid loses its tool until it is fixed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use toolscope_engine::Registry;

use crate::definition::{self, DefinitionError, FileFormat, HttpToolSpec};
use crate::secrets::EnvSource;
use crate::store::{self, StoreError};
use crate::tool::HttpTool;

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

impl From<DefinitionError> for DefinitionProblem {
    fn from(error: DefinitionError) -> Self {
        let file = error.file().to_owned();
        let (field, message) = match error {
            DefinitionError::Invalid { field, message, .. } => (Some(field), message),
            DefinitionError::Syntax {
                format, message, ..
            } => (None, format!("invalid {format}: {message}")),
            DefinitionError::Unreadable { message, .. } => {
                (None, format!("cannot read the file: {message}"))
            }
            other @ DefinitionError::UnsupportedExtension { .. } => (None, other.to_string()),
        };
        Self {
            file,
            field,
            message,
        }
    }
}

/// The HTTP client could not be set up (TLS backend, system configuration).
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the HTTP client for HTTP tools: {0}")]
pub struct ClientSetupError(#[source] reqwest::Error);

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

/// What the set remembers of a file between reloads.
#[derive(Debug, Clone)]
struct LoadedFile {
    content: Vec<u8>,
    /// The tool this file registered, if it did.
    tool_id: Option<String>,
}

/// A file read and parsed during a reload.
struct Candidate {
    path: PathBuf,
    content: Vec<u8>,
    spec: Option<HttpToolSpec>,
}

/// HTTP tools from one directory, registered in one registry.
#[derive(Debug)]
pub struct HttpToolSet {
    directory: PathBuf,
    registry: Arc<Registry>,
    client: reqwest::Client,
    env: EnvSource,
    files: Mutex<BTreeMap<PathBuf, LoadedFile>>,
}

impl HttpToolSet {
    /// A set over `directory` with a client from [`crate::client_builder`] and secrets from
    /// the process environment. Nothing is loaded until [`Self::reload`].
    pub fn new(
        directory: impl Into<PathBuf>,
        registry: Arc<Registry>,
    ) -> Result<Self, ClientSetupError> {
        let client = crate::client_builder().build().map_err(ClientSetupError)?;
        Ok(Self::with_client(directory, registry, client))
    }

    pub fn with_client(
        directory: impl Into<PathBuf>,
        registry: Arc<Registry>,
        client: reqwest::Client,
    ) -> Self {
        Self {
            directory: directory.into(),
            registry,
            client,
            env: EnvSource::process(),
            files: Mutex::new(BTreeMap::new()),
        }
    }

    /// Where secrets are looked up; set it before the first reload.
    pub fn with_env(mut self, env: EnvSource) -> Self {
        self.env = env;
        self
    }

    pub fn directory(&self) -> &Path {
        &self.directory
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Ids of the tools this set registered, sorted.
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

    /// Validates and writes one definition file (see [`store::save_definition`]), then reloads.
    pub fn save(&self, file_name: &str, text: &str) -> Result<ReloadReport, StoreError> {
        store::save_definition(&self.directory, file_name, text)?;
        Ok(self.reload())
    }

    /// Deletes one definition file, then reloads (its tool is unregistered).
    pub fn delete(&self, file_name: &str) -> Result<ReloadReport, StoreError> {
        store::delete_definition(&self.directory, file_name)?;
        Ok(self.reload())
    }

    /// Syncs the registry with the directory: registers new files' tools, replaces changed
    /// ones, unregisters the tools of removed, disabled or now-invalid files. A directory that
    /// does not exist counts as empty. Blocking (file reads): call it from a blocking context
    /// or `spawn_blocking` in async code.
    pub fn reload(&self) -> ReloadReport {
        let mut files = self.lock();
        let mut report = ReloadReport::default();
        let paths = match list_definition_files(&self.directory) {
            Ok(paths) => paths,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(error) => {
                // Unreadable, not empty: keep what is registered rather than drop everything.
                report.problems.push(DefinitionProblem {
                    file: self.directory.clone(),
                    field: None,
                    message: format!("cannot list the directory: {error}"),
                });
                return report;
            }
        };
        let mut candidates: Vec<Candidate> = Vec::with_capacity(paths.len());
        for path in paths {
            let (content, parsed) = read_and_parse(&path);
            let spec = match parsed {
                Ok(spec) if spec.enabled => Some(spec),
                Ok(spec) => {
                    report.disabled.push(spec.id().to_owned());
                    report.disabled_files.push(path.clone());
                    None
                }
                Err(error) => {
                    report.problems.push(error.into());
                    None
                }
            };
            candidates.push(Candidate {
                path,
                content,
                spec,
            });
        }
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
                .spec
                .filter(|spec| claims.get(spec.id()) == Some(&index));
            let tool_id = claimed.and_then(|spec| {
                let id = spec.id().to_owned();
                let previous = files.get(&candidate.path);
                let unchanged = previous.is_some_and(|p| {
                    p.tool_id.as_deref() == Some(id.as_str()) && p.content == candidate.content
                }) && self.registry.get(&id).is_some();
                if unchanged {
                    return Some(id);
                }
                let tool = HttpTool::new(spec, self.client.clone(), self.env.clone());
                match self.registry.upsert(Arc::new(tool)) {
                    Ok(_) if owned.contains_key(&id) => report.updated.push(id.clone()),
                    Ok(_) => report.added.push(id.clone()),
                    Err(error) => {
                        report.problems.push(DefinitionProblem {
                            file: candidate.path.clone(),
                            field: None,
                            message: format!("the registry refused the tool: {error}"),
                        });
                        if owned.contains_key(&id) && self.registry.unregister(&id) {
                            report.removed.push(id);
                        }
                        return None;
                    }
                }
                Some(id)
            });
            next.insert(
                candidate.path,
                LoadedFile {
                    content: candidate.content,
                    tool_id,
                },
            );
        }
        *files = next;
        for list in [
            &mut report.added,
            &mut report.updated,
            &mut report.removed,
            &mut report.disabled,
        ] {
            list.sort();
        }
        report
    }

    /// Decides which file defines each tool id: a file keeps an id it already registered, then
    /// files claim ids in name order. Ids taken by another file or by a tool this set does not
    /// own (a built-in) become problems. Returns id → candidate index.
    fn claim_ids(
        &self,
        candidates: &[Candidate],
        owned: &BTreeMap<String, PathBuf>,
        report: &mut ReloadReport,
    ) -> BTreeMap<String, usize> {
        let mut claims: BTreeMap<String, usize> = BTreeMap::new();
        for (index, candidate) in candidates.iter().enumerate() {
            if let Some(spec) = &candidate.spec {
                if owned.get(spec.id()) == Some(&candidate.path) {
                    claims.insert(spec.id().to_owned(), index);
                }
            }
        }
        for (index, candidate) in candidates.iter().enumerate() {
            let Some(spec) = &candidate.spec else {
                continue;
            };
            let id = spec.id();
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

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<PathBuf, LoadedFile>> {
        // A panic mid-reload leaves a map that is at worst stale; the next reload repairs it.
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn read_and_parse(path: &Path) -> (Vec<u8>, Result<HttpToolSpec, DefinitionError>) {
    let content = match std::fs::read(path) {
        Ok(content) => content,
        Err(e) => {
            let error = DefinitionError::Unreadable {
                file: path.to_owned(),
                message: e.to_string(),
            };
            return (Vec::new(), Err(error));
        }
    };
    let parsed = match (FileFormat::from_path(path), std::str::from_utf8(&content)) {
        (None, _) => Err(DefinitionError::UnsupportedExtension {
            file: path.to_owned(),
        }),
        (Some(_), Err(e)) => Err(DefinitionError::Unreadable {
            file: path.to_owned(),
            message: format!("not UTF-8 text: {e}"),
        }),
        (Some(format), Ok(text)) => definition::parse(path, format, text),
    };
    (content, parsed)
}

/// `*.json` and `*.toml` regular files (symlinks followed) directly in `directory`, by name;
/// hidden files (editor and temp files start with `.`) are skipped.
pub(crate) fn list_definition_files(directory: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(directory)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden || FileFormat::from_path(&path).is_none() {
            continue;
        }
        if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
