//! Fault injection through the real executor: a tool that panics, one that hangs forever and
//! ignores cancellation, one that sleeps past the timeout, and 50 MB of output (from the real
//! `devtools_generate` and as a JSON value). Each costs one classified failed (or capped) run;
//! the executor carries on, and calls it gave up on are dropped, not leaked.
//!
//! Invalid UTF-8 cannot come out of an in-process tool (results are `serde_json::Value`): it
//! arrives through a provider, so it is tested there (`providers/http/tests/faults.rs`, and the
//! MCP test server's `garbage` tool); so is a provider process dying mid-call
//! (`providers/mcp/tests/test_server.rs`).

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use support::fault_tool::{FaultTool, PANIC_MARKER};
use support::registry_with_faults;
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{Executor, ExecutorOptions, OversizePolicy};
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ToolExecutionResult};

/// How long a test waits for a dropped call to be noticed before it calls it a leak. A bound
/// on a bug (a future that is never dropped), not on speed.
const LEAK_LIMIT: Duration = Duration::from_secs(60);
const FIFTY_MB: u64 = 50_000_000;

struct Bench {
    _dir: tempfile::TempDir,
    registry: Arc<Registry>,
    fault: Arc<FaultTool>,
}

fn bench() -> Bench {
    let dir = tempfile::tempdir().expect("tempdir");
    let (registry, fault) = registry_with_faults(dir.path());
    Bench {
        _dir: dir,
        registry,
        fault,
    }
}

impl Bench {
    fn executor(&self, options: ExecutorOptions) -> Executor {
        Executor::new(Arc::clone(&self.registry), options)
    }

    fn with_timeout(&self, timeout: Duration) -> Executor {
        self.executor(ExecutorOptions {
            timeout,
            ..ExecutorOptions::default()
        })
    }
}

fn request(name: &str, args: Value) -> ParsedToolRequest {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    ParsedToolRequest::manual(name, args)
}

async fn run(executor: &Executor, name: &str, args: Value) -> ToolExecutionResult {
    executor
        .execute(&request(name, args), &CancellationToken::new())
        .await
}

async fn assert_no_call_leaked(bench: &Bench) {
    tokio::time::timeout(LEAK_LIMIT, bench.fault.liveness.all_dropped())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{} abandoned calls were never dropped",
                bench.fault.liveness.live()
            )
        });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_tool_fails_its_run_and_nothing_else() {
    let bench = bench();
    let executor = bench.with_timeout(Duration::from_secs(30));
    for method in ["panic", "panic-early"] {
        let result = run(&executor, &format!("fault_{method}"), json!({})).await;
        assert_eq!(
            result.error_kind(),
            Some(ErrorKind::ToolError),
            "{result:?}"
        );
        assert!(
            result.result.contains("panicked") && result.result.contains(PANIC_MARKER),
            "{}",
            result.result
        );
    }
    // Panics in the middle of a parallel batch: the others still succeed, in order.
    let requests: Vec<ParsedToolRequest> = (0..64)
        .map(|i| {
            let name = if i % 2 == 0 {
                "fault_panic"
            } else {
                "fault_ok"
            };
            request(name, json!({"i": i}))
        })
        .collect();
    let batch = bench.executor(ExecutorOptions {
        schedule: toolscope_engine::config::ParallelExecution::Parallel,
        ..ExecutorOptions::default()
    });
    let results = batch
        .execute_all(&requests, &CancellationToken::new())
        .await;
    for (i, result) in results.iter().enumerate() {
        assert_eq!(result.request_id, requests[i].request_id);
        if i % 2 == 0 {
            assert_eq!(result.error_kind(), Some(ErrorKind::ToolError));
        } else {
            assert!(result.is_success(), "{result:?}");
            assert_eq!(result.result, format!("{{\"i\":{i}}}"));
        }
    }
    assert!(run(
        &executor,
        "calculator_evaluate",
        json!({"expression": "6*7"})
    )
    .await
    .is_success());
    assert_no_call_leaked(&bench).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_hangs_and_ignores_cancellation_times_out_and_is_dropped() {
    let bench = bench();
    let executor = bench.with_timeout(Duration::from_millis(50));
    let result = run(&executor, "fault_hang", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout), "{result:?}");
    assert!(result.result.contains("50 ms"), "{}", result.result);
    assert_no_call_leaked(&bench).await;

    // Cancelled by the user instead: classified as such, and dropped too.
    let patient = bench.with_timeout(Duration::from_secs(600));
    let hung = request("fault_hang", json!({}));
    let cancel = CancellationToken::new();
    let (result, ()) = tokio::join!(patient.execute(&hung, &cancel), async {
        bench.fault.hang_started(&hung.request_id).await;
        cancel.cancel();
    });
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::Cancelled),
        "{result:?}"
    );
    assert_no_call_leaked(&bench).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleeping_past_the_timeout_is_a_timeout_and_the_sleeper_is_dropped() {
    let bench = bench();
    let executor = bench.with_timeout(Duration::from_millis(30));
    let result = run(&executor, "fault_sleep-past", json!({"ms": 60_000})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout), "{result:?}");
    assert_no_call_leaked(&bench).await;
    // The polite sleeper of devtools, which watches the token, ends the same way.
    let result = run(&executor, "devtools_sleep", json!({"durationMs": 60_000})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout), "{result:?}");
}

/// A capped result keeps only what it shows: the 50 MB it was cut from are freed.
fn assert_capped(result: &ToolExecutionResult, original: u64, cap: usize) {
    assert!(result.is_success(), "{:?}", result.error);
    let truncated = result.truncated.expect("truncation reported");
    assert_eq!(truncated.original_bytes, original);
    assert_eq!(truncated.kept_bytes, cap as u64);
    assert!(result.result.len() < cap + 200, "{}", result.result.len());
    assert!(
        result.result.capacity() < 2 * cap,
        "the capped result still holds {} bytes",
        result.result.capacity()
    );
    assert!(
        result.result.ends_with(&format!(
            "[output truncated: {cap} of {original} bytes shown]"
        )),
        "{}",
        &result.result[cap..]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_megabytes_of_output_are_capped_or_refused() {
    let bench = bench();
    let cap = 64 * 1024;
    let executor = bench.executor(ExecutorOptions {
        max_output_bytes: cap,
        ..ExecutorOptions::default()
    });
    let text = run(&executor, "devtools_generate", json!({"bytes": FIFTY_MB})).await;
    assert_capped(&text, FIFTY_MB, cap);
    assert!(text.result.starts_with("0123456789"));
    // A JSON value is serialised first, then capped the same way.
    let value = run(&executor, "fault_flood-json", json!({"bytes": FIFTY_MB})).await;
    assert_capped(&value, FIFTY_MB + r#"{"flood":""}"#.len() as u64, cap);

    let refusing = bench.executor(ExecutorOptions {
        max_output_bytes: cap,
        oversize: OversizePolicy::Fail,
        ..ExecutorOptions::default()
    });
    let refused = run(&refusing, "devtools_generate", json!({"bytes": FIFTY_MB})).await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::OutputTooLarge));
    assert_eq!(
        refused.result,
        format!("output of {FIFTY_MB} bytes exceeds the cap of {cap} bytes")
    );
    assert_no_call_leaked(&bench).await;
}
