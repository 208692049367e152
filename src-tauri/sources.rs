//! The tool sources besides the built-ins: MCP servers, the HTTP tool directory, the WASM tool
//! directories and the imported tool sets, started with the app and kept in step with the
//! registry.
//!
//! They report changes (a server connected or failed, a definition file edited) through
//! [`ToolSources::changes`], which the app forwards to the UI as the `sources-changed` event so
//! Discovery and the Sources view re-read what changed.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolscope_engine::file_tools::watch::DirectoryWatch;
use toolscope_engine::Registry;
use toolscope_http::{HttpToolSet, ReloadReport};
use toolscope_imported::ImportedSets;
use toolscope_mcp::sources::{SourceFiles, SourceOptions};
use toolscope_mcp::{ClientHooks, McpSources};
use toolscope_wasm::{WasmRuntime, WasmToolSet};

/// How often the HTTP tool directory is checked for edits made outside the app.
const HTTP_POLL: Duration = Duration::from_secs(1);
/// How often the WASM tool directories are checked for edited manifests and rebuilt modules.
const WASM_POLL: Duration = Duration::from_secs(1);

pub struct ToolSources {
    pub mcp: Arc<McpSources>,
    pub http: Option<Arc<HttpToolSet>>,
    /// The HTTP directory's last reload (problems of files that are not tools right now).
    pub http_report: Arc<Mutex<ReloadReport>>,
    /// The WASM tool directories a person added (`<data dir>/wasm-tools.json`), unless the
    /// WebAssembly runtime could not start.
    pub wasm: Option<Arc<WasmToolSet>>,
    /// The WASM directories' last reload (problems of tools that are not registered right now).
    pub wasm_report: Arc<Mutex<ReloadReport>>,
    /// The person's own tool definitions (`<data dir>/imported`).
    pub imported: Arc<ImportedSets>,
    /// Bumped on any change of any source; the app forwards it to the UI.
    pub changes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl ToolSources {
    /// Opens them all under `data_dir`; returns warnings worth showing once. What MCP servers
    /// ask during calls goes to `hooks`.
    pub fn open(
        registry: &Arc<Registry>,
        data_dir: &Path,
        hooks: ClientHooks,
    ) -> (Self, Vec<String>) {
        let options = SourceOptions {
            hooks,
            sign_ins: Some(toolscope_mcp::SignInFiles::in_data_dir(data_dir)),
            // Servers connect when the app starts, with nobody having asked to sign in: a
            // browser opening by itself would be a surprise. Sources shows "Sign in" instead.
            sign_in_policy: toolscope_mcp::oauth::SignInPolicy::Manual,
            ..SourceOptions::default()
        };
        let (mcp, mut notices) =
            McpSources::open(Arc::clone(registry), options, SourceFiles::in_dir(data_dir));
        let http = match HttpToolSet::new(data_dir.join("http-tools"), Arc::clone(registry)) {
            Ok(set) => Some(Arc::new(set)),
            Err(e) => {
                notices.push(format!("HTTP tools are unavailable: {e}"));
                None
            }
        };
        let wasm = match WasmRuntime::new() {
            Ok(runtime) => {
                let (set, note) = WasmToolSet::open(
                    Arc::clone(registry),
                    runtime,
                    data_dir.join("wasm-tools.json"),
                );
                notices.extend(note.map(|note| format!("WASM tools: {note}")));
                Some(Arc::new(set))
            }
            Err(e) => {
                notices.push(format!("WASM tools are unavailable: {e}"));
                None
            }
        };
        let (imported, problems) =
            ImportedSets::open(&data_dir.join("imported"), Arc::clone(registry));
        notices.extend(
            problems
                .into_iter()
                .map(|p| format!("imported tool set {p}")),
        );
        let sources = Self {
            mcp: Arc::new(mcp),
            http,
            http_report: Arc::default(),
            wasm,
            wasm_report: Arc::default(),
            imported: Arc::new(imported),
            changes: Arc::new(tokio::sync::watch::channel(0).0),
        };
        (sources, notices)
    }

    /// Connects the MCP servers and starts watching the HTTP and WASM tool directories, in the
    /// background.
    pub fn start(&self) {
        let mcp = Arc::clone(&self.mcp);
        let changes = Arc::clone(&self.changes);
        tauri::async_runtime::spawn(async move {
            let mut mcp_changes = mcp.subscribe();
            let forward = async {
                while mcp_changes.changed().await.is_ok() {
                    changes.send_modify(|n| *n += 1);
                }
            };
            tokio::join!(mcp.start_all(), forward);
        });
        if let Some(http) = self.http.clone() {
            self.keep_watching(&self.http_report, move || http.watch(HTTP_POLL));
        }
        if let Some(wasm) = self.wasm.clone() {
            self.keep_watching(&self.wasm_report, move || wasm.watch(WASM_POLL));
        }
    }

    /// Runs a directory watch in the background: each reload's report is kept in `report` and
    /// announced as a change. `start` is called inside the runtime (a watch needs one); the
    /// watch polls for as long as the app runs.
    fn keep_watching(
        &self,
        report: &Arc<Mutex<ReloadReport>>,
        start: impl FnOnce() -> DirectoryWatch + Send + 'static,
    ) {
        let (report, changes) = (Arc::clone(report), Arc::clone(&self.changes));
        tauri::async_runtime::spawn(async move {
            // The watch's first poll is the initial load.
            let watch = start();
            let mut reports = watch.reports();
            while reports.changed().await.is_ok() {
                let latest = reports.borrow_and_update().clone();
                store(&report, latest);
                changes.send_modify(|n| *n += 1);
            }
        });
    }

    /// Records a reload done by a command (save or delete in the editor).
    pub fn record_http_report(&self, latest: ReloadReport) {
        store(&self.http_report, latest);
        self.announce_change();
    }

    /// Records a reload done by a command (a directory added or removed, grants approved).
    pub fn record_wasm_report(&self, latest: ReloadReport) {
        store(&self.wasm_report, latest);
        self.announce_change();
    }

    /// Tells the UI that a source changed (a command edited one).
    pub fn announce_change(&self) {
        self.changes.send_modify(|n| *n += 1);
    }
}

fn store(slot: &Mutex<ReloadReport>, latest: ReloadReport) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = latest;
}
