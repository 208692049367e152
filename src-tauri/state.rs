//! What the app keeps between commands: the engine (registry, protocols, discovery), the
//! history file, the current ToolCallConfig, and the runs and confirmations in flight.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use toolscope_builtin::{self as builtin, BuiltinOptions};
use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::Decision;
use toolscope_engine::declared_formats::{FormatProblem, FormatsDir};
use toolscope_engine::discovery::Discovery;
use toolscope_engine::history::{History, HistoryTail};
use toolscope_engine::{Registry, ToolCallConfig};
use toolscope_llm::profiles::ProfileStore;
use toolscope_protocol::ProtocolSet;

use crate::commands::history::HistorySummary;
use crate::commands::parsed_requests::KeptRequests;
use crate::elicitations::ElicitationDesk;
use crate::error::{CommandError, CommandErrorKind};
use crate::sources::ToolSources;

/// Locks that only guard plain maps stay usable after a panic elsewhere.
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct AppState {
    pub registry: Arc<Registry>,
    pub discovery: Discovery,
    /// Declared formats (`<data dir>/formats`), once startup knows the data directory.
    formats: OnceLock<FormatsDir>,
    config: RwLock<ToolCallConfig>,
    startup: OnceLock<Result<Arc<History>, CommandError>>,
    /// Startup problems worth showing once (a torn history tail set aside, ...).
    pub notices: Mutex<Vec<String>>,
    runs: Mutex<HashMap<String, CancellationToken>>,
    pub confirmations: Arc<Mutex<HashMap<String, oneshot::Sender<bool>>>>,
    /// Agent calls waiting for the person's decision.
    pub agent_confirmations: Arc<Mutex<HashMap<String, oneshot::Sender<Decision>>>>,
    /// Where profiles, keys and conversations live, once startup knows it.
    data_dir: OnceLock<PathBuf>,
    /// The CLI's data directory, where its proxies record: read beside the app's own.
    cli_data_dir: OnceLock<PathBuf>,
    /// The tool sources (MCP, HTTP, WASM, imported), once startup has opened them.
    sources: OnceLock<ToolSources>,
    /// What MCP servers asked the person and wait for (elicitations).
    pub elicitations: Arc<ElicitationDesk>,
    /// The history list's rows, read on from where the last list stopped.
    pub history_rows: Mutex<Option<HistoryTail<HistorySummary>>>,
    /// The Parser's latest parse: the requests its answer left out.
    pub kept_requests: KeptRequests,
}

impl Default for AppState {
    fn default() -> Self {
        let registry = Arc::new(Registry::new());
        Self {
            discovery: Discovery::new(Arc::clone(&registry), ProtocolSet::standard()),
            registry,
            formats: OnceLock::new(),
            config: RwLock::new(ToolCallConfig::default()),
            startup: OnceLock::new(),
            notices: Mutex::new(Vec::new()),
            runs: Mutex::new(HashMap::new()),
            confirmations: Arc::new(Mutex::new(HashMap::new())),
            agent_confirmations: Arc::new(Mutex::new(HashMap::new())),
            data_dir: OnceLock::new(),
            cli_data_dir: OnceLock::new(),
            sources: OnceLock::new(),
            elicitations: Arc::default(),
            history_rows: Mutex::new(None),
            kept_requests: KeptRequests::default(),
        }
    }
}

impl AppState {
    /// Registers the built-in tools and opens the history, under `data_dir`. Runs once.
    pub fn start(&self, data_dir: Result<&Path, CommandError>) {
        let outcome = data_dir.and_then(|dir| self.open(dir));
        if let Err(error) = &outcome {
            eprintln!("toolscope: startup failed: {error}");
        }
        let _ = self.startup.set(outcome);
    }

    /// The built-in formats and the declared ones as their files are now: an edited file is
    /// picked up on the next call (and prompts regenerate for it).
    pub fn protocols(&self) -> ProtocolSet {
        let Some(formats) = self.formats.get() else {
            return self.discovery.protocols();
        };
        let current = formats.current();
        if current.changed {
            self.discovery.set_protocols(current.protocols.clone());
        }
        current.protocols
    }

    /// Problems of the declared format files, by file and line.
    pub fn format_problems(&self) -> Vec<FormatProblem> {
        self.formats
            .get()
            .map(|formats| formats.current().problems)
            .unwrap_or_default()
    }

    fn open(&self, data_dir: &Path) -> Result<Arc<History>, CommandError> {
        let _ = self.data_dir.set(data_dir.to_path_buf());
        let formats = FormatsDir::new(data_dir.join("formats"), ProtocolSet::standard());
        self.discovery.set_protocols(formats.current().protocols);
        let _ = self.formats.set(formats);
        let workspace_root = data_dir.join("workspace");
        builtin::register_all(&self.registry, &BuiltinOptions { workspace_root }).map_err(|e| {
            match e {
                builtin::BuiltinError::WorkspaceRoot { .. } => {
                    CommandError::new(CommandErrorKind::Workspace, e.to_string())
                }
                builtin::BuiltinError::Registry(_) => {
                    CommandError::new(CommandErrorKind::Registry, e.to_string())
                }
            }
        })?;
        if let Some(count) = synthetic_method_count() {
            builtin::synthetic::register(&self.registry, count)
                .map_err(|e| CommandError::new(CommandErrorKind::Registry, e.to_string()))?;
        }
        let hooks = crate::elicitations::hooks(&self.elicitations, data_dir);
        let (sources, notices) = ToolSources::open(&self.registry, data_dir, hooks);
        lock(&self.notices).extend(notices);
        sources.start();
        let _ = self.sources.set(sources);
        let (history, report) = History::open(data_dir.join("history.jsonl"))
            .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
        if let Some(torn) = report.torn_tail {
            lock(&self.notices).push(format!(
                "The run history ended in an incomplete entry ({} bytes, from an interrupted write). It was moved to {}.",
                torn.bytes,
                torn.set_aside_to.display()
            ));
        }
        Ok(Arc::new(history))
    }

    /// The history, once startup has succeeded.
    pub fn history(&self) -> Result<Arc<History>, CommandError> {
        match self.startup.get() {
            None => Err(CommandError::new(
                CommandErrorKind::NotReady,
                "the app is still starting",
            )),
            Some(outcome) => outcome.clone(),
        }
    }

    /// Where the app keeps its files (settings, history, profiles, ...), once startup knows it.
    pub fn data_dir(&self) -> Result<&Path, CommandError> {
        self.data_dir.get().map(PathBuf::as_path).ok_or_else(|| {
            CommandError::new(CommandErrorKind::NotReady, "the app is still starting")
        })
    }

    /// Also reads what the CLI recorded in `dir` (proxy sessions, proxied conversations).
    pub fn set_cli_data_dir(&self, dir: PathBuf) {
        let _ = self.cli_data_dir.set(dir);
    }

    /// The CLI's data directory, when it is set and is not the app's own.
    pub fn cli_data_dir(&self) -> Option<&Path> {
        let cli = self.cli_data_dir.get()?;
        (Some(cli) != self.data_dir.get()).then_some(cli.as_path())
    }

    /// Model endpoint profiles and their stored keys (`endpoints.json`, `endpoint-keys.json`).
    pub fn profiles(&self) -> Result<ProfileStore, CommandError> {
        Ok(ProfileStore::new(self.data_dir()?))
    }

    /// Recorded agent conversations (`conversations/`), with those the CLI's model proxy
    /// recorded in its own data directory.
    pub fn conversations(&self) -> Result<ConversationStore, CommandError> {
        let store = ConversationStore::new(self.data_dir()?.join("conversations"));
        Ok(match self.cli_data_dir() {
            Some(cli) => store.with_other(cli.join("conversations")),
            None => store,
        })
    }

    /// The tool sources (MCP, HTTP, WASM, imported), once startup has opened them.
    pub fn sources(&self) -> Result<&ToolSources, CommandError> {
        self.sources.get().ok_or_else(|| {
            CommandError::new(
                CommandErrorKind::NotReady,
                "tool sources are not open (startup failed or is still running)",
            )
        })
    }

    pub fn config(&self) -> ToolCallConfig {
        self.config
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn set_config(&self, config: ToolCallConfig) {
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = config;
        self.discovery.invalidate_cache();
    }

    /// Registers a cancellable run under the UI's id; the guard forgets it when dropped.
    pub fn begin_run(&self, run_id: &str) -> Result<RunGuard<'_>, CommandError> {
        let mut runs = lock(&self.runs);
        if run_id.is_empty() || runs.contains_key(run_id) {
            return Err(CommandError::new(
                CommandErrorKind::InvalidInput,
                format!("run id '{run_id}' is empty or already running"),
            ));
        }
        let token = CancellationToken::new();
        runs.insert(run_id.to_owned(), token.clone());
        Ok(RunGuard {
            state: self,
            run_id: run_id.to_owned(),
            token,
        })
    }

    /// Cancels a run; false if no such run is in flight.
    pub fn cancel_run(&self, run_id: &str) -> bool {
        lock(&self.runs)
            .get(run_id)
            .map(CancellationToken::cancel)
            .is_some()
    }
}

/// `TOOLSCOPE_SYNTHETIC_METHODS=N` adds N generated methods, to try the app at scale.
fn synthetic_method_count() -> Option<usize> {
    std::env::var("TOOLSCOPE_SYNTHETIC_METHODS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n > 0)
}

pub struct RunGuard<'a> {
    state: &'a AppState,
    run_id: String,
    pub token: CancellationToken,
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        lock(&self.state.runs).remove(&self.run_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startup_registers_builtins_and_opens_history() {
        let state = AppState::default();
        assert_eq!(
            state.history().map(|_| ()).map_err(|e| e.kind),
            Err(CommandErrorKind::NotReady)
        );
        let dir = tempfile::tempdir().expect("tempdir");
        state.start(Ok(dir.path()));
        assert!(state.history().is_ok());
        assert!(dir.path().join("workspace").is_dir());
        assert!(state.registry.get("calculator").is_some());
        let sources = state.sources().expect("sources open with the app");
        assert!(sources.mcp.states().is_empty());
        assert!(sources.http.is_some());
        assert!(sources.wasm.is_some());
    }

    #[test]
    fn failed_startup_is_reported_by_commands() {
        let state = AppState::default();
        state.start(Err(CommandError::new(
            CommandErrorKind::Workspace,
            "no data dir",
        )));
        assert_eq!(
            state.history().map(|_| ()).map_err(|e| e.message),
            Err("no data dir".to_owned())
        );
    }

    #[test]
    fn runs_are_cancellable_and_forgotten_when_done() {
        let state = AppState::default();
        let guard = state.begin_run("r1").expect("new run");
        assert!(
            state.begin_run("r1").is_err(),
            "ids are unique while running"
        );
        assert!(state.cancel_run("r1"));
        assert!(guard.token.is_cancelled());
        drop(guard);
        assert!(!state.cancel_run("r1"));
        assert!(state.begin_run("").is_err());
    }
}
