//! A bearer token never reaches disk, end to end: the real `toolscope` binary calls HTTP tools
//! whose token comes from an environment variable, against a loopback server that echoes the
//! credentials back in its answers and errors, with the history on. The server must receive
//! the token; the token must not appear in the CLI's output or logs, nor in any file under
//! its data directory. Also: a method with no annotations is not called without `--yes`.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

const TOKEN_ENV: &str = "TOOLSCOPE_TEST_BEARER_TOKEN";

/// Requests the server received: (path, Authorization header).
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A loopback server that puts the Authorization header it got into every answer.
fn echo_server() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    // Detached: it blocks in accept until the test process exits.
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
            let auth = head
                .lines()
                .find_map(|l| {
                    l.split_once(':')
                        .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
                })
                .map(|(_, v)| v.trim().to_owned())
                .unwrap_or_default();
            let (status, body) = if path.starts_with("/fail") {
                (
                    "500 Internal Server Error",
                    format!("rejected credentials {auth}"),
                )
            } else {
                ("200 OK", serde_json::json!({"you_sent": auth}).to_string())
            };
            record
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((path, auth));
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, seen)
}

fn definition(base: &str) -> String {
    let auth = serde_json::json!({"type": "bearer", "token_env": TOKEN_ENV});
    let safe = serde_json::json!({"read_only": true, "destructive": false});
    let object = serde_json::json!({"type": "object"});
    serde_json::json!({
        "id": "secret",
        "methods": [
            {"name": "echo", "parameters": object, "annotations": safe,
             "endpoint": {"url": format!("{base}/echo"), "auth": auth}},
            {"name": "fail", "parameters": object, "annotations": safe,
             "endpoint": {"url": format!("{base}/fail"), "auth": auth}},
            {"name": "unannotated", "parameters": object,
             "endpoint": {"url": format!("{base}/unannotated"), "auth": auth}}
        ]
    })
    .to_string()
}

fn toolscope(home: &Path, token: &str, args: &[&str]) -> Output {
    let tools = home.join("http-tools");
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command
        .arg("--http-tools")
        .arg(&tools)
        .args(args)
        .env("TOOLSCOPE_HOME", home)
        .env(TOKEN_ENV, token)
        .env_remove("TOOLSCOPE_HISTORY")
        .env_remove("TOOLSCOPE_WORKSPACE")
        .stdin(Stdio::null());
    // Loopback only: never through a proxy from the environment.
    for proxy in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        command.env_remove(proxy);
    }
    command.output().expect("toolscope runs")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut queue = vec![dir.to_path_buf()];
    while let Some(next) = queue.pop() {
        for entry in std::fs::read_dir(&next)
            .expect("list")
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.is_dir() {
                queue.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_bearer_token_from_the_environment_never_reaches_disk_or_output() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let token = format!("tok-{}-{nanos}-s3cr3t", std::process::id());
    let (base, seen) = echo_server();
    let home = tempfile::tempdir().expect("tempdir");
    let tools = home.path().join("http-tools");
    std::fs::create_dir_all(&tools).expect("tools dir");
    std::fs::write(tools.join("secret.json"), definition(&base)).expect("definition");
    let reply = home.path().join("reply.txt");
    std::fs::write(
        &reply,
        r#"{"tool_calls": [{"name": "secret_echo", "arguments": {}}, {"name": "secret_fail", "arguments": {}}]}"#,
    )
    .expect("reply");

    let mut outputs = Vec::new();
    // Without a terminal and without --yes, the unannotated method is denied, unsent.
    let denied = toolscope(
        home.path(),
        &token,
        &["call", "secret_unannotated", "--json"],
    );
    assert_eq!(denied.status.code(), Some(1), "{denied:?}");
    assert!(
        String::from_utf8_lossy(&denied.stdout).contains("\"denied\""),
        "{denied:?}"
    );
    assert!(
        seen.lock().expect("seen").is_empty(),
        "a denied call reached the server"
    );
    outputs.push(denied);
    for args in [
        &["call", "secret_echo", "--json"][..],
        &["call", "secret_echo"][..],
        &["call", "secret_fail", "--json"][..],
        &["call", "secret_unannotated", "--yes", "--json"][..],
        &["run", &reply.to_string_lossy(), "--json"][..],
    ] {
        outputs.push(toolscope(home.path(), &token, args));
    }
    let codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
    assert_eq!(
        codes,
        [Some(1), Some(0), Some(0), Some(1), Some(0), Some(1)],
        "{outputs:?}"
    );

    // The server got the token every time: it was really used.
    let seen = seen.lock().expect("seen").clone();
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert!(
        seen.iter()
            .all(|(_, auth)| *auth == format!("Bearer {token}")),
        "{seen:?}"
    );

    // It is in no output, and what was echoed back shows redacted.
    for output in &outputs {
        for stream in [&output.stdout, &output.stderr] {
            assert!(
                !contains(stream, token.as_bytes()),
                "{}",
                String::from_utf8_lossy(stream)
            );
        }
    }
    assert!(String::from_utf8_lossy(&outputs[1].stdout).contains("Bearer ***"));

    // Nor in any file the CLI wrote, the history first of all.
    let history = std::fs::read_to_string(home.path().join("history.jsonl")).expect("history");
    // Seven runs: the denied one is recorded too.
    assert_eq!(history.lines().count(), 7, "{history}");
    assert!(history.contains("Bearer ***"), "{history}");
    let files = files_under(home.path());
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let bytes = std::fs::read(&file).expect("read");
        assert!(
            !contains(&bytes, token.as_bytes()),
            "{} holds the token",
            file.display()
        );
    }
}
