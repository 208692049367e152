//! Engine benchmarks (figures, not assertions): VCP parsing, executor overhead, discovery over
//! 10,000 methods, cached vs uncached prompt generation, and listing a 10,000-run history after
//! one more run (reading it all vs reading on from the last list). Run:
//! `cargo bench -p toolscope-engine`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::{json, Map};
use tokio_util::sync::CancellationToken;
use toolscope_builtin::synthetic;
use toolscope_engine::discovery::{Discovery, MethodFilter};
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::history::{History, HistoryEntry, HistoryTail, RecordedRequest};
use toolscope_engine::{Registry, ToolCallConfig};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ExecutionStatus, ToolExecutionResult};
use toolscope_protocol::{vcp, ProtocolSet};

/// A deterministic reply of about `target` bytes: prose, then VCP blocks, repeated.
fn vcp_reply(target: usize) -> String {
    let mut text = String::with_capacity(target + 512);
    let mut i = 0u32;
    while text.len() < target {
        text.push_str("Let me look that up for you, step by step. 让我查一下。\n");
        text.push_str(&format!(
            "<<<[TOOL_REQUEST]>>>\ntool_name:「始」workspace_read「末」\nrequest_id:「始」r{i}「末」\npath:「始」src/file_{i}.rs「末」\nrange:「始」{{\"startLine\": {i}, \"endLine\": {}}}「末」\nnote:「始」line one\nline two with 「quotes」\n「末」\n<<<[END_TOOL_REQUEST]>>>\n",
            i + 10
        ));
        i += 1;
    }
    text
}

fn generated_registry(methods: usize) -> Arc<Registry> {
    let registry = Arc::new(Registry::new());
    synthetic::register(&registry, methods).expect("generated tools register");
    registry
}

fn parse_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("vcp_parse");
    for (name, size) in [("small_300B", 300), ("large_1MB", 1 << 20)] {
        let reply = vcp_reply(size);
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(vcp::parse(black_box(&reply))))
        });
    }
    group.finish();
}

fn executor_benches(c: &mut Criterion) {
    let registry = generated_registry(2);
    let executor = Executor::new(registry, ExecutorOptions::default());
    let mut args = Map::new();
    args.insert("text".into(), json!("hello"));
    let request = ParsedToolRequest::manual("synthetic0_method1", args);
    let cancel = CancellationToken::new();
    // Compile the schema once, as a warm app would have.
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    current.block_on(executor.execute(&request, &cancel));
    let multi = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("executor_echo_call");
    group.bench_function("current_thread_runtime", |b| {
        b.iter(|| black_box(current.block_on(executor.execute(&request, &cancel))))
    });
    group.bench_function("multi_thread_runtime", |b| {
        b.iter(|| black_box(multi.block_on(executor.execute(&request, &cancel))))
    });
    group.finish();
}

fn discovery_benches(c: &mut Criterion) {
    let registry = generated_registry(10_000);
    let discovery = Discovery::new(registry, ProtocolSet::standard());
    let mut group = c.benchmark_group("discovery_10k_methods");
    group.bench_function("list_all", |b| {
        b.iter(|| black_box(discovery.discovered_methods(&MethodFilter::default())))
    });
    let filter = MethodFilter {
        query: Some("number 42 synthetic7".into()),
        ..Default::default()
    };
    group.bench_function("filter_query", |b| {
        b.iter(|| black_box(discovery.discovered_methods(black_box(&filter))))
    });
    group.finish();

    let config = ToolCallConfig::default();
    let mut group = c.benchmark_group("prompt_10k_methods");
    group.bench_function("uncached", |b| {
        b.iter_batched(
            || discovery.invalidate_cache(),
            |()| black_box(discovery.generate_prompt("vcp", &config, None)),
            BatchSize::SmallInput,
        )
    });
    let _ = discovery.generate_prompt("vcp", &config, None);
    group.bench_function("cached", |b| {
        b.iter(|| black_box(discovery.generate_prompt("vcp", &config, None)))
    });
    group.finish();
}

/// One more run on a history of 10,000, then the list the app shows after it: the whole file
/// read again, against the rows kept and read on from where the previous list stopped.
fn history_benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.jsonl");
    let (history, _) = History::open(&path).expect("open");
    let entry = |n: usize| {
        let mut args = Map::new();
        args.insert("message".into(), json!(format!("run {n}")));
        let request = ParsedToolRequest::manual("echo_echo", args);
        let outcome = ToolExecutionResult {
            request_id: request.request_id.clone(),
            tool_name: request.tool_name.clone(),
            status: ExecutionStatus::Success,
            result: format!("echoed run {n} {}", "x".repeat(200)),
            duration_ms: 0.5,
            error: None,
            truncated: None,
        };
        HistoryEntry::new(None, "app", RecordedRequest::from(&request), outcome)
    };
    for n in 0..10_000 {
        history.append(&entry(n)).expect("append");
    }
    let mut tail = HistoryTail::new(&path);
    tail.refresh(|e| e.id).expect("first read");
    let mut next = 10_000;
    let mut group = c.benchmark_group("history_list_after_a_run_10k");
    group.bench_function("load_whole_file", |b| {
        b.iter(|| {
            history.append(&entry(next)).expect("append");
            next += 1;
            black_box(History::load(&path).expect("load").entries.len())
        })
    });
    group.bench_function("read_on_from_last_list", |b| {
        b.iter(|| {
            history.append(&entry(next)).expect("append");
            next += 1;
            tail.refresh(|e| e.id).expect("refresh");
            black_box(tail.records().len())
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    parse_benches,
    executor_benches,
    discovery_benches,
    history_benches
);
criterion_main!(benches);
