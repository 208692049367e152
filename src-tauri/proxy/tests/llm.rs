//! The model proxy in-process, between a real HTTP client (reqwest, as an agent's SDK) and the
//! scripted model server over real sockets on 127.0.0.1: what the agent receives is what the
//! server sent, streamed as it is sent; each exchange is recorded as a turn of a conversation
//! with its reply assembled and parsed; the door refuses what it must, before anything reaches
//! the upstream; and failures reach the agent as its SDK expects them and the record says what
//! happened.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use toolscope_engine::agent::record::{summarise, TimedRecord};
use toolscope_engine::agent::{ConversationStore, Record};
use toolscope_llm_testserver::{Script, TestServer};
use toolscope_proxy::llm::{LlmProxy, LlmProxyOptions};

struct Running {
    base: String,
    openai: String,
    store: ConversationStore,
    _dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn proxy_to(upstream: &str) -> Running {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = ConversationStore::new(dir.path().join("conversations"));
    let proxy = LlmProxy::bind(LlmProxyOptions {
        listen: "127.0.0.1:0".parse().expect("address"),
        upstream: upstream.to_owned(),
        token: None,
        conversations: store.clone(),
    })
    .await
    .expect("bind");
    let (base, openai) = (proxy.base_url(), proxy.openai_base_url());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(proxy.serve(async move {
        let _ = stopped.await;
    }));
    Running {
        base,
        openai,
        store,
        _dir: dir,
        stop: Some(stop),
    }
}

fn script(turns: Value) -> Script {
    Script::from_json(&json!({"delay_ms": 1, "turns": turns}).to_string()).expect("script")
}

fn chat_body(messages: Value) -> Value {
    json!({"model": "toolscope-test", "stream": true, "messages": messages,
           "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]})
}

async fn post(url: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("authorization", "Bearer sk-agent-own-key-123")
        .json(body)
        .send()
        .await
        .expect("send")
}

/// The data of each SSE event, with the fields that differ between two runs of the same
/// script (the time of creation) taken out.
fn events_of(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| {
            let mut value = serde_json::from_str(data).unwrap_or(Value::String(data.to_owned()));
            if let Some(object) = value.as_object_mut() {
                object.remove("created");
            }
            value
        })
        .collect()
}

fn records(store: &ConversationStore) -> Vec<Vec<TimedRecord>> {
    let mut summaries = store.list("").expect("list");
    summaries.reverse();
    summaries
        .iter()
        .map(|s| store.load(&s.id).expect("load").records)
        .collect()
}

fn kinds(records: &[TimedRecord]) -> Vec<&'static str> {
    records
        .iter()
        .map(|r| match &r.record {
            Record::Proxied { .. } => "proxied",
            Record::Request { .. } => "request",
            Record::Chunk { .. } => "chunk",
            Record::Reply { .. } => "reply",
            Record::Parsed { .. } => "parsed",
            Record::ModelFailed { .. } => "model_failed",
            _ => "other",
        })
        .filter(|k| *k != "chunk")
        .collect()
}

const TURNS: &str = r#"[
    {"reply": {"text": "Let me check.", "calls": [{"id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}]}},
    {"reply": {"text": "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\"}}\n</tool_call>"}}
]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_receives_what_the_server_sent_and_each_turn_is_recorded_and_parsed() {
    let turns: Value = serde_json::from_str(TURNS).expect("turns");
    let direct = TestServer::start(script(turns.clone()))
        .await
        .expect("server");
    let upstream = TestServer::start(script(turns)).await.expect("server");
    let proxy = proxy_to(&upstream.openai_base_url()).await;
    let first = chat_body(json!([{"role": "user", "content": "Weather in Oslo?"}]));
    let second = chat_body(json!([
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
    ]));
    for body in [&first, &second] {
        let without = post(
            &format!("{}/chat/completions", direct.openai_base_url()),
            body,
        )
        .await;
        let with = post(&format!("{}/chat/completions", proxy.openai), body).await;
        assert_eq!(with.status(), without.status());
        assert_eq!(
            with.headers().get("content-type"),
            without.headers().get("content-type")
        );
        let (with, without) = (
            with.text().await.expect("body"),
            without.text().await.expect("body"),
        );
        assert_eq!(
            events_of(&with),
            events_of(&without),
            "through the proxy:\n{with}"
        );
    }
    // The upstream got the request as the agent sent it, with the agent's own key.
    let received = upstream.requests();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, first);
    assert_eq!(
        received[0].header("authorization"),
        Some("Bearer sk-agent-own-key-123")
    );
    wait_for(&proxy.store, |records| {
        (kinds(records).len() >= 7).then(String::new)
    })
    .await;
    let conversations = records(&proxy.store);
    assert_eq!(conversations.len(), 1, "both turns are one conversation");
    let records = &conversations[0];
    assert_eq!(
        kinds(records),
        ["proxied", "request", "reply", "parsed", "request", "reply", "parsed"]
    );
    let Record::Proxied {
        first_message,
        tools,
        model,
        ..
    } = &records[0].record
    else {
        panic!("start");
    };
    assert_eq!(first_message, "Weather in Oslo?");
    assert_eq!(tools, &["get_weather"]);
    assert_eq!(model.model, "toolscope-test");
    let replies: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Reply { reply, timing, .. } => Some((reply, timing)),
            _ => None,
        })
        .collect();
    assert_eq!(replies[0].0.calls[0].arguments, "{\"city\": \"Oslo\"}");
    assert!(replies[0].1.first_call_ms.is_some());
    let parsed: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.record {
            Record::Parsed { report, .. } => Some(report),
            _ => None,
        })
        .collect();
    assert_eq!(parsed[0].format, "openai_chat");
    assert_eq!(parsed[0].requests[0].tool_name, "get_weather");
    // The second reply's call is in a prompted format in the text: found by detection.
    assert_eq!(parsed[1].format, "hermes");
    assert_eq!(parsed[1].requests[0].tool_name, "get_time");
    let loaded = proxy
        .store
        .load(&proxy.store.list("").expect("list")[0].id)
        .expect("load");
    let summary = summarise(&loaded).expect("summary");
    assert!(summary.proxied);
    assert_eq!((summary.turns, summary.tool_calls), (2, 2));
    let file = std::fs::read_to_string(proxy.store.dir().join(format!("{}.jsonl", summary.id)))
        .expect("file");
    assert!(!file.contains("sk-agent-own-key-123"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_and_messages_are_recorded_in_their_own_shapes() {
    let turns = json!([
        {"reply": {"text": "Checking.", "calls": [{"id": "call_r", "name": "lookup", "arguments": {"q": "x"}}]}},
        {"reply": {"reasoning": "Need data.", "text": "On it.", "calls": [{"id": "toolu_1", "name": "search", "arguments": {"q": "y"}}]}}
    ]);
    let upstream = TestServer::start(script(turns)).await.expect("server");
    let proxy = proxy_to(&upstream.base_url()).await;
    let responses = post(
        &format!("{}/responses", proxy.openai),
        &json!({"model": "m", "stream": true, "input": "Look x up", "tools": [{"type": "function", "name": "lookup"}]}),
    )
    .await;
    assert_eq!(responses.status(), 200);
    responses.text().await.expect("body");
    let messages = reqwest::Client::new()
        .post(format!("{}/v1/messages", proxy.base))
        .header("x-api-key", "sk-ant-agent-key-456")
        .header("anthropic-version", "2023-06-01")
        .json(&json!({"model": "c", "stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": "Search y"}],
                      "tools": [{"name": "search", "input_schema": {"type": "object"}}]}))
        .send()
        .await
        .expect("send");
    assert_eq!(messages.status(), 200);
    messages.text().await.expect("body");
    assert_eq!(
        upstream.requests()[1].header("x-api-key"),
        Some("sk-ant-agent-key-456")
    );
    for _ in 0..200 {
        if records(&proxy.store).iter().all(|r| kinds(r).len() == 4) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let conversations = records(&proxy.store);
    assert_eq!(conversations.len(), 2);
    let reply_of = |records: &[TimedRecord]| {
        records
            .iter()
            .find_map(|r| match &r.record {
                Record::Reply { reply, .. } => Some(reply.clone()),
                _ => None,
            })
            .expect("reply")
    };
    let responses = reply_of(&conversations[0]);
    assert_eq!(responses.text, "Checking.");
    assert_eq!(
        (
            responses.calls[0].id.as_str(),
            responses.calls[0].arguments.as_str()
        ),
        ("call_r", "{\"q\":\"x\"}")
    );
    let messages = reply_of(&conversations[1]);
    assert_eq!(
        (messages.reasoning.as_str(), messages.text.as_str()),
        ("Need data.", "On it.")
    );
    assert_eq!(messages.calls[0].name, "search");
    assert_eq!(messages.finish_reason.as_deref(), Some("tool_use"));
    for records in &conversations {
        assert_eq!(kinds(records), ["proxied", "request", "reply", "parsed"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_is_passed_on_as_it_arrives_not_when_it_ends() {
    // The server sends two events and then stays silent with the stream open: an agent behind
    // a buffering proxy would see nothing.
    let upstream = TestServer::start(script(json!([
        {"reply": {"text": "Hello there, a long reply", "chunk_chars": 5, "fault": {"stall_after": 2}}}
    ])))
    .await
    .expect("server");
    let proxy = proxy_to(&upstream.openai_base_url()).await;
    let response = post(
        &format!("{}/chat/completions", proxy.openai),
        &chat_body(json!([{"role": "user", "content": "Hi"}])),
    )
    .await;
    let mut body = response.bytes_stream();
    let mut received = String::new();
    while received.matches("data: ").count() < 2 {
        let piece = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the first events arrive while the stream is still open")
            .expect("more body")
            .expect("bytes");
        received.push_str(&String::from_utf8_lossy(&piece));
    }
    assert!(received.contains("Hello"), "{received}");
    // The agent gives up: the record says it left before the answer ended.
    drop(body);
    let failed = wait_for(&proxy.store, |records| {
        records.iter().find_map(|r| match &r.record {
            Record::ModelFailed { kind, message, .. } => Some(format!("{kind:?}: {message}")),
            _ => None,
        })
    })
    .await;
    assert_eq!(
        failed,
        "Cancelled: the agent closed the connection before the answer ended"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_hangs_up_once_it_has_the_finish_reason_did_not_cancel() {
    // The same reply twice: whole, to count its events, then stalled just before `[DONE]`, where
    // an SDK may already close the connection (the CI caught this with the OpenAI SDK).
    let reply = json!({"text": "Hello there", "chunk_chars": 0});
    let whole = TestServer::start(script(json!([{"reply": reply, "repeat": true}])))
        .await
        .expect("server");
    let response = post(
        &format!("{}/chat/completions", whole.openai_base_url()),
        &chat_body(json!([{"role": "user", "content": "Hi"}])),
    )
    .await;
    let text = response.text().await.expect("body");
    let events = text.matches("data: ").count();
    assert!(text.contains("[DONE]"), "{text}");

    let mut stalled = reply.clone();
    stalled["fault"] = json!({"stall_after": events - 1});
    let upstream = TestServer::start(script(json!([{"reply": stalled}])))
        .await
        .expect("server");
    let proxy = proxy_to(&upstream.openai_base_url()).await;
    let response = post(
        &format!("{}/chat/completions", proxy.openai),
        &chat_body(json!([{"role": "user", "content": "Hi"}])),
    )
    .await;
    let mut body = response.bytes_stream();
    let mut received = String::new();
    while !received.contains("\"finish_reason\":\"stop\"") {
        let piece = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the events arrive")
            .expect("more body")
            .expect("bytes");
        received.push_str(&String::from_utf8_lossy(&piece));
    }
    drop(body);
    let kinds = wait_for(&proxy.store, |records| {
        records
            .iter()
            .any(|r| matches!(r.record, Record::Parsed { .. }))
            .then(|| {
                records
                    .iter()
                    .map(|r| match &r.record {
                        Record::ModelFailed { .. } => "model_failed",
                        Record::Reply { .. } => "reply",
                        _ => "",
                    })
                    .filter(|k| !k.is_empty())
                    .collect::<Vec<_>>()
                    .join(",")
            })
    })
    .await;
    assert_eq!(kinds, "reply", "recorded as a whole answer, not cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_refuses_a_missing_token_a_foreign_host_and_a_web_page() {
    let upstream = TestServer::start(script(json!([{"reply": {"text": "hi"}, "repeat": true}])))
        .await
        .expect("server");
    let proxy = proxy_to(&upstream.openai_base_url()).await;
    let address = proxy.base.split("/t/").next().expect("address").to_owned();
    let body = chat_body(json!([{"role": "user", "content": "Hi"}]));
    let no_token = post(&format!("{address}/v1/chat/completions"), &body).await;
    assert_eq!(no_token.status(), 401);
    let error: Value = no_token.json().await.expect("json");
    assert!(error["error"]["message"]
        .as_str()
        .expect("message")
        .contains("token"));
    let wrong = post(
        &format!("{address}/t/{}/v1/chat/completions", "0".repeat(64)),
        &body,
    )
    .await;
    assert_eq!(wrong.status(), 401);
    let url = format!("{}/chat/completions", proxy.openai);
    let rebound = reqwest::Client::new()
        .post(&url)
        .header("host", "attacker.example")
        .json(&body)
        .send()
        .await
        .expect("send");
    assert_eq!(rebound.status(), 403);
    let page = reqwest::Client::new()
        .post(&url)
        .header("origin", "https://attacker.example")
        .json(&body)
        .send()
        .await
        .expect("send");
    assert_eq!(page.status(), 403);
    assert_eq!(upstream.turns_used(), 0, "nothing reached the upstream");
    assert!(
        proxy.store.list("").expect("list").is_empty(),
        "nothing recorded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_and_an_unreachable_upstream_reach_the_agent_as_its_sdk_reads_them() {
    let upstream = TestServer::start(script(json!([
        {"error": {"status": 429, "retry_after": "3", "message": "Slow down"}}
    ])))
    .await
    .expect("server");
    let proxy = proxy_to(&upstream.openai_base_url()).await;
    let body = chat_body(json!([{"role": "user", "content": "Hi"}]));
    let limited = post(&format!("{}/chat/completions", proxy.openai), &body).await;
    assert_eq!(limited.status(), 429);
    assert_eq!(
        limited.headers().get("retry-after").map(|v| v.as_bytes()),
        Some(&b"3"[..])
    );
    limited.text().await.expect("body");
    let failed = wait_for(&proxy.store, |records| {
        records.iter().find_map(|r| match &r.record {
            Record::ModelFailed { kind, message, .. } => Some(format!("{kind:?}: {message}")),
            _ => None,
        })
    })
    .await;
    assert!(
        failed.starts_with("RateLimited: rate limited (HTTP 429), retry after 3 s"),
        "{failed}"
    );

    // Nothing listens on the upstream's port once it is gone.
    let port = upstream.port();
    upstream.shutdown();
    let gone = proxy_to(&format!("http://127.0.0.1:{port}/v1")).await;
    let unreachable = post(&format!("{}/chat/completions", gone.openai), &body).await;
    assert_eq!(unreachable.status(), 502);
    let error: Value = unreachable.json().await.expect("json");
    assert_eq!(error["error"]["code"], "upstream_unreachable");
    let anthropic = reqwest::Client::new()
        .post(format!("{}/v1/messages", gone.base))
        .json(&json!({"model": "c", "messages": [{"role": "user", "content": "Hi"}]}))
        .send()
        .await
        .expect("send");
    assert_eq!(anthropic.status(), 502);
    let error: Value = anthropic.json().await.expect("json");
    assert_eq!(error["type"], "error", "Anthropic's error shape: {error}");
    let recorded = records(&gone.store);
    assert!(recorded
        .iter()
        .all(|r| kinds(r) == ["proxied", "request", "model_failed"]));
}

/// Polls the single conversation until `found` finds what it looks for (the recorder runs
/// beside the forwarding, so it may finish a moment after the agent got its answer).
async fn wait_for(
    store: &ConversationStore,
    found: impl Fn(&[TimedRecord]) -> Option<String>,
) -> String {
    for _ in 0..200 {
        if let Some(records) = records(store).first() {
            if let Some(value) = found(records) {
                return value;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "not recorded: {:?}",
        records(store).first().map(|r| kinds(r))
    );
}
