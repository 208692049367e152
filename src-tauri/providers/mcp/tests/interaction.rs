//! What a server asks of Toolscope while it works, against our own rmcp test server as a real
//! child process: task-augmented calls (status, progress, result, failure, cancel),
//! elicitation (answered, declined, checked against the schema, inside a task), roots and
//! sampling (declined, refused by the person, and answered by a real endpoint: the scripted
//! model server over HTTP).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use toolscope_engine::BoxFuture;
use toolscope_engine::{CallProgress, ProgressSink, TaskStatus};
use toolscope_llm::client::{Endpoint, Wire};
use toolscope_llm::model::EndpointModel;
use toolscope_llm_testserver::{Script, TestServer};
use toolscope_mcp::elicitation::defaults_answer;
use toolscope_mcp::{
    ClientHooks, ElicitationAnswer, ModelSampler, Sampler, SamplingConsent, SamplingEndpoint,
    SamplingRequest, WorkspaceRoot, SAMPLING_DECLINED,
};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

/// Progress reports, with a signal once a task reports `input_required`.
#[derive(Default)]
struct Watch {
    reports: Mutex<Vec<CallProgress>>,
    input_required: Notify,
}

impl ProgressSink for Watch {
    fn report(&self, progress: CallProgress) {
        if progress.task.as_ref().map(|t| t.status) == Some(TaskStatus::InputRequired) {
            self.input_required.notify_one();
        }
        self.reports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(progress);
    }
}

impl Watch {
    fn reports(&self) -> Vec<CallProgress> {
        self.reports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn statuses(&self) -> Vec<TaskStatus> {
        let mut statuses: Vec<TaskStatus> = self
            .reports()
            .iter()
            .filter_map(|r| r.task.as_ref().map(|t| t.status))
            .collect();
        statuses.dedup();
        statuses
    }
}

async fn journal(executor: &toolscope_engine::executor::Executor) -> String {
    run(executor, "test_task-journal", json!({})).await.result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_tools_run_as_tasks_with_status_progress_and_their_result() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let watch = Arc::new(Watch::default());
    let executor = executor(&registry, Duration::from_secs(20)).with_progress(watch.clone());

    let done = run(&executor, "test_slow-task", json!({"steps": 3})).await;
    assert!(done.is_success(), "{done:?}");
    assert_eq!(done.result, "finished 3 steps");
    let reports = watch.reports();
    let task_id = reports
        .iter()
        .find_map(|r| r.task.as_ref().map(|t| t.task_id.clone()))
        .expect("reported as a task");
    assert!(reports.iter().all(|r| r.task.is_some()), "{reports:?}");
    // The tool's progress notifications arrive during the task and are marked with it.
    let steps: Vec<&str> = reports
        .iter()
        .filter_map(|r| r.message.as_deref())
        .filter(|m| m.starts_with("step "))
        .collect();
    assert!(steps.contains(&"step 3 of 3"), "{reports:?}");
    assert_eq!(
        watch.statuses().first(),
        Some(&TaskStatus::Working),
        "{reports:?}"
    );
    assert_eq!(watch.statuses().last(), Some(&TaskStatus::Completed));

    // `optional` tools run as tasks too.
    let maybe = run(&executor, "test_maybe-task", json!({"steps": 1})).await;
    assert_eq!(maybe.result, "finished 1 steps", "{maybe:?}");
    assert_eq!(
        journal(&executor).await,
        format!("completed {task_id}\ncompleted task-2")
    );

    // A task that fails carries the server's error.
    let failed = run(
        &executor,
        "test_slow-task",
        json!({"steps": 1, "fail": true}),
    )
    .await;
    assert_eq!(
        failed.error_kind(),
        Some(ErrorKind::ToolError),
        "{failed:?}"
    );
    assert!(
        failed.result.contains("failed") && failed.result.contains("the task failed on purpose"),
        "{}",
        failed.result
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_or_timed_out_task_call_cancels_the_task_on_the_server() {
    let (registry, sources) = sources();
    ready(&sources, test_server("test", &[])).await;
    let watch = Arc::new(Watch::default());
    let executor = executor(&registry, Duration::from_secs(20)).with_progress(watch.clone());
    let cancel = CancellationToken::new();
    let running = {
        let executor = executor.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let request = ParsedToolRequest::manual("test_slow-task", args(json!({"steps": 600})));
            executor.execute(&request, &cancel).await
        })
    };
    assert!(
        eventually(Duration::from_secs(10), || watch
            .reports()
            .iter()
            .any(|r| r.message.as_deref() == Some("step 1 of 600")))
        .await,
        "the task started"
    );
    cancel.cancel();
    let cancelled = running.await.expect("joins");
    assert_eq!(cancelled.error_kind(), Some(ErrorKind::Cancelled));
    // The call was dropped; the server hears `tasks/cancel` from the guard.
    let mut seen = String::new();
    for _ in 0..200 {
        seen = journal(&executor).await;
        if seen.contains("cancelled task-1") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen, "cancelled task-1");

    let impatient = common::executor(&registry, Duration::from_millis(400));
    let timed_out = run(&impatient, "test_slow-task", json!({"steps": 600})).await;
    assert_eq!(timed_out.error_kind(), Some(ErrorKind::Timeout));
    for _ in 0..200 {
        seen = journal(&executor).await;
        if seen.contains("cancelled task-2") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen, "cancelled task-1\ncancelled task-2");
    sources.shutdown();
}

fn content(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitations_reach_the_person_and_only_valid_answers_are_sent() {
    // Accept with the schema's defaults, as `--yes` does.
    let person = Person::new(|request| {
        Box::pin(async move {
            match defaults_answer(&request.requested_schema) {
                Ok(values) => ElicitationAnswer::accept(values),
                Err(_) => ElicitationAnswer::decline(),
            }
        })
    });
    let (registry, sources) = sources_with(person.hooks());
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(20));
    let accepted = run(&executor, "test_ask", json!({})).await;
    let answer: Value = serde_json::from_str(&accepted.result).expect("the answer as JSON");
    assert_eq!(answer["action"], "accept", "{answer}");
    assert_eq!(
        answer["content"],
        json!({"name": "Ada", "age": 36, "ratio": 0.5, "subscribe": true, "plan": "pro",
               "pet": "pet-2", "hero": "h1", "toppings": ["t2"]})
    );
    let asked = person.requests();
    assert_eq!(asked[0].server, "test");
    assert_eq!(asked[0].message, "Tell the test server about yourself");
    assert_eq!(asked[0].task_id, None);
    assert_eq!(
        asked[0].requested_schema["properties"]["pet"]["enumNames"],
        json!(["Cat", "Dog"])
    );
    // A required field without a default: nothing to fill it with, so declined.
    let strict = run(&executor, "test_ask", json!({"strict": true})).await;
    assert!(
        strict.result.contains("\"action\":\"decline\""),
        "{strict:?}"
    );
    sources.shutdown();

    // An answer that breaks the schema never reaches the server: it hears `decline`.
    let careless = Person::answering(ElicitationAnswer::accept(content(
        json!({"name": "Ada", "plan": "enterprise", "age": 900}),
    )));
    let (registry, sources) = sources_with(careless.hooks());
    ready(&sources, test_server("test", &[])).await;
    let executor = common::executor(&registry, Duration::from_secs(20));
    let refused = run(&executor, "test_ask", json!({})).await;
    assert!(
        refused.result.contains("\"action\":\"decline\""),
        "{refused:?}"
    );
    assert!(
        !refused.result.contains("enterprise"),
        "invalid values are not sent"
    );
    let log = sources.log("test").unwrap_or_default().join("\n");
    assert!(
        log.contains("elicitation declined: the answer does not match the requested schema"),
        "{log}"
    );
    sources.shutdown();

    let cancelling = Person::answering(ElicitationAnswer::cancel());
    let (registry, sources) = sources_with(cancelling.hooks());
    ready(&sources, test_server("test", &[])).await;
    let executor = common::executor(&registry, Duration::from_secs(20));
    let dismissed = run(&executor, "test_ask", json!({})).await;
    assert!(
        dismissed.result.contains("\"action\":\"cancel\""),
        "{dismissed:?}"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_needs_input_shows_it_and_gets_the_answer() {
    let watch = Arc::new(Watch::default());
    let seen_waiting = Arc::clone(&watch);
    // The person answers only once the task was seen waiting for input: the poll shows it.
    let person = Person::new(move |_| {
        let watch = Arc::clone(&seen_waiting);
        Box::pin(async move {
            watch.input_required.notified().await;
            ElicitationAnswer::accept(content(json!({"colour": "red"})))
        })
    });
    let (registry, sources) = sources_with(person.hooks());
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(20)).with_progress(watch.clone());
    let done = run(
        &executor,
        "test_slow-task",
        json!({"steps": 2, "ask": true}),
    )
    .await;
    assert!(done.is_success(), "{done:?}");
    assert!(
        done.result.contains("\"colour\":\"red\""),
        "{}",
        done.result
    );
    let asked = person.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].task_id.as_deref(), Some("task-1"));
    let statuses = watch.statuses();
    let waiting = statuses
        .iter()
        .position(|s| *s == TaskStatus::InputRequired)
        .expect("input_required shown");
    assert!(
        statuses[waiting + 1..].contains(&TaskStatus::Completed),
        "{statuses:?}"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_come_from_the_hooks_and_sampling_is_declined_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("my workspace");
    let offered = WorkspaceRoot::new(root.clone(), "workspace");
    let hooks = ClientHooks {
        roots: Arc::new(move || vec![offered.clone()]),
        ..ClientHooks::default()
    };
    let (registry, sources) = sources_with(hooks);
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(20));
    let roots = run(&executor, "test_roots", json!({})).await;
    let value: Value = serde_json::from_str(&roots.result).expect("JSON");
    assert_eq!(
        value["roots"],
        json!([{"uri": WorkspaceRoot::new(root, "workspace").uri(), "name": "workspace"}])
    );
    assert!(value["roots"][0]["uri"]
        .as_str()
        .is_some_and(|u| u.starts_with("file:///") && u.ends_with("/my%20workspace")));

    let sampled = run(&executor, "test_sample", json!({})).await;
    assert_eq!(
        sampled.error_kind(),
        Some(ErrorKind::ToolError),
        "{sampled:?}"
    );
    assert!(
        sampled.result.contains(SAMPLING_DECLINED),
        "{}",
        sampled.result
    );
    sources.shutdown();
}

/// The person's side of sampling: approves while `approve` holds, and keeps what was shown.
#[derive(Default)]
struct Reviewer {
    approve: std::sync::atomic::AtomicBool,
    shown: Mutex<Vec<(SamplingRequest, SamplingEndpoint)>>,
}

impl SamplingConsent for Reviewer {
    fn approve(
        &self,
        request: &SamplingRequest,
        endpoint: &SamplingEndpoint,
        _: CancellationToken,
    ) -> BoxFuture<'_, bool> {
        self.shown
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((request.clone(), endpoint.clone()));
        let approve = self.approve.load(std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { approve })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_reaches_the_chosen_endpoint_only_when_the_person_approves() {
    let script = Script::from_json(
        r#"{"turns": [{"expect": {"contains": ["Name a colour", "Answer in one word"]},
                       "reply": {"text": "Teal."}}]}"#,
    )
    .expect("script");
    let model_server = TestServer::start(script).await.expect("model server");
    let model = EndpointModel::new(Endpoint {
        wire: Wire::OpenAiChat,
        base_url: model_server.openai_base_url(),
        model: "toolscope-test".into(),
        api_key: None,
        idle_timeout: Duration::from_secs(10),
        max_retries: 0,
    })
    .expect("endpoint");
    let person = Arc::new(Reviewer::default());
    let sampler: Arc<dyn Sampler> =
        Arc::new(ModelSampler::new("local", Arc::new(model), person.clone()));
    let hooks = ClientHooks {
        sampler: Arc::new(move || Arc::clone(&sampler)),
        ..ClientHooks::default()
    };
    let (registry, sources) = sources_with(hooks);
    ready(&sources, test_server("test", &[])).await;
    let executor = executor(&registry, Duration::from_secs(20));
    let ask = json!({"text": "Name a colour", "system": "Answer in one word"});

    // Refused: nothing reaches the endpoint, the server hears who said no.
    let refused = run(&executor, "test_sample", ask.clone()).await;
    assert_eq!(
        refused.error_kind(),
        Some(ErrorKind::ToolError),
        "{refused:?}"
    );
    assert!(
        refused.result.contains("refused to send"),
        "{}",
        refused.result
    );
    assert_eq!(model_server.turns_used(), 0);

    // Approved: the person saw the request and the endpoint, the model's text comes back.
    person
        .approve
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let answered = run(&executor, "test_sample", ask).await;
    assert!(answered.is_success(), "{answered:?}");
    let value: Value = serde_json::from_str(&answered.result).expect("JSON");
    assert_eq!(value["role"], "assistant");
    assert_eq!(value["content"]["text"], "Teal.");
    assert_eq!(value["model"], "toolscope-test");
    assert_eq!(value["stopReason"], "endTurn");
    assert_eq!(model_server.turns_used(), 1);
    let shown = person
        .shown
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let (request, endpoint) = shown.last().expect("shown to the person");
    assert_eq!(request.server, "test");
    assert_eq!(request.system_prompt.as_deref(), Some("Answer in one word"));
    assert_eq!(request.messages[0].text, "Name a colour");
    assert_eq!(request.model_hints, vec!["claude-3-sonnet".to_owned()]);
    assert_eq!(endpoint.profile, "local");
    assert_eq!(endpoint.model, "toolscope-test");

    // What cannot be sent faithfully is refused before the person is asked.
    let asked = shown.len();
    let image = run(&executor, "test_sample", json!({"image": true})).await;
    assert!(image.result.contains("text only"), "{}", image.result);
    assert_eq!(
        person.shown.lock().unwrap_or_else(|e| e.into_inner()).len(),
        asked
    );
    sources.shutdown();
}
