//! Import benchmarks (figures, not assertions): reading BFCL's whole data set (~3,300
//! distinct definitions in ~8,700 records), importing it as a set (read, save, register), and
//! Discovery's listing and search over it. Run: `cargo bench -p toolscope-imported`.
//! Without the BFCL data (`scripts/setup.sh --test` fetches it) the vendor fixtures, repeated
//! under numbered names to the same count, stand in, and the bench says so.

#[path = "../tests/support/bfcl.rs"]
mod bfcl;

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::Value;
use toolscope_engine::discovery::{Discovery, MethodFilter};
use toolscope_engine::Registry;
use toolscope_imported::{read_definitions, ImportedSets};
use toolscope_protocol::ProtocolSet;

/// BFCL's records, or the fixtures' definitions renamed `name_N` until there are ~3,300.
fn corpus() -> String {
    if let Some(dir) = bfcl::bfcl_data_dir() {
        if let Ok(corpus) = bfcl::bfcl_corpus(&dir) {
            return corpus;
        }
    }
    eprintln!("imports bench: no BFCL data; using the repeated vendor fixtures instead");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/imports");
    let mut definitions: Vec<toolscope_imported::Definition> = Vec::new();
    for name in [
        "openai_chat_tools.json",
        "anthropic_tools.json",
        "mcp_tools_list.json",
        "gemini_function_declarations.json",
    ] {
        let text = std::fs::read_to_string(fixtures.join(name)).unwrap_or_default();
        if let Ok(import) = read_definitions(&text) {
            definitions.extend(import.definitions);
        }
    }
    let mut lines = String::new();
    let mut n = 0;
    while n < 3_300 && !definitions.is_empty() {
        let d = &definitions[n % definitions.len()];
        let tool = serde_json::json!({"name": format!("{}_{n}", d.name), "description": d.description, "parameters": d.parameters});
        lines.push_str(&Value::from(vec![tool]).to_string());
        lines.push('\n');
        n += 1;
    }
    lines
}

fn import_benches(c: &mut Criterion) {
    let corpus = corpus();
    let definitions = read_definitions(&corpus)
        .map(|i| i.definitions.len())
        .unwrap_or(0);
    eprintln!(
        "imports bench: {} bytes, {definitions} distinct definitions",
        corpus.len()
    );

    let mut group = c.benchmark_group("import_bfcl");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(corpus.len() as u64));
    group.bench_function("read_definitions", |b| {
        b.iter(|| black_box(read_definitions(black_box(&corpus))))
    });
    group.bench_function("import_set", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let (sets, _) = ImportedSets::open(dir.path(), Arc::new(Registry::new()));
                black_box(
                    sets.import("bfcl", &corpus, "bfcl-eval")
                        .map(|r| r.set.definitions),
                )
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();

    let dir = tempfile::tempdir().expect("temp dir");
    let registry = Arc::new(Registry::new());
    let (sets, _) = ImportedSets::open(dir.path(), Arc::clone(&registry));
    if let Err(e) = sets.import("bfcl", &corpus, "bfcl-eval") {
        eprintln!("imports bench: the corpus did not import: {e}");
        return;
    }
    let discovery = Discovery::new(registry, ProtocolSet::standard());
    let mut group = c.benchmark_group("discovery_bfcl");
    group.bench_function("list_all", |b| {
        b.iter(|| black_box(discovery.discovered_methods(&MethodFilter::default())))
    });
    for query in ["weather", "math.fact", "calculate area circle"] {
        let filter = MethodFilter {
            query: Some(query.into()),
            ..MethodFilter::default()
        };
        group.bench_function(format!("search '{query}'"), |b| {
            b.iter(|| black_box(discovery.discovered_methods(black_box(&filter))))
        });
    }
    group.finish();
}

criterion_group!(benches, import_benches);
criterion_main!(benches);
