//! [`HttpToolSet`]: a directory of definition files kept in sync with the engine's registry.
//!
//! This module is the HTTP part of that: listing `.json`/`.toml` files, reading and checking
//! them, and turning each into an [`HttpTool`]. The bookkeeping shared with other file-based
//! providers lives in the engine's [`FileToolSync`]: one bad file never stops the others (each
//! file either becomes a registered tool or a [`DefinitionProblem`] naming it), a reload only
//! touches the registry for what changed (so the prompt cache, keyed on the registry's
//! generation, stays valid across a no-op reload), and a file that becomes invalid loses its
//! tool until it is fixed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use toolscope_engine::file_tools::{self, CandidateTool, FileCandidate, FileToolSync};
use toolscope_engine::Registry;

use crate::definition::{self, DefinitionError, FileFormat, HttpToolSpec};
use crate::secrets::EnvSource;
use crate::store::{self, StoreError};
use crate::tool::HttpTool;

pub use toolscope_engine::file_tools::{DefinitionProblem, ReloadReport};

/// Kept here because [`DefinitionError`] is this crate's: how a file's error reads in a report.
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

/// HTTP tools from one directory, registered in one registry.
#[derive(Debug)]
pub struct HttpToolSet {
    directory: PathBuf,
    client: reqwest::Client,
    env: EnvSource,
    sync: FileToolSync,
    /// Held across reading the files and syncing, so a reload that read older files never
    /// lands after one that read newer ones (the watch, a save and a manual reload may race).
    reloading: Mutex<()>,
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
            client,
            env: EnvSource::process(),
            sync: FileToolSync::new(registry),
            reloading: Mutex::new(()),
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
        self.sync.registry()
    }

    /// Ids of the tools this set registered, sorted.
    pub fn tool_ids(&self) -> Vec<String> {
        self.sync.tool_ids()
    }

    /// The file that defines a registered tool.
    pub fn file_of(&self, tool_id: &str) -> Option<PathBuf> {
        self.sync.file_of(tool_id)
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
        // A panic mid-reload leaves nothing half-done behind this lock; the next reload redoes all.
        let _reloading = self.reloading.lock().unwrap_or_else(|e| e.into_inner());
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
        let mut candidates: Vec<FileCandidate> = Vec::with_capacity(paths.len());
        for path in paths {
            let (content, parsed) = read_and_parse(&path);
            let tool = match parsed {
                Ok(spec) if spec.enabled => Some(self.candidate(spec)),
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
            candidates.push(FileCandidate {
                path,
                // The whole file: any edit, even one that parses the same, re-registers.
                revision: content,
                tool,
            });
        }
        self.sync.sync(candidates, report)
    }

    fn candidate(&self, spec: HttpToolSpec) -> CandidateTool {
        let client = self.client.clone();
        let env = self.env.clone();
        CandidateTool::new(spec.id().to_owned(), move || {
            Ok(Arc::new(HttpTool::new(spec, client, env)) as Arc<dyn toolscope_engine::Tool>)
        })
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
    file_tools::list_files(directory, |path| FileFormat::from_path(path).is_some())
}
