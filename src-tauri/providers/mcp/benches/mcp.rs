//! MCP provider figures (a bench binary that prints them; `cargo bench -p toolscope-mcp`):
//! connect time (spawn + handshake + listing), warm `tools/call` round trips through the
//! engine's executor (median, p99) against server-everything over stdio and against our own
//! rmcp test server, and discovery of a server with 1,000 tools.
//!
//! server-everything comes from `tests/node_modules` (`bash scripts/setup.sh --test`); without
//! it that part is skipped with a note, the rest still runs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::Registry;
use toolscope_mcp::sources::SourceOptions;
use toolscope_mcp::{McpServerConfig, McpSources, SourceStatus};
use toolscope_protocol::request::ParsedToolRequest;

// The integration tests' helpers (`stdio` config builder).
#[path = "../tests/common/mod.rs"]
mod common;
use common::stdio;

const WARMUP: usize = 200;
const CALLS: usize = 2000;
const CONNECTS: usize = 10;

/// `cargo bench` passes `--bench`; `cargo test --benches` (CI) does not: then every figure is
/// taken once with a handful of iterations, so the bench is known to run, not measured.
fn quick() -> bool {
    !std::env::args().any(|arg| arg == "--bench")
}

fn scaled(full: usize) -> usize {
    if quick() {
        (full / 100).max(1)
    } else {
        full
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Connects `config` and returns the set and the time to `ready` in ms.
async fn connect(config: McpServerConfig) -> (Arc<Registry>, McpSources, f64) {
    let registry = Arc::new(Registry::new());
    let sources = McpSources::new(Arc::clone(&registry), SourceOptions::default());
    let name = config.name.clone();
    sources.add(config).await.expect("adds");
    let started = Instant::now();
    let state = sources.approve(&name).await.expect("approves");
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}",
        state.status
    );
    (registry, sources, ms)
}

async fn round_trips(label: &str, config: McpServerConfig, routing_name: &str, args: Value) {
    let mut connects = Vec::new();
    for _ in 0..scaled(CONNECTS) {
        let (_, sources, ms) = connect(config.clone()).await;
        connects.push(ms);
        sources.shutdown();
    }
    connects.sort_by(f64::total_cmp);
    let (registry, sources, _) = connect(config).await;
    let options = ExecutorOptions {
        timeout: Duration::from_secs(30),
        ..ExecutorOptions::default()
    };
    let executor = Executor::new(registry, options).with_confirmation(Arc::new(ApproveAll));
    let Value::Object(args) = args else {
        unreachable!("object literal")
    };
    let cancel = CancellationToken::new();
    let mut times = Vec::with_capacity(scaled(CALLS));
    for i in 0..scaled(WARMUP) + scaled(CALLS) {
        let request = ParsedToolRequest::manual(routing_name, Map::clone(&args));
        let started = Instant::now();
        let result = executor.execute(&request, &cancel).await;
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        assert!(result.is_success(), "{result:?}");
        if i >= scaled(WARMUP) {
            times.push(elapsed);
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{label:<44} connect median {:>7.1} ms | tools/call over {}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        percentile(&connects, 0.5),
        scaled(CALLS),
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[times.len() - 1],
    );
    sources.shutdown();
}

async fn discovery_of_a_thousand_tools(server: &str) {
    let mut times = Vec::new();
    let mut tools = 0;
    for _ in 0..scaled(CONNECTS) {
        let (registry, sources, ms) = connect(stdio("big", server, &["--tools", "1000"])).await;
        // 1,000 generated tools beside the test server's own.
        tools = registry.get("big").map_or(0, |t| t.methods.len());
        assert!(tools > 1000, "{tools} tools listed");
        times.push(ms);
        sources.shutdown();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{:<44} connect + list + register {tools} tools: median {:.1} ms, min {:.1} ms",
        "rmcp test server, 1,000 generated tools",
        percentile(&times, 0.5),
        times[0]
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = env!("CARGO_BIN_EXE_toolscope-mcp-testserver");
    round_trips(
        "rmcp test server (stdio), echo_text",
        stdio("test", server, &[]),
        "test_echo-text",
        json!({"text": "hi"}),
    )
    .await;
    discovery_of_a_thousand_tools(server).await;
    let everything = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if everything.exists() {
        let script = everything.to_string_lossy().into_owned();
        round_trips(
            "server-everything (stdio, node), echo",
            stdio("everything", "node", &[&script, "stdio"]),
            "everything_echo",
            json!({"message": "hi"}),
        )
        .await;
    } else {
        println!(
            "server-everything not installed ({}): run bash scripts/setup.sh --test",
            everything.display()
        );
    }
}
