//! Settings commands: ToolCallConfig, last protocol, pane layout and theme, kept in
//! tauri-plugin-store (`settings.json` in the app data dir). The engine reads the config from
//! [`AppState`], which is updated whenever settings are saved.
//!
//! The store ignores a file it cannot parse and overwrites it with the next save
//! (TAURI-NOTES.md), so at startup a settings file that is not usable is moved aside first
//! ([`set_aside_if_unusable`]) and the move is shown as a startup notice.

use std::path::Path;

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
    /// The pane shown at start: discovery, parser, executor, sources or agent.
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

/// Moves the settings file at `path` aside (`settings.json.corrupt-<unix ms>`) if the store
/// could not use it: not a JSON object, or settings of the wrong shape. Returns the notice
/// that tells the user, if there is anything to tell. A missing file is fine (first start).
pub fn set_aside_if_unusable(path: &Path) -> Option<String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(format!(
                "The settings file {} could not be read ({e}); the default settings are used.",
                path.display()
            ))
        }
    };
    // The same shape the store reads: one JSON object of keys to values.
    let problem = match serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes)
    {
        Err(e) => format!("it is not a JSON object: {e}"),
        Ok(stored) => match stored
            .get(SETTINGS_KEY)
            .cloned()
            .map(serde_json::from_value::<Settings>)
        {
            Some(Err(e)) => format!("its settings are unreadable: {e}"),
            None | Some(Ok(_)) => return None,
        },
    };
    Some(match toolscope_engine::files::set_aside(path, "corrupt") {
        Ok(aside) => format!(
            "The settings file {} could not be used ({problem}). It was moved to {} and the default settings are used.",
            path.display(),
            aside.display()
        ),
        Err(e) => format!(
            "The settings file {} could not be used ({problem}) and could not be moved aside ({e}); the default settings are used and will replace it when settings are saved.",
            path.display()
        ),
    })
}

/// Applies the stored settings to the engine at startup, after setting aside a settings file
/// the store could not use (before the store first reads it).
pub fn apply_stored<R: Runtime>(app: &AppHandle<R>, state: &AppState) {
    match tauri_plugin_store::resolve_store_path(app, STORE_FILE) {
        Ok(path) => {
            if let Some(notice) = set_aside_if_unusable(&path) {
                lock(&state.notices).push(notice);
            }
        }
        Err(e) => lock(&state.notices).push(format!(
            "The settings file could not be located ({e}); the default settings are used."
        )),
    }
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

    /// The side files next to `path`, with their contents.
    fn set_aside_files(path: &Path) -> Vec<(String, Vec<u8>)> {
        let dir = path.parent().expect("parent");
        let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().contains("settings.json.corrupt-"))
            .map(|p| {
                (
                    p.to_string_lossy().into_owned(),
                    std::fs::read(&p).expect("read"),
                )
            })
            .collect();
        found.sort();
        found
    }

    #[test]
    fn unusable_settings_files_are_set_aside_with_a_notice() {
        let garbage: &[u8] = b"{\"settings\": {\"theme\": \"dark\", \"config\": {\"timeo";
        let wrong_shape: &[u8] = br#"{"settings": {"theme": 5}}"#;
        let not_utf8: &[u8] = b"\xff\xfe{}";
        let not_an_object: &[u8] = b"[1, 2, 3]";
        for bytes in [garbage, wrong_shape, not_utf8, not_an_object, b""] {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join(STORE_FILE);
            std::fs::write(&path, bytes).expect("write");
            let notice = set_aside_if_unusable(&path).expect("a notice");
            assert!(!path.exists(), "{notice}");
            let aside = set_aside_files(&path);
            assert_eq!(aside.len(), 1, "{notice}");
            assert_eq!(aside[0].1, bytes, "the original bytes are kept");
            assert!(
                notice.contains(&path.display().to_string())
                    && notice.contains(&format!("moved to {}", aside[0].0))
                    && notice.contains("default settings are used"),
                "{notice}"
            );
        }
    }

    #[test]
    fn usable_or_missing_settings_files_are_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(STORE_FILE);
        assert_eq!(set_aside_if_unusable(&path), None, "first start: no file");
        let stored = serde_json::json!({SETTINGS_KEY: Settings::default(), "other": [1]});
        for value in [
            stored,
            serde_json::json!({}),
            serde_json::json!({"settings": {}}),
        ] {
            let text = serde_json::to_string_pretty(&value).expect("json");
            std::fs::write(&path, &text).expect("write");
            assert_eq!(set_aside_if_unusable(&path), None, "{text}");
            assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
        }
        assert!(set_aside_files(&path).is_empty());
    }

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
