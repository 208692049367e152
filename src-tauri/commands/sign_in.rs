//! Signing in to MCP servers that require authorization: the person starts it (the app never
//! opens a browser by itself), can sign out, and can read every step of the last sign-in to
//! find out why a server refuses. Status changes reach the UI as `sources-changed`.

use tauri::State;
use toolscope_mcp::oauth::trace::SignInStep;
use toolscope_mcp::SourceState;

use super::sources::source_error;
use crate::error::CommandError;
use crate::state::AppState;

/// Connects the server allowing its sign-in page to open in the browser; returns once the
/// sign-in ended (signed in, refused, or timed out after five minutes).
#[tauri::command]
#[specta::specta]
pub async fn mcp_sign_in(
    state: State<'_, AppState>,
    name: String,
) -> Result<SourceState, CommandError> {
    state
        .sources()?
        .mcp
        .sign_in(&name)
        .await
        .map_err(source_error)
}

/// Gives up a sign-in that waits for the browser (the page was closed, or the person changed
/// their mind); the pending `mcp_sign_in` then returns with "sign in required".
#[tauri::command]
#[specta::specta]
pub async fn mcp_cancel_sign_in(
    state: State<'_, AppState>,
    name: String,
) -> Result<(), CommandError> {
    state
        .sources()?
        .mcp
        .cancel_sign_in(&name)
        .map_err(source_error)
}

/// Forgets the server's stored sign-in and connects it again without one.
#[tauri::command]
#[specta::specta]
pub async fn mcp_sign_out(
    state: State<'_, AppState>,
    name: String,
) -> Result<SourceState, CommandError> {
    state
        .sources()?
        .mcp
        .sign_out(&name)
        .await
        .map_err(source_error)
}

/// The steps of the server's last sign-in and the refreshes since, secrets masked.
#[tauri::command]
#[specta::specta]
pub async fn mcp_sign_in_steps(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<SignInStep>, CommandError> {
    state
        .sources()?
        .mcp
        .sign_in_steps(&name)
        .map_err(source_error)
}
