//! What `toolscope proxy llm` adds to a streamed reply (figures, not assertions): the same
//! streamed Chat Completions request is sent to the scripted model server directly and through
//! the proxy (which records every chunk and parses the reply), alternating, and the time to the
//! first streamed token and to the end of the stream are printed as p50/p95 for both, with the
//! difference.
//!
//! Run: `cargo bench -p toolscope-proxy --bench llm` (300 requests each way); without `--bench`
//! (CI's `cargo test --bench`) it makes 10.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;
use toolscope_engine::agent::ConversationStore;
use toolscope_llm_testserver::{Script, TestServer};
use toolscope_proxy::llm::{LlmProxy, LlmProxyOptions};

/// Time to the first content token and to the end of the body.
async fn one(
    client: &reqwest::Client,
    url: &str,
    body: &serde_json::Value,
) -> (Duration, Duration) {
    let sent = Instant::now();
    let response = client.post(url).json(body).send().await.expect("answer");
    assert_eq!(response.status(), 200, "the server answered");
    let mut stream = response.bytes_stream();
    let mut first = None;
    let mut seen = String::new();
    while let Some(piece) = stream.next().await {
        let piece = piece.expect("body");
        if first.is_none() {
            seen.push_str(&String::from_utf8_lossy(&piece));
            if seen.contains("\"content\":\"H") {
                first = Some(sent.elapsed());
            }
        }
    }
    (first.expect("a first token"), sent.elapsed())
}

fn percentile(values: &mut [Duration], p: usize) -> f64 {
    values.sort();
    let index = (values.len() * p / 100).min(values.len() - 1);
    values[index].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let requests = if std::env::args().any(|a| a == "--bench") {
        300
    } else {
        10
    };
    let script = Script::from_json(
        &json!({"delay_ms": 0, "turns": [{"reply": {"text": "Hello, this reply streams in many small pieces so the proxy has work to do on each one of them.",
            "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, "repeat": true}]})
        .to_string(),
    )
    .expect("script");
    let server = TestServer::start(script).await.expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let proxy = LlmProxy::bind(LlmProxyOptions {
        listen: "127.0.0.1:0".parse().expect("address"),
        upstream: server.openai_base_url(),
        token: None,
        conversations: ConversationStore::new(dir.path().join("conversations")),
    })
    .await
    .expect("proxy");
    let through = format!("{}/chat/completions", proxy.openai_base_url());
    let direct = format!("{}/chat/completions", server.openai_base_url());
    tokio::spawn(proxy.serve(std::future::pending()));
    let client = reqwest::Client::new();
    let mut ttft = (Vec::new(), Vec::new());
    let mut total = (Vec::new(), Vec::new());
    for i in 0..requests {
        // Each request is a new conversation's first turn, as an eval harness would send.
        let body = json!({"model": "m", "stream": true,
            "messages": [{"role": "user", "content": format!("Weather in Oslo? ({i})")}]});
        let (first, all) = one(&client, &direct, &body).await;
        ttft.0.push(first);
        total.0.push(all);
        let (first, all) = one(&client, &through, &body).await;
        ttft.1.push(first);
        total.1.push(all);
    }
    let line = |what: &str, (direct, proxied): &mut (Vec<Duration>, Vec<Duration>)| {
        let (d50, d95) = (percentile(direct, 50), percentile(direct, 95));
        let (p50, p95) = (percentile(proxied, 50), percentile(proxied, 95));
        println!(
            "{what}: direct p50 {d50:.3} ms p95 {d95:.3} ms · through the proxy p50 {p50:.3} ms p95 {p95:.3} ms · added p50 {:.3} ms",
            p50 - d50
        );
    };
    println!("model proxy, {requests} streamed Chat Completions requests each way (scripted server, 127.0.0.1):");
    line("time to first token", &mut ttft);
    line("time to end of stream", &mut total);
}
