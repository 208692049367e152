//! WASM tool benchmarks (figures, not assertions): the overhead of one small call (a fresh
//! instance, the allocator, the ABI round trip), the same through the executor, a real method
//! of the example tool, and loading a module cold (compile) and warm (cached).
//! Run: `cargo bench -p toolscope-wasm --bench wasm_calls`. The example tool is built from C
//! by `tests/fixtures/wasm/build.sh` (Debian's clang, lld and wasi-libc).

use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::file_tools::document::FileFormat;
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_wasm::manifest::{compile, Manifest};
use toolscope_wasm::{ModuleDigest, WasmRuntime, WasmTool, WasmToolSpec};

/// The smallest useful tool: `echo` returns its arguments (bump allocator, one page).
const ECHO_WAT: &str = include_str!("../../../../tests/fixtures/wasm/echo.wat");

const ECHO_MANIFEST: &str = r#"id = "bench"
module = "echo.wasm"
[[methods]]
name = "echo"
export = "echo"
annotations = { read_only = true }
"#;

fn spec(manifest: &str, directory: &Path) -> WasmToolSpec {
    let manifest: Manifest = FileFormat::Toml
        .read(manifest)
        .expect("the manifest parses");
    compile(&manifest, directory).expect("the manifest is valid")
}

fn tool(runtime: &WasmRuntime, spec: WasmToolSpec, bytes: &[u8]) -> WasmTool {
    let module = runtime
        .prepare(&spec, bytes, ModuleDigest::of(bytes))
        .expect("the module loads");
    WasmTool::new(spec, module)
}

/// The example tool's directory, built into a temp dir.
fn textkit() -> (tempfile::TempDir, WasmToolSpec, Vec<u8>) {
    let out = tempfile::tempdir().expect("temp dir");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/wasm/build.sh");
    let status = std::process::Command::new("bash")
        .arg(script)
        .arg(out.path())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("runs build.sh");
    assert!(status.success(), "building the example tool failed");
    let dir = out.path().join("textkit");
    let text = std::fs::read_to_string(dir.join("manifest.toml")).expect("manifest");
    let spec = spec(&text, &dir);
    let bytes = std::fs::read(&spec.module_path).expect("module");
    (out, spec, bytes)
}

fn call_benches(c: &mut Criterion) {
    let runtime = WasmRuntime::new().expect("runtime");
    let echo_bytes = wat::parse_str(ECHO_WAT).expect("WAT");
    let echo = tool(&runtime, spec(ECHO_MANIFEST, Path::new(".")), &echo_bytes);
    let (_dir, textkit_spec, textkit_bytes) = textkit();
    let textkit = tool(&runtime, textkit_spec, &textkit_bytes);
    let abandoned = Arc::new(AtomicBool::new(false));
    let small = br#"{"pattern":"[0-9]+","text":"a1b22"}"#;

    let mut group = c.benchmark_group("wasm_call");
    group.bench_function("echo_small_direct", |b| {
        b.iter(|| black_box(echo.call_blocking("echo", small, &abandoned).expect("echo")))
    });
    group.bench_function("textkit_match_small_direct", |b| {
        b.iter(|| {
            black_box(
                textkit
                    .call_blocking("match", small, &abandoned)
                    .expect("match"),
            )
        })
    });
    let registry = Arc::new(Registry::new());
    registry.upsert(Arc::new(echo.clone())).expect("registers");
    let executor = Executor::new(Arc::clone(&registry), ExecutorOptions::default());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let serde_json::Value::Object(args) = json!({"x": 1}) else {
        unreachable!("a literal object")
    };
    let request = ParsedToolRequest::manual("bench_echo", args);
    let cancel = CancellationToken::new();
    group.bench_function("echo_small_via_executor", |b| {
        b.iter(|| black_box(rt.block_on(executor.execute(&request, &cancel))))
    });
    group.finish();

    let mut group = c.benchmark_group("wasm_load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let spec = textkit.spec().clone();
    group.bench_function("textkit_cold_compile", |b| {
        // A new runtime each time: nothing cached, the module is compiled from scratch.
        b.iter(|| {
            let runtime = WasmRuntime::new().expect("runtime");
            black_box(runtime.prepare(&spec, &textkit_bytes, ModuleDigest::of(&textkit_bytes)))
        })
    });
    group.bench_function("textkit_cached_prepare", |b| {
        b.iter(|| {
            black_box(runtime.prepare(&spec, &textkit_bytes, ModuleDigest::of(&textkit_bytes)))
        })
    });
    group.finish();
}

criterion_group!(benches, call_benches);
criterion_main!(benches);
