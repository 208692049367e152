//! Parser benchmarks on the shared deterministic inputs (`../shared/bench/parser-inputs/`):
//! each 1 MB input by its format, auto-detect on the same input, streaming the hermes replies
//! in 4-byte deltas (100 KB / 300 KB / 1 MB, to show it is linear), and decoding the same JSON
//! with serde_json alone as the floor any JSON-based format pays.
//! Run: `cargo bench -p toolscope-protocol --bench parsers` (figures, not assertions).

use std::hint::black_box;
use std::path::PathBuf;

// The allocator the CLI uses (see src-tauri/cli/src/main.rs), so the figures are the ones
// `toolscope parse` and `bench-parse` show.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toolscope_protocol::parser;
use toolscope_protocol::stream::{deltas, ToolCallStream};
use toolscope_protocol::ProtocolSet;

fn input(name: &str) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/bench/parser-inputs")
        .join(name);
    std::fs::read_to_string(path).ok()
}

const LARGE: [&str; 7] = [
    "hermes",
    "mistral",
    "mistral_v11",
    "llama3_json",
    "pythonic",
    "qwen3_coder",
    "deepseek_v3",
];

fn large_inputs(c: &mut Criterion) {
    let protocols = ProtocolSet::standard();
    let mut group = c.benchmark_group("parse_1MB");
    group.sample_size(30);
    for format in LARGE {
        let (Some(text), Some(_)) = (input(&format!("{format}_large.txt")), protocols.get(format))
        else {
            eprintln!("skipping {format}: input or format missing");
            continue;
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("{format}/named"), |b| {
            b.iter(|| black_box(parser::parse(&protocols, black_box(&text), Some(format))))
        });
        group.bench_function(format!("{format}/auto"), |b| {
            b.iter(|| black_box(parser::parse(&protocols, black_box(&text), None)))
        });
    }
    if let Some(text) = input("hermes_large.txt") {
        // The JSON inside the blocks, decoded by serde_json alone: the floor for JSON formats.
        let bodies: Vec<&str> = text
            .split("<tool_call>")
            .skip(1)
            .filter_map(|part| part.split("</tool_call>").next())
            .collect();
        group.bench_function("hermes/serde_json_floor", |b| {
            b.iter(|| {
                for body in &bodies {
                    black_box(serde_json::from_str::<serde_json::Value>(body).ok());
                }
            })
        });
    }
    group.finish();
}

fn streaming(c: &mut Criterion) {
    let protocols = ProtocolSet::standard();
    let Some(hermes) = protocols.get("hermes") else {
        return;
    };
    let mut group = c.benchmark_group("stream_hermes_4B_deltas");
    group.sample_size(10);
    for name in ["hermes_stream100k", "hermes_stream300k", "hermes_large"] {
        let Some(text) = input(&format!("{name}.txt")) else {
            continue;
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut stream = ToolCallStream::new(hermes.clone());
                let mut events = Vec::new();
                let mut calls = 0usize;
                for delta in deltas(&text, || 4) {
                    stream.push(delta, &mut events);
                    calls += events.len();
                    events.clear();
                }
                stream.finish(&mut events);
                black_box(calls + events.len())
            })
        });
    }
    group.finish();
}

/// About 1 MB of 2,000 calls in a declared example format, built here (the shared inputs only
/// cover built-in formats): a format described in a file is held to the same budget.
fn declared_reply(format: &str) -> String {
    let mut text = String::with_capacity(1 << 20);
    let filler = "x".repeat(380);
    for i in 0..2000 {
        match format {
            "react_action" => text.push_str(&format!(
                "Thought: step {i}, {filler}\nAction: search_docs\nAction Input: {{\"query\": \"q{i}\", \"page\": {i}}}\n"
            )),
            _ => text.push_str(&format!(
                "Step {i}: {filler}\n<act id=\"c{i}\"><tool>write_file</tool><arg name=\"path\">f{i}.md</arg>\
                 <arg name=\"content\">\nline one\nline two {i}\n</arg></act>\n"
            )),
        }
    }
    text
}

fn declared_formats(c: &mut Criterion) {
    let protocols = ProtocolSet::standard().extended(toolscope_protocol::declared::examples());
    let mut group = c.benchmark_group("declared_1MB");
    group.sample_size(20);
    for format in ["react_action", "acme_xml"] {
        let text = declared_reply(format);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("{format}/named"), |b| {
            b.iter(|| black_box(parser::parse(&protocols, black_box(&text), Some(format))))
        });
        group.bench_function(format!("{format}/auto"), |b| {
            b.iter(|| black_box(parser::parse(&protocols, black_box(&text), None)))
        });
    }
    group.finish();
}

criterion_group!(benches, large_inputs, streaming, declared_formats);
criterion_main!(benches);
