//! The provider against the MCP project's reference server, `@modelcontextprotocol/server-everything`
//! (installed into `tests/node_modules` by `bash scripts/setup.sh --test`), over stdio and over
//! streamable HTTP on 127.0.0.1.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolscope_engine::ProgressRecorder;
use toolscope_mcp::{McpServerConfig, McpTransport, SourceStatus};
use toolscope_protocol::result::ErrorKind;

fn everything_script() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `bash scripts/setup.sh --test` (it installs the tests' npm packages)",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_lists_calls_renders_images_and_reports_progress() {
    let (registry, sources) = sources();
    ready(
        &sources,
        stdio("everything", "node", &[&everything_script(), "stdio"]),
    )
    .await;
    let tool = registry.get("everything").expect("registered");
    assert!(tool.method("echo").is_some());
    let long = tool
        .method("trigger-long-running-operation")
        .expect("listed");
    assert_eq!(long.meta.annotations.read_only, Some(true));
    assert!(long.meta.parameters["properties"]["duration"].is_object());

    let progress = Arc::new(ProgressRecorder::default());
    let executor = executor(&registry, Duration::from_secs(20)).with_progress(progress.clone());
    let echoed = run(
        &executor,
        "everything_echo",
        json!({"message": "hi from toolscope"}),
    )
    .await;
    assert!(echoed.result.contains("hi from toolscope"), "{echoed:?}");
    let image = run(&executor, "everything_get-tiny-image", json!({})).await;
    let value: serde_json::Value = serde_json::from_str(&image.result).expect("JSON content");
    let blocks = value["content"].as_array().expect("content blocks");
    assert!(
        blocks
            .iter()
            .any(|b| b["type"] == "image" && b["mimeType"] == "image/png"),
        "{value}"
    );

    let done = run(
        &executor,
        "everything_trigger-long-running-operation",
        json!({"duration": 0.4, "steps": 4}),
    )
    .await;
    assert!(done.is_success(), "{done:?}");
    let reports = progress.reports();
    assert_eq!(reports.len(), 4, "{reports:?}");
    assert_eq!(reports[3].total, Some(4.0));

    let bad = run(&executor, "everything_get-sum", json!({"a": "one", "b": 2})).await;
    assert_eq!(bad.error_kind(), Some(ErrorKind::InvalidArgs), "{bad:?}");
    let impatient = executor_with_timeout(&registry, 300);
    let timed_out = run(
        &impatient,
        "everything_trigger-long-running-operation",
        json!({"duration": 30, "steps": 30}),
    )
    .await;
    assert_eq!(timed_out.error_kind(), Some(ErrorKind::Timeout));
    assert_eq!(
        run(&executor, "everything_get-sum", json!({"a": 2, "b": 3}))
            .await
            .error,
        None
    );
    sources.shutdown();
}

fn executor_with_timeout(
    registry: &Arc<toolscope_engine::Registry>,
    ms: u64,
) -> toolscope_engine::executor::Executor {
    executor(registry, Duration::from_millis(ms))
}

/// Starts the reference server's streamable-HTTP mode on a free loopback port.
async fn http_server() -> (tokio::process::Child, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let mut child = tokio::process::Command::new("node")
        .args([everything_script().as_str(), "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let stderr = child.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    let listening = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening on port") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(listening, Ok(true), "the HTTP server did not start");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_lists_and_calls_without_asking_to_run_anything() {
    let (mut server, port) = http_server().await;
    let (registry, sources) = sources();
    let config = McpServerConfig {
        name: "remote".into(),
        transport: McpTransport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: [("X-Toolscope-Test".to_owned(), "1".to_owned())].into(),
            oauth: None,
        },
        enabled: true,
    };
    let state = sources.add(config).await.expect("adds");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "URLs start no program: {:?}",
        state.status
    );
    let executor = executor(&registry, Duration::from_secs(20));
    let echoed = run(&executor, "remote_echo", json!({"message": "over http"})).await;
    assert!(echoed.result.contains("over http"), "{echoed:?}");
    let sum = run(&executor, "remote_get-sum", json!({"a": 20, "b": 22})).await;
    assert!(sum.result.contains("42"), "{sum:?}");

    // The server goes away: a clear transport error, then the status says so.
    let _ = server.kill().await;
    let gone = run(&executor, "remote_echo", json!({"message": "anyone?"})).await;
    assert_eq!(gone.error_kind(), Some(ErrorKind::Transport), "{gone:?}");
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_research_query_runs_as_a_task_and_an_ambiguous_one_asks_through_it() {
    use toolscope_engine::TaskStatus;
    let person = Person::answering(toolscope_mcp::ElicitationAnswer::accept(
        json!({"interpretation": "snake"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    ));
    let (registry, sources) = sources_with(person.hooks());
    ready(
        &sources,
        stdio("everything", "node", &[&everything_script(), "stdio"]),
    )
    .await;
    let reports = Arc::new(ProgressRecorder::default());
    let executor = executor(&registry, Duration::from_secs(60)).with_progress(reports.clone());
    let report = run(
        &executor,
        "everything_simulate-research-query",
        json!({"topic": "rust"}),
    )
    .await;
    assert!(report.is_success(), "{report:?}");
    assert!(
        report.result.contains("# Research Report: rust"),
        "{}",
        report.result
    );
    let seen = reports.reports();
    let messages: Vec<&str> = seen.iter().filter_map(|r| r.message.as_deref()).collect();
    assert!(messages.contains(&"Gathering sources..."), "{messages:?}");
    assert!(messages.contains(&"Generating report..."), "{messages:?}");
    assert_eq!(
        seen.last().and_then(|r| r.task.as_ref()).map(|t| t.status),
        Some(TaskStatus::Completed)
    );
    assert!(person.requests().is_empty(), "a clear topic asks nothing");

    // The clarification is delivered while `tasks/result` is pending (the SDK's queue).
    let clarified = run(
        &executor,
        "everything_simulate-research-query",
        json!({"topic": "python", "ambiguous": true}),
    )
    .await;
    assert!(clarified.is_success(), "{clarified:?}");
    assert!(
        clarified.result.contains("python (snake)"),
        "{}",
        clarified.result
    );
    let asked = person.requests();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].task_id.is_some(), "{asked:?}");
    assert_eq!(
        asked[0].requested_schema["properties"]["interpretation"]["oneOf"][1]["title"],
        "Python snake species"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_elicitation_roots_and_sampling_tools() {
    // A person who gives a name and takes every default offered.
    let person = Person::new(|request| {
        Box::pin(async move {
            let mut schema = request.requested_schema.clone();
            schema["properties"]["name"]["default"] = json!("Ada Lovelace");
            match toolscope_mcp::elicitation::defaults_answer(&schema) {
                Ok(values) => toolscope_mcp::ElicitationAnswer::accept(values),
                Err(_) => toolscope_mcp::ElicitationAnswer::decline(),
            }
        })
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let root = toolscope_mcp::WorkspaceRoot::new(dir.path(), "workspace");
    let uri = root.uri();
    let hooks = toolscope_mcp::ClientHooks {
        roots: Arc::new(move || vec![root.clone()]),
        ..person.hooks()
    };
    let (registry, sources) = sources_with(hooks);
    ready(
        &sources,
        stdio("everything", "node", &[&everything_script(), "stdio"]),
    )
    .await;
    let executor = executor(&registry, Duration::from_secs(30));
    let elicited = run(
        &executor,
        "everything_trigger-elicitation-request",
        json!({}),
    )
    .await;
    assert!(
        elicited
            .result
            .contains("User provided the requested information"),
        "{}",
        elicited.result
    );
    assert!(
        elicited.result.contains("Name: Ada Lovelace"),
        "{}",
        elicited.result
    );
    assert!(
        elicited.result.contains("Favorite Integer: 42"),
        "{}",
        elicited.result
    );
    let asked = person.requests();
    assert_eq!(asked[0].server, "everything");
    let roots = run(&executor, "everything_get-roots-list", json!({})).await;
    assert!(roots.result.contains(&uri), "{}", roots.result);
    let sampled = run(
        &executor,
        "everything_trigger-sampling-request",
        json!({"prompt": "hi"}),
    )
    .await;
    assert_eq!(
        sampled.error_kind(),
        Some(ErrorKind::ToolError),
        "{sampled:?}"
    );
    assert!(
        sampled.result.contains("no model endpoint is configured"),
        "{}",
        sampled.result
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_tool_refused_as_a_plain_call_is_run_as_a_task() {
    let (_server, port) = http_server().await;
    let (registry, sources) = sources();
    let config = McpServerConfig {
        name: "remote".into(),
        transport: McpTransport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Default::default(),
            oauth: None,
        },
        enabled: true,
    };
    let state = sources.add(config).await.expect("adds");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{state:?}"
    );
    let executor = executor(&registry, Duration::from_secs(60));
    let report = run(
        &executor,
        "remote_simulate-research-query",
        json!({"topic": "tides"}),
    )
    .await;
    assert!(report.is_success(), "{report:?}");
    assert!(
        report.result.contains("# Research Report: tides"),
        "{}",
        report.result
    );
    sources.shutdown();
}
