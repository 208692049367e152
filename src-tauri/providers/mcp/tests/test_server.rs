//! The provider against a real MCP server process: our own test server on rmcp's server side.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use toolscope_engine::history::{History, HistoryEntry, RecordedRequest};
use toolscope_engine::ProgressRecorder;
use toolscope_mcp::sources::{SourceFiles, SourceOptions};
use toolscope_mcp::{McpSources, SourceStatus};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_tools_with_mapped_names_schemas_and_annotations_and_calls_them() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let tool = registry
        .get("test")
        .expect("registered under the server name");
    let names: Vec<&str> = tool.methods.iter().map(|m| m.meta.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo-text",
            "slow-op",
            "crash",
            "fail",
            "echo-env",
            "garbage",
            "rich",
            "add-tool",
            "get-x",
            "get-x-2",
            "slow-task",
            "maybe-task",
            "ask",
            "roots",
            "sample",
            "task-journal"
        ]
    );
    let echo = tool.method("echo-text").expect("mapped");
    assert_eq!(echo.meta.annotations.read_only, Some(true));
    assert_eq!(echo.meta.parameters["required"], json!(["text"]));
    assert!(echo.meta.description.contains("MCP tool name: echo_text"));
    assert!(tool
        .method("rich")
        .and_then(|m| m.meta.output_schema.clone())
        .is_some());
    assert_eq!(
        tool.method("crash")
            .map(|m| m.meta.annotations.is_destructive()),
        Some(true)
    );

    let executor = executor(&registry, Duration::from_secs(10));
    let result = run(&executor, "test_echo-text", json!({"text": "héllo"})).await;
    assert_eq!(result.result, "héllo", "{result:?}");
    assert_eq!(
        run(&executor, "test_get-x", json!({})).await.result,
        "from get_x"
    );
    assert_eq!(
        run(&executor, "test_get-x-2", json!({})).await.result,
        "from get-x"
    );
    let rich = run(&executor, "test_rich", json!({})).await;
    let value: serde_json::Value =
        serde_json::from_str(&rich.result).expect("rich results are JSON");
    assert_eq!(value["content"][1]["type"], "image");
    assert_eq!(value["structuredContent"], json!({"sum": 3}));
    let failed = run(&executor, "test_fail", json!({})).await;
    assert_eq!(failed.error_kind(), Some(ErrorKind::ToolError));
    assert_eq!(failed.result, "the tool failed on purpose");

    // A call copies as the `tools/call` the server receives, under its own name.
    let exported = toolscope_engine::export::export_call(
        &registry,
        &toolscope_protocol::ProtocolSet::standard(),
        &toolscope_engine::export::ExportKind::JsonRpc,
        &toolscope_engine::export::CallToExport {
            request_id: "r1".into(),
            tool_name: "test_get-x-2".into(),
            args: json!({"n": 1}).as_object().cloned().unwrap_or_default(),
        },
        None,
    )
    .expect("a JSON-RPC request");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&exported).expect("JSON"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "get-x", "arguments": {"n": 1}}})
    );
    assert!(sources
        .log("test")
        .expect("known")
        .iter()
        .any(|l| l.contains("testserver ready")));
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_violations_are_caught_before_the_server_and_refusals_after() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(10));
    let invalid = run(&executor, "test_echo-text", json!({"text": 5})).await;
    assert_eq!(invalid.error_kind(), Some(ErrorKind::InvalidArgs));
    assert!(invalid
        .error
        .as_ref()
        .is_some_and(|e| e.issues.iter().any(|i| i.path == "/text")));
    // Straight to the tool, past validation: the server itself refuses.
    let (tool, _) = registry.resolve("test_echo-text").expect("resolves");
    let refused = tool
        .tool
        .call("echo-text", args(json!({"text": 5})), Default::default())
        .await;
    assert!(
        matches!(&refused, Err(toolscope_engine::ToolFailure::Failed(m)) if m.contains("refused") && m.contains("'text'")),
        "{refused:?}"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_sink_and_a_timeout_cancels_the_server_side_work() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let progress = Arc::new(ProgressRecorder::default());
    let quick = executor(&registry, Duration::from_secs(10)).with_progress(progress.clone());
    let done = run(&quick, "test_slow-op", json!({"seconds": 0.3})).await;
    assert_eq!(done.result, "slept 0.3 s", "{done:?}");
    let reports = progress.reports();
    assert_eq!(reports.len(), 3, "{reports:?}");
    assert_eq!((reports[2].progress, reports[2].total), (3.0, Some(3.0)));
    assert_eq!(reports[0].message.as_deref(), Some("step 1 of 3"));
    assert!(reports
        .iter()
        .all(|r| r.request_id == reports[0].request_id));

    let impatient = executor(&registry, Duration::from_millis(400));
    let timed_out = run(&impatient, "test_slow-op", json!({"seconds": 30})).await;
    assert_eq!(timed_out.error_kind(), Some(ErrorKind::Timeout));
    let heard = eventually(Duration::from_secs(5), || {
        sources
            .log("test")
            .unwrap_or_default()
            .iter()
            .any(|l| l.contains("slow_op cancelled"))
    })
    .await;
    assert!(
        heard,
        "the server never saw the cancel: {:?}",
        sources.log("test")
    );
    // The connection is fine afterwards.
    assert_eq!(
        run(&quick, "test_echo-text", json!({"text": "still here"}))
            .await
            .result,
        "still here"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_is_a_clear_transport_error_and_reconnect_works() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(10));
    let crashed = run(&executor, "test_crash", json!({})).await;
    assert_eq!(
        crashed.error_kind(),
        Some(ErrorKind::Transport),
        "{crashed:?}"
    );
    let failed = eventually(Duration::from_secs(5), || {
        matches!(
            sources.state("test").map(|s| s.status),
            Ok(SourceStatus::Failed { .. })
        )
    })
    .await;
    assert!(failed);
    let Ok(SourceStatus::Failed { reason }) = sources.state("test").map(|s| s.status) else {
        unreachable!()
    };
    assert!(
        reason.contains("status 3") && reason.contains("crashing on purpose"),
        "{reason}"
    );
    let after = run(&executor, "test_echo-text", json!({"text": "x"})).await;
    assert_eq!(after.error_kind(), Some(ErrorKind::Transport));
    assert!(
        after.result.contains("not connected") && after.result.contains("reconnect"),
        "{}",
        after.result
    );
    assert!(
        registry.get("test").is_some(),
        "the last listing stays visible"
    );

    let state = sources.reconnect("test").await.expect("known");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}",
        state.status
    );
    assert_eq!(
        run(&executor, "test_echo-text", json!({"text": "back"}))
            .await
            .result,
        "back"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_on_the_servers_stdout_is_skipped_and_the_call_answers() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(10));
    let answered = run(&executor, "test_garbage", json!({})).await;
    assert_eq!(
        answered.result, "still talking after the garbage",
        "{answered:?}"
    );
    assert!(answered.is_success());
    // The connection survived the bad line.
    let after = run(&executor, "test_echo-text", json!({"text": "after"})).await;
    assert_eq!(after.result, "after", "{after:?}");
    assert!(matches!(
        sources.state("test").map(|s| s.status),
        Ok(SourceStatus::Ready { .. })
    ));
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_the_config_never_come_back_in_results_errors_or_the_log() {
    const EXPANDED: &str = "expanded-s3cret-from-the-environment";
    const LITERAL: &str = "literal-api-token-in-the-file";
    const PLAIN: &str = "not-a-secret-setting";
    let registry = Arc::new(toolscope_engine::Registry::new());
    let options = SourceOptions {
        handshake_timeout: Duration::from_secs(20),
        env: Arc::new(|name| (name == "TS_SECRET").then(|| EXPANDED.to_owned())),
        ..SourceOptions::default()
    };
    let sources = McpSources::new(Arc::clone(&registry), options);
    let mut config = test_server("test", &[]);
    if let toolscope_mcp::McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("TOOLSCOPE_TEST_SECRET".into(), "${TS_SECRET}".into());
        env.insert("API_TOKEN".into(), LITERAL.into());
        env.insert("PLAIN_SETTING".into(), PLAIN.into());
    }
    ready(&sources, config).await;
    let executor = executor(&registry, Duration::from_secs(10));
    let dir = tempfile::tempdir().expect("tempdir");
    let (history, _) = History::open(dir.path().join("history.jsonl")).expect("history");
    for (arguments, kind) in [
        (json!({}), None),
        (json!({"fail": true}), Some(ErrorKind::ToolError)),
    ] {
        let request = ParsedToolRequest::manual("test_echo-env", args(arguments));
        let result = executor.execute(&request, &CancellationToken::new()).await;
        assert_eq!(result.error_kind(), kind, "{result:?}");
        assert!(
            result
                .result
                .ends_with(&format!("secret=*** token=*** plain={PLAIN}")),
            "{}",
            result.result
        );
        let entry = HistoryEntry::new(None, "test", RecordedRequest::from(&request), result);
        history.append(&entry).expect("records");
    }
    let recorded = std::fs::read_to_string(history.path()).expect("read history");
    let log = sources.log("test").expect("known").join("\n");
    assert!(log.contains("echo_env: secret=*** token=***"), "{log}");
    for text in [&recorded, &log] {
        assert!(
            !text.contains(EXPANDED) && !text.contains(LITERAL),
            "{text}"
        );
    }
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_refreshes_the_registry() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(10));
    let generation = registry.generation();
    assert_eq!(
        run(&executor, "test_add-tool", json!({})).await.result,
        "added added_1"
    );
    let refreshed = eventually(Duration::from_secs(5), || {
        registry
            .get("test")
            .is_some_and(|t| t.method("added-1").is_some())
    })
    .await;
    assert!(refreshed, "the new tool never appeared");
    assert!(registry.generation() > generation);
    assert_eq!(
        run(&executor, "test_added-1", json!({})).await.result,
        "added_1 ran"
    );
    assert!(matches!(
        sources.state("test").map(|s| s.status),
        // The 16 tools it starts with (see the first test) and the one added.
        Ok(SourceStatus::Ready { tools: 17, .. })
    ));
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_tools_are_listed_across_pages() {
    let (registry, sources) = sources();
    ready(&sources, test_server("big", &["--tools", "1000"])).await;
    assert_eq!(registry.get("big").map(|t| t.methods.len()), Some(1016));
    assert!(registry.resolve("big_generated-0999").is_ok());
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_cannot_start_fail_with_the_reason() {
    let (registry, sources) = sources();
    sources
        .add(test_server("refuses", &["--fail-to-start"]))
        .await
        .expect("adds");
    let state = sources.approve("refuses").await.expect("known");
    let SourceStatus::Failed { reason } = state.status else {
        panic!("{:?}", state.status)
    };
    assert!(
        reason.contains("exited with status 2") && reason.contains("refusing to start"),
        "{reason}"
    );
    assert!(!reason.contains("ProgressCounting"), "{reason}");

    sources
        .add(stdio("missing", "/nonexistent/mcp-server", &[]))
        .await
        .expect("adds");
    let state = sources.approve("missing").await.expect("known");
    let SourceStatus::Failed { reason } = state.status else {
        panic!("{:?}", state.status)
    };
    assert!(
        reason.contains("could not start '/nonexistent/mcp-server'"),
        "{reason}"
    );
    assert!(registry.get("refuses").is_none() && registry.get("missing").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_clash_are_refused_and_the_list_and_approvals_persist() {
    let dir = tempfile::tempdir().expect("temp dir");
    let registry = Arc::new(toolscope_engine::Registry::new());
    toolscope_builtin::register_all(
        &registry,
        &toolscope_builtin::BuiltinOptions {
            workspace_root: dir.path().join("ws"),
        },
    )
    .expect("built-ins");
    let open = || {
        McpSources::open(
            Arc::clone(&registry),
            SourceOptions::default(),
            SourceFiles::in_dir(dir.path()),
        )
    };
    let (sources, warnings) = open();
    assert!(warnings.is_empty());
    let clash = sources.add(test_server("echo", &[])).await;
    assert!(
        matches!(
            clash,
            Err(toolscope_mcp::sources::SourceError::ToolIdTaken { .. })
        ),
        "{clash:?}"
    );
    ready(&sources, test_server("test", &[])).await;
    let twin = sources.add(test_server("test", &["--tools", "1"])).await;
    assert!(matches!(
        twin,
        Err(toolscope_mcp::sources::SourceError::Duplicate(_))
    ));
    sources.shutdown();
    registry.unregister("test");
    drop(sources);

    let (again, warnings) = open();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(again.states().len(), 1);
    again.start_all().await;
    let state = again.state("test").expect("kept");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "approval was kept: {:?}",
        state.status
    );
    // Changing the command line asks again.
    let mut changed = test_server("test", &["--tools", "2"]);
    changed.enabled = true;
    let state = again.update("test", changed).await.expect("updates");
    assert!(
        matches!(state.status, SourceStatus::AwaitingApproval { .. }),
        "{:?}",
        state.status
    );
    again.remove("test").expect("removes");
    assert!(registry.get("test").is_none());
    again.shutdown();
}

/// The app's startup connects the saved servers in the background (`start_all`). A server the
/// person added and approved before that task ran was connected a second time, and the
/// approval answered "connecting" while the second connection replaced the first (seen as a
/// flaky elicitation test under load). Startup now leaves servers something else started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_leaves_alone_a_server_added_and_approved_meanwhile() {
    let registry = Arc::new(toolscope_engine::Registry::new());
    let sources = McpSources::new(Arc::clone(&registry), SourceOptions::default());
    ready(&sources, test_server("test", &[])).await;
    let changes = sources.subscribe();
    let before = *changes.borrow();
    sources.start_all().await;
    assert_eq!(
        *changes.borrow(),
        before,
        "start_all reconnected a server that was already up"
    );
    assert!(matches!(
        sources.state("test").expect("kept").status,
        SourceStatus::Ready { .. }
    ));
    sources.shutdown();
}
