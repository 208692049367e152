//! What `toolscope proxy mcp` adds per forwarded message (figures, not assertions): a client
//! makes `tools/call` round trips to a tiny echo server, directly and through the proxy
//! (which records and validates every call), and prints p50/p95 per round trip for both, the
//! difference, and the proxy's RSS after the session's calls.
//!
//! Run: `cargo bench -p toolscope-cli --bench proxy` (10,000 calls); without `--bench` (CI's
//! `cargo test --bench`) it makes 300. The echo server is this binary again, started with
//! `TOOLSCOPE_PROXY_BENCH_ECHO=1`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

const ECHO_ENV: &str = "TOOLSCOPE_PROXY_BENCH_ECHO";

/// The echo server: answers `tools/list` with one tool, every other request with a result.
fn echo_server() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let tools = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object",
        "properties": {"message": {"type": "string"}}, "required": ["message"]}}]});
    let text = json!({"content": [{"type": "text", "text": "ok"}]});
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue;
        };
        let result = if method == "tools/list" {
            &tools
        } else {
            &text
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Client {
    fn start(mut command: Command) -> Self {
        let mut child = command
            .env(ECHO_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    /// One request and its answer.
    fn round_trip(&mut self, request: &str) {
        self.stdin.write_all(request.as_bytes()).expect("send");
        self.stdin.flush().expect("flush");
        self.line.clear();
        let n = self.stdout.read_line(&mut self.line).expect("answer");
        assert!(n > 0, "the server answered");
    }

    /// Round-trip times in microseconds, sorted.
    fn calls(&mut self, count: usize) -> Vec<f64> {
        let mut times: Vec<f64> = (0..count)
            .map(|id| {
                let request = format!(
                    "{}\n",
                    json!({"jsonrpc": "2.0", "id": id + 10, "method": "tools/call",
                           "params": {"name": "echo", "arguments": {"message": format!("call {id}")}}})
                );
                let started = Instant::now();
                self.round_trip(&request);
                started.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times
    }

    fn finish(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or(f64::NAN)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `initialize`, `tools/list` (so the proxy validates every call) and 200 warm-up calls.
fn warm_up(client: &mut Client) {
    client.round_trip(&format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
               "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    ));
    client.round_trip(&format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    ));
    client.calls(200);
}

fn main() {
    if std::env::var_os(ECHO_ENV).is_some() {
        echo_server();
        return;
    }
    let full = std::env::args().any(|a| a == "--bench");
    let calls = if full { 10_000 } else { 300 };
    let me = std::env::current_exe().expect("own path");
    let home = tempfile::tempdir().expect("tempdir");

    let mut direct = Client::start(Command::new(&me));
    warm_up(&mut direct);
    let direct_times = direct.calls(calls);
    direct.finish();

    let mut proxy = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    proxy
        .env("TOOLSCOPE_HOME", home.path())
        .args(["proxy", "mcp", "--name", "bench", "--"])
        .arg(&me);
    let mut proxied = Client::start(proxy);
    let pid = proxied.child.id();
    warm_up(&mut proxied);
    let rss_start = rss_kib(pid);
    let proxied_times = proxied.calls(calls);
    let rss_end = rss_kib(pid);
    proxied.finish();

    let record_bytes: u64 = std::fs::read_dir(home.path().join("proxy/bench"))
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    println!("proxy bench: {calls} tools/call round trips (each = 2 forwarded messages), µs");
    for (label, times) in [("direct", &direct_times), ("through proxy", &proxied_times)] {
        println!(
            "  {label:<14} p50 {:>8.1}  p95 {:>8.1}  p99 {:>8.1}",
            percentile(times, 0.5),
            percentile(times, 0.95),
            percentile(times, 0.99)
        );
    }
    let added = percentile(&proxied_times, 0.5) - percentile(&direct_times, 0.5);
    let added95 = percentile(&proxied_times, 0.95) - percentile(&direct_times, 0.95);
    println!(
        "  added per round trip: p50 {added:.1} µs, p95 {added95:.1} µs; per forwarded message: p50 {:.1} µs",
        added / 2.0
    );
    let kib = |v: Option<u64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v} KiB"));
    println!(
        "  proxy RSS: {} after warm-up, {} after {} more calls; record {} KiB",
        kib(rss_start),
        kib(rss_end),
        calls,
        record_bytes / 1024
    );
}
