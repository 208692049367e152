use std::sync::Mutex;

use serde_json::json;
use tokio::sync::Barrier;

use super::*;
use crate::tool::{BoxFuture, Tool};
use crate::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::{Annotations, MethodMetadata};

/// A tool whose methods each exercise one executor path.
struct Probe {
    log: Mutex<Vec<String>>,
    barrier: Barrier,
}

fn read_only() -> Annotations {
    Annotations {
        read_only: Some(true),
        destructive: Some(false),
        ..Default::default()
    }
}

fn meta(name: &str, annotations: Annotations, parameters: Value) -> MethodMetadata {
    MethodMetadata {
        name: name.into(),
        description: String::new(),
        parameters,
        agent_callable: name != "hidden",
        protocol_config: None,
        annotations,
        output_schema: None,
    }
}

impl Tool for Probe {
    fn info(&self) -> ToolInfo {
        let any = json!({"type": "object"});
        let not_destructive = Annotations {
            destructive: Some(false),
            ..Default::default()
        };
        ToolInfo {
            id: "probe".into(),
            name: "Probe".into(),
            description: String::new(),
            source: ToolSource::Builtin,
            methods: vec![
                meta("echo", read_only(), any.clone()),
                meta("steps", read_only(), any.clone()),
                meta("gate", read_only(), any.clone()),
                meta("log", not_destructive, any.clone()),
                meta("sleep", read_only(), any.clone()),
                meta("panic", read_only(), any.clone()),
                meta("fail", read_only(), any.clone()),
                meta("transport", read_only(), any.clone()),
                meta("ghost", read_only(), any.clone()),
                meta("big", read_only(), any.clone()),
                meta("json", read_only(), any.clone()),
                meta("hidden", read_only(), any.clone()),
                meta("wipe", Annotations::default(), any),
                meta(
                    "typed",
                    read_only(),
                    json!({
                        "type": "object",
                        "properties": {
                            "count": {"type": "integer", "minimum": 1},
                            "flag": {"type": "boolean"},
                            "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                            "mode": {"enum": ["a", "b"], "default": "a"},
                            "name": {"type": "string"}
                        },
                        "required": ["count"],
                        "additionalProperties": false
                    }),
                ),
            ],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let id = args.get("id").cloned().unwrap_or(Value::Null).to_string();
            match method {
                "echo" | "typed" => Ok(Value::Object(args)),
                "steps" => {
                    for step in 1..=3 {
                        ctx.report_progress(
                            f64::from(step),
                            Some(3.0),
                            Some(format!("step {step}")),
                        );
                    }
                    Ok(json!(ctx.wants_progress()))
                }
                "gate" => {
                    self.barrier.wait().await;
                    Ok(json!("through"))
                }
                "log" => {
                    self.log
                        .lock()
                        .map_err(|_| ToolFailure::failed("poisoned"))?
                        .push(format!("start {id}"));
                    tokio::task::yield_now().await;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    self.log
                        .lock()
                        .map_err(|_| ToolFailure::failed("poisoned"))?
                        .push(format!("end {id}"));
                    Ok(json!(id))
                }
                "sleep" => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok(json!("woke"))
                }
                "panic" => panic!("probe exploded"),
                "fail" => Err(ToolFailure::failed("disk on fire")),
                "transport" => Err(ToolFailure::Transport("server went away".into())),
                "big" => Ok(json!("é".repeat(1000))),
                "json" => Ok(json!({"n": 1, "list": [true, null]})),
                "wipe" | "hidden" => Ok(json!("done")),
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

fn setup(options: ExecutorOptions) -> (Executor, Arc<Probe>) {
    setup_with_barrier(options, 1)
}

fn setup_with_barrier(options: ExecutorOptions, parties: usize) -> (Executor, Arc<Probe>) {
    let registry = Arc::new(Registry::new());
    let probe = Arc::new(Probe {
        log: Mutex::new(Vec::new()),
        barrier: Barrier::new(parties),
    });
    registry.register(probe.clone()).expect("probe registers");
    (Executor::new(registry, options), probe)
}

fn request(name: &str, args: Value) -> ParsedToolRequest {
    let Value::Object(args) = args else {
        panic!("args must be an object")
    };
    ParsedToolRequest::manual(name, args)
}

async fn run(executor: &Executor, name: &str, args: Value) -> ToolExecutionResult {
    executor
        .execute(&request(name, args), &CancellationToken::new())
        .await
}

struct Answer {
    approve: bool,
    asked: Mutex<Vec<ConfirmationRequest>>,
}

impl ConfirmationHook for Answer {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(request.clone());
        }
        Box::pin(async move { self.approve })
    }
}

#[tokio::test]
async fn success_keeps_strings_and_serialises_the_rest() {
    let (executor, _) = setup(ExecutorOptions::default());
    let result = run(&executor, "probe_json", json!({})).await;
    assert!(result.is_success());
    assert_eq!(result.result, r#"{"n":1,"list":[true,null]}"#);
    assert!(result.duration_ms >= 0.0);
    let result = run(&executor, "probe_gate", json!({})).await;
    assert_eq!(result.result, "through");
}

#[tokio::test]
async fn every_routing_failure_is_classified() {
    let (executor, _) = setup(ExecutorOptions::default());
    for (name, kind) in [
        ("probeecho", ErrorKind::InvalidName),
        ("nothing_echo", ErrorKind::ToolNotFound),
        ("probe_nothing", ErrorKind::MethodNotFound),
        ("probe_hidden", ErrorKind::NotAgentCallable),
        ("probe_ghost", ErrorKind::MethodNotFound),
    ] {
        let result = run(&executor, name, json!({})).await;
        assert_eq!(result.status, ExecutionStatus::Error, "{name}");
        assert_eq!(result.error_kind(), Some(kind), "{name}: {}", result.result);
        assert_eq!(result.tool_name, name);
    }
}

#[tokio::test]
async fn tool_errors_transport_and_panics_are_classified() {
    let (executor, _) = setup(ExecutorOptions::default());
    let failed = run(&executor, "probe_fail", json!({})).await;
    assert_eq!(failed.error_kind(), Some(ErrorKind::ToolError));
    assert_eq!(failed.result, "disk on fire");
    let transport = run(&executor, "probe_transport", json!({})).await;
    assert_eq!(transport.error_kind(), Some(ErrorKind::Transport));
    let panicked = run(&executor, "probe_panic", json!({})).await;
    assert_eq!(panicked.error_kind(), Some(ErrorKind::ToolError));
    assert!(
        panicked.result.contains("probe exploded"),
        "{}",
        panicked.result
    );
    // The executor is still fine afterwards.
    assert!(run(&executor, "probe_echo", json!({})).await.is_success());
}

#[tokio::test]
async fn validation_reports_paths() {
    let (executor, _) = setup(ExecutorOptions::default());
    let result = run(
        &executor,
        "probe_typed",
        json!({"count": 0, "flag": "yes", "opts": {"depth": "deep"}, "extra": 1}),
    )
    .await;
    assert_eq!(result.error_kind(), Some(ErrorKind::InvalidArgs));
    let error = result.error.as_ref().expect("error details");
    let paths: Vec<&str> = error.issues.iter().map(|i| i.path.as_str()).collect();
    for expected in ["/count", "/flag", "/opts/depth", "/"] {
        assert!(paths.contains(&expected), "{expected} missing in {paths:?}");
    }
    assert!(result.result.starts_with("Validation failed:\n- "));
    assert!(result.result.contains("- /count: "));
    let missing = run(&executor, "probe_typed", json!({})).await;
    assert_eq!(missing.error_kind(), Some(ErrorKind::InvalidArgs));
    assert!(
        missing.result.contains("\"count\" is a required property"),
        "{}",
        missing.result
    );
}

#[tokio::test]
async fn untyped_arguments_are_coerced_and_defaults_applied() {
    let (executor, _) = setup(ExecutorOptions::default());
    let mut vcp = request(
        "probe_typed",
        json!({"count": "3", "flag": "false", "opts": "{\"depth\": 2}", "name": "42"}),
    );
    vcp.untyped_args = true;
    let result = executor.execute(&vcp, &CancellationToken::new()).await;
    assert!(result.is_success(), "{}", result.result);
    let echoed: Value = serde_json::from_str(&result.result).expect("json output");
    assert_eq!(
        echoed,
        json!({"count": 3, "flag": false, "opts": {"depth": 2}, "name": "42", "mode": "a"})
    );
    // Typed requests are not coerced: "3" for an integer is the model's mistake.
    let typed = run(&executor, "probe_typed", json!({"count": "3"})).await;
    assert_eq!(typed.error_kind(), Some(ErrorKind::InvalidArgs));
}

#[tokio::test]
async fn timeout_and_cancellation() {
    let (executor, _) = setup(ExecutorOptions {
        timeout: Duration::from_millis(50),
        ..Default::default()
    });
    let result = run(&executor, "probe_sleep", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout));
    assert!(result.result.contains("50 ms"));

    let (executor, _) = setup(ExecutorOptions::default());
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        trigger.cancel();
    });
    let result = executor
        .execute(&request("probe_sleep", json!({})), &cancel)
        .await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Cancelled));
    // Already cancelled: nothing starts.
    let result = executor
        .execute(&request("probe_echo", json!({})), &cancel)
        .await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Cancelled));
}

#[tokio::test]
async fn destructive_methods_need_confirmation() {
    let (executor, _) = setup(ExecutorOptions::default());
    let denied = run(&executor, "probe_wipe", json!({})).await;
    assert_eq!(denied.error_kind(), Some(ErrorKind::Denied));
    assert!(denied.result.contains("needs confirmation"));

    let no = Arc::new(Answer {
        approve: false,
        asked: Mutex::new(Vec::new()),
    });
    let refusing = executor.clone().with_confirmation(no.clone());
    let denied = run(&refusing, "probe_wipe", json!({"x": 1})).await;
    assert_eq!(denied.error_kind(), Some(ErrorKind::Denied));
    let asked = no.asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].reason, ConfirmReason::Destructive);
    assert_eq!(asked[0].args["x"], json!(1));
    // Read-only methods are not asked about.
    assert!(run(&refusing, "probe_echo", json!({})).await.is_success());

    let approving = executor.with_confirmation(Arc::new(ApproveAll));
    assert!(run(&approving, "probe_wipe", json!({})).await.is_success());
}

#[tokio::test]
async fn configured_confirmation_asks_for_every_call() {
    let (executor, _) = setup(ExecutorOptions {
        require_confirmation: true,
        ..Default::default()
    });
    let hook = Arc::new(Answer {
        approve: false,
        asked: Mutex::new(Vec::new()),
    });
    let executor = executor.with_confirmation(hook.clone());
    let result = run(&executor, "probe_echo", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Denied));
    assert_eq!(
        hook.asked.lock().expect("lock")[0].reason,
        ConfirmReason::Configured
    );
    // Invalid arguments are reported before anyone is asked.
    let invalid = run(&executor, "probe_typed", json!({})).await;
    assert_eq!(invalid.error_kind(), Some(ErrorKind::InvalidArgs));
    assert_eq!(hook.asked.lock().expect("lock").len(), 1);
}

#[tokio::test]
async fn output_cap_truncates_at_a_char_boundary_or_fails() {
    let (executor, _) = setup(ExecutorOptions {
        max_output_bytes: 101,
        ..Default::default()
    });
    let result = run(&executor, "probe_big", json!({})).await;
    assert!(result.is_success());
    let truncated = result.truncated.expect("truncation reported");
    assert_eq!(truncated.original_bytes, 2000);
    assert_eq!(truncated.kept_bytes, 100, "cut back to a char boundary");
    assert!(result
        .result
        .ends_with("[output truncated: 100 of 2000 bytes shown]"));

    let (executor, _) = setup(ExecutorOptions {
        max_output_bytes: 100,
        oversize: OversizePolicy::Fail,
        ..Default::default()
    });
    let result = run(&executor, "probe_big", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::OutputTooLarge));
    let fits = run(&executor, "probe_json", json!({})).await;
    assert!(fits.is_success() && fits.truncated.is_none());
}

fn batch(names: &[&str]) -> Vec<ParsedToolRequest> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| request(name, json!({"id": i})))
        .collect()
}

#[tokio::test]
async fn parallel_runs_overlap_and_keep_order() {
    // The gate only opens when all three are inside it at once: impossible unless parallel.
    let (executor, _) = setup_with_barrier(
        ExecutorOptions {
            schedule: ParallelExecution::Parallel,
            timeout: Duration::from_secs(10),
            ..Default::default()
        },
        3,
    );
    let requests = batch(&["probe_gate", "probe_gate", "probe_gate"]);
    let results = executor
        .execute_all(&requests, &CancellationToken::new())
        .await;
    assert!(results.iter().all(ToolExecutionResult::is_success));
    let ids: Vec<&str> = results.iter().map(|r| r.request_id.as_str()).collect();
    let expected: Vec<&str> = requests.iter().map(|r| r.request_id.as_str()).collect();
    assert_eq!(ids, expected);
}

#[tokio::test]
async fn serial_runs_one_at_a_time() {
    let (executor, probe) = setup(ExecutorOptions {
        schedule: ParallelExecution::Serial,
        ..Default::default()
    });
    // Each call yields and sleeps between its start and end: any overlap would interleave.
    let results = executor
        .execute_all(
            &batch(&["probe_log", "probe_log", "probe_log"]),
            &CancellationToken::new(),
        )
        .await;
    assert!(results.iter().all(ToolExecutionResult::is_success));
    let log = probe.log.lock().expect("lock").clone();
    assert_eq!(
        log,
        ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]
    );
}

#[tokio::test]
async fn parallel_log_calls_interleave() {
    let (executor, probe) = setup(ExecutorOptions {
        schedule: ParallelExecution::Parallel,
        ..Default::default()
    });
    executor
        .execute_all(
            &batch(&["probe_log", "probe_log"]),
            &CancellationToken::new(),
        )
        .await;
    let log = probe.log.lock().expect("lock").clone();
    assert_eq!(log.len(), 4);
    assert!(log[..2].iter().all(|l| l.starts_with("start")), "{log:?}");
}

#[tokio::test]
async fn smart_runs_read_only_together_and_the_rest_in_order() {
    let (executor, probe) = setup_with_barrier(
        ExecutorOptions {
            schedule: ParallelExecution::Smart,
            timeout: Duration::from_secs(10),
            ..Default::default()
        },
        2,
    );
    let requests = batch(&[
        "probe_gate",
        "probe_gate",
        "probe_log",
        "probe_log",
        "probe_echo",
    ]);
    let groups: Vec<usize> = executor
        .smart_groups(&requests)
        .iter()
        .map(|g| g.len())
        .collect();
    assert_eq!(groups, [2, 1, 1, 1]);
    let results = executor
        .execute_all(&requests, &CancellationToken::new())
        .await;
    assert!(
        results.iter().all(ToolExecutionResult::is_success),
        "{results:?}"
    );
    let log = probe.log.lock().expect("lock").clone();
    assert_eq!(log, ["start 2", "end 2", "start 3", "end 3"]);
    // Unknown names are not read-only: they stand alone (and fail on their own).
    let mixed = batch(&["probe_echo", "nope_x", "probe_echo"]);
    let groups: Vec<usize> = executor
        .smart_groups(&mixed)
        .iter()
        .map(|g| g.len())
        .collect();
    assert_eq!(groups, [1, 1, 1]);
}

#[tokio::test]
async fn observed_batches_report_each_result_and_check_predicts_failures() {
    let (executor, _) = setup(ExecutorOptions {
        schedule: ParallelExecution::Parallel,
        ..Default::default()
    });
    let requests = batch(&["probe_echo", "probe_fail", "probe_json"]);
    let seen = Mutex::new(Vec::new());
    let results = executor
        .execute_all_observed(&requests, &CancellationToken::new(), &|index, result| {
            if let Ok(mut seen) = seen.lock() {
                seen.push((index, result.request_id.clone()));
            }
        })
        .await;
    let mut seen = seen.into_inner().expect("lock");
    seen.sort();
    let expected: Vec<(usize, String)> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (i, r.request_id.clone()))
        .collect();
    assert_eq!(seen, expected);

    assert!(executor.check(&request("probe_echo", json!({}))).is_none());
    for (name, args, kind) in [
        ("probe_typed", json!({}), ErrorKind::InvalidArgs),
        ("probe_hidden", json!({}), ErrorKind::NotAgentCallable),
        ("nope_x", json!({}), ErrorKind::ToolNotFound),
        ("bad", json!({}), ErrorKind::InvalidName),
    ] {
        let error = executor.check(&request(name, args)).expect(name);
        assert_eq!(error.kind, kind, "{name}");
    }
    // check() never runs the tool: a destructive method is not confirmed or executed.
    assert!(executor.check(&request("probe_wipe", json!({}))).is_none());
}

#[tokio::test]
async fn progress_reports_reach_the_sink_tagged_with_the_request() {
    let (executor, _) = setup(ExecutorOptions::default());
    let sink = Arc::new(crate::tool::ProgressRecorder::default());
    let executor = executor.with_progress(sink.clone());
    let call = request("probe_steps", json!({}));
    let result = executor.execute(&call, &CancellationToken::new()).await;
    assert_eq!(result.result, "true", "{result:?}");
    let log = sink.reports();
    let steps: Vec<(f64, Option<String>)> = log
        .iter()
        .map(|p| (p.progress, p.message.clone()))
        .collect();
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[2], (3.0, Some("step 3".into())));
    assert!(log
        .iter()
        .all(|p| p.request_id == call.request_id && p.total == Some(3.0)));
}

#[tokio::test]
async fn without_a_sink_progress_goes_nowhere() {
    let (executor, _) = setup(ExecutorOptions::default());
    let result = executor
        .execute(
            &request("probe_steps", json!({})),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(result.result, "false");
}
