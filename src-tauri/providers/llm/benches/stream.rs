//! Streaming cost per SSE chunk (figures, not assertions): each wire's reader over the vendors'
//! documented example streams (`tests/fixtures/llm/vendor_examples`), and the prompted path's
//! streaming parser per text delta. Run: `cargo bench -p toolscope-llm --bench stream`.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toolscope_llm::anthropic::MessageStream;
use toolscope_llm::gemini::GenerateStream;
use toolscope_llm::openai_chat;
use toolscope_llm::responses::ResponseStream;
use toolscope_llm::{AssembledReply, ReplyEvent};
use toolscope_protocol::stream::ToolCallStream;
use toolscope_protocol::ProtocolSet;

/// The `data:` payloads of an example stream, in order.
fn chunks(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/llm/vendor_examples")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

/// Gemini sends whole parts per chunk; three chunks of a reply with one call.
fn gemini_chunks() -> Vec<String> {
    vec![
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"I'll look up the weather"}]},"index":0}]}"#.to_owned(),
        r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather_current","args":{"city":"Lisbon","units":"metric"}}}]},"index":0}]}"#.to_owned(),
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":310,"candidatesTokenCount":24,"totalTokenCount":334}}"#.to_owned(),
    ]
}

fn read_all(wire: &str, chunks: &[String]) -> AssembledReply {
    let mut reply = AssembledReply::default();
    let mut events: Vec<ReplyEvent> = Vec::new();
    let mut anthropic = MessageStream::default();
    let mut responses = ResponseStream::default();
    let mut gemini = GenerateStream::default();
    for data in chunks {
        events.clear();
        let _ = match wire {
            "openai_chat" => openai_chat::read_chunk(data, &mut events),
            "openai_responses" => responses.read_event(data, &mut events),
            "anthropic" => anthropic.read_event(data, &mut events),
            _ => gemini.read_event(data, &mut events),
        };
        for event in &events {
            reply.apply(event);
        }
    }
    reply
}

fn reader_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("sse_chunk");
    for (wire, chunks) in [
        ("openai_chat", chunks("openai_chat_tool_calls.sse")),
        (
            "openai_responses",
            chunks("openai_responses_function_call.sse"),
        ),
        ("anthropic", chunks("anthropic_tool_use.sse")),
        ("gemini", gemini_chunks()),
    ] {
        assert!(
            !read_all(wire, &chunks).calls.is_empty(),
            "{wire}: the example has a call"
        );
        group.throughput(Throughput::Elements(chunks.len() as u64));
        group.bench_function(wire, |b| {
            b.iter(|| black_box(read_all(wire, black_box(&chunks))))
        });
    }
    group.finish();

    // The prompted path: the reply's text through the format's streaming parser, 5 bytes a delta.
    let text = "I'll look up the weather.\n<tool_call>\n{\"name\": \"weather_current\", \"arguments\": {\"city\": \"Lisbon\", \"units\": \"metric\"}}\n</tool_call>";
    let deltas: Vec<&str> = text
        .as_bytes()
        .chunks(5)
        .map(|d| std::str::from_utf8(d).unwrap_or_default())
        .collect();
    let hermes = ProtocolSet::standard().get("hermes").expect("hermes");
    let mut group = c.benchmark_group("prompted_delta");
    group.throughput(Throughput::Elements(deltas.len() as u64));
    group.bench_function("hermes_5B", |b| {
        b.iter(|| {
            let mut stream = ToolCallStream::new(hermes.clone());
            let mut events = Vec::new();
            for delta in &deltas {
                stream.push(delta, &mut events);
            }
            stream.finish(&mut events);
            black_box(events.len())
        })
    });
    group.finish();
}

criterion_group!(benches, reader_benches);
criterion_main!(benches);
