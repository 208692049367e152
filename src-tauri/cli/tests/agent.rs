//! `toolscope agent` end to end: the real binary against the scripted model server on
//! 127.0.0.1, speaking each wire, with the built-in tools; the transcript is the evidence.

mod support;

use serde_json::Value;
use support::Sandbox;
use toolscope_llm_testserver::{Script, TestServer};

fn script(name: &str) -> Script {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/llm/scripts")
        .join(name);
    Script::load(&path).expect("script")
}

/// Runs the CLI off the async runtime, which keeps serving the model meanwhile.
async fn agent(sandbox: &Sandbox, args: Vec<String>) -> (i32, Value, String) {
    let home = sandbox.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(&args)
            .env("TOOLSCOPE_HOME", &home)
            .env_remove("TOOLSCOPE_WORKSPACE")
            .env_remove("TOOLSCOPE_HISTORY")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("toolscope runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\n{stderr}",
                String::from_utf8_lossy(&output.stdout)
            )
        });
        (output.status.code().unwrap_or(-1), json, stderr)
    })
    .await
    .expect("joined")
}

fn args(url: &str, wire: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--json",
        "agent",
        "--url",
        url,
        "--wire",
        wire,
        "--model",
        "toolscope-test",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

fn results(transcript: &Value) -> Vec<Value> {
    transcript["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter(|r| r["type"] == "result")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_sends_broken_arguments_recovers_on_every_wire() {
    for (wire, url_of) in [("openai", true), ("responses", true), ("anthropic", false)] {
        let server = TestServer::start(script("recovers_from_invalid_args.json"))
            .await
            .expect("server");
        let url = if url_of {
            server.openai_base_url()
        } else {
            server.base_url()
        };
        let sandbox = Sandbox::new();
        let (code, transcript, stderr) = agent(
            &sandbox,
            args(
                &url,
                wire,
                &["--tools", "calculator", "What is 2 * (3 + 4)?"],
            ),
        )
        .await;
        assert_eq!(code, 0, "{wire}: {stderr}\n{transcript}");
        assert_eq!(transcript["reason"]["reason"], "final", "{wire}");
        assert_eq!(transcript["final_text"], "2 * (3 + 4) = 14.", "{wire}");
        let results = results(&transcript);
        assert_eq!(results.len(), 2, "{wire}: {results:?}");
        assert_eq!(
            results[0]["result"]["error"]["kind"], "invalid_args",
            "{wire}"
        );
        assert_eq!(results[1]["result"]["status"], "success", "{wire}");
        // The second request carried the failure back to the model with its call id.
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{wire}");
        assert!(
            requests[1].raw_body.contains("call_calc_1")
                && requests[1].raw_body.contains("could not be read"),
            "{wire}"
        );
        let conversations = std::fs::read_dir(sandbox.path().join("conversations"))
            .expect("recorded")
            .count();
        assert_eq!(conversations, 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn prompted_tools_put_the_format_prompt_in_the_system_message() {
    let server = TestServer::start(script("prompted_hermes.json"))
        .await
        .expect("server");
    let sandbox = Sandbox::new();
    let (code, transcript, stderr) = agent(
        &sandbox,
        args(
            &server.openai_base_url(),
            "openai",
            &[
                "--format",
                "hermes",
                "--tools",
                "calculator_evaluate",
                "sqrt(2) * 10?",
            ],
        ),
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(results(&transcript)[0]["result"]["status"], "success");
    let first = &server.requests()[0].body;
    assert!(first.get("tools").is_none(), "no native tools: {first}");
    let system = first["messages"][0]["content"]
        .as_str()
        .expect("system prompt");
    assert!(
        system.contains("<tool_call>") && system.contains("calculator_evaluate"),
        "{system}"
    );
    assert!(
        !system.contains("workspace_write"),
        "only the chosen tools are described"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_and_failures_have_their_own_exit_codes() {
    let server = TestServer::start(script("loops_forever.json"))
        .await
        .expect("server");
    let sandbox = Sandbox::new();
    let (code, transcript, _) = agent(
        &sandbox,
        args(
            &server.openai_base_url(),
            "openai",
            &["--max-iterations", "3", "loop"],
        ),
    )
    .await;
    assert_eq!(code, 1);
    assert_eq!(
        transcript["reason"],
        serde_json::json!({"reason": "max_iterations", "limit": 3})
    );

    let server = TestServer::start(script("disconnects_mid_call.json"))
        .await
        .expect("server");
    let (code, transcript, _) = agent(
        &sandbox,
        args(&server.openai_base_url(), "openai", &["--yes", "write it"]),
    )
    .await;
    assert_eq!(code, 5, "{transcript}");
    assert_eq!(transcript["reason"]["kind"], "cut");
    assert!(results(&transcript).is_empty(), "a cut call never runs");

    // A key the server does not accept: refused before any turn, never written anywhere.
    let mut keyed = script("two_turn_weather.json");
    keyed.api_key = Some("right-key".to_owned());
    let server = TestServer::start(keyed).await.expect("server");
    let mut wrong = args(
        &server.openai_base_url(),
        "openai",
        &["--api-key-env", "TS_TEST_KEY", "hi"],
    );
    wrong.insert(0, "--no-history".to_owned());
    let home = sandbox.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(&wrong)
            .env("TOOLSCOPE_HOME", &home)
            .env("TS_TEST_KEY", "wrong-key-12345")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs")
    })
    .await
    .expect("joined");
    assert_eq!(output.status.code(), Some(5));
    let transcript: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(transcript["reason"]["kind"], "unauthorized");
    for entry in std::fs::read_dir(sandbox.path().join("conversations")).expect("dir") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        assert!(!text.contains("wrong-key-12345"), "the key was recorded");
    }
}
