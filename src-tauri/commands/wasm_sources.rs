//! WASM tool commands: the directories a person added (list, add, remove, reload) and the
//! approval of the exact grants a tool's manifest asks for. Every reload also reaches the UI as
//! the `sources-changed` event; the directories are watched, so edits made outside the app
//! show up within a second.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use tauri::State;
use toolscope_engine::file_tools::ReloadReport;
use toolscope_wasm::{ToolSetError, WasmToolSet};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// A registered WASM tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WasmToolView {
    pub id: String,
    pub name: String,
    /// The manifest that defines it.
    pub manifest: String,
    /// How many methods it registered.
    pub methods: usize,
}

/// One directory a person added: one tool, or a folder of tool directories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WasmDirectoryView {
    /// The canonical path, as `wasm_remove_directory` takes it.
    pub path: String,
    /// The tools registered from it, by id.
    pub tools: Vec<WasmToolView>,
}

/// Why a manifest (or an added directory) is not a registered tool right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WasmToolProblem {
    pub file: String,
    /// The manifest field at fault (`methods[0].export`, `module`, `grants`), when one is.
    pub field: Option<String>,
    pub message: String,
}

/// A tool whose manifest asks for access nobody approved yet; it is not registered until then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WasmPendingGrants {
    pub tool_id: String,
    pub manifest: String,
    /// One line per grant, exactly as approving allows them.
    pub grants: Vec<String>,
    /// What `wasm_approve` takes.
    pub key: String,
}

/// The WASM tool directories as the Sources pane shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct WasmToolsView {
    pub directories: Vec<WasmDirectoryView>,
    pub problems: Vec<WasmToolProblem>,
    pub pending: Vec<WasmPendingGrants>,
}

/// The WASM tool set, unless the WebAssembly runtime could not start.
fn wasm_set(state: &AppState) -> Result<Arc<WasmToolSet>, CommandError> {
    state.sources()?.wasm.clone().ok_or_else(|| {
        CommandError::new(
            CommandErrorKind::NotReady,
            "WASM tools are unavailable (see the startup notice)",
        )
    })
}

fn tool_set_error(error: ToolSetError) -> CommandError {
    let (kind, path) = match &error {
        ToolSetError::NotADirectory { path } => (CommandErrorKind::InvalidInput, Some(path)),
        ToolSetError::UnknownDirectory { path } => (CommandErrorKind::Source, Some(path)),
        ToolSetError::UnknownApproval => (CommandErrorKind::Source, None),
        ToolSetError::Save { path, .. } => (CommandErrorKind::Settings, Some(path)),
    };
    let details = path.map(|path| json!({ "path": path.display().to_string() }));
    let error = CommandError::new(kind, error.to_string());
    match details {
        Some(details) => error.with_details(details),
        None => error,
    }
}

/// Runs a change off the async threads (file reads, module compiles), records its reload and
/// returns the new view.
async fn change_wasm(
    state: &AppState,
    change: impl FnOnce(&WasmToolSet) -> Result<ReloadReport, ToolSetError> + Send + 'static,
) -> Result<WasmToolsView, CommandError> {
    let wasm = wasm_set(state)?;
    let report = tokio::task::spawn_blocking(move || change(&wasm))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))?
        .map_err(tool_set_error)?;
    state.sources()?.record_wasm_report(report);
    wasm_view(state)
}

fn wasm_view(state: &AppState) -> Result<WasmToolsView, CommandError> {
    let sources = state.sources()?;
    let wasm = wasm_set(state)?;
    let tools: Vec<(PathBuf, WasmToolView)> = wasm
        .tool_ids()
        .into_iter()
        .filter_map(|id| {
            let manifest = wasm.file_of(&id)?;
            let registered = wasm.registry().get(&id)?;
            let view = WasmToolView {
                name: registered.name.clone(),
                manifest: manifest.display().to_string(),
                methods: registered.methods.len(),
                id,
            };
            Some((manifest, view))
        })
        .collect();
    let directories = wasm
        .directories()
        .into_iter()
        .map(|directory| WasmDirectoryView {
            tools: tools
                .iter()
                .filter(|(manifest, _)| is_inside(manifest, &directory))
                .map(|(_, tool)| tool.clone())
                .collect(),
            path: directory.display().to_string(),
        })
        .collect();
    let report = sources
        .wasm_report
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let pending: Vec<WasmPendingGrants> = wasm
        .pending()
        .into_iter()
        .map(|p| WasmPendingGrants {
            tool_id: p.tool_id,
            manifest: p.manifest.display().to_string(),
            grants: p.grants,
            key: p.key,
        })
        .collect();
    // The reload report also lists a tool waiting for approval as a `grants` problem (the CLI
    // and the watch log show it that way); here it has its own row with the Approve button.
    let waiting = |problem: &WasmToolProblem| {
        problem.field.as_deref() == Some("grants")
            && pending.iter().any(|p| p.manifest == problem.file)
    };
    Ok(WasmToolsView {
        directories,
        problems: report
            .problems
            .into_iter()
            .map(|p| WasmToolProblem {
                file: p.file.display().to_string(),
                field: p.field,
                message: p.message,
            })
            .filter(|problem| !waiting(problem))
            .collect(),
        pending,
    })
}

/// Whether a tool's manifest belongs to an added directory (the tool's own, or a folder of
/// tools holding it).
fn is_inside(manifest: &Path, directory: &Path) -> bool {
    let tool_directory = manifest.parent();
    tool_directory == Some(directory) || tool_directory.and_then(Path::parent) == Some(directory)
}

#[tauri::command]
#[specta::specta]
pub async fn wasm_tools(state: State<'_, AppState>) -> Result<WasmToolsView, CommandError> {
    wasm_view(&state)
}

/// Adds a directory (one tool, or a folder of tools) and loads what it holds. Tools whose
/// manifest asks for grants wait in `pending` until `wasm_approve`.
#[tauri::command]
#[specta::specta]
pub async fn wasm_add_directory(
    state: State<'_, AppState>,
    path: String,
) -> Result<WasmToolsView, CommandError> {
    change_wasm(&state, move |wasm| wasm.add_directory(Path::new(&path))).await
}

/// Removes a directory (its path as the view gives it); its tools are unregistered.
#[tauri::command]
#[specta::specta]
pub async fn wasm_remove_directory(
    state: State<'_, AppState>,
    path: String,
) -> Result<WasmToolsView, CommandError> {
    change_wasm(&state, move |wasm| wasm.remove_directory(Path::new(&path))).await
}

/// The person saw the exact grant lines and allows them (remembered for this exact list).
#[tauri::command]
#[specta::specta]
pub async fn wasm_approve(
    state: State<'_, AppState>,
    key: String,
) -> Result<WasmToolsView, CommandError> {
    change_wasm(&state, move |wasm| wasm.approve(&key)).await
}

/// Re-reads every directory now, without waiting for the watch.
#[tauri::command]
#[specta::specta]
pub async fn wasm_reload(state: State<'_, AppState>) -> Result<WasmToolsView, CommandError> {
    change_wasm(&state, |wasm| Ok(wasm.reload())).await
}

#[cfg(test)]
#[path = "wasm_sources_tests.rs"]
mod tests;
