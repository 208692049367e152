//! [`HttpToolSet`]: a directory of definition files kept in sync with the engine's registry.
//!
//! This module is the HTTP part of that: listing `.json`/`.toml` files, reading and checking
//! them, and turning each into an [`HttpTool`]. The bookkeeping shared with other file-based
//! providers lives in the engine's [`FileToolSync`]: one bad file never stops the others (each
//! file either becomes a registered tool or a [`DefinitionProblem`] naming it), a reload only
//! touches the registry for what changed (so the prompt cache, keyed on the registry's
//! generation, stays valid across a no-op reload), and a file that becomes invalid loses its
//! tool until it is fixed. A tool's rate limiter is kept by tool id across reloads, so editing
//! a file (its description, say) does not hand out a fresh allowance.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use toolscope_engine::file_tools::{self, CandidateTool, FileCandidate, FileToolSync};
use toolscope_engine::Registry;

use crate::definition::{self, DefinitionError, FileFormat, HttpToolSpec};
use crate::rate_limit::RateLimiter;
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
    /// The limiter of each rate-limited tool by id, reused while its limit stays the same.
    limiters: Mutex<BTreeMap<String, Arc<RateLimiter>>>,
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
            limiters: Mutex::new(BTreeMap::new()),
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
        let mut limiters = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        let mut kept_limiters = BTreeMap::new();
        for path in paths {
            let (content, parsed) = read_and_parse(&path);
            let tool = match parsed {
                Ok(spec) if spec.enabled => {
                    let limiter = shared_limiter(&spec, &mut limiters);
                    if let Some(limiter) = &limiter {
                        kept_limiters.insert(spec.id().to_owned(), Arc::clone(limiter));
                    }
                    Some(self.candidate(spec, limiter))
                }
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
        // Tools gone, unlimited or broken drop their limiter; a fixed file starts afresh.
        *limiters = kept_limiters;
        drop(limiters);
        self.sync.sync(candidates, report)
    }

    fn candidate(&self, spec: HttpToolSpec, limiter: Option<Arc<RateLimiter>>) -> CandidateTool {
        let client = self.client.clone();
        let env = self.env.clone();
        CandidateTool::new(spec.id().to_owned(), move || {
            let mut tool = HttpTool::new(spec, client, env);
            if let Some(limiter) = limiter {
                tool = tool.with_limiter(limiter);
            }
            Ok(Arc::new(tool) as Arc<dyn toolscope_engine::Tool>)
        })
    }

    /// The limiter the registered tool `tool_id` uses, if it has a rate limit.
    pub fn limiter_of(&self, tool_id: &str) -> Option<Arc<RateLimiter>> {
        let limiters = self.limiters.lock().unwrap_or_else(|e| e.into_inner());
        limiters.get(tool_id).cloned()
    }
}

/// The limiter for `spec`: the one its id already has when the limit is unchanged, else new.
fn shared_limiter(
    spec: &HttpToolSpec,
    limiters: &mut BTreeMap<String, Arc<RateLimiter>>,
) -> Option<Arc<RateLimiter>> {
    let limit = spec.rate_limit?;
    match limiters.get(spec.id()) {
        Some(existing) if existing.limit() == limit => Some(Arc::clone(existing)),
        _ => Some(Arc::new(RateLimiter::new(limit))),
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
