//! The Settings view's commands: every `ToolCallConfig` field as a form shows it (stored value,
//! default, accepted range) and a save that checks every field before anything is written.
//!
//! Why a pair of its own beside `get_settings` / `save_settings`: those take the whole settings
//! as the UI last read them, so a form open for a while would overwrite a theme or a tool toggle
//! another pane saved meanwhile. `config_save` takes only the fields the person changed, applies
//! them to the config as stored now, inside the settings module's read-change-write lock, and
//! refuses with one message per bad field (`details.fields`), so the form can show each next to
//! its field. A refused save writes nothing and leaves the running config as it was; an
//! accepted one is applied at once (the executor reads the config at the start of every run).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};
use tauri::State;
use toolscope_engine::ToolCallConfig;

use crate::commands::settings;
use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// The range a whole-number field accepts, inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct NumberLimit {
    /// The `ToolCallConfig` field (`timeout_ms`, ...).
    pub field: String,
    pub min: u64,
    pub max: u64,
}

/// What the Settings view needs to show and check the config.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ConfigForm {
    /// The stored config, every field filled (defaults where the file says nothing).
    pub config: ToolCallConfig,
    /// What "reset to default" sets a field to.
    pub defaults: ToolCallConfig,
    /// Ranges of the whole-number fields, checked again on save.
    pub limits: Vec<NumberLimit>,
    /// The formats `protocol` may name: the built-in ones and the declared ones.
    pub protocols: Vec<String>,
    /// The settings file, for people who want to look at it.
    pub path: String,
}

/// One day: a call allowed to run longer is better cancelled by hand.
const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;
/// Every result is kept whole in the history and shown in the app; past this both suffer.
const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;
const MAX_CALLS: u64 = 10_000;
const MAX_ITERATIONS: u64 = 1_000;

/// The whole-number fields with their ranges, in the order the form shows them.
fn limits() -> Vec<NumberLimit> {
    [
        ("timeout_ms", 1, MAX_TIMEOUT_MS),
        ("max_tool_output_bytes", 1, MAX_OUTPUT_BYTES),
        ("max_total_tool_calls", 1, MAX_CALLS),
        ("max_iterations", 1, MAX_ITERATIONS),
    ]
    .into_iter()
    .map(|(field, min, max)| NumberLimit {
        field: field.to_owned(),
        min,
        max,
    })
    .collect()
}

fn number(config: &ToolCallConfig, field: &str) -> Option<u64> {
    match field {
        "timeout_ms" => Some(config.timeout_ms),
        "max_tool_output_bytes" => Some(config.max_tool_output_bytes),
        "max_total_tool_calls" => Some(u64::from(config.max_total_tool_calls)),
        "max_iterations" => Some(u64::from(config.max_iterations)),
        _ => None,
    }
}

/// Problems of `config`'s fields that do not depend on the app's state, by field name; empty
/// when there are none. `save_settings` applies the same checks.
pub fn field_problems(config: &ToolCallConfig) -> BTreeMap<String, String> {
    let mut problems = BTreeMap::new();
    for limit in limits() {
        let Some(value) = number(config, &limit.field) else {
            continue;
        };
        if !(limit.min..=limit.max).contains(&value) {
            problems.insert(
                limit.field,
                format!("must be between {} and {}", limit.min, limit.max),
            );
        }
    }
    if config.protocol.trim().is_empty() {
        problems.insert("protocol".to_owned(), "must name a format".to_owned());
    }
    if config.tool_toggles.keys().any(|id| id.trim().is_empty()) {
        problems.insert(
            "tool_toggles".to_owned(),
            "a tool id may not be empty".to_owned(),
        );
    }
    problems
}

/// `Ok` when there are no problems, else an `invalid_input` error that names every field in its
/// message and maps each to its problem in `details.fields`.
pub fn refuse_problems(problems: BTreeMap<String, String>) -> Result<(), CommandError> {
    if problems.is_empty() {
        return Ok(());
    }
    let message = problems
        .iter()
        .map(|(field, problem)| format!("{field} {problem}"))
        .collect::<Vec<_>>()
        .join("; ");
    Err(CommandError::new(CommandErrorKind::InvalidInput, message)
        .with_details(json!({ "fields": problems })))
}

/// The form for the config stored now.
fn form(state: &AppState, config: ToolCallConfig) -> Result<ConfigForm, CommandError> {
    Ok(ConfigForm {
        config,
        defaults: ToolCallConfig::default(),
        limits: limits(),
        protocols: state
            .protocols()
            .ids()
            .into_iter()
            .map(str::to_owned)
            .collect(),
        path: settings::settings_path(state)?.display().to_string(),
    })
}

/// `stored` with `changes` (field name to new value) applied, and the problems of the changes:
/// names that are no field, values of the wrong type. A field with a problem keeps its stored
/// value. Fields are read one by one so each problem is named by its field.
pub fn apply_changes(
    stored: &ToolCallConfig,
    changes: &Map<String, Value>,
) -> (ToolCallConfig, BTreeMap<String, String>) {
    let mut merged = match serde_json::to_value(stored) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    let ranges = limits();
    let mut problems = BTreeMap::new();
    for (field, value) in changes {
        if !merged.contains_key(field) {
            problems.insert(field.clone(), "is not a setting".to_owned());
            continue;
        }
        let alone = Value::Object(Map::from_iter([(field.clone(), value.clone())]));
        if let Err(e) = serde_json::from_value::<ToolCallConfig>(alone) {
            let problem = match ranges.iter().find(|l| &l.field == field) {
                Some(l) => format!("must be a whole number between {} and {}", l.min, l.max),
                None => format!("has the wrong type ({e})"),
            };
            problems.insert(field.clone(), problem);
            continue;
        }
        merged.insert(field.clone(), value.clone());
    }
    match serde_json::from_value(Value::Object(merged)) {
        Ok(config) => (config, problems),
        Err(e) => {
            problems.insert("config".to_owned(), format!("cannot be read: {e}"));
            (stored.clone(), problems)
        }
    }
}

/// Applies `changes` to the stored config, checks the result whole, then stores and applies it.
pub fn save(state: &AppState, changes: &Map<String, Value>) -> Result<ConfigForm, CommandError> {
    let known = state.protocols();
    let stored = settings::update(state, |settings| {
        let (config, mut problems) = apply_changes(&settings.config, changes);
        for (field, problem) in field_problems(&config) {
            problems.entry(field).or_insert(problem);
        }
        // Checked only when it changes: a format that was declared and then removed stays
        // acceptable until then, so the other fields can still be saved.
        let unknown = changes.contains_key("protocol")
            && !problems.contains_key("protocol")
            && known.get(&config.protocol).is_none();
        if unknown {
            problems.insert(
                "protocol".to_owned(),
                format!(
                    "'{}' is not a known format (known: {})",
                    config.protocol,
                    known.ids().join(", ")
                ),
            );
        }
        refuse_problems(problems)?;
        settings.config = config;
        Ok(())
    })?;
    form(state, stored.config)
}

/// The config as the Settings view edits it: stored values, defaults, ranges and formats.
#[tauri::command]
#[specta::specta]
pub async fn config_load(state: State<'_, AppState>) -> Result<ConfigForm, CommandError> {
    let stored = settings::read(&settings::settings_path(&state)?)?;
    form(&state, stored.config)
}

/// Sets the given config fields (name to value; the others keep their stored values), checks
/// the result, then stores and applies it. Refused as `invalid_input` with `details.fields`
/// (field to problem) when any field is wrong, and then nothing is saved.
#[tauri::command]
#[specta::specta]
pub async fn config_save(
    state: State<'_, AppState>,
    changes: Map<String, Value>,
) -> Result<ConfigForm, CommandError> {
    save(&state, &changes)
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
