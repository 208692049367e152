//! Seed 004's HTTP tool fields against a real server on 127.0.0.1: its tool rows with
//! `rate_limit` and `type = "streamable"` load as they are; a burst past a rate limit waits its
//! turn and, past its timeout, fails as `rate_limited` with the time to retry (on tokio's paused
//! clock: nothing sleeps, nothing is timed); a streamed body arrives as several progress
//! reports before the whole of it is the result; a malformed `rate_limit` is a problem of its
//! file at the field's path.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use support::calls::{args, TOKEN};
use support::{client, Reply, TestServer};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::{CallContext, CallProgress, ProgressSink, Registry, ToolFailure};
use toolscope_http::{EnvSource, HttpToolSet};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/http")
}

/// The seed fixtures in a directory of their own, their hosts pointed at `base`.
fn seed_tools(base: &str) -> (tempfile::TempDir, Arc<Registry>, HttpToolSet) {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["web_search.json", "research_report.json"] {
        let text = std::fs::read_to_string(fixtures_dir().join(name)).expect("fixture");
        let text = text
            .replace("https://api.search.example", base)
            .replace("https://api.research.example", base);
        std::fs::write(dir.path().join(name), text).expect("writes");
    }
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::with_client(dir.path(), Arc::clone(&registry), client()).with_env(
        EnvSource::from_map([("RESEARCH_TOKEN".to_owned(), TOKEN.to_owned())]),
    );
    let report = set.reload();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.added, ["research_report", "web_search"]);
    (dir, registry, set)
}

#[tokio::test]
async fn seed_rows_with_rate_limit_and_streamable_load_without_problems() {
    let (_dir, registry, set) = seed_tools("http://127.0.0.1:9");
    assert!(registry.resolve("web_search_call").is_ok());
    assert!(registry.resolve("research_report_call").is_ok());
    let limiter = set.limiter_of("web_search").expect("rate limited");
    assert_eq!(limiter.limit().describe(), "2 requests per 10 s");
    assert!(
        set.limiter_of("research_report").is_none(),
        "rate_limit: null"
    );
    // Reloading an unchanged limit keeps the limiter (and what it has counted).
    set.reload();
    let again = set.limiter_of("web_search").expect("still limited");
    assert!(Arc::ptr_eq(&limiter, &again));
}

#[tokio::test]
async fn a_malformed_rate_limit_is_a_problem_of_its_file_at_the_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        fixtures_dir().join("invalid/rate_limit_zero.json"),
        dir.path().join("rate_limit_zero.json"),
    )
    .expect("copy");
    let shapes = [
        (
            "per_minute.json",
            json!({"requests_per_minute": 60}),
            "rate_limit.requests_per_minute",
            "unknown field",
        ),
        ("text.json", json!("10/min"), "rate_limit", "invalid type"),
        (
            "window.json",
            json!({"requests": 5, "window_seconds": 0}),
            "rate_limit.window_seconds",
            "from 1 to 86400",
        ),
    ];
    for (file, rate_limit, _, _) in &shapes {
        let text = json!({"name": "t", "endpoint": {"url_template": "https://h.test/"},
                          "rate_limit": rate_limit});
        std::fs::write(dir.path().join(file), text.to_string()).expect("writes");
    }
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::with_client(dir.path(), Arc::clone(&registry), client());
    let report = set.reload();
    assert!(report.added.is_empty());
    let expected = std::iter::once(("rate_limit_zero.json", "rate_limit.requests", "at least 1"))
        .chain(
            shapes
                .iter()
                .map(|(file, _, field, text)| (*file, *field, *text)),
        );
    for (file, field, text) in expected {
        let problem = report
            .problems
            .iter()
            .find(|p| p.file.ends_with(file))
            .unwrap_or_else(|| panic!("no problem for {file}: {:?}", report.problems));
        assert_eq!(problem.field.as_deref(), Some(field), "{problem}");
        assert!(problem.message.contains(text), "{file}: {problem}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_burst_past_the_rate_limit_waits_then_fails_as_rate_limited_with_a_retry_time() {
    let server =
        TestServer::start(|r| Reply::json(200, json!({"results": [r.query_param("q")]}))).await;
    let (_dir, registry, _set) = seed_tools(&server.base);
    let tool = registry.get("web_search").expect("registered").tool.clone();
    let started = tokio::time::Instant::now();
    // Five calls at once, each with 15 s to run; the limit is 2 per 10 s.
    let calls = (0..5).map(|i| {
        let tool = Arc::clone(&tool);
        tokio::spawn(async move {
            let ctx = CallContext {
                deadline: Some(started + Duration::from_secs(15)),
                ..CallContext::default()
            };
            let outcome = tool
                .call("call", args(json!({"query": format!("q{i}")})), ctx)
                .await;
            (outcome, tokio::time::Instant::now() - started)
        })
    });
    let calls: Vec<_> = calls.collect();
    let mut outcomes = Vec::new();
    for call in calls {
        outcomes.push(call.await.expect("joined"));
    }
    let mut ran: Vec<(String, Duration)> = Vec::new();
    let mut refused = Vec::new();
    for (outcome, at) in outcomes {
        match outcome {
            Ok(value) => ran.push((value.to_string(), at)),
            Err(ToolFailure::RateLimited {
                message,
                retry_after,
            }) => refused.push((message, retry_after, at)),
            Err(other) => panic!("unexpected failure: {other}"),
        }
    }
    // All four that fit before their timeout ran, in order; the last two only once the
    // window had passed (virtual time: when they finished says nothing about the first two).
    let values: Vec<&str> = ran.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(values, [r#"["q0"]"#, r#"["q1"]"#, r#"["q2"]"#, r#"["q3"]"#]);
    assert!(
        ran[2..]
            .iter()
            .all(|(_, at)| *at >= Duration::from_secs(10)),
        "{ran:?}"
    );
    // The fifth's turn (20 s) is past its timeout: refused at once, saying when to retry.
    let [(message, retry_after, at)] = refused.as_slice() else {
        panic!("expected one refusal, got {refused:?}");
    };
    assert_eq!(*retry_after, Duration::from_secs(20));
    assert_eq!(*at, Duration::ZERO);
    assert!(
        message.contains("'web_search' allows 2 requests per 10 s"),
        "{message}"
    );
    assert!(message.ends_with("retry in 20 s"), "{message}");
    assert_eq!(server.requests().len(), 4, "the refused call sent nothing");

    // Through the executor: classified, with a suggestion that says when.
    let executor = Executor::new(
        Arc::clone(&registry),
        ExecutorOptions {
            timeout: Duration::from_secs(5),
            ..Default::default()
        },
    )
    .with_confirmation(Arc::new(ApproveAll));
    let request = ParsedToolRequest::manual("web_search_call", args(json!({"query": "q5"})));
    let result = executor.execute(&request, &CancellationToken::new()).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::RateLimited),
        "{result:?}"
    );
    assert!(result.result.contains("retry in "), "{}", result.result);
    let suggestion = result.suggestion().unwrap_or_default();
    assert!(
        suggestion.starts_with("The tool allows only so many calls"),
        "{suggestion}"
    );
    assert!(suggestion.contains(" s, then retry"), "{suggestion}");
}

/// Progress reports of the run; each one that shows the end of a line lets the server send
/// its next piece.
struct Watcher {
    reports: Mutex<Vec<CallProgress>>,
    gate: Arc<Semaphore>,
}

impl ProgressSink for Watcher {
    fn report(&self, progress: CallProgress) {
        if progress
            .message
            .as_deref()
            .is_some_and(|m| m.ends_with('\n'))
        {
            self.gate.add_permits(1);
        }
        if let Ok(mut reports) = self.reports.lock() {
            reports.push(progress);
        }
    }
}

#[tokio::test]
async fn a_streamed_body_arrives_as_progress_reports_before_the_whole_result() {
    let events = [
        "data: {\"content\":\"Section 1: sources\"}\n\n",
        "data: {\"content\":\"Section 2: findings\"}\n\n",
        "data: {\"content\":\"Section 3: summary\"}\n\n",
        "data: [DONE]\n\n",
    ];
    let gate = Arc::new(Semaphore::new(0));
    let server = {
        let gate = Arc::clone(&gate);
        TestServer::start(move |r| {
            if r.header("authorization") != Some(&format!("Bearer {TOKEN}")) {
                return Reply::unauthorized();
            }
            Reply::Chunked {
                content_type: "text/event-stream".into(),
                pieces: events.iter().map(|e| e.as_bytes().to_vec()).collect(),
                gate: Some(Arc::clone(&gate)),
            }
        })
        .await
    };
    let (_dir, registry, _set) = seed_tools(&server.base);
    let watcher = Arc::new(Watcher {
        reports: Mutex::new(Vec::new()),
        gate,
    });
    let executor = Executor::new(Arc::clone(&registry), ExecutorOptions::default())
        .with_progress(watcher.clone());
    let request =
        ParsedToolRequest::manual("research_report_call", args(json!({"topic": "tides"})));
    let result = executor.execute(&request, &CancellationToken::new()).await;
    assert!(result.is_success(), "{}", result.result);
    let body = events.concat();
    assert_eq!(result.result, body, "the result is the whole body");
    assert_eq!(server.last_request().json(), json!({"topic": "tides"}));

    let reports = watcher.reports.lock().expect("reports").clone();
    assert!(reports.len() >= events.len(), "{reports:?}");
    assert!(reports.iter().all(|p| p.request_id == request.request_id));
    let shown: String = reports.iter().filter_map(|p| p.message.clone()).collect();
    assert_eq!(shown, body, "the pieces shown add up to the body");
    let progress: Vec<f64> = reports.iter().map(|p| p.progress).collect();
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    assert_eq!(progress.last().copied(), Some(body.len() as f64));

    // The same output cap as any tool (no one watches this run: the server goes unhindered).
    watcher.gate.add_permits(events.len());
    let capped = Executor::new(
        registry,
        ExecutorOptions {
            max_output_bytes: 40,
            ..Default::default()
        },
    );
    let result = capped.execute(&request, &CancellationToken::new()).await;
    assert!(result.is_success(), "{}", result.result);
    assert_eq!(
        result.truncated.map(|t| (t.original_bytes, t.kept_bytes)),
        Some((body.len() as u64, 40))
    );
}
