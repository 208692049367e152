//! `toolscope proxy mcp --listen` in front of the MCP reference server (server-everything over
//! stdio), driven by a real streamable-HTTP client: the CLI's own `toolscope call` (rmcp's
//! client) with the snippet the proxy printed. Also the door: no token, a rebound `Host` and a
//! web page's `Origin` are refused before anything reaches the server.

mod proxy_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use proxy_support::*;
use serde_json::{json, Value};

struct Listening {
    child: Child,
    url: String,
    token: String,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(home: &std::path::Path, script: &str) -> Listening {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .env("TOOLSCOPE_HOME", home)
        .args([
            "proxy",
            "mcp",
            "--name",
            "everything",
            "--listen",
            "127.0.0.1:0",
            "--",
        ])
        .args([node().as_str(), script, "stdio"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the proxy starts");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let banner = lines.next().expect("a first line").expect("text");
    assert!(banner.contains("loopback only"), "{banner}");
    let snippet: Value =
        serde_json::from_str(&lines.next().expect("the snippet").expect("text")).expect("json");
    let entry = &snippet["mcpServers"]["everything"];
    assert_eq!(entry["type"], "http");
    let token = entry["headers"]["Authorization"]
        .as_str()
        .and_then(|v| v.strip_prefix("Bearer "))
        .expect("a bearer token")
        .to_owned();
    Listening {
        child,
        url: entry["url"].as_str().expect("url").to_owned(),
        token,
    }
}

/// One raw HTTP/1.1 request; returns the status code.
fn status_of(url: &str, headers: &[(&str, &str)]) -> u16 {
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("authority");
    let mut stream = TcpStream::connect(authority).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    let has_host = headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host"));
    if !has_host {
        request.push_str(&format!("Host: {authority}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("sends");
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head).expect("a status line");
    String::from_utf8_lossy(&head[9..12])
        .parse()
        .expect("a status")
}

#[test]
fn a_streamable_http_client_calls_the_stdio_server_through_the_listening_proxy() {
    let Some(script) = everything_script() else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let proxy = start(home.path(), &script);
    let bearer = format!("Bearer {}", proxy.token);

    assert_eq!(status_of(&proxy.url, &[]), 401, "no token");
    assert_eq!(
        status_of(&proxy.url, &[("Authorization", "Bearer wrong")]),
        401
    );
    assert_eq!(
        status_of(
            &proxy.url,
            &[("Authorization", &bearer), ("Host", "rebound.example:80")]
        ),
        403,
        "a DNS-rebound host"
    );
    assert_eq!(
        status_of(
            &proxy.url,
            &[
                ("Authorization", &bearer),
                ("Origin", "https://attacker.example")
            ]
        ),
        403,
        "a web page"
    );

    let config = home.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"ev": {"url": proxy.url, "headers": {"Authorization": bearer}}}})
            .to_string(),
    )
    .expect("config");
    let call = |tool: &str, args: Value| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .env("TOOLSCOPE_HOME", home.path().join("client"))
            .args([
                "call",
                tool,
                "--args",
                &args.to_string(),
                "--yes",
                "--no-history",
                "--mcp-config",
            ])
            .arg(&config)
            .stdin(Stdio::null())
            .output()
            .expect("the client runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{tool}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    assert!(call("ev_echo", json!({"message": "over HTTP"})).contains("Echo: over HTTP"));
    let long = call(
        "ev_trigger-long-running-operation",
        json!({"duration": 0.3, "steps": 3}),
    );
    assert!(long.contains("Long running operation completed"), "{long}");

    let records = record(home.path(), "everything");
    let calls = of_type(&records, "call");
    let tools: Vec<&Value> = calls.iter().map(|c| &c["tool"]).collect();
    assert_eq!(
        tools,
        [&json!("echo"), &json!("trigger-long-running-operation")]
    );
    assert!(calls.iter().all(|c| c["outcome"] == "result"), "{calls:#?}");
    let pings = records
        .iter()
        .filter(|r| r["type"] == "message" && r["msg"]["method"] == "ping")
        .count();
    assert_eq!(pings, 0, "refused requests never reached the server");
}
