//! Tool source commands: MCP servers (list, add, edit, remove, approve, reconnect, import,
//! export, server output) and HTTP tool definition files (list, read, save, delete).
//! Changes also reach the UI as the `sources-changed` event.

use std::sync::Arc;

use serde::Serialize;
use tauri::State;
use toolscope_http::{HttpToolSet, ReloadReport, StoreError};
use toolscope_mcp::sources::SourceError;
use toolscope_mcp::{ImportReport, McpServerConfig, SourceState};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

pub(super) fn source_error(error: SourceError) -> CommandError {
    let kind = match error {
        SourceError::Save(_) => CommandErrorKind::Settings,
        _ => CommandErrorKind::Source,
    };
    CommandError::new(kind, error.to_string())
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_servers(state: State<'_, AppState>) -> Result<Vec<SourceState>, CommandError> {
    Ok(state.sources()?.mcp.states())
}

/// Adds a server. A command line is not started until `mcp_approve`.
#[tauri::command]
#[specta::specta]
pub async fn mcp_add(
    state: State<'_, AppState>,
    config: McpServerConfig,
) -> Result<SourceState, CommandError> {
    state.sources()?.mcp.add(config).await.map_err(source_error)
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_update(
    state: State<'_, AppState>,
    name: String,
    config: McpServerConfig,
) -> Result<SourceState, CommandError> {
    state
        .sources()?
        .mcp
        .update(&name, config)
        .await
        .map_err(source_error)
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_remove(state: State<'_, AppState>, name: String) -> Result<(), CommandError> {
    state.sources()?.mcp.remove(&name).map_err(source_error)
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_reconnect(
    state: State<'_, AppState>,
    name: String,
) -> Result<SourceState, CommandError> {
    state
        .sources()?
        .mcp
        .reconnect(&name)
        .await
        .map_err(source_error)
}

/// The user saw the exact command line and allows it to run (remembered for next time).
#[tauri::command]
#[specta::specta]
pub async fn mcp_approve(
    state: State<'_, AppState>,
    name: String,
) -> Result<SourceState, CommandError> {
    state
        .sources()?
        .mcp
        .approve(&name)
        .await
        .map_err(source_error)
}

/// Adds the servers of a Claude Desktop / Cursor / VS Code config text.
#[tauri::command]
#[specta::specta]
pub async fn mcp_import(
    state: State<'_, AppState>,
    text: String,
) -> Result<ImportReport, CommandError> {
    let sources = state.sources()?;
    let report = sources
        .mcp
        .import(&text)
        .map_err(|e| CommandError::new(CommandErrorKind::InvalidInput, e.to_string()))?;
    // The new servers only (the others keep their connections): URLs connect right away,
    // command lines wait for approval.
    let starts = report
        .servers
        .iter()
        .map(|s| sources.mcp.reconnect(&s.name));
    for started in futures_util::future::join_all(starts).await {
        started.map_err(source_error)?;
    }
    Ok(report)
}

/// The server list as `mcpServers` JSON, for other MCP clients.
#[tauri::command]
#[specta::specta]
pub async fn mcp_export(state: State<'_, AppState>) -> Result<String, CommandError> {
    let sources = state.sources()?;
    let configs: Vec<McpServerConfig> =
        sources.mcp.states().into_iter().map(|s| s.config).collect();
    serde_json::to_string_pretty(&toolscope_mcp::config::export(&configs))
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))
}

/// What the server printed on stderr and sent as log messages, oldest first.
#[tauri::command]
#[specta::specta]
pub async fn mcp_log(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<String>, CommandError> {
    state.sources()?.mcp.log(&name).map_err(source_error)
}

/// One definition file in the HTTP tool directory.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HttpToolFile {
    pub file_name: String,
    /// The tool it registered; `None` when the file has a problem or is disabled.
    pub tool_id: Option<String>,
    /// The file says `enabled = false`.
    pub disabled: bool,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HttpToolProblem {
    pub file_name: String,
    pub field: Option<String>,
    pub message: String,
}

/// The HTTP tool directory as the editor shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HttpToolsView {
    pub directory: String,
    pub files: Vec<HttpToolFile>,
    pub problems: Vec<HttpToolProblem>,
    /// Tool ids whose file says `enabled = false`.
    pub disabled: Vec<String>,
}

/// The HTTP tool directory, unless it could not be opened at startup.
fn http_set(state: &AppState) -> Result<Arc<HttpToolSet>, CommandError> {
    state.sources()?.http.clone().ok_or_else(|| {
        CommandError::new(
            CommandErrorKind::NotReady,
            "HTTP tools are unavailable (see the startup notice)",
        )
    })
}

/// Runs a file edit off the async threads, records its reload and returns the new view.
async fn edit_http(
    state: &AppState,
    edit: impl FnOnce(&HttpToolSet) -> Result<ReloadReport, StoreError> + Send + 'static,
) -> Result<HttpToolsView, CommandError> {
    let http = http_set(state)?;
    let report = tokio::task::spawn_blocking(move || edit(&http))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))?
        .map_err(store_error)?;
    state.sources()?.record_http_report(report);
    http_view(state)
}

fn http_view(state: &AppState) -> Result<HttpToolsView, CommandError> {
    let sources = state.sources()?;
    let http = http_set(state)?;
    let directory = http.directory().to_owned();
    let file_name = |path: &std::path::Path| {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let by_file: std::collections::HashMap<String, String> = http
        .tool_ids()
        .into_iter()
        .filter_map(|id| http.file_of(&id).map(|path| (file_name(&path), id)))
        .collect();
    let report = sources
        .http_report
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let disabled_files: std::collections::HashSet<String> =
        report.disabled_files.iter().map(|p| file_name(p)).collect();
    let mut files: Vec<HttpToolFile> = match std::fs::read_dir(&directory) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".json") || name.ends_with(".toml"))
            .map(|name| HttpToolFile {
                tool_id: by_file.get(&name).cloned(),
                disabled: disabled_files.contains(&name),
                file_name: name,
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    Ok(HttpToolsView {
        directory: directory.display().to_string(),
        files,
        problems: report
            .problems
            .iter()
            .map(|p| HttpToolProblem {
                file_name: file_name(&p.file),
                field: p.field.clone(),
                message: p.message.clone(),
            })
            .collect(),
        disabled: report.disabled,
    })
}

fn store_error(error: StoreError) -> CommandError {
    let kind = match error {
        StoreError::Io { .. } => CommandErrorKind::Settings,
        _ => CommandErrorKind::InvalidInput,
    };
    CommandError::new(kind, error.to_string())
}

#[tauri::command]
#[specta::specta]
pub async fn http_tools(state: State<'_, AppState>) -> Result<HttpToolsView, CommandError> {
    http_view(&state)
}

#[tauri::command]
#[specta::specta]
pub async fn http_tool_read(
    state: State<'_, AppState>,
    file_name: String,
) -> Result<String, CommandError> {
    let view = http_view(&state)?;
    toolscope_http::read_definition(std::path::Path::new(&view.directory), &file_name)
        .map_err(store_error)
}

/// Validates and writes one definition file (`name.json` or `name.toml`), then reloads.
#[tauri::command]
#[specta::specta]
pub async fn http_tool_save(
    state: State<'_, AppState>,
    file_name: String,
    text: String,
) -> Result<HttpToolsView, CommandError> {
    edit_http(&state, move |http| http.save(&file_name, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn http_tool_delete(
    state: State<'_, AppState>,
    file_name: String,
) -> Result<HttpToolsView, CommandError> {
    edit_http(&state, move |http| http.delete(&file_name)).await
}
