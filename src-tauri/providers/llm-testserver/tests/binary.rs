//! The `toolscope-llm-testserver` binary as the app's end-to-end tests start it: one
//! `listening on` line on stdout, requests logged to stderr, and an exit when stdin closes.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::fixtures;
use toolscope_llm::client::Wire;

#[tokio::test]
async fn the_binary_serves_a_script_file_until_stdin_closes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope-llm-testserver"))
        .arg("--script")
        .arg(fixtures().join("scripts/two_turn_weather.json"))
        .args(["--port", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("first line");
    let url = line
        .trim_end()
        .strip_prefix("listening on ")
        .expect("the listening line")
        .to_owned();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .expect("a loopback URL with a port");
    assert_ne!(port, 0);

    let endpoint = toolscope_llm::client::Endpoint::new(
        Wire::OpenAiChat,
        format!("{url}/v1"),
        "toolscope-test".to_owned(),
        None,
        Duration::from_secs(5),
    );
    let (reply, _) =
        common::stream_with(&endpoint, common::body(Wire::OpenAiChat, "weather?")).await;
    assert_eq!(reply.expect("reply").calls[0].name, "weather_current");

    drop(child.stdin.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still running after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("rest of stdout");
    assert_eq!(rest, "", "stdout carries only the listening line");
    let mut log = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut log)
        .expect("stderr");
    assert!(log.contains("POST /v1/chat/completions -> turn 0"), "{log}");
}
