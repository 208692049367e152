//! Elicitation commands: what MCP servers are asking the person right now (values for a form,
//! or approval of a sampling request), and the person's answer (accept with values, decline,
//! cancel). The `elicitations-changed` event says when to read again; [`crate::elicitations`]
//! explains the flow. Also where sampling requests go: `set_sampling_profile`.

use tauri::State;
use toolscope_mcp::ElicitationAnswer;

use crate::commands::settings::{self, Settings};
use crate::elicitations::PendingElicitation;
use crate::error::{CommandError, CommandErrorKind};
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

/// Chooses the endpoint profile that answers MCP sampling requests (each still approved by the
/// person), or none to decline them. An unknown profile is refused and nothing is stored.
#[tauri::command]
#[specta::specta]
pub async fn set_sampling_profile(
    state: State<'_, AppState>,
    profile: Option<String>,
) -> Result<Settings, CommandError> {
    choose_sampling_profile(&state, profile)
}

pub(crate) fn choose_sampling_profile(
    state: &AppState,
    profile: Option<String>,
) -> Result<Settings, CommandError> {
    if let Some(name) = &profile {
        let known = state
            .profiles()?
            .list()
            .map_err(|e| CommandError::new(CommandErrorKind::Settings, e.to_string()))?
            .iter()
            .any(|p| &p.name == name);
        if !known {
            return Err(CommandError::new(
                CommandErrorKind::InvalidInput,
                format!("no endpoint profile '{name}': add it in the Agent pane first"),
            ));
        }
    }
    settings::update(state, |settings| {
        settings.sampling_profile = profile;
        Ok(())
    })
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
