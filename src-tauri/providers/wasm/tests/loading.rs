//! Loading tool directories: modules that do not fit the ABI and manifests with mistakes are
//! reported per file (with the field at fault) without stopping the others; grants wait for
//! approval; the watch follows edits; and the example tool, built from C in this test run,
//! works through the executor.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use support::{built_examples, executor, load, manifest, module, run, tool_dir, ECHO};
use toolscope_engine::file_tools::DefinitionProblem;
use toolscope_engine::Registry;
use toolscope_wasm::{WasmRuntime, WasmToolSet};

fn empty_set() -> (std::sync::Arc<Registry>, std::sync::Arc<WasmToolSet>) {
    let registry = std::sync::Arc::new(Registry::new());
    let runtime = WasmRuntime::new().expect("the runtime starts");
    let set = std::sync::Arc::new(WasmToolSet::new(std::sync::Arc::clone(&registry), runtime));
    (registry, set)
}

fn problem_for<'a>(problems: &'a [DefinitionProblem], tool: &str) -> &'a DefinitionProblem {
    problems
        .iter()
        .find(|p| p.file.parent().and_then(Path::file_name) == Some(tool.as_ref()))
        .unwrap_or_else(|| panic!("no problem reported for {tool}: {problems:?}"))
}

#[test]
fn modules_that_do_not_fit_the_abi_are_problems_and_the_good_tool_loads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let echo = [("echo", "echo")];
    tool_dir(
        dir.path(),
        "good",
        &manifest("good", &echo, ""),
        &module(ECHO),
    );
    tool_dir(
        dir.path(),
        "noexport",
        &manifest("noexport", &[("run", "missing")], ""),
        &module(ECHO),
    );
    let wrong = r#"(func (export "wrong") (param i32) (result i32) (i32.const 0))"#;
    tool_dir(
        dir.path(),
        "wrongsig",
        &manifest("wrongsig", &[("run", "wrong")], ""),
        &module(wrong),
    );
    let no_alloc = r#"(module (memory (export "memory") 1)
        (func (export "echo") (param i32 i32 i32 i32) (result i32) (i32.const 0)))"#;
    tool_dir(
        dir.path(),
        "noalloc",
        &manifest("noalloc", &echo, ""),
        no_alloc,
    );
    let no_memory = r#"(module (func (export "alloc") (param i32) (result i32) (i32.const 0))
        (func (export "echo") (param i32 i32 i32 i32) (result i32) (i32.const 0)))"#;
    tool_dir(
        dir.path(),
        "nomemory",
        &manifest("nomemory", &echo, ""),
        no_memory,
    );
    let foreign = module(&format!(
        r#"{ECHO}(func $f (import "env" "host_secret") (result i32))"#
    ));
    // Imports must come first in a module: move the import line to the top.
    let foreign = foreign
        .replacen(
            "(module",
            "(module (import \"env\" \"host_secret\" (func (result i32)))",
            1,
        )
        .replace(r#"(func $f (import "env" "host_secret") (result i32))"#, "");
    tool_dir(
        dir.path(),
        "foreign",
        &manifest("foreign", &echo, ""),
        &foreign,
    );
    let big = module(ECHO).replace(
        "(memory (export \"memory\") 1)",
        "(memory (export \"memory\") 200)",
    );
    tool_dir(
        dir.path(),
        "bigmemory",
        &manifest("bigmemory", &echo, "[limits]\nmax_memory_mib = 4"),
        &big,
    );
    let garbage = dir.path().join("garbage");
    std::fs::create_dir_all(&garbage).expect("dir");
    std::fs::write(
        garbage.join("manifest.toml"),
        manifest("garbage", &echo, ""),
    )
    .expect("manifest");
    std::fs::write(garbage.join("tool.wasm"), b"\0asm\x01\0\0\0\xff\xff").expect("module");

    let (registry, set) = empty_set();
    let report = set.add_directory(dir.path()).expect("adds");
    assert_eq!(report.added, ["good"]);
    assert_eq!(registry.tool_ids(), ["good"]);
    let expect = [
        (
            "noexport",
            "methods[0].export",
            "does not export a function named 'missing'",
        ),
        (
            "wrongsig",
            "methods[0].export",
            "must have the signature (args_ptr: i32",
        ),
        (
            "noalloc",
            "allocator.alloc",
            "does not export the allocator function 'alloc'",
        ),
        (
            "nomemory",
            "module",
            "does not export its memory as 'memory'",
        ),
        ("foreign", "module", "only WASI preview 1"),
        (
            "bigmemory",
            "limits.max_memory_mib",
            "starts with 13 MiB of memory, more than the cap of 4 MiB",
        ),
        ("garbage", "module", "not a valid WebAssembly module"),
    ];
    for (tool, field, text) in expect {
        let problem = problem_for(&report.problems, tool);
        assert_eq!(problem.field.as_deref(), Some(field), "{tool}: {problem}");
        assert!(problem.message.contains(text), "{tool}: {problem}");
    }
    assert_eq!(report.problems.len(), expect.len(), "{:?}", report.problems);
}

#[test]
fn manifest_mistakes_name_their_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let echo = [("echo", "echo")];
    let cases = [
        (
            "typo",
            manifest("typo", &echo, "[limits]\nmax_memory_mb = 4"),
            "limits",
            "unknown field `max_memory_mb`",
        ),
        (
            "underscore",
            manifest("underscore", &[("my_method", "echo")], ""),
            "methods[0].name",
            "'_' is not allowed",
        ),
        (
            "zero",
            manifest("zero", &echo, "[limits]\nmax_memory_mib = 0"),
            "limits.max_memory_mib",
            "between 1 and 4096",
        ),
        (
            "badid",
            manifest("bad id", &echo, ""),
            "id",
            "is not a tool id",
        ),
        (
            "nomodule",
            manifest("nomodule", &echo, "").replace("tool.wasm", "missing.wasm"),
            "module",
            "cannot read",
        ),
    ];
    for (name, text, _, _) in &cases {
        tool_dir(dir.path(), name, text, &module(ECHO));
    }
    std::fs::write(
        dir.path().join("typo/manifest.toml"),
        manifest("typo", &echo, "[limits]\nmax_memory_mb = 4"),
    )
    .expect("writes");
    let (registry, set) = empty_set();
    let report = set.add_directory(dir.path()).expect("adds");
    assert!(registry.tool_ids().is_empty());
    for (name, _, field, text) in cases {
        let problem = problem_for(&report.problems, name);
        assert!(
            problem
                .field
                .as_deref()
                .is_some_and(|f| f.starts_with(field)),
            "{name}: {problem}"
        );
        assert!(problem.message.contains(text), "{name}: {problem}");
    }
}

/// Copies the environment WASI gives the module into the output, NUL-separated.
const ENVIRON: &str = r#"
(module
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $get (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 1024))
  (func (export "alloc") (param $size i32) (result i32)
    (local $ptr i32)
    (local.set $ptr (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (i32.and (i32.add (local.get $size) (i32.const 7)) (i32.const -8))))
    (local.get $ptr))
  (func (export "env") (param i32 i32) (param $o i32) (param $l i32) (result i32)
    (local $size i32)
    (drop (call $sizes (i32.const 0) (i32.const 4)))
    (local.set $size (i32.load (i32.const 4)))
    (if (i32.gt_u (local.get $size) (i32.load (local.get $l)))
      (then (i32.store (local.get $l) (local.get $size)) (return (i32.const -28))))
    (drop (call $get (i32.const 65536) (local.get $o)))
    (i32.store (local.get $l) (local.get $size))
    (i32.const 0)))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn grants_wait_for_approval_and_only_granted_variables_reach_the_module() {
    let dir = tempfile::tempdir().expect("temp dir");
    let env = [("env", "env")];
    tool_dir(
        dir.path(),
        "granted",
        &manifest("granted", &env, "[grants]\nenv = [\"PATH\"]"),
        ENVIRON,
    );
    tool_dir(dir.path(), "plain", &manifest("plain", &env, ""), ENVIRON);
    let (registry, set) = empty_set();
    let report = set.add_directory(dir.path()).expect("adds");
    assert_eq!(report.added, ["plain"]);
    let waiting = problem_for(&report.problems, "granted");
    assert_eq!(waiting.field.as_deref(), Some("grants"));
    assert!(
        waiting
            .message
            .contains("read the environment variable PATH"),
        "{waiting}"
    );
    let pending = set.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].tool_id, "granted");
    assert!(
        set.approve("granted\nsomething else").is_err(),
        "only the exact list is approved"
    );

    let approved = set.approve(&pending[0].key).expect("approves");
    assert_eq!(approved.added, ["granted"]);
    assert!(set.pending().is_empty());
    let executor = executor(&registry, Duration::from_secs(5));
    let with_grant = run(&executor, "granted_env", json!({})).await;
    assert!(with_grant.result.starts_with("PATH="), "{with_grant:?}");
    assert!(!with_grant.result.contains("HOME="), "{with_grant:?}");
    let without = run(&executor, "plain_env", json!({})).await;
    assert!(
        without.is_success() && without.result.is_empty(),
        "{without:?}"
    );

    // Widening the list in the manifest needs a new approval.
    tool_dir(
        dir.path(),
        "granted",
        &manifest("granted", &env, "[grants]\nenv = [\"PATH\", \"HOME\"]"),
        ENVIRON,
    );
    let widened = set.reload();
    assert_eq!(widened.removed, ["granted"]);
    assert_eq!(set.pending().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watch_follows_added_changed_and_removed_tools() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, set) = empty_set();
    set.add_directory(dir.path()).expect("adds an empty folder");
    let watch = set.watch(Duration::from_millis(20));
    let mut reports = watch.reports();
    let echo = [("echo", "echo")];
    tool_dir(
        dir.path(),
        "first",
        &manifest("first", &echo, ""),
        &module(ECHO),
    );
    let wait_for = |expect: &'static str, present: bool| {
        let registry = std::sync::Arc::clone(&registry);
        async move {
            tokio::time::timeout(Duration::from_secs(10), async {
                while registry.get(expect).is_some() != present {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            })
            .await
            .unwrap_or_else(|_| panic!("{expect} present={present} never happened"));
        }
    };
    wait_for("first", true).await;
    let described = |registry: &Registry| registry.get("first").map(|t| t.description.clone());
    std::fs::write(
        dir.path().join("first/manifest.toml"),
        manifest("first", &echo, "").replace("test tool", "edited tool"),
    )
    .expect("edits");
    tokio::time::timeout(Duration::from_secs(10), async {
        while described(&registry).as_deref() != Some("edited tool") {
            let _ = reports.changed().await;
        }
    })
    .await
    .expect("the edit is picked up");
    std::fs::remove_dir_all(dir.path().join("first")).expect("removes");
    wait_for("first", false).await;
    watch.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_textkit_example_built_from_c_works_through_the_executor() {
    let examples = built_examples();
    let (registry, set) = load(&examples.path().join("textkit"));
    assert_eq!(set.tool_ids(), ["textkit"]);
    let executor = executor(&registry, Duration::from_secs(10));
    let matched = run(
        &executor,
        "textkit_match",
        json!({"pattern": "[0-9]+", "text": "a1b22"}),
    )
    .await;
    assert!(matched.is_success(), "{matched:?}");
    let value: serde_json::Value = serde_json::from_str(&matched.result).expect("JSON");
    assert_eq!(value["count"], 2);
    assert_eq!(value["matches"][1]["text"], "22");
    let bad = run(
        &executor,
        "textkit_match",
        json!({"pattern": "(a", "text": "a"}),
    )
    .await;
    assert_eq!(
        bad.error_kind(),
        Some(toolscope_protocol::result::ErrorKind::ToolError)
    );
    assert!(
        bad.result.contains("-22 (EINVAL)") && bad.result.contains("unbalanced"),
        "{}",
        bad.result
    );
    let stats = run(&executor, "textkit_stats", json!({"text": "héllo wörld\n"})).await;
    assert!(stats.result.contains(r#""chars":12"#), "{}", stats.result);
    // A result far larger than the first 4096-byte buffer comes back whole.
    let big = "ab ".repeat(20_000);
    let cased = run(
        &executor,
        "textkit_case",
        json!({"text": big, "to": "upper"}),
    )
    .await;
    assert!(cased.is_success(), "{cased:?}");
    assert!(cased.result.contains(&"AB ".repeat(100)));
}
