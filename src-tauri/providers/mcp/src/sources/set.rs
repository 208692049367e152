//! [`McpSources`]: add, edit, remove, approve, reconnect and import servers; the app's Sources
//! view and the CLI drive MCP through it alone.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::join_all;
use toolscope_engine::types::ToolSource;
use toolscope_engine::Registry;

use super::{
    Approvals, Live, Source, SourceError, SourceFiles, SourceOptions, SourceState, SourceStatus,
};
use crate::config::{
    expand_variables, import, ConfigError, ImportReport, McpServerConfig, McpTransport,
};
use crate::connection::ServerLog;
use crate::oauth::trace::SignInStep;
use crate::oauth::SignInPolicy;
use toolscope_engine::naming::{tool_id_for, MethodNames};

pub struct McpSources {
    registry: Arc<Registry>,
    options: SourceOptions,
    files: Option<SourceFiles>,
    sources: Mutex<BTreeMap<String, Arc<Source>>>,
    approvals: Mutex<Approvals>,
    changed: Arc<tokio::sync::watch::Sender<u64>>,
}

impl McpSources {
    /// Servers kept in memory only (tests, the CLI with `--mcp-config`).
    pub fn new(registry: Arc<Registry>, options: SourceOptions) -> Self {
        Self {
            registry,
            options,
            files: None,
            sources: Mutex::default(),
            approvals: Mutex::default(),
            changed: Arc::new(tokio::sync::watch::channel(0).0),
        }
    }

    /// Servers saved in `files`; returns the warnings loading them produced.
    pub fn open(
        registry: Arc<Registry>,
        options: SourceOptions,
        files: SourceFiles,
    ) -> (Self, Vec<String>) {
        let (servers, approvals, mut warnings) = files.load();
        let mut set = Self::new(registry, options);
        set.files = Some(files);
        *set.approvals.get_mut().unwrap_or_else(|e| e.into_inner()) = approvals;
        for server in servers {
            if let Err(e) = set.insert(server, false) {
                warnings.push(e.to_string());
            }
        }
        (set, warnings)
    }

    /// Bumps whenever a server's status or the list changes.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    pub fn states(&self) -> Vec<SourceState> {
        self.map().values().map(|s| s.state()).collect()
    }

    pub fn state(&self, name: &str) -> Result<SourceState, SourceError> {
        self.get(name).map(|s| s.state())
    }

    /// What the server printed on stderr and sent as log messages, oldest first.
    pub fn log(&self, name: &str) -> Result<Vec<String>, SourceError> {
        self.get(name).map(|s| s.log.lines())
    }

    /// Connects every enabled server whose command line is approved, all at once.
    /// Servers something else already started (added, approved or restarted meanwhile) are
    /// left to that start.
    pub async fn start_all(&self) {
        let sources: Vec<Arc<Source>> = self
            .map()
            .values()
            .filter(|s| !s.started.swap(true, Ordering::SeqCst))
            .cloned()
            .collect();
        join_all(sources.iter().map(|s| self.start(s))).await;
    }

    /// Adds a server and starts it if it may be started.
    pub async fn add(&self, config: McpServerConfig) -> Result<SourceState, SourceError> {
        let source = self.insert(config, true)?;
        self.save()?;
        self.start(&source).await;
        Ok(source.state())
    }

    /// Replaces the server called `name` (its name may change too) and restarts it.
    pub async fn update(
        &self,
        name: &str,
        config: McpServerConfig,
    ) -> Result<SourceState, SourceError> {
        let old = self.get(name)?;
        let removed = self.map().remove(name);
        match self.insert(config, true) {
            Ok(source) => {
                old.disconnect();
                if old.tool_id != source.tool_id {
                    self.registry.unregister(&old.tool_id);
                }
                self.save()?;
                self.start(&source).await;
                Ok(source.state())
            }
            Err(e) => {
                if let Some(old) = removed {
                    self.map().insert(name.to_owned(), old);
                }
                Err(e)
            }
        }
    }

    /// Stops and forgets a server; its tool leaves the registry.
    pub fn remove(&self, name: &str) -> Result<(), SourceError> {
        let source = self
            .map()
            .remove(name)
            .ok_or_else(|| SourceError::Unknown(name.to_owned()))?;
        source.disconnect();
        self.registry.unregister(&source.tool_id);
        self.changed.send_modify(|n| *n += 1);
        self.save()
    }

    /// Connects again (a failed or crashed server, or to pick up a changed listing).
    pub async fn reconnect(&self, name: &str) -> Result<SourceState, SourceError> {
        let source = self.get(name)?;
        self.start(&source).await;
        Ok(source.state())
    }

    /// Allows the server's current command line to run, remembers that, and starts it.
    pub async fn approve(&self, name: &str) -> Result<SourceState, SourceError> {
        let source = self.get(name)?;
        if let Some(line) = source.config.transport.command_line() {
            let mut approvals = self.approvals.lock().unwrap_or_else(|e| e.into_inner());
            approvals.insert(line);
            if let Some(files) = &self.files {
                files
                    .save_approvals(&approvals)
                    .map_err(|e| SourceError::Save(e.to_string()))?;
            }
        }
        self.start(&source).await;
        Ok(source.state())
    }

    /// Adds every server of an `mcpServers` / `servers` JSON text. Names already present are
    /// reported and skipped, not overwritten. Nothing is started: imported command lines are
    /// new to this app and wait for approval; URLs connect on [`Self::start_all`].
    pub fn import(&self, text: &str) -> Result<ImportReport, ConfigError> {
        let mut report = import(text)?;
        let mut added = Vec::new();
        for server in std::mem::take(&mut report.servers) {
            match self.insert(server.clone(), false) {
                Ok(_) => added.push(server),
                Err(e) => report.warnings.push(e.to_string()),
            }
        }
        report.servers = added;
        if let Err(e) = self.save() {
            report.warnings.push(e.to_string());
        }
        Ok(report)
    }

    /// Adds `config` to the set; `started` when the caller starts it right away (else
    /// [`Self::start_all`] will).
    fn insert(&self, config: McpServerConfig, started: bool) -> Result<Arc<Source>, SourceError> {
        let name = config.name.trim().to_owned();
        if name.is_empty() {
            return Err(SourceError::EmptyName);
        }
        let tool_id = tool_id_for(&name, "mcp");
        let mut map = self.map();
        if map.contains_key(&name) {
            return Err(SourceError::Duplicate(name));
        }
        if let Some(other) = map.values().find(|s| s.tool_id == tool_id) {
            return Err(SourceError::ToolIdTaken {
                name,
                tool_id,
                owner: format!("MCP server '{}'", other.config.name),
            });
        }
        if let Some(tool) = self
            .registry
            .get(&tool_id)
            .filter(|t| t.source != ToolSource::Mcp)
        {
            return Err(SourceError::ToolIdTaken {
                name,
                tool_id,
                owner: format!("the {:?} tool '{}'", tool.source, tool.name).to_lowercase(),
            });
        }
        let source = Arc::new(Source {
            config: McpServerConfig {
                name: name.clone(),
                ..config
            },
            tool_id,
            log: Arc::new(ServerLog::default()),
            live: Mutex::new(Live {
                status: SourceStatus::Disabled,
                connection: None,
                names: MethodNames::default(),
                epoch: 0,
                signed_in: false,
                sign_in_cancel: tokio_util::sync::CancellationToken::new(),
            }),
            registry: Arc::clone(&self.registry),
            changed: Arc::clone(&self.changed),
            trace: Arc::default(),
            started: AtomicBool::new(started),
        });
        map.insert(name, Arc::clone(&source));
        drop(map);
        self.changed.send_modify(|n| *n += 1);
        Ok(source)
    }

    /// Connects the server now allowing the browser to open for its sign-in (the person
    /// asked to sign in).
    pub async fn sign_in(&self, name: &str) -> Result<SourceState, SourceError> {
        let source = self.get(name)?;
        self.start_with(&source, SignInPolicy::Automatic).await;
        Ok(source.state())
    }

    /// Gives up the server's sign-in that waits for the browser; it then shows that it needs
    /// one. Nothing happens when no sign-in waits.
    pub fn cancel_sign_in(&self, name: &str) -> Result<(), SourceError> {
        self.get(name).map(|source| source.cancel_sign_in())
    }

    /// Forgets the server's stored sign-in and connects it again without one. `Ok` also when
    /// nothing was stored.
    pub async fn sign_out(&self, name: &str) -> Result<SourceState, SourceError> {
        let source = self.get(name)?;
        let McpTransport::Http { url, .. } = &source.config.transport else {
            return Err(SourceError::NotSignedIn(name.to_owned()));
        };
        source.disconnect();
        if let Some(files) = &self.options.sign_ins {
            // Sign-ins are kept under the URL the connection used, `${VAR}`s expanded.
            let url = expand_variables(url, "url", &*self.options.env)
                .map_err(|e| SourceError::SignOut(e.to_string()))?;
            files
                .forget(&source.config.name, &url)
                .map_err(|e| SourceError::SignOut(e.to_string()))?;
        }
        source.trace.begin();
        self.start(&source).await;
        Ok(source.state())
    }

    /// The steps of the server's last sign-in (and the refreshes since).
    pub fn sign_in_steps(&self, name: &str) -> Result<Vec<SignInStep>, SourceError> {
        self.get(name).map(|s| s.trace.steps())
    }

    async fn start(&self, source: &Arc<Source>) {
        self.start_with(source, self.options.sign_in_policy).await;
    }

    async fn start_with(&self, source: &Arc<Source>, policy: SignInPolicy) {
        source.started.store(true, Ordering::SeqCst);
        if !source.config.enabled {
            source.disconnect();
            self.registry.unregister(&source.tool_id);
            let epoch = source.live().epoch;
            source.set_status(epoch, SourceStatus::Disabled);
            return;
        }
        if let Some(command_line) = source.config.transport.command_line() {
            let approved = self
                .approvals
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&command_line);
            if !approved {
                let epoch = source.live().epoch;
                source.set_status(epoch, SourceStatus::AwaitingApproval { command_line });
                return;
            }
        }
        source.connect(&self.options, policy).await;
    }

    fn save(&self) -> Result<(), SourceError> {
        let Some(files) = &self.files else {
            return Ok(());
        };
        let servers: Vec<McpServerConfig> = self.map().values().map(|s| s.config.clone()).collect();
        files
            .save_servers(&servers)
            .map_err(|e| SourceError::Save(e.to_string()))
    }

    fn get(&self, name: &str) -> Result<Arc<Source>, SourceError> {
        self.map()
            .get(name)
            .cloned()
            .ok_or_else(|| SourceError::Unknown(name.to_owned()))
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Source>>> {
        self.sources.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes every connection (the app is quitting).
    pub fn shutdown(&self) {
        for source in self.map().values() {
            source.disconnect();
        }
    }
}
