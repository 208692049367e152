//! Elicitation commands: what MCP servers are asking the person right now, and the person's
//! answer (accept with values, decline, cancel). The `elicitations-changed` event says when to
//! read again; [`crate::elicitations`] explains the flow.

use tauri::State;
use toolscope_mcp::ElicitationAnswer;

use crate::elicitations::PendingElicitation;
use crate::error::CommandError;
use crate::state::AppState;

/// The elicitations waiting for an answer, oldest first.
#[tauri::command]
#[specta::specta]
pub async fn elicitations_pending(
    state: State<'_, AppState>,
) -> Result<Vec<PendingElicitation>, CommandError> {
    Ok(state.elicitations.pending())
}

/// Answers one. Values that do not satisfy the requested schema are refused (`invalid_input`,
/// saying what is wrong) and the elicitation keeps waiting; false when nobody waits for it any
/// more (the server withdrew it).
#[tauri::command]
#[specta::specta]
pub async fn answer_elicitation(
    state: State<'_, AppState>,
    elicitation_id: String,
    answer: ElicitationAnswer,
) -> Result<bool, CommandError> {
    state.elicitations.answer(&elicitation_id, answer)
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
