//! The Settings view's commands against a started app state in a temporary data directory: what
//! the form loads, a save that is applied at once and keeps the rest of the settings, a refused
//! save that names every bad field and changes nothing, and the atomic settings file.

use std::path::Path;

use serde_json::json;
use toolscope_engine::config::{CallMode, ParallelExecution};

use super::*;
use crate::commands::settings::{read, replace, Settings, Theme};

fn started() -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = AppState::default();
    state.start(Ok(dir.path()));
    settings::apply_stored(&state);
    (dir, state)
}

fn settings_file(dir: &Path) -> std::path::PathBuf {
    dir.join("settings.json")
}

/// Every file in `dir` whose name starts with `prefix`.
fn files_starting(dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(prefix))
        .collect();
    names.sort();
    names
}

fn fields(error: &CommandError) -> BTreeMap<String, String> {
    let fields = error
        .details
        .as_ref()
        .and_then(|d| d.get("fields"))
        .cloned()
        .unwrap_or(Value::Null);
    serde_json::from_value(fields).expect("details.fields maps fields to messages")
}

#[test]
fn the_form_loads_defaults_ranges_and_formats_on_a_first_start() {
    let (dir, state) = started();
    let form = form(
        &state,
        read(&settings_file(dir.path())).expect("read").config,
    )
    .expect("form");
    assert_eq!(form.config, ToolCallConfig::default());
    assert_eq!(form.defaults, ToolCallConfig::default());
    assert!(
        form.protocols.iter().any(|p| p == "vcp"),
        "{:?}",
        form.protocols
    );
    assert!(form.path.ends_with("settings.json"), "{}", form.path);
    let timeout = form
        .limits
        .iter()
        .find(|l| l.field == "timeout_ms")
        .expect("timeout range");
    assert_eq!((timeout.min, timeout.max), (1, MAX_TIMEOUT_MS));
    for limit in &form.limits {
        let default = number(&form.defaults, &limit.field).expect("a number field");
        assert!(
            (limit.min..=limit.max).contains(&default),
            "the default of {} is outside its own range",
            limit.field
        );
        // The UI holds numbers as doubles.
        assert!(limit.max < 1 << 53, "{}", limit.field);
    }
}

/// A change set as the form sends it: field name to value.
fn changes(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(fields) => fields,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn a_save_is_stored_applied_at_once_and_keeps_what_it_does_not_change() {
    let (dir, state) = started();
    // The form loaded the settings; then another pane saved a theme and a tool toggle.
    let mut others = Settings {
        theme: Theme::Dark,
        ..Settings::default()
    };
    others.config.tool_toggles.insert("echo".to_owned(), false);
    replace(&state, others).expect("theme and a toggle saved");

    let form = save(
        &state,
        &changes(json!({
            "timeout_ms": 1_500,
            "mode": "manual",
            "parallel_execution": "serial",
            "require_confirmation": true,
            "max_tool_output_bytes": 4_096,
            "max_total_tool_calls": 3,
            "max_iterations": 4,
            "strict_unknown_tool": true,
        })),
    )
    .expect("valid changes saved");
    let expected = {
        let mut config = ToolCallConfig {
            timeout_ms: 1_500,
            mode: CallMode::Manual,
            parallel_execution: ParallelExecution::Serial,
            require_confirmation: true,
            max_tool_output_bytes: 4_096,
            max_total_tool_calls: 3,
            max_iterations: 4,
            strict_unknown_tool: true,
            ..ToolCallConfig::default()
        };
        config.tool_toggles.insert("echo".to_owned(), false);
        config
    };
    assert_eq!(form.config, expected);

    // Applied: the next run's executor options come from here.
    assert_eq!(state.config(), expected);
    let options = toolscope_engine::executor::ExecutorOptions::from(&state.config());
    assert_eq!(options.timeout, std::time::Duration::from_millis(1_500));
    assert_eq!(options.schedule, ParallelExecution::Serial);

    // Stored with the theme and toggle kept, in a file written whole (no temporary left).
    let stored = read(&settings_file(dir.path())).expect("read back");
    assert_eq!(stored.config, expected);
    assert_eq!(stored.theme, Theme::Dark);
    assert!(files_starting(dir.path(), ".settings.json").is_empty());

    // What a restart applies.
    let again = AppState::default();
    again.start(Ok(dir.path()));
    settings::apply_stored(&again);
    assert_eq!(again.config(), expected);

    // Resetting the toggles is a change like any other.
    let form = save(&state, &changes(json!({"tool_toggles": {}}))).expect("reset");
    assert!(form.config.tool_toggles.is_empty());
    assert_eq!(form.config.timeout_ms, 1_500);
}

#[test]
fn a_refused_save_names_every_bad_field_and_changes_nothing() {
    let (dir, state) = started();
    save(&state, &changes(json!({"timeout_ms": 2_000}))).expect("saved");
    let good = state.config();
    let before = std::fs::read(settings_file(dir.path())).expect("stored");

    let error = save(
        &state,
        &changes(json!({
            "timeout_ms": 0,
            "max_tool_output_bytes": MAX_OUTPUT_BYTES + 1,
            "max_total_tool_calls": -3,
            "max_iterations": 1.5,
            "protocol": "no-such-format",
            "mode": "sometimes",
            "colour": "blue",
            // A good change in a refused save is not kept either.
            "require_confirmation": true,
        })),
    )
    .expect_err("refused");
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let fields = fields(&error);
    assert_eq!(
        fields.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "colour",
            "max_iterations",
            "max_tool_output_bytes",
            "max_total_tool_calls",
            "mode",
            "protocol",
            "timeout_ms"
        ]
    );
    assert_eq!(fields["timeout_ms"], "must be between 1 and 86400000");
    assert_eq!(
        fields["max_total_tool_calls"],
        "must be a whole number between 1 and 10000"
    );
    assert_eq!(fields["colour"], "is not a setting");
    assert!(
        fields["mode"].starts_with("has the wrong type"),
        "{}",
        fields["mode"]
    );
    assert!(fields["protocol"].contains("vcp"), "{}", fields["protocol"]);
    for field in fields.keys() {
        assert!(error.message.contains(field.as_str()), "{}", error.message);
    }
    assert_eq!(
        std::fs::read(settings_file(dir.path())).expect("stored"),
        before
    );
    assert_eq!(state.config(), good, "the running config is unchanged");
}

#[test]
fn a_stored_format_that_is_gone_does_not_block_other_fields() {
    let (_dir, state) = started();
    let mut stored = Settings::default();
    stored.config.protocol = "declared-then-removed".to_owned();
    replace(&state, stored).expect("stored");
    let form = save(&state, &changes(json!({"timeout_ms": 9}))).expect("saved");
    assert_eq!(form.config.timeout_ms, 9);
    assert_eq!(form.config.protocol, "declared-then-removed");
    let error = save(&state, &changes(json!({"protocol": " "}))).expect_err("blank format");
    assert_eq!(fields(&error)["protocol"], "must name a format");
    let form = save(&state, &changes(json!({"protocol": "hermes"}))).expect("known format");
    assert_eq!(form.config.protocol, "hermes");
}

#[test]
fn unreadable_stored_settings_are_not_overwritten_by_a_config_save() {
    let (dir, state) = started();
    let path = settings_file(dir.path());
    let wrong_shape = r#"{"settings": {"theme": 5}}"#;
    std::fs::write(&path, wrong_shape).expect("write");
    let error = save(&state, &changes(json!({"timeout_ms": 5}))).expect_err("refused");
    assert_eq!(error.kind, CommandErrorKind::Settings);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), wrong_shape);
}

#[test]
fn a_whole_save_sets_an_unparsable_file_aside_instead_of_overwriting_it() {
    let (dir, state) = started();
    let path = settings_file(dir.path());
    std::fs::write(&path, b"{\"settings\": {\"the").expect("write");
    replace(
        &state,
        Settings {
            theme: Theme::Light,
            ..Settings::default()
        },
    )
    .expect("saved");
    assert_eq!(read(&path).expect("read").theme, Theme::Light);
    let aside = files_starting(dir.path(), "settings.json.corrupt-");
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read(dir.path().join(&aside[0])).expect("aside"),
        b"{\"settings\": {\"the"
    );
}

#[test]
fn other_keys_of_the_settings_file_survive_a_save() {
    let (dir, state) = started();
    let path = settings_file(dir.path());
    std::fs::write(&path, r#"{"settings": {"theme": "dark"}, "kept": [1, 2]}"#).expect("write");
    save(&state, &changes(json!({"enabled": false}))).expect("saved");
    let text = std::fs::read_to_string(&path).expect("read");
    let value: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(value["kept"], json!([1, 2]));
    assert_eq!(value["settings"]["theme"], "dark");
    assert_eq!(value["settings"]["config"]["enabled"], false);
}

#[test]
fn commands_before_startup_say_the_app_is_not_ready() {
    let state = AppState::default();
    let error = save(&state, &Map::new()).expect_err("not started");
    assert_eq!(error.kind, CommandErrorKind::NotReady);
}
