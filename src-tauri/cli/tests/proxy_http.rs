//! `toolscope proxy mcp --url` between a scripted stdio client and the MCP reference server
//! (server-everything) in its streamable-HTTP mode: each answer the client gets over HTTP
//! through the proxy is the answer it gets from the same server over stdio, progress and an
//! elicitation included; the record holds every message with what it meant; and a server that
//! cannot be reached answers each request with a JSON-RPC error instead of leaving it hanging.
//! A server that only speaks the older HTTP+SSE transport (server-everything's `sse` mode) is
//! found out and spoken to in it, with the same answers.

mod proxy_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use proxy_support::*;
use serde_json::{json, Value};

/// server-everything's streamable-HTTP mode on a free loopback port, killed on drop.
struct HttpServer {
    child: Child,
    port: u16,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// server-everything in `mode` (`streamableHttp`, or `sse`: the older HTTP+SSE transport).
fn http_server(script: &str, mode: &str) -> HttpServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let mut child = Command::new(node())
        .args([script, mode])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let stderr = child.stderr.take().expect("piped");
    let (ready, listening) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            // The two modes announce themselves in their own words.
            if line.contains("listening on port") || line.contains("Server is running on port") {
                let _ = ready.send(());
            }
        }
    });
    listening
        .recv_timeout(Duration::from_secs(30))
        .expect("the HTTP server starts");
    HttpServer { child, port }
}

/// One session with every kind of traffic an HTTP server sends back: answers, an error,
/// progress on the request's stream, and a request of the server's own (an elicitation).
fn conversation(peer: &mut Peer) -> Vec<(i64, Value)> {
    let mut answers = Vec::new();
    let mut ask = |peer: &mut Peer, id: i64, method: &str, params: Value| {
        let answer = peer.request(id, method, params);
        answers.push((id, answer));
    };
    ask(
        peer,
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "toolscope-test", "version": "1"}}),
    );
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // server-everything adds the tools the client's capabilities allow a moment after
    // `initialized` (and says so on a stream that may not be open yet over HTTP): wait for them.
    for probe in 100..140 {
        let listed = peer.request(probe, "tools/list", json!({}));
        let names = listed["result"]["tools"].to_string();
        if names.contains("trigger-elicitation-request") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    ask(peer, 1, "tools/list", json!({}));
    ask(
        peer,
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi over HTTP"}}),
    );
    ask(
        peer,
        3,
        "tools/call",
        json!({"name": "get-sum", "arguments": {"a": "one", "b": 2}}),
    );
    ask(
        peer,
        4,
        "tools/call",
        json!({"name": "trigger-long-running-operation", "arguments": {"duration": 0.3, "steps": 3},
               "_meta": {"progressToken": "lro"}}),
    );
    ask(peer, 5, "no/such/method", json!({}));
    peer.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                     "params": {"name": "trigger-elicitation-request", "arguments": {}}}));
    let elicitation = peer.until(|m| m["method"] == "elicitation/create");
    peer.send(json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {"action": "decline"}}));
    let declined = peer.until(|m| m["id"] == 6 && m.get("method").is_none());
    ask(peer, 7, "ping", json!({}));
    answers.push((6, declined));
    answers
}

/// Each answer over HTTP is the answer over stdio. The HTTP modes name their transport in the
/// server's instructions, so those are left out; everything else must be equal.
fn assert_same_answers(over_stdio: &[(i64, Value)], over_http: &[(i64, Value)]) {
    let strip = |answer: &Value| {
        let mut answer = answer.clone();
        if let Some(result) = answer["result"].as_object_mut() {
            result.remove("instructions");
        }
        answer
    };
    for ((id, stdio), (_, http)) in over_stdio.iter().zip(over_http) {
        assert_eq!(strip(http), strip(stdio), "answer to request {id}");
    }
}

fn url_command(home: &std::path::Path, url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command.env("TOOLSCOPE_HOME", home).args([
        "proxy",
        "mcp",
        "--name",
        "remote",
        "--url",
        url,
        "--header",
        "X-Toolscope-Test: secret-header-value",
    ]);
    command
}

#[test]
fn an_http_server_answers_through_the_proxy_as_it_does_over_stdio() {
    let Some(script) = everything_script() else {
        return;
    };
    let mut direct = Peer::start(direct_command(&[
        node(),
        script.clone(),
        "stdio".to_owned(),
    ]));
    let over_stdio = conversation(&mut direct);
    direct.finish();

    let server = http_server(&script, "streamableHttp");
    let home = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let mut proxied = Peer::start(url_command(home.path(), &url));
    let over_http = conversation(&mut proxied);
    let progress = proxied
        .received_json()
        .into_iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == "lro"
        })
        .count();
    let list_changed = proxied
        .received_json()
        .iter()
        .any(|m| m["method"] == "notifications/tools/list_changed");
    assert!(
        list_changed,
        "the GET stream was open before `initialized` went on"
    );
    let (code, received) = proxied.finish();
    assert_eq!(code, Some(0), "the agent closed: a normal end");
    assert!(
        progress >= 2,
        "progress arrives on the request's stream: {received:#?}"
    );
    assert_eq!(over_http.len(), 8);
    assert_eq!(
        over_http[2].1["result"]["content"][0]["text"],
        "Echo: hi over HTTP"
    );
    assert_same_answers(&over_stdio, &over_http);

    let records = record(home.path(), "remote");
    assert_eq!(records[0]["argv"], json!(["--url", url]));
    let text = serde_json::to_string(&records).expect("json");
    assert!(
        !text.contains("secret-header-value"),
        "headers are never recorded"
    );
    let received: Vec<Value> = received.iter().map(|l| parse(l)).collect();
    assert_eq!(
        messages(&records, "server_to_agent"),
        received,
        "every message the agent received, in order"
    );
    let calls = of_type(&records, "call");
    assert!(
        calls
            .iter()
            .any(|c| c["tool"] == "echo" && c["outcome"] == "result"),
        "{calls:#?}"
    );
    let invalid = of_type(&records, "invalid_call");
    assert_eq!(invalid[0]["tool"], "get-sum");
    assert_eq!(of_type(&records, "elicitation").len(), 1, "{records:#?}");
    let end = of_type(&records, "end");
    assert_eq!(end[0]["reason"], "agent_closed");
}

#[test]
fn a_server_that_cannot_be_reached_answers_each_request_with_an_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let home = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut peer = Peer::start(url_command(home.path(), &url));
    let answer = peer.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(answer["error"]["code"], -32000);
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("could not reach the MCP server"),
        "{message}"
    );
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));
    let records = record(home.path(), "remote");
    let from_proxy = records
        .iter()
        .find(|r| r["type"] == "message" && r["origin"] == "proxy")
        .expect("the proxy's answer is recorded as its own");
    assert_eq!(from_proxy["msg"]["id"], 0);
}

#[test]
fn a_server_on_the_older_http_sse_transport_answers_as_over_stdio() {
    let Some(script) = everything_script() else {
        return;
    };
    let mut direct = Peer::start(direct_command(&[
        node(),
        script.clone(),
        "stdio".to_owned(),
    ]));
    let over_stdio = conversation(&mut direct);
    direct.finish();

    let server = http_server(&script, "sse");
    let home = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{}/sse", server.port);
    let mut proxied = Peer::start(url_command(home.path(), &url));
    let over_sse = conversation(&mut proxied);
    let (code, received) = proxied.finish();
    assert_eq!(code, Some(0), "the agent closed: a normal end");
    assert_eq!(over_sse.len(), 8);
    assert_same_answers(&over_stdio, &over_sse);
    let received: Vec<Value> = received.iter().map(|l| parse(l)).collect();
    assert!(
        received
            .iter()
            .any(|m| m["method"] == "notifications/progress"),
        "progress arrives on the event stream"
    );
    let records = record(home.path(), "remote");
    let recorded = messages(&records, "server_to_agent");
    let first_difference = recorded
        .iter()
        .zip(&received)
        .position(|(r, a)| r != a)
        .unwrap_or(recorded.len().min(received.len()));
    assert_eq!(
        recorded,
        received,
        "every message the agent received, in order; first difference at {first_difference}: \
         recorded {:?}, received {:?}",
        recorded.get(first_difference),
        received.get(first_difference)
    );
}
