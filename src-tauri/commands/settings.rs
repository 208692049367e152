//! Settings commands: ToolCallConfig, last protocol, pane layout and theme, kept in
//! tauri-plugin-store (`settings.json` in the app data dir). The engine reads the config from
//! [`AppState`], which is updated whenever settings are saved.

use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_store::StoreExt;
use toolscope_engine::ToolCallConfig;

use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

const STORE_FILE: &str = "settings.json";
const SETTINGS_KEY: &str = "settings";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Follow the operating system.
    #[default]
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct Layout {
    /// The pane shown at start: discovery, parser, executor or sources.
    pub active_pane: String,
    /// Width of the Discovery list as a fraction of the window (0.2 – 0.8).
    pub discovery_split: f64,
    /// Executor argument editor: form or json.
    pub executor_mode: String,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            active_pane: "discovery".to_owned(),
            discovery_split: 0.4,
            executor_mode: "form".to_owned(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct Settings {
    pub config: ToolCallConfig,
    pub last_protocol: String,
    pub layout: Layout,
    pub theme: Theme,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            config: ToolCallConfig::default(),
            last_protocol: "vcp".to_owned(),
            layout: Layout::default(),
            theme: Theme::default(),
        }
    }
}

fn settings_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::Settings, error.to_string())
}

/// Reads the stored settings; missing fields take defaults. An unreadable value is reported
/// (not silently replaced) and defaults are used until the next save.
pub fn load<R: Runtime>(app: &AppHandle<R>) -> Result<Settings, CommandError> {
    let store = app.store(STORE_FILE).map_err(settings_error)?;
    match store.get(SETTINGS_KEY) {
        None => Ok(Settings::default()),
        Some(value) => serde_json::from_value(value).map_err(|e| {
            settings_error(format!(
                "stored settings are unreadable ({e}); using defaults"
            ))
        }),
    }
}

/// Applies the stored settings to the engine at startup.
pub fn apply_stored<R: Runtime>(app: &AppHandle<R>, state: &AppState) {
    match load(app) {
        Ok(settings) => state.set_config(settings.config),
        Err(error) => lock(&state.notices).push(error.message),
    }
}

fn validate(settings: &Settings) -> Result<(), CommandError> {
    let config = &settings.config;
    let problems: Vec<&str> = [
        (config.timeout_ms == 0, "timeout_ms must be at least 1"),
        (
            config.max_tool_output_bytes == 0,
            "max_tool_output_bytes must be at least 1",
        ),
        (
            config.max_total_tool_calls == 0,
            "max_total_tool_calls must be at least 1",
        ),
        (
            !(0.2..=0.8).contains(&settings.layout.discovery_split),
            "layout.discovery_split must be between 0.2 and 0.8",
        ),
    ]
    .into_iter()
    .filter_map(|(bad, message)| bad.then_some(message))
    .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CommandError::new(
            CommandErrorKind::InvalidInput,
            problems.join("; "),
        ))
    }
}

#[tauri::command]
#[specta::specta]
pub async fn get_settings(app: AppHandle) -> Result<Settings, CommandError> {
    load(&app)
}

/// Validates, stores and applies settings; returns what was stored.
#[tauri::command]
#[specta::specta]
pub async fn save_settings(
    app: AppHandle,
    state: State<'_, AppState>,
    settings: Settings,
) -> Result<Settings, CommandError> {
    validate(&settings)?;
    let store = app.store(STORE_FILE).map_err(settings_error)?;
    let value = serde_json::to_value(&settings).map_err(settings_error)?;
    store.set(SETTINGS_KEY, value);
    store.save().map_err(settings_error)?;
    state.set_config(settings.config.clone());
    Ok(settings)
}

/// Problems found at startup that the user should see once (and then they are cleared).
#[tauri::command]
#[specta::specta]
pub async fn startup_notices(state: State<'_, AppState>) -> Result<Vec<String>, CommandError> {
    Ok(std::mem::take(&mut *lock(&state.notices)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_settings_fill_defaults_and_validate() {
        let settings: Settings = serde_json::from_value(
            serde_json::json!({"theme": "dark", "config": {"timeout_ms": 5}}),
        )
        .expect("partial settings");
        assert_eq!(settings.theme, Theme::Dark);
        assert_eq!(settings.config.timeout_ms, 5);
        assert_eq!(settings.last_protocol, "vcp");
        assert!(validate(&settings).is_ok());
        let mut bad = settings;
        bad.config.timeout_ms = 0;
        bad.layout.discovery_split = 0.95;
        let error = validate(&bad).expect_err("invalid");
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert!(error.message.contains("timeout_ms") && error.message.contains("discovery_split"));
    }
}
