//! `toolscope proxy llm` between real agents' clients and real model servers: the OpenAI
//! Python SDK against llama.cpp's server with a real tiny model (Chat Completions, streamed and
//! whole), and the OpenAI SDK's Responses API and the Anthropic SDK against the scripted test
//! server. Each scenario runs once straight at the server and once through the proxy: what the
//! SDK hands the program must be the same (transparency), and the conversation file must hold
//! the requests as sent, the answer's chunks, the reply the SDK assembled and its parsed calls.
//!
//! The SDKs come from the venv `scripts/setup.sh --test` builds (`scripts/sdk-constraints.txt`),
//! driven by `tests/fixtures/proxy_llm/sdk_client.py`; the model server from the venv of
//! `support/llama_server.rs` (skipped only with `TOOLSCOPE_SKIP_REAL_MODEL=1`).

#[path = "support/llama_server.rs"]
mod llama_server;
#[path = "support/sdk_venv.rs"]
mod sdk_venv;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use llama_server::LlamaServer;
use sdk_venv::Target;
use serde_json::{json, Value};
use toolscope_llm_testserver::{ReceivedRequest, Script, TestServer};

/// The agent's own key: it must reach the upstream and never the record.
const API_KEY: &str = "sk-agent-own-key-0123456789";
const TASK: &str = "What is the weather in Oslo?";
const MODEL: &str = "toolscope-test";
/// How long the recorder may take to write a turn after the SDK has its answer.
const RECORD_WAIT: Duration = Duration::from_secs(15);

/// A running `toolscope proxy llm --json`, stopped by SIGTERM (or killed when dropped).
struct Proxy {
    child: Option<Child>,
    info: Value,
    home: tempfile::TempDir,
    stderr: PathBuf,
}

impl Proxy {
    fn start(upstream: &str) -> Self {
        let home = tempfile::tempdir().expect("tempdir");
        let stderr = home.path().join("proxy.stderr");
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(["proxy", "llm", "--upstream", upstream, "--json"])
            .env("TOOLSCOPE_HOME", home.path())
            .env_remove("TOOLSCOPE_PROXY_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("toolscope proxy llm starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            let _ = child.kill();
            panic!(
                "the proxy's first line is not JSON ({e}): {line:?}\nstderr:\n{}",
                std::fs::read_to_string(&stderr).unwrap_or_default()
            )
        });
        assert_eq!(info["upstream"], upstream.trim_end_matches('/'), "{info}");
        Self {
            child: Some(child),
            info,
            home,
            stderr,
        }
    }

    fn openai_base_url(&self) -> String {
        self.info["openai_base_url"]
            .as_str()
            .expect("openai_base_url")
            .to_owned()
    }

    fn anthropic_base_url(&self) -> String {
        self.info["anthropic_base_url"]
            .as_str()
            .expect("anthropic_base_url")
            .to_owned()
    }

    fn dir(&self) -> PathBuf {
        self.home.path().join("conversations")
    }

    /// Every conversation file, oldest first, each line checked to be complete JSON.
    fn conversations(&self) -> Vec<Vec<Value>> {
        let mut files: Vec<Vec<Value>> = std::fs::read_dir(self.dir())
            .map(|dir| dir.flatten().map(|e| e.path()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .map(|path| read_records(&path))
            .collect();
        files.sort_by_key(|records| records.first().and_then(|r| r["started_at_ms"].as_i64()));
        files
    }

    /// Waits until `done` holds for the conversations the recorder wrote (it writes after the
    /// agent got each piece, so a turn's last records may land just after the SDK returned).
    fn wait_for(&self, what: &str, done: impl Fn(&[Vec<Value>]) -> bool) {
        let started = Instant::now();
        while !done(&self.conversations()) {
            assert!(
                started.elapsed() < RECORD_WAIT,
                "the record never had {what}: {:#?}\nproxy stderr:\n{}",
                self.conversations(),
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// SIGTERM, then the exit: a clean stop is exit 0. Returns the conversations as left.
    fn stop(&mut self) -> Vec<Vec<Value>> {
        let mut child = self.child.take().expect("running");
        let killed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if started.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!(
                    "the proxy did not stop on SIGTERM within 20 s:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "a clean stop:\n{}", self.stderr());
        assert!(
            self.stderr().contains("stopped by SIGTERM"),
            "{}",
            self.stderr()
        );
        let conversations = self.conversations();
        for records in &conversations {
            let text = serde_json::to_string(records).expect("json");
            assert!(
                !text.contains(API_KEY),
                "the agent's key never lands in the record"
            );
        }
        conversations
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn read_records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: a line is not JSON ({e}): {line}", path.display()))
        })
        .collect()
}

fn of_type<'a>(records: &'a [Value], kind: &str, turn: u64) -> Vec<&'a Value> {
    records
        .iter()
        .filter(|r| r["type"] == kind && r["turn"] == turn)
        .collect()
}

fn count(conversations: &[Vec<Value>], kind: &str) -> usize {
    conversations
        .iter()
        .flatten()
        .filter(|r| r["type"] == kind)
        .count()
}

/// The one record of `kind` for `turn`.
fn one<'a>(records: &'a [Value], kind: &str, turn: u64) -> &'a Value {
    let found = of_type(records, kind, turn);
    assert_eq!(
        found.len(),
        1,
        "one {kind} record for turn {turn}: {records:#?}"
    );
    found[0]
}

/// The data of each `chunk` record of `turn` parsed as JSON (`[DONE]` left out).
fn chunks(records: &[Value], turn: u64) -> Vec<Value> {
    of_type(records, "chunk", turn)
        .iter()
        .filter_map(|r| r["data"].as_str())
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str(data).unwrap_or_else(|e| panic!("chunk {data}: {e}")))
        .collect()
}

/// What the record says the model called in `turn`: the reply's calls, and the parsed report's
/// requests as `{id, name, args}`.
fn recorded_calls(records: &[Value], turn: u64) -> (Value, Vec<Value>) {
    let reply = &one(records, "reply", turn)["reply"];
    let report = &one(records, "parsed", turn)["report"];
    let parsed = report["requests"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| json!({"id": r["request_id"], "name": r["tool_name"], "args": r["args"]}))
        .collect();
    (reply["calls"].clone(), parsed)
}

/// The SDK's calls (`{id, name, arguments}`) as the parsed report should have them.
fn expected_parsed(calls: &Value) -> Vec<Value> {
    calls
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|c| {
            let args: Value = serde_json::from_str(c["arguments"].as_str().unwrap_or_default())
                .unwrap_or(Value::Null);
            json!({"id": c["id"], "name": c["name"], "args": args})
        })
        .collect()
}

/// Only what differs between two runs by nature, never by the proxy: every `id` (the server
/// makes a new one per completion, and llama-cpp-python's call ids embed it) and the `created`
/// / `created_at` timestamps. Everything else is compared exactly.
fn normalised(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| match key.as_str() {
                    "id" | "created" | "created_at" => (key.clone(), json!("<varies>")),
                    _ => (key.clone(), normalised(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalised).collect()),
        other => other.clone(),
    }
}

/// Headers that are the connection's own (hop by hop, or set per connection), not the
/// agent's: everything else the agent sent must reach the upstream as it was.
/// `accept-encoding` is the proxy's deliberate difference, checked by [`identity_only`].
const CONNECTION_HEADERS: [&str; 6] = [
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
    "accept-encoding",
];

/// The proxy asks the upstream for `Accept-Encoding: identity` (src-tauri/proxy's forward.rs),
/// so the recorder reads plain bytes whatever the agent accepts: that must be the only
/// `accept-encoding` the upstream gets (the agent's own `gzip, deflate` as a second header
/// would let a real upstream compress the answer).
fn identity_only(requests: &[ReceivedRequest]) {
    for request in requests {
        let encodings: Vec<&str> = request
            .headers
            .iter()
            .filter(|(name, _)| name == "accept-encoding")
            .map(|(_, value)| value.as_str())
            .collect();
        assert_eq!(
            encodings,
            ["identity"],
            "{} {}: the upstream is asked for uncompressed answers only",
            request.method,
            request.path
        );
    }
}

/// The requests a server received, as `{path, headers, body}` with the agent's headers.
fn received(requests: &[ReceivedRequest]) -> Vec<Value> {
    requests
        .iter()
        .map(|r| {
            let mut headers: Vec<(String, String)> = r
                .headers
                .iter()
                .filter(|(name, _)| !CONNECTION_HEADERS.contains(&name.as_str()))
                .cloned()
                .collect();
            headers.sort();
            json!({"method": r.method, "path": r.path, "headers": headers, "body": r.raw_body})
        })
        .collect()
}

fn script(value: Value) -> Script {
    Script::from_json(&value.to_string()).expect("script")
}

// --- a. The OpenAI SDK, the proxy and the real model server ----------------------------------

#[test]
fn the_openai_sdk_gets_the_same_from_the_real_model_server_through_the_proxy() {
    let server = match LlamaServer::start() {
        Ok(server) => server,
        Err(None) => return,
        Err(Some(why)) => panic!("{why}"),
    };
    let base = server.base_url();
    let target = |url: &str| -> Value {
        sdk_venv::run(
            "chat",
            &Target {
                openai_base_url: url,
                anthropic_base_url: url,
                api_key: API_KEY,
                model: &server.model,
            },
        )
    };
    let direct = target(&base);
    let mut proxy = Proxy::start(&base);
    let proxied = target(&proxy.openai_base_url());
    let context = format!(
        "direct:\n{direct:#}\nproxied:\n{proxied:#}\nserver:\n{}",
        server.output()
    );

    // Temperature 0 and a seed: SmolLM2's greedy answer is the same both times. Only ids and
    // timestamps differ between two completions (see `normalised`).
    assert_eq!(normalised(&direct), normalised(&proxied), "{context}");
    // The named tool is called (llama-cpp-python's grammar makes the arguments JSON).
    for shape in ["streamed", "whole"] {
        let got = &proxied[shape];
        assert_eq!(got["finish_reason"], "tool_calls", "{shape}: {context}");
        assert_eq!(
            got["calls"].as_array().map(Vec::len),
            Some(1),
            "{shape}: {context}"
        );
        assert_eq!(got["calls"][0]["name"], "get_weather", "{shape}: {context}");
    }
    assert!(
        proxied["streamed"]["chunks"].as_array().map_or(0, Vec::len) > 2,
        "the call arrives as deltas: {context}"
    );

    proxy.wait_for("two conversations with a parsed reply each", |c| {
        c.len() == 2 && count(c, "parsed") == 2
    });
    let conversations = proxy.stop();
    // The same first message again, not longer: the whole request starts a new conversation.
    assert_eq!(conversations.len(), 2, "{conversations:#?}");
    let request = &proxied["request"];
    for records in &conversations {
        let context = format!("{records:#?}\nSDK:\n{proxied:#}");
        let start = &records[0];
        assert_eq!(start["type"], "proxied", "{context}");
        assert_eq!(start["upstream"], base.as_str());
        assert_eq!(start["model"]["wire"], "openai_chat");
        assert_eq!(start["model"]["model"], server.model.as_str());
        assert_eq!(start["first_message"], TASK);
        assert_eq!(start["tools"], json!(["get_weather"]));

        let body = &one(records, "request", 1)["body"];
        let streamed = body["stream"] == true;
        let shape = if streamed { "streamed" } else { "whole" };
        // The body as the SDK sent it: the script's arguments and `stream`, nothing else.
        let mut sent = request.clone();
        sent["stream"] = Value::Bool(streamed);
        assert_eq!(body, &sent, "{context}");

        let got = &proxied[shape];
        let data = chunks(records, 1);
        if streamed {
            // Every event the SDK received, in order, is a chunk record.
            assert_eq!(&Value::Array(data), &got["chunks"], "{context}");
            assert_eq!(
                of_type(records, "chunk", 1).last().map(|r| &r["data"]),
                Some(&json!("[DONE]")),
                "{context}"
            );
        } else {
            assert_eq!(data, vec![got["completion"].clone()], "{context}");
        }
        let reply = &one(records, "reply", 1)["reply"];
        assert_eq!(reply["text"], got["text"], "{context}");
        assert_eq!(reply["finish_reason"], got["finish_reason"], "{context}");
        let (calls, parsed) = recorded_calls(records, 1);
        assert_eq!(
            calls, got["calls"],
            "the calls the SDK assembled: {context}"
        );
        assert_eq!(parsed, expected_parsed(&got["calls"]), "{context}");
        assert_eq!(
            one(records, "parsed", 1)["report"]["format"],
            "openai_chat",
            "{context}"
        );
        if !streamed {
            // llama-cpp-python sends usage only in whole replies.
            assert_eq!(
                reply["usage"]["input_tokens"], got["completion"]["usage"]["prompt_tokens"],
                "{context}"
            );
        }
        // The agent received the whole answer and kept its connection: nothing failed.
        assert!(
            of_type(records, "model_failed", 1).is_empty(),
            "[{shape}] the SDK received the whole answer, yet the record says the turn \
             failed: {context}"
        );
    }
}

// --- b. Responses and Anthropic SDKs, the proxy and the scripted server ----------------------

/// Two turns: text and a call, then (after the tool's output comes back) the answer.
fn two_turns(call_id: &str, api_key: Option<&str>) -> Script {
    script(json!({
        "api_key": api_key,
        "models": [MODEL],
        "turns": [
            {"expect": {"contains": [TASK]},
             "reply": {"text": "Let me look that up.",
                       "calls": [{"id": call_id, "name": "get_weather",
                                  "arguments": "{\"city\": \"Oslo\"}"}],
                       "usage": {"input_tokens": 42, "output_tokens": 17}}},
            {"expect": {"contains": [call_id, "sunny"]},
             "reply": {"text": "It is sunny in Oslo, 21 °C.",
                       "usage": {"input_tokens": 80, "output_tokens": 9}}}
        ]
    }))
}

/// One scenario run straight at a server and through the proxy at another of the same script.
struct BothWays {
    direct: Value,
    proxied: Value,
    /// What each server received (see [`received`]).
    direct_received: Vec<Value>,
    proxied_received: Vec<Value>,
    /// The requests the proxied run's server received, as they arrived.
    upstream_requests: Vec<ReceivedRequest>,
    proxy: Proxy,
}

/// Runs `scenario` straight at a fresh server of `script` and through the proxy at another.
/// The Anthropic SDK's base URL is the server's origin, the OpenAI SDK's ends in `/v1`; the
/// proxy's upstream is either (its routes keep one `/v1`).
async fn both_ways(
    scenario: &str,
    script: impl Fn() -> Script,
    anthropic_upstream: bool,
) -> BothWays {
    let direct_server = TestServer::start(script()).await.expect("server");
    let direct = tokio::task::block_in_place(|| {
        sdk_venv::run(
            scenario,
            &Target {
                openai_base_url: &direct_server.openai_base_url(),
                anthropic_base_url: &direct_server.base_url(),
                api_key: API_KEY,
                model: MODEL,
            },
        )
    });
    let server = TestServer::start(script()).await.expect("server");
    let upstream = if anthropic_upstream {
        server.base_url()
    } else {
        server.openai_base_url()
    };
    let proxy = Proxy::start(&upstream);
    let proxied = tokio::task::block_in_place(|| {
        sdk_venv::run(
            scenario,
            &Target {
                openai_base_url: &proxy.openai_base_url(),
                anthropic_base_url: &proxy.anthropic_base_url(),
                api_key: API_KEY,
                model: MODEL,
            },
        )
    });
    let upstream_requests = server.requests();
    BothWays {
        direct,
        proxied,
        direct_received: received(&direct_server.requests()),
        proxied_received: received(&upstream_requests),
        upstream_requests,
        proxy,
    }
}

/// What holds for both two-turn conversations: the SDK got the same both ways and what the
/// script says; the server got the same requests; one conversation file holds both turns.
fn check_two_turns(run: &mut BothWays, wire: &str, call_id: &str) {
    let (direct, proxied) = (&run.direct, &run.proxied);
    let context = format!("direct:\n{direct:#}\nproxied:\n{proxied:#}");
    assert_eq!(normalised(direct), normalised(proxied), "{context}");
    assert_eq!(
        run.direct_received, run.proxied_received,
        "the server received the same requests, headers (the agent's key among them) and bytes"
    );
    assert_eq!(run.proxied_received.len(), 2, "{:#?}", run.proxied_received);
    let turns = proxied["turns"].as_array().expect("turns");
    assert_eq!(turns[0]["text"], "Let me look that up.", "{context}");
    let expected_calls =
        json!([{"id": call_id, "name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}]);
    assert_eq!(turns[0]["calls"], expected_calls, "{context}");
    assert_eq!(turns[1]["text"], "It is sunny in Oslo, 21 °C.", "{context}");
    assert_eq!(turns[1]["calls"], json!([]), "{context}");

    run.proxy
        .wait_for("two parsed turns", |c| count(c, "parsed") == 2);
    let conversations = run.proxy.stop();
    assert_eq!(
        conversations.len(),
        1,
        "the second turn continues the first: {conversations:#?}"
    );
    let records = &conversations[0];
    let context = format!("{records:#?}");
    assert_eq!(records[0]["type"], "proxied", "{context}");
    assert_eq!(records[0]["model"]["wire"], wire, "{context}");
    assert_eq!(records[0]["first_message"], TASK, "{context}");
    assert_eq!(records[0]["tools"], json!(["get_weather"]), "{context}");
    for (turn, received) in (1..=2).zip(&run.proxied_received) {
        let body = &one(records, "request", turn)["body"];
        let sent: Value =
            serde_json::from_str(received["body"].as_str().unwrap_or_default()).expect("body");
        assert_eq!(body, &sent, "turn {turn}: the request as sent: {context}");
        let got = &turns[usize::try_from(turn - 1).expect("turn")];
        // One chunk per event the SDK handed on, of the same types, in order (Anthropic's
        // `ping` is recorded too; its SDK swallows it).
        let types: Vec<Value> = chunks(records, turn)
            .iter()
            .map(|c| c["type"].clone())
            .filter(|t| t != "ping")
            .collect();
        assert_eq!(
            &Value::Array(types),
            &got["events"],
            "turn {turn}: {context}"
        );
        let reply = &one(records, "reply", turn)["reply"];
        assert_eq!(reply["text"], got["text"], "turn {turn}: {context}");
        let (calls, parsed) = recorded_calls(records, turn);
        assert_eq!(calls, got["calls"], "turn {turn}: {context}");
        assert_eq!(
            parsed,
            expected_parsed(&got["calls"]),
            "turn {turn}: {context}"
        );
        assert!(
            of_type(records, "model_failed", turn).is_empty(),
            "turn {turn}: {context}"
        );
    }
    let usage = |turn: u64| one(records, "reply", turn)["reply"]["usage"].clone();
    assert_eq!(
        usage(1),
        json!({"input_tokens": 42, "output_tokens": 17}),
        "{context}"
    );
    assert_eq!(
        usage(2),
        json!({"input_tokens": 80, "output_tokens": 9}),
        "{context}"
    );
    identity_only(&run.upstream_requests);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_responses_api_gets_the_same_through_the_proxy() {
    let mut run = both_ways("responses", || two_turns("call_oslo", Some(API_KEY)), false).await;
    // The second request names the first response; the SDK's final response is the script's.
    let second: Value =
        serde_json::from_str(run.proxied_received[1]["body"].as_str().unwrap_or_default())
            .expect("body");
    assert_eq!(
        second["previous_response_id"],
        run.proxied["turns"][0]["response"]["id"]
    );
    assert_eq!(run.proxied["turns"][0]["response"]["status"], "completed");
    check_two_turns(&mut run, "openai_responses", "call_oslo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_gets_the_same_through_the_proxy() {
    // No script-level key: the Anthropic SDK (2.x) sends its key as `Authorization: Bearer`,
    // which the test server does not take on this wire; the key's arrival is checked in the
    // headers the server received instead.
    let mut run = both_ways("anthropic", || two_turns("toolu_oslo", None), true).await;
    let has_key = |received: &Value| {
        received["headers"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|h| h[1].as_str().is_some_and(|v| v.contains(API_KEY)))
    };
    assert!(
        run.proxied_received.iter().all(has_key),
        "the agent's key reaches the upstream: {:#?}",
        run.proxied_received
    );
    assert_eq!(
        run.proxied["turns"][0]["message"]["stop_reason"],
        "tool_use"
    );
    assert_eq!(
        run.proxied["turns"][1]["message"]["stop_reason"],
        "end_turn"
    );
    check_two_turns(&mut run, "anthropic", "toolu_oslo");
}

// --- c. A refusal reaches the SDK as its own error -------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_reaches_each_sdk_as_its_rate_limit_error_and_is_recorded() {
    // One 429 per wire (Chat, Responses, Messages, in the order the script asks them).
    let refusals = || {
        script(json!({
            "models": [MODEL],
            "turns": [
                {"error": {"status": 429, "retry_after": "7", "message": "chat: slow down"}},
                {"error": {"status": 429, "retry_after": "8", "message": "responses: slow down"}},
                {"error": {"status": 429, "retry_after": "9", "message": "messages: slow down"}}
            ]
        }))
    };
    let mut run = both_ways("refused", refusals, false).await;
    let context = format!("direct:\n{:#}\nproxied:\n{:#}", run.direct, run.proxied);
    assert_eq!(
        run.direct, run.proxied,
        "the same error, body and headers: {context}"
    );
    assert_eq!(run.direct_received, run.proxied_received);
    for (wire, class, retry_after) in [
        ("chat", "openai.RateLimitError", "7"),
        ("responses", "openai.RateLimitError", "8"),
        ("anthropic", "anthropic.RateLimitError", "9"),
    ] {
        let error = &run.proxied[wire];
        assert_eq!(error["error"], class, "{wire}: {context}");
        assert_eq!(error["status_code"], 429, "{wire}: {context}");
        assert_eq!(error["retry_after"], retry_after, "{wire}: {context}");
    }

    run.proxy
        .wait_for("three refusals", |c| count(c, "model_failed") == 3);
    let conversations = run.proxy.stop();
    assert_eq!(conversations.len(), 3, "{conversations:#?}");
    let wires: Vec<&Value> = conversations
        .iter()
        .map(|r| &r[0]["model"]["wire"])
        .collect();
    assert_eq!(
        wires,
        [
            &json!("openai_chat"),
            &json!("openai_responses"),
            &json!("anthropic")
        ]
    );
    for (records, retry_after) in conversations.iter().zip(["7", "8", "9"]) {
        let context = format!("{records:#?}");
        let kinds: Vec<&Value> = records.iter().map(|r| &r["type"]).collect();
        assert_eq!(
            kinds,
            [&json!("proxied"), &json!("request"), &json!("model_failed")],
            "{context}"
        );
        let failed = one(records, "model_failed", 1);
        assert_eq!(failed["kind"], "rate_limited", "{context}");
        let message = failed["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("429") && message.contains(&format!("retry after {retry_after} s")),
            "{context}"
        );
        assert!(message.contains("slow down"), "{context}");
    }
    identity_only(&run.upstream_requests);
}
