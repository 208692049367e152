//! What MCP servers ask during a `toolscope call`, against real servers: the reference
//! server-everything (tasks, elicitation, roots, sampling, with the scripted model server as
//! the sampling endpoint) and a small server on the official
//! TypeScript SDK whose form has a default for every field (`tests/fixtures/mcp`).

mod support;

use std::path::Path;
use std::process::Output;

use support::{repo_path, stderr, Sandbox};

/// A config with one stdio server running `script` under node.
fn config(sandbox: &Sandbox, name: &str, script: &str, args: &[&str]) -> String {
    assert!(
        Path::new(script).exists(),
        "{script} is missing: run `bash scripts/setup.sh --test`"
    );
    let mut command = vec![script.to_owned()];
    command.extend(args.iter().map(|a| (*a).to_owned()));
    sandbox.write(
        &format!("{name}.json"),
        &serde_json::json!({"mcpServers": {name: {"command": "node", "args": command}}})
            .to_string(),
    )
}

fn everything(sandbox: &Sandbox) -> String {
    let script =
        repo_path("tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    config(sandbox, "everything", &script, &["stdio"])
}

fn call(sandbox: &Sandbox, config: &str, args: &[&str]) -> Output {
    let mut all = vec!["--mcp-config", config, "--no-history", "call"];
    all.extend_from_slice(args);
    sandbox.run(&all)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_tool_that_requires_a_task_runs_as_one_and_shows_its_status() {
    let sandbox = Sandbox::new();
    let config = everything(&sandbox);
    let output = call(
        &sandbox,
        &config,
        &[
            "everything_simulate-research-query",
            "--args",
            r#"{"topic": "tides"}"#,
        ],
    );
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("# Research Report: tides"), "{out}");
    assert!(err.contains(" working: Gathering sources..."), "{err}");
    assert!(err.contains(" completed"), "{err}");
}

#[test]
fn elicitation_is_declined_without_yes_and_says_what_was_asked() {
    let sandbox = Sandbox::new();
    let config = everything(&sandbox);
    let output = call(
        &sandbox,
        &config,
        &["everything_trigger-elicitation-request"],
    );
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("User declined"), "{out}");
    assert!(
        err.contains(
            "MCP server 'everything' asks: Please provide inputs for the following fields:"
        ),
        "{err}"
    );
    assert!(err.contains("  - name (String): text, required"), "{err}");
    assert!(
        err.contains("\"hero-1\" (Superman)"),
        "titled enums show their titles: {err}"
    );
    assert!(
        err.contains("declined: the CLI does not stop to ask"),
        "{err}"
    );
    assert!(err.contains("--yes"), "{err}");

    // With --yes a required field without a default still cannot be filled: declined, and why.
    let output = call(
        &sandbox,
        &config,
        &["everything_trigger-elicitation-request", "--yes"],
    );
    let err = stderr(&output);
    assert!(stdout(&output).contains("User declined"), "{err}");
    assert!(
        err.contains("declined: the required field 'name' has no default to fill it"),
        "{err}"
    );
}

#[test]
fn with_yes_a_form_is_accepted_with_its_defaults() {
    let sandbox = Sandbox::new();
    let config = config(
        &sandbox,
        "sdk",
        &repo_path("tests/fixtures/mcp/elicit-defaults.mjs"),
        &[],
    );
    let output = call(&sandbox, &config, &["sdk_ask", "--yes", "--json"]);
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{out}\n{err}");
    let result: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let answer: serde_json::Value =
        serde_json::from_str(result["result"].as_str().unwrap_or_default()).expect("the answer");
    assert_eq!(
        answer,
        serde_json::json!({"action": "accept", "content": {"name": "John Doe", "age": 30,
            "score": 95.5, "status": "active", "plan": "p2", "verified": true}})
    );
    assert!(
        err.contains("accepted with the schema's defaults (--yes)"),
        "{err}"
    );
    let declined = call(&sandbox, &config, &["sdk_ask", "--json"]);
    assert!(
        stdout(&declined).contains(r#"\"action\":\"decline\""#),
        "{}",
        stdout(&declined)
    );
}

#[test]
fn roots_are_the_current_directory_and_sampling_is_declined_with_a_reason() {
    let sandbox = Sandbox::new();
    let config = everything(&sandbox);
    let output = call(&sandbox, &config, &["everything_get-roots-list"]);
    let out = stdout(&output);
    let here = std::env::current_dir().expect("cwd");
    let uri = toolscope_mcp::WorkspaceRoot::new(here, "current directory").uri();
    assert!(out.contains(&uri), "{out}\n{}", stderr(&output));
    assert!(out.contains("current directory"), "{out}");

    let output = call(
        &sandbox,
        &config,
        &[
            "everything_trigger-sampling-request",
            "--args",
            r#"{"prompt": "hi"}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(1), "a failed call");
    let out = stdout(&output);
    assert!(out.contains("no model endpoint is configured"), "{out}");
}

/// Runs the CLI on this worker while the runtime's other worker keeps serving the model.
fn run_beside_the_model(sandbox: &Sandbox, args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tokio::task::block_in_place(|| sandbox.run(&args))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_goes_to_the_named_endpoint_with_yes_and_is_shown_without() {
    let script = toolscope_llm_testserver::Script::from_json(
        r#"{"turns": [{"expect": {"contains": ["hi"]},
                       "reply": {"text": "Sampled through Toolscope"}, "repeat": true}]}"#,
    )
    .expect("script");
    let model = toolscope_llm_testserver::TestServer::start(script)
        .await
        .expect("model server");
    let sandbox = Sandbox::new();
    let added = sandbox.run(&[
        "endpoints",
        "add",
        "local",
        "--url",
        &model.openai_base_url(),
        "--model",
        "toolscope-test",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let config = everything(&sandbox);
    let args = |yes: bool| {
        let mut args: Vec<String> = [
            "--mcp-config",
            &config,
            "--no-history",
            "--sampling-endpoint",
            "local",
            "call",
            "everything_trigger-sampling-request",
            "--args",
            r#"{"prompt": "hi"}"#,
        ]
        .map(str::to_owned)
        .to_vec();
        if yes {
            args.push("--yes".into());
        }
        args
    };

    let declined = run_beside_the_model(&sandbox, &args(false));
    let err = stderr(&declined);
    assert!(
        err.contains("MCP server 'everything' asks for a model reply"),
        "{err}"
    );
    assert!(
        err.contains("would be answered by: toolscope-test at http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("pass --yes to send it"), "{err}");
    assert!(
        stdout(&declined).contains("refused to send"),
        "{}",
        stdout(&declined)
    );
    assert_eq!(model.requests().len(), 0, "nothing reached the model");

    let sent = run_beside_the_model(&sandbox, &args(true));
    let out = stdout(&sent);
    assert_eq!(sent.status.code(), Some(0), "{out}\n{}", stderr(&sent));
    assert!(out.contains("Sampled through Toolscope"), "{out}");
    assert!(
        stderr(&sent).contains("sent to the model (--yes)"),
        "{}",
        stderr(&sent)
    );
    assert_eq!(model.requests().len(), 1);

    let unknown = sandbox.run(&[
        "--mcp-config",
        &config,
        "--sampling-endpoint",
        "nowhere",
        "call",
        "everything_get-roots-list",
    ]);
    assert_eq!(unknown.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&unknown).contains("--sampling-endpoint: no endpoint profile 'nowhere'"),
        "{}",
        stderr(&unknown)
    );
}
