//! The WASM tool commands against real modules (WAT compiled to `.wasm` in temp dirs) in an
//! app started on a temp data dir: a folder of tools added, listed and called through the
//! registry, a broken manifest reported by file and field, grants waiting for their exact
//! approval (remembered across a restart), a directory removed, and the refusals.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_protocol::request::ParsedToolRequest;

use super::*;
use crate::state::lock;

/// A module with memory, a bump `alloc`, a no-op `free` and `echo` (returns its arguments,
/// asking for a larger buffer when needed): seed 002's ABI at its smallest.
const ECHO_MODULE: &str = include_str!("../../tests/fixtures/wasm/echo.wat");

/// A manifest for tool `id` whose methods all call `echo`; `extra` is appended as TOML.
fn manifest(id: &str, methods: &[&str], extra: &str) -> String {
    let mut text = format!(
        "id = \"{id}\"\nname = \"Tool {id}\"\ndescription = \"a test tool\"\nmodule = \"tool.wasm\"\n{extra}\n"
    );
    for (index, name) in methods.iter().enumerate() {
        let export = if index == 0 && name.starts_with("broken") {
            "missing"
        } else {
            "echo"
        };
        text.push_str(&format!(
            "\n[[methods]]\nname = \"{name}\"\nexport = \"{export}\"\nannotations = {{ read_only = true }}\n"
        ));
    }
    text
}

/// Writes `<parent>/<id>/{manifest.toml, tool.wasm}`.
fn tool_dir(parent: &Path, id: &str, manifest_text: &str) -> PathBuf {
    let dir = parent.join(id);
    std::fs::create_dir_all(&dir).expect("tool dir");
    std::fs::write(dir.join("manifest.toml"), manifest_text).expect("manifest");
    let module = wat::parse_str(ECHO_MODULE).expect("valid WAT");
    std::fs::write(dir.join("tool.wasm"), module).expect("module");
    dir
}

fn started(data_dir: &Path) -> Arc<AppState> {
    let state = Arc::new(AppState::default());
    state.start(Ok(data_dir));
    state
}

fn canonical(path: &Path) -> String {
    std::fs::canonicalize(path)
        .expect("canonical path")
        .display()
        .to_string()
}

async fn add(state: &AppState, path: &Path) -> Result<WasmToolsView, CommandError> {
    let path = path.to_owned();
    change_wasm(state, move |wasm| wasm.add_directory(&path)).await
}

async fn remove(state: &AppState, path: &str) -> Result<WasmToolsView, CommandError> {
    let path = PathBuf::from(path);
    change_wasm(state, move |wasm| wasm.remove_directory(&path)).await
}

async fn approve(state: &AppState, key: &str) -> Result<WasmToolsView, CommandError> {
    let key = key.to_owned();
    change_wasm(state, move |wasm| wasm.approve(&key)).await
}

async fn reload(state: &AppState) -> WasmToolsView {
    change_wasm(state, |wasm| Ok(wasm.reload()))
        .await
        .expect("reloads")
}

/// The view once `check` holds: the directory watch may store its own (equal or older) reload
/// report around a command's, and its next poll brings the latest.
async fn eventually(state: &AppState, check: impl Fn(&WasmToolsView) -> bool) -> WasmToolsView {
    let mut view = wasm_view(state).expect("view");
    for _ in 0..100 {
        if check(&view) {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        view = wasm_view(state).expect("view");
    }
    panic!("the view never got there: {view:?}");
}

async fn call(state: &AppState, routing_name: &str, args: Value) -> (bool, String) {
    let executor = Executor::new(
        Arc::clone(&state.registry),
        ExecutorOptions {
            timeout: Duration::from_secs(10),
            ..ExecutorOptions::default()
        },
    );
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let result = executor
        .execute(
            &ParsedToolRequest::manual(routing_name, args),
            &CancellationToken::new(),
        )
        .await;
    (result.is_success(), result.result)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_of_tools_is_listed_saved_and_its_methods_run() {
    let data = tempfile::tempdir().expect("data dir");
    let tools = tempfile::tempdir().expect("tools dir");
    let manifest_path = tool_dir(
        tools.path(),
        "echoer",
        &manifest("echoer", &["echo", "again"], ""),
    )
    .join("manifest.toml");
    let state = started(data.path());
    assert_eq!(
        wasm_view(&state).expect("view"),
        WasmToolsView {
            directories: vec![],
            problems: vec![],
            pending: vec![],
        }
    );

    let view = add(&state, tools.path()).await.expect("adds");
    assert_eq!(
        view.directories,
        [WasmDirectoryView {
            path: canonical(tools.path()),
            tools: vec![WasmToolView {
                id: "echoer".to_owned(),
                name: "Tool echoer".to_owned(),
                manifest: canonical(&manifest_path),
                methods: 2,
            }],
        }]
    );
    assert!(view.pending.is_empty(), "{view:?}");
    let (ok, result) = call(&state, "echoer_again", json!({"text": "a1b22"})).await;
    assert!(ok, "{result}");
    assert_eq!(
        serde_json::from_str::<Value>(&result).expect("JSON"),
        json!({"text": "a1b22"})
    );

    // Adding it again changes nothing; the list is saved in the data dir.
    let again = add(&state, tools.path()).await.expect("adds again");
    assert_eq!(again.directories, view.directories);
    let saved = std::fs::read_to_string(data.path().join("wasm-tools.json")).expect("saved");
    assert!(
        saved.contains(&canonical(tools.path())),
        "wasm-tools.json: {saved}"
    );
    // The whole view crosses IPC with the names the UI reads.
    let ipc = serde_json::to_value(&again).expect("serialises");
    assert_eq!(ipc["directories"][0]["tools"][0]["methods"], 2);
    assert_eq!(ipc["directories"][0]["tools"][0]["id"], "echoer");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_tool_is_a_problem_with_its_file_and_field_and_the_others_load() {
    let data = tempfile::tempdir().expect("data dir");
    let tools = tempfile::tempdir().expect("tools dir");
    tool_dir(tools.path(), "good", &manifest("good", &["echo"], ""));
    let broken = tool_dir(tools.path(), "bad", &manifest("bad", &["brokenmethod"], ""))
        .join("manifest.toml");
    let state = started(data.path());

    add(&state, tools.path()).await.expect("adds");
    let view = eventually(&state, |view| !view.problems.is_empty()).await;
    assert_eq!(
        view.problems,
        [WasmToolProblem {
            file: canonical(&broken),
            field: Some("methods[0].export".to_owned()),
            message: view.problems[0].message.clone(),
        }]
    );
    assert!(
        view.problems[0]
            .message
            .contains("does not export a function named 'missing'"),
        "{:?}",
        view.problems
    );
    let ids: Vec<&str> = view.directories[0]
        .tools
        .iter()
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(ids, ["good"]);
    assert!(state.registry.get("bad").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn grants_wait_for_approval_of_their_exact_lines_which_is_remembered() {
    let data = tempfile::tempdir().expect("data dir");
    let tools = tempfile::tempdir().expect("tools dir");
    let tool = tool_dir(
        tools.path(),
        "granted",
        &manifest(
            "granted",
            &["echo"],
            "[grants]\nenv = [\"TOOLSCOPE_WASM_TEST\"]",
        ),
    );
    {
        let state = started(data.path());
        let view = add(&state, &tool).await.expect("adds");
        assert_eq!(view.directories[0].tools, []);
        assert_eq!(view.pending.len(), 1, "{view:?}");
        let pending = &view.pending[0];
        assert_eq!(pending.tool_id, "granted");
        assert_eq!(pending.manifest, canonical(&tool.join("manifest.toml")));
        assert_eq!(
            pending.grants,
            ["read the environment variable TOOLSCOPE_WASM_TEST"]
        );
        assert!(state.registry.get("granted").is_none());
        // Shown once, as a pending row: not also as a `grants` problem of the reload report.
        let waiting = reload(&state).await;
        assert_eq!(waiting.pending.len(), 1, "{waiting:?}");
        assert_eq!(waiting.problems, [], "{waiting:?}");

        let refused = approve(&state, "granted\nread everything")
            .await
            .expect_err("only a pending key");
        assert_eq!(refused.kind, CommandErrorKind::Source);

        let view = approve(&state, &pending.key).await.expect("approves");
        assert!(view.pending.is_empty(), "{view:?}");
        assert_eq!(view.directories[0].tools[0].id, "granted");
        assert!(state.registry.get("granted").is_some());
    }

    // Another start on the same data dir: the directory and the approval are still there.
    let state = started(data.path());
    let view = reload(&state).await;
    assert!(view.pending.is_empty(), "{view:?}");
    assert_eq!(view.directories.len(), 1);
    assert_eq!(view.directories[0].tools[0].id, "granted");
}

#[tokio::test(flavor = "multi_thread")]
async fn removing_a_directory_unregisters_its_tools_and_bad_paths_are_refused() {
    let data = tempfile::tempdir().expect("data dir");
    let tools = tempfile::tempdir().expect("tools dir");
    let tool = tool_dir(tools.path(), "echoer", &manifest("echoer", &["echo"], ""));
    let state = started(data.path());
    let view = add(&state, &tool).await.expect("adds");
    assert_eq!(view.directories[0].tools[0].id, "echoer");
    let path = view.directories[0].path.clone();

    let view = remove(&state, &path).await.expect("removes");
    assert!(view.directories.is_empty(), "{view:?}");
    assert!(state.registry.get("echoer").is_none());

    let unknown = remove(&state, &path).await.expect_err("already gone");
    assert_eq!(unknown.kind, CommandErrorKind::Source);
    assert_eq!(unknown.details, Some(json!({ "path": path })));

    let file = add(&state, &tool.join("manifest.toml"))
        .await
        .expect_err("a file is not a directory");
    assert_eq!(file.kind, CommandErrorKind::InvalidInput);
    assert!(file.message.contains("is not a directory"), "{file:?}");
    let missing = add(&state, &tools.path().join("nowhere"))
        .await
        .expect_err("no such directory");
    assert_eq!(missing.kind, CommandErrorKind::InvalidInput);
}

#[test]
fn an_unreadable_settings_file_is_set_aside_with_a_startup_notice() {
    let data = tempfile::tempdir().expect("data dir");
    std::fs::write(data.path().join("wasm-tools.json"), "{\"directories\": [").expect("writes");
    let state = AppState::default();
    state.start(Ok(data.path()));
    let notices = lock(&state.notices).clone();
    let notice = notices
        .iter()
        .find(|n| n.starts_with("WASM tools: "))
        .unwrap_or_else(|| panic!("no WASM notice in {notices:?}"));
    assert!(notice.contains("moved to"), "{notice}");
    assert!(state.sources().expect("open").wasm.is_some());
}
