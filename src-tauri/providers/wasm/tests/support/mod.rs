//! Shared by the WASM tool tests: modules written as WAT around one skeleton (memory, a bump
//! allocator), tool directories in temp dirs, and an executor to run calls as the app does.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ToolExecutionResult;
use toolscope_wasm::{WasmRuntime, WasmToolSet};

/// A module with one page of memory, `alloc` (bump, 8-aligned, grows memory on demand, 0 when
/// it cannot), a no-op `free(ptr, size)`, and `body` (the methods under test).
pub fn module(body: &str) -> String {
    format!(
        r#"(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (func $alloc (export "alloc") (param $size i32) (result i32)
    (local $ptr i32) (local $end i32)
    (local.set $ptr (global.get $heap))
    (local.set $end (i32.and (i32.add (i32.add (local.get $ptr) (local.get $size)) (i32.const 7)) (i32.const -8)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq
              (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $end) (i32.shl (memory.size) (i32.const 16))) (i32.const 65535)) (i32.const 16)))
              (i32.const -1))
          (then (return (i32.const 0))))))
    (global.set $heap (local.get $end))
    (local.get $ptr))
  (func (export "free") (param i32 i32))
  {body}
)"#
    )
}

/// `echo`: returns the arguments as the result, asking for a larger buffer when needed.
pub const ECHO: &str = r#"
  (func (export "echo") (param $a i32) (param $n i32) (param $o i32) (param $l i32) (result i32)
    (if (i32.gt_u (local.get $n) (i32.load (local.get $l)))
      (then (i32.store (local.get $l) (local.get $n)) (return (i32.const -28))))
    (memory.copy (local.get $o) (local.get $a) (local.get $n))
    (i32.store (local.get $l) (local.get $n))
    (i32.const 0))
"#;

/// A manifest for tool `id` whose methods map name → export (read-only, so the executor runs
/// them without asking); `extra` is appended (limits,
/// grants) as TOML.
pub fn manifest(id: &str, methods: &[(&str, &str)], extra: &str) -> String {
    let mut text =
        format!("id = \"{id}\"\ndescription = \"test tool\"\nmodule = \"tool.wasm\"\n{extra}\n");
    for (name, export) in methods {
        text.push_str(&format!(
            "\n[[methods]]\nname = \"{name}\"\nexport = \"{export}\"\nannotations = {{ read_only = true }}\n"
        ));
    }
    text
}

/// Writes a tool directory `<parent>/<id>` holding `manifest.toml` and `tool.wasm` (WAT text
/// compiled to binary here, so the module is a real `.wasm`).
pub fn tool_dir(parent: &Path, id: &str, manifest_text: &str, wat: &str) -> PathBuf {
    let dir = parent.join(id);
    std::fs::create_dir_all(&dir).expect("creates the tool directory");
    std::fs::write(dir.join("manifest.toml"), manifest_text).expect("writes the manifest");
    let binary = wat::parse_str(wat).expect("the test module is valid WAT");
    std::fs::write(dir.join("tool.wasm"), binary).expect("writes the module");
    dir
}

/// A registry with the tools of `directory` loaded; panics with the problems if there are any.
pub fn load(directory: &Path) -> (Arc<Registry>, Arc<WasmToolSet>) {
    let registry = Arc::new(Registry::new());
    let runtime = WasmRuntime::new().expect("the runtime starts");
    let set = Arc::new(WasmToolSet::new(Arc::clone(&registry), runtime));
    let report = set.add_directory(directory).expect("adds the directory");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    (registry, set)
}

pub fn executor(registry: &Arc<Registry>, timeout: Duration) -> Executor {
    let options = ExecutorOptions {
        timeout,
        ..ExecutorOptions::default()
    };
    Executor::new(Arc::clone(registry), options)
}

pub async fn run(executor: &Executor, name: &str, args: Value) -> ToolExecutionResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    executor
        .execute(
            &ParsedToolRequest::manual(name, args),
            &CancellationToken::new(),
        )
        .await
}

/// The example tools, built from source by `tests/fixtures/wasm/build.sh` into a temp dir
/// (needs Debian's clang, lld and wasi-libc, which `scripts/setup.sh --test` installs).
pub fn built_examples() -> tempfile::TempDir {
    let out = tempfile::tempdir().expect("temp dir");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/wasm/build.sh");
    let status = std::process::Command::new("bash")
        .arg(&script)
        .arg(out.path())
        .status()
        .expect("runs build.sh");
    assert!(
        status.success(),
        "building the example tools failed: {status}"
    );
    out
}
