//! [`WasmToolSet`]: the WASM tool directories a person added, kept in sync with the registry.
//!
//! Each reload re-reads every manifest; one broken tool never stops the others (it becomes a
//! [`DefinitionProblem`]), a tool whose grants are not approved waits in [`WasmToolSet::pending`],
//! and the shared [`FileToolSync`] only touches the registry for what changed. In the app the
//! directory list and the approvals persist in one JSON file ([`crate::store`]); the CLI keeps
//! them in memory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use toolscope_engine::file_tools::watch::{
    fingerprint_of, DirectoryWatch, Fingerprint, WatchedSource,
};
use toolscope_engine::file_tools::{DefinitionProblem, FileToolSync, ReloadReport};
use toolscope_engine::Registry;

use crate::read::{
    manifest_in, read_tool, tool_directories, watched_files, PendingGrants, ReadTool,
};
use crate::runtime::WasmRuntime;
use crate::store::{SavedState, StateFile};

/// A request the set refused; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum ToolSetError {
    #[error("{} is not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{} is not one of the WASM tool directories", path.display())]
    UnknownDirectory { path: PathBuf },
    #[error(
        "no WASM tool is waiting for the approval of these grants (the manifest may have changed)"
    )]
    UnknownApproval,
    #[error("cannot save the WASM tool settings to {}: {message}", path.display())]
    Save { path: PathBuf, message: String },
}

#[derive(Debug, Default)]
struct Settings {
    directories: Vec<PathBuf>,
    approved: BTreeSet<String>,
    /// Tools waiting for approval, as of the last reload.
    pending: Vec<PendingGrants>,
}

/// WASM tools from the directories a person added, registered in one registry.
#[derive(Debug)]
pub struct WasmToolSet {
    runtime: WasmRuntime,
    sync: FileToolSync,
    settings: Mutex<Settings>,
    state_file: Option<StateFile>,
}

impl WasmToolSet {
    /// A set with no saved state (the CLI): directories and approvals live as long as it does.
    pub fn new(registry: Arc<Registry>, runtime: WasmRuntime) -> Self {
        Self {
            runtime,
            sync: FileToolSync::new(registry),
            settings: Mutex::new(Settings::default()),
            state_file: None,
        }
    }

    /// A set whose directories and approvals are saved in `path`. An unreadable file is moved
    /// aside (never overwritten) and the set starts empty; the returned note says where it went.
    /// Nothing is loaded until [`Self::reload`].
    pub fn open(
        registry: Arc<Registry>,
        runtime: WasmRuntime,
        path: impl Into<PathBuf>,
    ) -> (Self, Option<String>) {
        let file = StateFile::new(path.into());
        let (saved, note) = file.load();
        let set = Self {
            runtime,
            sync: FileToolSync::new(registry),
            settings: Mutex::new(Settings {
                directories: saved.directories,
                approved: saved.approved_grants.into_iter().collect(),
                pending: Vec::new(),
            }),
            state_file: Some(file),
        };
        (set, note)
    }

    pub fn runtime(&self) -> &WasmRuntime {
        &self.runtime
    }

    pub fn registry(&self) -> &Arc<Registry> {
        self.sync.registry()
    }

    /// The directories added, in the order they were added.
    pub fn directories(&self) -> Vec<PathBuf> {
        self.lock().directories.clone()
    }

    /// Ids of the tools this set registered, sorted.
    pub fn tool_ids(&self) -> Vec<String> {
        self.sync.tool_ids()
    }

    /// The manifest of a registered tool.
    pub fn file_of(&self, tool_id: &str) -> Option<PathBuf> {
        self.sync.file_of(tool_id)
    }

    /// Tools whose grants wait for approval, as of the last reload.
    pub fn pending(&self) -> Vec<PendingGrants> {
        self.lock().pending.clone()
    }

    /// Adds a directory (one tool, or a folder of tools) and reloads. Adding one that is
    /// already there only reloads.
    pub fn add_directory(&self, directory: &Path) -> Result<ReloadReport, ToolSetError> {
        let not_a_directory = || ToolSetError::NotADirectory {
            path: directory.to_owned(),
        };
        let canonical = std::fs::canonicalize(directory).map_err(|_| not_a_directory())?;
        if !canonical.is_dir() {
            return Err(not_a_directory());
        }
        {
            let mut settings = self.lock();
            if !settings.directories.contains(&canonical) {
                settings.directories.push(canonical);
                self.save(&settings)?;
            }
        }
        Ok(self.reload())
    }

    /// Removes a directory; its tools are unregistered by the reload.
    pub fn remove_directory(&self, directory: &Path) -> Result<ReloadReport, ToolSetError> {
        {
            let mut settings = self.lock();
            let before = settings.directories.len();
            settings.directories.retain(|d| d != directory);
            if settings.directories.len() == before {
                return Err(ToolSetError::UnknownDirectory {
                    path: directory.to_owned(),
                });
            }
            self.save(&settings)?;
        }
        Ok(self.reload())
    }

    /// Approves one pending grant list (by its key, exactly as [`Self::pending`] gave it) and
    /// reloads, which registers the tool.
    pub fn approve(&self, key: &str) -> Result<ReloadReport, ToolSetError> {
        {
            let mut settings = self.lock();
            if !settings.pending.iter().any(|p| p.key == key) {
                return Err(ToolSetError::UnknownApproval);
            }
            settings.approved.insert(key.to_owned());
            self.save(&settings)?;
        }
        Ok(self.reload())
    }

    /// Approves every pending grant list (the CLI's `--approve-wasm-grants`) and reloads.
    pub fn approve_all_pending(&self) -> ReloadReport {
        {
            let mut settings = self.lock();
            let keys: Vec<String> = settings.pending.iter().map(|p| p.key.clone()).collect();
            settings.approved.extend(keys);
        }
        self.reload()
    }

    /// Re-reads every tool directory and syncs the registry. Blocking (file reads, and a
    /// compile for each new or changed module): call it from a blocking context.
    pub fn reload(&self) -> ReloadReport {
        // Held across reading and syncing, so an older read never lands after a newer one.
        let mut settings = self.lock();
        let mut report = ReloadReport::default();
        let mut candidates = Vec::new();
        let mut pending = Vec::new();
        for directory in &settings.directories {
            let tools = match tool_directories(directory) {
                Ok(tools) if tools.is_empty() => {
                    report.problems.push(DefinitionProblem {
                        file: directory.clone(),
                        field: None,
                        message: "no manifest.toml or manifest.json here or in a subdirectory"
                            .to_owned(),
                    });
                    continue;
                }
                Ok(tools) => tools,
                Err(e) => {
                    report.problems.push(DefinitionProblem {
                        file: directory.clone(),
                        field: None,
                        message: format!("cannot list the directory: {e}"),
                    });
                    continue;
                }
            };
            for tool in tools {
                let Some(manifest) = manifest_in(&tool) else {
                    continue;
                };
                // The same tool reached through two added directories is read once.
                if candidates
                    .iter()
                    .any(|c: &toolscope_engine::file_tools::FileCandidate| c.path == manifest)
                {
                    continue;
                }
                match read_tool(&self.runtime, &manifest, |key| {
                    settings.approved.contains(key)
                }) {
                    ReadTool::Ready(candidate) => candidates.push(candidate),
                    ReadTool::Disabled { candidate, id } => {
                        report.disabled.push(id);
                        report.disabled_files.push(candidate.path.clone());
                        candidates.push(candidate);
                    }
                    ReadTool::NeedsApproval {
                        candidate,
                        pending: waiting,
                    } => {
                        report.problems.push(DefinitionProblem {
                            file: candidate.path.clone(),
                            field: Some("grants".to_owned()),
                            message: format!(
                                "waiting for approval of its grants: {}",
                                waiting.grants.join("; ")
                            ),
                        });
                        pending.push(waiting);
                        candidates.push(candidate);
                    }
                    ReadTool::Problem { candidate, problem } => {
                        report.problems.push(problem);
                        candidates.push(candidate);
                    }
                }
            }
        }
        settings.pending = pending;
        self.sync.sync(candidates, report)
    }

    /// Polls the directories every `interval` and reloads when a manifest or module changes.
    /// The first poll reloads at once. Must be called inside a tokio runtime.
    pub fn watch(self: &Arc<Self>, interval: Duration) -> DirectoryWatch {
        DirectoryWatch::start(Arc::clone(self) as Arc<dyn WatchedSource>, interval)
    }

    fn save(&self, settings: &Settings) -> Result<(), ToolSetError> {
        let Some(file) = &self.state_file else {
            return Ok(());
        };
        let saved = SavedState {
            directories: settings.directories.clone(),
            approved_grants: settings.approved.iter().cloned().collect(),
        };
        file.save(&saved).map_err(|message| ToolSetError::Save {
            path: file.path().to_owned(),
            message,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Settings> {
        // A panic mid-reload leaves settings that are at worst stale; the next reload repairs it.
        self.settings.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl WatchedSource for WasmToolSet {
    fn fingerprint(&self) -> Fingerprint {
        let directories = self.directories();
        let mut fingerprint = fingerprint_of(Ok(watched_files(&directories)));
        // Approvals change what loads without touching a file.
        if let Ok(entries) = &mut fingerprint {
            let settings = self.lock();
            for key in &settings.approved {
                entries.push((PathBuf::from(key), None, 0));
            }
        }
        fingerprint
    }

    fn reload(&self) -> ReloadReport {
        WasmToolSet::reload(self)
    }
}
