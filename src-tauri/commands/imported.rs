//! Imported tool set commands: import (paste or file), list, read, remove, and edit a set's
//! definitions and mocks. Every change also reaches the UI as the `sources-changed` event.

use serde_json::Value;
use tauri::State;
use toolscope_imported::{Finding, Mock, SetError, SetImportReport, SetSummary, ToolSet};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

fn set_error(error: SetError) -> CommandError {
    let kind = match &error {
        SetError::Io { .. } => CommandErrorKind::Settings,
        SetError::Read(_)
        | SetError::NothingImported(_)
        | SetError::Name(_)
        | SetError::Mock(_) => CommandErrorKind::InvalidInput,
        _ => CommandErrorKind::Source,
    };
    let message = error.to_string();
    let command_error = CommandError::new(kind, message);
    match error {
        // Every refused entry, with its path, for the import dialog to list.
        SetError::NothingImported(findings) => {
            command_error.with_details(serde_json::to_value(findings).unwrap_or(Value::Null))
        }
        _ => command_error,
    }
}

/// Imports `text` (any supported shape) as the set `name`, replacing a set of that name.
#[tauri::command]
#[specta::specta]
pub async fn imported_import(
    state: State<'_, AppState>,
    name: String,
    text: String,
    origin: String,
) -> Result<SetImportReport, CommandError> {
    let sources = state.sources()?;
    let sets = sources.imported.clone();
    let report = tauri::async_runtime::spawn_blocking(move || sets.import(&name, &text, &origin))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))?
        .map_err(set_error)?;
    sources.announce_change();
    Ok(report)
}

#[tauri::command]
#[specta::specta]
pub async fn imported_sets(state: State<'_, AppState>) -> Result<Vec<SetSummary>, CommandError> {
    Ok(state.sources()?.imported.list())
}

/// One set whole: its definitions and mocks.
#[tauri::command]
#[specta::specta]
pub async fn imported_set(
    state: State<'_, AppState>,
    name: String,
) -> Result<ToolSet, CommandError> {
    state
        .sources()?
        .imported
        .get(&name)
        .ok_or_else(|| set_error(SetError::NotFound(name)))
}

#[tauri::command]
#[specta::specta]
pub async fn imported_remove(state: State<'_, AppState>, name: String) -> Result<(), CommandError> {
    let sources = state.sources()?;
    sources.imported.remove(&name).map_err(set_error)?;
    sources.announce_change();
    Ok(())
}

/// Sets (or with `null` removes) how one definition answers.
#[tauri::command]
#[specta::specta]
pub async fn imported_set_mock(
    state: State<'_, AppState>,
    name: String,
    definition: String,
    mock: Option<Mock>,
) -> Result<(), CommandError> {
    let sources = state.sources()?;
    sources
        .imported
        .set_mock(&name, &definition, mock)
        .map_err(set_error)?;
    sources.announce_change();
    Ok(())
}

/// Replaces one definition with an edited one (any importable shape); returns what the read
/// had to say about it.
#[tauri::command]
#[specta::specta]
pub async fn imported_replace_definition(
    state: State<'_, AppState>,
    name: String,
    definition: String,
    replacement: Value,
) -> Result<Vec<Finding>, CommandError> {
    let sources = state.sources()?;
    let findings = sources
        .imported
        .replace_definition(&name, &definition, &replacement)
        .map_err(set_error)?;
    sources.announce_change();
    Ok(findings)
}

#[tauri::command]
#[specta::specta]
pub async fn imported_remove_definition(
    state: State<'_, AppState>,
    name: String,
    definition: String,
) -> Result<(), CommandError> {
    let sources = state.sources()?;
    sources
        .imported
        .remove_definition(&name, &definition)
        .map_err(set_error)?;
    sources.announce_change();
    Ok(())
}
