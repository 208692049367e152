//! Settings commands: ToolCallConfig, last protocol, pane layout and theme, kept in
//! `settings.json` in the app data dir (`{"settings": {...}}`). The engine reads the config from
//! [`AppState`], which is updated whenever settings are saved, so the next run uses it.
//!
//! Every save reads the file, changes it and replaces it whole through
//! [`toolscope_engine::files::write_atomically`] under one lock: a crash mid-save leaves the
//! previous file, and two saves (a theme change, a tool toggle, the Settings view) never
//! interleave and lose one's change. (tauri-plugin-store, which kept this file before, writes in
//! place and ignores a file it cannot parse, overwriting it with the next save; TAURI-NOTES.md.)
//! A settings file that is not usable is moved aside at startup ([`set_aside_if_unusable`]) and
//! the move is shown as a startup notice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tauri::State;
use toolscope_engine::files::{set_aside, write_atomically};
use toolscope_engine::ToolCallConfig;

use crate::commands::config;
use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

const STORE_FILE: &str = "settings.json";
const SETTINGS_KEY: &str = "settings";

/// Held from reading the file to replacing it, so concurrent saves apply one after another.
static WRITING: Mutex<()> = Mutex::new(());

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
    /// The pane shown at start: discovery, parser, executor, sources, agent, metrics or settings.
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
    /// The endpoint profile that answers MCP servers' sampling requests (each approved by the
    /// person first); none declines them.
    pub sampling_profile: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            config: ToolCallConfig::default(),
            last_protocol: "vcp".to_owned(),
            layout: Layout::default(),
            theme: Theme::default(),
            sampling_profile: None,
        }
    }
}

/// Puts what the engine and the MCP client read from the settings into effect.
fn apply(state: &AppState, settings: &Settings) {
    state.set_config(settings.config.clone());
    state
        .elicitations
        .set_sampling_profile(settings.sampling_profile.clone());
}

fn settings_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::Settings, error.to_string())
}

/// The settings file of this app (in its data directory).
pub fn settings_path(state: &AppState) -> Result<PathBuf, CommandError> {
    Ok(state.data_dir()?.join(STORE_FILE))
}

/// The file's JSON object; `None` when there is no file yet.
fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, CommandError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(settings_error(format!(
                "the settings file {} could not be read: {e}",
                path.display()
            )))
        }
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        settings_error(format!(
            "the settings file {} is not a JSON object: {e}",
            path.display()
        ))
    })
}

/// Reads the settings stored at `path`; missing fields (and a missing file) take defaults. An
/// unreadable value is reported, not silently replaced.
pub fn read(path: &Path) -> Result<Settings, CommandError> {
    let Some(mut stored) = read_object(path)? else {
        return Ok(Settings::default());
    };
    match stored.remove(SETTINGS_KEY) {
        None => Ok(Settings::default()),
        Some(value) => serde_json::from_value(value).map_err(|e| {
            settings_error(format!(
                "stored settings are unreadable ({e}); using defaults"
            ))
        }),
    }
}

/// Replaces the settings at `path` in one atomic write, keeping the file's other keys. A file
/// that became unparsable since startup is moved aside first rather than overwritten.
fn write(path: &Path, settings: &Settings) -> Result<(), CommandError> {
    let mut stored = match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice::<Map<String, Value>>(&bytes) {
            Ok(stored) => stored,
            Err(_) => {
                set_aside(path, "corrupt").map_err(|e| {
                    settings_error(format!(
                        "the settings file {} is unreadable and could not be moved aside ({e}); nothing was saved",
                        path.display()
                    ))
                })?;
                Map::new()
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => {
            return Err(settings_error(format!(
                "the settings file {} could not be read ({e}); nothing was saved",
                path.display()
            )))
        }
    };
    let value = serde_json::to_value(settings).map_err(settings_error)?;
    stored.insert(SETTINGS_KEY.to_owned(), value);
    let bytes = serde_json::to_vec_pretty(&stored).map_err(settings_error)?;
    write_atomically(path, &bytes).map_err(|e| {
        settings_error(format!(
            "the settings could not be saved to {} ({e}); nothing was changed",
            path.display()
        ))
    })
}

/// Reads the stored settings, lets `change` edit them (it may refuse), writes them and applies
/// the config to the engine: all under one lock, and nothing written or applied on a refusal.
/// Stored settings that cannot be read are not guessed at: the change is refused.
pub fn update(
    state: &AppState,
    change: impl FnOnce(&mut Settings) -> Result<(), CommandError>,
) -> Result<Settings, CommandError> {
    let path = settings_path(state)?;
    let _writing = lock(&WRITING);
    let mut settings = read(&path)?;
    change(&mut settings)?;
    write(&path, &settings)?;
    apply(state, &settings);
    Ok(settings)
}

/// Stores `settings` whole and applies the config (what `save_settings` does).
pub fn replace(state: &AppState, settings: Settings) -> Result<Settings, CommandError> {
    let path = settings_path(state)?;
    let _writing = lock(&WRITING);
    write(&path, &settings)?;
    apply(state, &settings);
    Ok(settings)
}

/// Moves the settings file at `path` aside (`settings.json.corrupt-<unix ms>`) if it cannot be
/// used: not a JSON object, or settings of the wrong shape. Returns the notice that tells the
/// user, if there is anything to tell. A missing file is fine (first start).
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
    // The shape `read` expects: one JSON object of keys to values.
    let problem = match serde_json::from_slice::<Map<String, Value>>(&bytes) {
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
    Some(match set_aside(path, "corrupt") {
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

/// Applies the stored settings to the engine at startup (after [`AppState::start`]), after
/// setting aside a settings file that cannot be used.
pub fn apply_stored(state: &AppState) {
    let path = match settings_path(state) {
        Ok(path) => path,
        Err(e) => {
            lock(&state.notices).push(format!(
                "The settings file could not be located ({}); the default settings are used.",
                e.message
            ));
            return;
        }
    };
    if let Some(notice) = set_aside_if_unusable(&path) {
        lock(&state.notices).push(notice);
    }
    match read(&path) {
        Ok(settings) => apply(state, &settings),
        Err(error) => lock(&state.notices).push(error.message),
    }
}

/// Problems of `settings` by field (`config.timeout_ms`, `layout.discovery_split`, ...).
fn problems(settings: &Settings) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, String> = config::field_problems(&settings.config)
        .into_iter()
        .map(|(field, problem)| (format!("config.{field}"), problem))
        .collect();
    if !(0.2..=0.8).contains(&settings.layout.discovery_split) {
        found.insert(
            "layout.discovery_split".to_owned(),
            "must be between 0.2 and 0.8".to_owned(),
        );
    }
    found
}

fn validate(settings: &Settings) -> Result<(), CommandError> {
    config::refuse_problems(problems(settings))
}

#[tauri::command]
#[specta::specta]
pub async fn get_settings(state: State<'_, AppState>) -> Result<Settings, CommandError> {
    read(&settings_path(&state)?)
}

/// Validates, stores and applies settings; returns what was stored.
#[tauri::command]
#[specta::specta]
pub async fn save_settings(
    state: State<'_, AppState>,
    settings: Settings,
) -> Result<Settings, CommandError> {
    validate(&settings)?;
    replace(&state, settings)
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
