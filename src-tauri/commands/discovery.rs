//! Discovery commands: the tools and methods, the protocols, the tool-definition prompt.

use serde::Serialize;
use tauri::State;
use toolscope_engine::declared_formats::FormatProblem;
use toolscope_engine::discovery::MethodFilter;
use toolscope_engine::types::ToolSource;
use toolscope_protocol::method::MethodMetadata;

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MethodView {
    pub routing_name: String,
    pub meta: MethodMetadata,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ToolView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: ToolSource,
    /// Whether the current ToolCallConfig shows this tool to a model.
    pub enabled: bool,
    pub methods: Vec<MethodView>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProtocolInfo {
    pub id: String,
    pub label: String,
}

/// Tools with their methods; `query` filters by words in names and descriptions.
#[tauri::command]
#[specta::specta]
pub async fn list_tools(
    state: State<'_, AppState>,
    query: Option<String>,
    include_non_callable: bool,
) -> Result<Vec<ToolView>, CommandError> {
    state.history()?;
    let config = state.config();
    let tools = state.discovery.discovered_methods(&MethodFilter {
        query,
        include_non_callable,
        source: None,
    });
    Ok(tools
        .into_iter()
        .map(|tool| ToolView {
            enabled: config.is_tool_enabled(&tool.tool_id),
            methods: tool
                .methods
                .iter()
                .map(|m| MethodView {
                    routing_name: m.routing_name.clone(),
                    meta: m.meta.clone(),
                })
                .collect(),
            id: tool.tool_id,
            name: tool.tool_name,
            description: tool.description,
            source: tool.source,
        })
        .collect())
}

#[tauri::command]
#[specta::specta]
pub async fn list_protocols(state: State<'_, AppState>) -> Result<Vec<ProtocolInfo>, CommandError> {
    Ok(state
        .protocols()
        .iter()
        .map(|p| ProtocolInfo {
            id: p.id().to_owned(),
            label: p.label().to_owned(),
        })
        .collect())
}

/// Declared format files (`<data dir>/formats/*.toml`) that could not be used, by file and line.
#[tauri::command]
#[specta::specta]
pub async fn format_problems(
    state: State<'_, AppState>,
) -> Result<Vec<FormatProblem>, CommandError> {
    Ok(state.format_problems())
}

/// The prompt `protocol` shows a model for the enabled tools (cached by the engine).
#[tauri::command]
#[specta::specta]
pub async fn tool_prompt(
    state: State<'_, AppState>,
    protocol: String,
) -> Result<String, CommandError> {
    state.history()?;
    state
        .discovery
        .generate_prompt(&protocol, &state.config(), Some("toolscope-app"))
        .map(|text| text.to_string())
        .map_err(|e| CommandError::new(CommandErrorKind::UnknownProtocol, e.to_string()))
}
