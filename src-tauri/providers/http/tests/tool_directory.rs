//! Loading a directory of definition files into the registry: the shipped fixtures, invalid
//! files reported with their path, reload and the polling watch following added, changed,
//! disabled and deleted files, id conflicts, and saving/deleting through the set.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolscope_builtin::echo::EchoTool;
use toolscope_engine::types::ToolSource;
use toolscope_engine::Registry;
use toolscope_http::{HttpToolSet, ReloadReport, StoreError};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/http_tools")
}

fn set_over(dir: &Path) -> (Arc<Registry>, HttpToolSet) {
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::with_client(dir, Arc::clone(&registry), support::client());
    (registry, set)
}

fn definition(id: &str, description: &str, enabled: bool) -> String {
    json!({"id": id, "description": description, "enabled": enabled,
           "methods": [{"name": "get", "endpoint": {"url": "https://h.test/items"}}]})
    .to_string()
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("writes");
}

#[test]
fn the_shipped_fixtures_load_without_problems() {
    let (registry, set) = set_over(&fixtures_dir());
    let report = set.reload();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.added, ["currency_convert", "issues", "weather"]);
    assert_eq!(set.tool_ids(), report.added);
    let weather = registry.get("weather").expect("registered");
    assert_eq!(weather.source, ToolSource::Http);
    assert!(registry.resolve("weather_forecast").is_ok());
    assert!(registry.resolve("currency_convert_call").is_ok());
    assert_eq!(
        set.file_of("issues"),
        Some(fixtures_dir().join("issues.json"))
    );
}

#[test]
fn invalid_files_are_reported_with_path_and_field_and_do_not_stop_the_others() {
    let dir = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(fixtures_dir().join("invalid")).expect("fixtures") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.path().join(path.file_name().expect("name"))).expect("copy");
    }
    write(dir.path(), "good.json", &definition("good", "fine", true));
    write(dir.path(), "notes.txt", "ignored: not a definition file");
    let (registry, set) = set_over(dir.path());
    let report = set.reload();
    assert_eq!(report.added, ["good"]);
    assert_eq!(registry.tool_ids(), ["good"]);
    let shown: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    let expect = [
        (
            "host_placeholder.json",
            Some("methods[0].endpoint.url"),
            "placeholder '{host}' is in the scheme or host",
        ),
        (
            "literal_secret.toml",
            Some("methods[0].endpoint.auth"),
            "secrets are never written in the file",
        ),
        (
            "method_with_underscore.json",
            Some("methods[0].name"),
            "routing names are {toolId}_{methodName}",
        ),
        ("not_toml.toml", None, "invalid TOML"),
    ];
    assert_eq!(report.problems.len(), expect.len(), "{shown:#?}");
    for (problem, (file, field, needle)) in report.problems.iter().zip(expect) {
        assert_eq!(problem.file, dir.path().join(file));
        assert_eq!(problem.field.as_deref(), field, "{problem}");
        assert!(problem.message.contains(needle), "{problem}");
        assert!(problem
            .to_string()
            .starts_with(&dir.path().join(file).display().to_string()));
    }
    assert!(
        !shown.iter().any(|s| s.contains("sk-do-not-do-this")),
        "a literal secret is not echoed: {shown:?}"
    );
}

#[test]
fn reload_follows_added_changed_disabled_broken_and_deleted_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, set) = set_over(dir.path());
    assert_eq!(set.reload(), ReloadReport::default(), "empty directory");

    write(dir.path(), "a.json", &definition("a", "first", true));
    let report = set.reload();
    assert_eq!(report.added, ["a"]);
    let generation = registry.generation();
    let report = set.reload();
    assert!(!report.changed_registry(), "{report:?}");
    assert_eq!(
        registry.generation(),
        generation,
        "a no-op reload leaves the registry"
    );

    write(dir.path(), "a.json", &definition("a", "second", true));
    write(
        dir.path(),
        "b.toml",
        "id = \"b\"\n[[methods]]\nname = \"list\"\nendpoint = { url = \"https://h.test/\" }\n",
    );
    let report = set.reload();
    assert_eq!(
        (report.added.as_slice(), report.updated.as_slice()),
        (&["b".to_owned()][..], &["a".to_owned()][..])
    );
    assert_eq!(
        registry.get("a").map(|t| t.description.clone()).as_deref(),
        Some("second")
    );

    write(dir.path(), "a.json", &definition("a", "second", false));
    write(
        dir.path(),
        "b.toml",
        "id = \"b\"\n[[methods]]\nname = \"list_all\"\n",
    );
    let report = set.reload();
    assert_eq!(report.removed, ["a", "b"]);
    assert_eq!(report.disabled, ["a"]);
    assert_eq!(report.disabled_files, [dir.path().join("a.json")]);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(registry.tool_ids().is_empty());

    write(dir.path(), "a.json", &definition("renamed", "third", true));
    std::fs::remove_file(dir.path().join("b.toml")).expect("removes");
    let report = set.reload();
    assert_eq!(report.added, ["renamed"]);
    assert!(report.problems.is_empty());
    std::fs::remove_file(dir.path().join("a.json")).expect("removes");
    assert_eq!(set.reload().removed, ["renamed"]);
    assert!(registry.tool_ids().is_empty());
}

#[test]
fn ids_taken_by_another_file_or_a_builtin_are_problems() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, set) = set_over(dir.path());
    registry
        .register(Arc::new(EchoTool))
        .expect("registers echo");
    write(dir.path(), "m.json", &definition("dup", "m", true));
    write(
        dir.path(),
        "echo.json",
        &definition("echo", "impostor", true),
    );
    let report = set.reload();
    assert_eq!(report.added, ["dup"]);
    assert_eq!(report.problems.len(), 1);
    assert!(report.problems[0]
        .message
        .contains("already used by a registered built-in tool"));
    assert_eq!(
        registry.get("echo").map(|t| t.source),
        Some(ToolSource::Builtin)
    );

    // A file that sorts first does not take the id from the file that already has it.
    write(dir.path(), "a.json", &definition("dup", "a", true));
    let report = set.reload();
    let dup: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.field.as_deref() == Some("id") && p.message.contains("'dup'"))
        .collect();
    assert_eq!(dup.len(), 1, "{:?}", report.problems);
    assert_eq!(dup[0].file, dir.path().join("a.json"));
    assert!(dup[0].message.contains("m.json"), "{}", dup[0]);
    assert_eq!(
        registry
            .get("dup")
            .map(|t| t.description.clone())
            .as_deref(),
        Some("m")
    );
}

#[test]
fn save_and_delete_go_through_validation_and_reload() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = dir.path().join("not-yet-created");
    let (registry, set) = set_over(&tools);
    let report = set
        .save("t.json", &definition("t", "saved", true))
        .expect("saves");
    assert_eq!(report.added, ["t"]);
    let bad = set.save("u.json", r#"{"id": "u", "methods": [{"name": "x_y"}]}"#);
    match bad {
        Err(StoreError::Invalid(error)) => {
            assert_eq!(error.file(), tools.join("u.json"));
            assert!(error.to_string().contains("methods[0]"), "{error}");
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
    assert!(!tools.join("u.json").exists());
    let clash = set.save("v.json", &definition("t", "again", true));
    assert!(
        matches!(clash, Err(StoreError::DuplicateId { .. })),
        "{clash:?}"
    );
    assert_eq!(set.delete("t.json").expect("deletes").removed, ["t"]);
    assert!(registry.tool_ids().is_empty());
}

/// Waits for the next report that satisfies `wanted`.
async fn report_where(
    reports: &mut tokio::sync::watch::Receiver<ReloadReport>,
    wanted: impl Fn(&ReloadReport) -> bool,
) -> ReloadReport {
    let waited = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            reports.changed().await.expect("the watch is running");
            let report = reports.borrow_and_update().clone();
            if wanted(&report) {
                return report;
            }
        }
    })
    .await;
    waited.expect("the watch reported in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watch_picks_up_added_changed_and_deleted_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, set) = set_over(dir.path());
    let set = Arc::new(set);
    let watch = set.watch(Duration::from_millis(20));
    let mut reports = watch.reports();

    write(dir.path(), "w.json", &definition("w", "one", true));
    report_where(&mut reports, |r| r.added == ["w"]).await;
    assert!(registry.get("w").is_some());

    write(dir.path(), "w.json", &definition("w", "two, longer", true));
    report_where(&mut reports, |r| r.updated == ["w"]).await;
    assert_eq!(
        registry.get("w").map(|t| t.description.clone()).as_deref(),
        Some("two, longer")
    );

    write(dir.path(), "broken.json", "{ not json");
    let report = report_where(&mut reports, |r| !r.problems.is_empty()).await;
    assert_eq!(report.problems[0].file, dir.path().join("broken.json"));

    std::fs::remove_file(dir.path().join("w.json")).expect("removes");
    report_where(&mut reports, |r| r.removed == ["w"]).await;
    assert!(registry.get("w").is_none());
    watch.stop().await;
}

#[test]
fn a_set_with_the_default_client_and_environment_loads_too() {
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::new(fixtures_dir(), Arc::clone(&registry)).expect("client");
    assert_eq!(set.reload().added.len(), 3);
    assert_eq!(set.directory(), fixtures_dir());
}
