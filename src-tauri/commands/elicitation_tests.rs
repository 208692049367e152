//! The app's elicitation round trip: a server's request waits as a pending elicitation, the
//! UI is told, `answer_elicitation` checks the values and wakes the call. Last, the whole way
//! with the reference server-everything as a real child process, for a form and for a sampling
//! request sent to the scripted model server once approved.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_mcp::{
    ElicitAction, ElicitationAnswer, ElicitationRequest, Elicitor, McpServerConfig, McpTransport,
    SourceStatus,
};
use toolscope_protocol::request::ParsedToolRequest;

use toolscope_llm::profiles::{KeySource, Profile, WireName};

use crate::commands::elicitation::choose_sampling_profile;
use crate::elicitations::PendingElicitation;
use crate::error::CommandErrorKind;
use crate::state::AppState;

fn started() -> (tempfile::TempDir, Arc<AppState>, Arc<AtomicUsize>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = Arc::new(AppState::default());
    state.start(Ok(dir.path()));
    let announced = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&announced);
    state.elicitations.set_announcer(move || {
        count.fetch_add(1, Ordering::SeqCst);
    });
    (dir, state, announced)
}

fn request() -> ElicitationRequest {
    ElicitationRequest {
        server: "everything".into(),
        message: "Who are you?".into(),
        requested_schema: json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0}
        }, "required": ["name"]}),
        task_id: Some("task-7".into()),
    }
}

fn values(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// What waits once `count` elicitations are pending (the UI's read after the event).
async fn pending(state: &AppState, count: usize) -> Vec<PendingElicitation> {
    for _ in 0..2000 {
        let pending = state.elicitations.pending();
        if pending.len() == count {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{count} elicitation(s) never became pending");
}

#[tokio::test]
async fn an_answer_is_checked_against_the_schema_then_wakes_the_call() {
    let (_dir, state, announced) = started();
    let desk = Arc::clone(&state.elicitations);
    let asking =
        tokio::spawn(async move { desk.elicit(request(), CancellationToken::new()).await });
    let waiting = pending(&state, 1).await;
    assert_eq!(waiting[0].request, request());
    let id = waiting[0].elicitation_id.clone();
    assert!(announced.load(Ordering::SeqCst) >= 1, "the UI was told");

    let refused = state
        .elicitations
        .answer(
            &id,
            ElicitationAnswer::accept(values(json!({"name": 7, "age": -1}))),
        )
        .expect_err("does not match the schema");
    assert_eq!(refused.kind, CommandErrorKind::InvalidInput);
    assert!(refused.message.contains("/name"), "{}", refused.message);
    assert!(refused.message.contains("/age"), "{}", refused.message);
    assert_eq!(state.elicitations.pending().len(), 1, "still waiting");

    let accepted = ElicitationAnswer::accept(values(json!({"name": "Ada", "age": 36})));
    assert_eq!(state.elicitations.answer(&id, accepted.clone()), Ok(true));
    assert_eq!(asking.await.expect("joins"), accepted);
    assert!(state.elicitations.pending().is_empty());
    assert_eq!(
        state.elicitations.answer(&id, ElicitationAnswer::decline()),
        Ok(false),
        "answered once"
    );
}

#[tokio::test]
async fn decline_passes_and_a_withdrawn_request_leaves_the_list() {
    let (_dir, state, _) = started();
    let desk = Arc::clone(&state.elicitations);
    let asking =
        tokio::spawn(async move { desk.elicit(request(), CancellationToken::new()).await });
    let id = pending(&state, 1).await[0].elicitation_id.clone();
    assert_eq!(
        state.elicitations.answer(&id, ElicitationAnswer::decline()),
        Ok(true)
    );
    assert_eq!(asking.await.expect("joins").action, ElicitAction::Decline);

    // The server cancels its request (the call ended): the form goes, the answer finds no one.
    let withdrawn = CancellationToken::new();
    let desk = Arc::clone(&state.elicitations);
    let token = withdrawn.clone();
    let asking = tokio::spawn(async move { desk.elicit(request(), token).await });
    let id = pending(&state, 1).await[0].elicitation_id.clone();
    withdrawn.cancel();
    assert_eq!(asking.await.expect("joins").action, ElicitAction::Cancel);
    assert!(state.elicitations.pending().is_empty());
    assert_eq!(
        state.elicitations.answer(&id, ElicitationAnswer::cancel()),
        Ok(false)
    );
}

#[tokio::test]
async fn before_the_window_exists_requests_are_declined() {
    let state = AppState::default();
    let answer = state
        .elicitations
        .elicit(request(), CancellationToken::new())
        .await;
    assert_eq!(answer.action, ElicitAction::Decline);
}

/// server-everything added and approved in the app's sources, and an executor over them.
async fn everything_ready(state: &AppState) -> Executor {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: run `bash scripts/setup.sh --test`",
        script.display()
    );
    let sources = state.sources().expect("open");
    let config = McpServerConfig {
        name: "everything".into(),
        transport: McpTransport::Stdio {
            command: "node".into(),
            args: vec![script.to_string_lossy().into_owned(), "stdio".into()],
            env: Default::default(),
            cwd: None,
        },
        enabled: true,
    };
    sources.mcp.add(config).await.expect("adds");
    let ready = sources.mcp.approve("everything").await.expect("approves");
    assert!(
        matches!(ready.status, SourceStatus::Ready { .. }),
        "{ready:?}"
    );
    Executor::new(
        Arc::clone(&state.registry),
        ExecutorOptions {
            timeout: Duration::from_secs(30),
            ..ExecutorOptions::default()
        },
    )
    .with_confirmation(Arc::new(ApproveAll))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_servers_elicitation_is_answered_through_the_app_and_roots_are_home() {
    let (_dir, state, _) = started();
    let executor = everything_ready(&state).await;
    let call = ParsedToolRequest::manual("everything_trigger-elicitation-request", Map::new());
    let running = {
        let executor = executor.clone();
        tokio::spawn(async move { executor.execute(&call, &CancellationToken::new()).await })
    };
    let waiting = pending(&state, 1).await;
    assert_eq!(waiting[0].request.server, "everything");
    let form = values(json!({"name": "Ada Lovelace", "check": true, "integer": 7,
                             "titledSingleSelectEnum": "hero-3"}));
    let id = waiting[0].elicitation_id.clone();
    assert_eq!(
        state
            .elicitations
            .answer(&id, ElicitationAnswer::accept(form)),
        Ok(true)
    );
    let result = running.await.expect("joins");
    assert!(
        result.result.contains("Name: Ada Lovelace"),
        "{}",
        result.result
    );
    assert!(
        result.result.contains("Favorite Integer: 7"),
        "{}",
        result.result
    );

    let roots = ParsedToolRequest::manual("everything_get-roots-list", Map::new());
    let listed = executor.execute(&roots, &CancellationToken::new()).await;
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let uri = toolscope_mcp::WorkspaceRoot::new(home, "home").uri();
        assert!(listed.result.contains(&uri), "{}", listed.result);
    }
    state.sources().expect("open").mcp.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_goes_to_the_chosen_profile_once_approved_in_the_app() {
    let script = toolscope_llm_testserver::Script::from_json(
        r#"{"turns": [{"expect": {"contains": ["tides"]},
                       "reply": {"text": "Sampled in the app"}, "repeat": true}]}"#,
    )
    .expect("script");
    let model = toolscope_llm_testserver::TestServer::start(script)
        .await
        .expect("model server");
    let (_dir, state, _) = started();
    let refused = choose_sampling_profile(&state, Some("local".into()));
    assert_eq!(
        refused.map_err(|e| e.kind),
        Err(CommandErrorKind::InvalidInput),
        "an unknown profile is refused"
    );
    state
        .profiles()
        .expect("profiles")
        .save(Profile {
            name: "local".into(),
            wire: WireName::OpenaiChat,
            base_url: model.openai_base_url(),
            model: "toolscope-test".into(),
            key: KeySource::None,
            idle_timeout_s: 10,
        })
        .expect("saved");
    let stored = choose_sampling_profile(&state, Some("local".into())).expect("chosen");
    assert_eq!(stored.sampling_profile.as_deref(), Some("local"));
    let executor = everything_ready(&state).await;
    let sample = || {
        let executor = executor.clone();
        let call = ParsedToolRequest::manual(
            "everything_trigger-sampling-request",
            values(json!({"prompt": "tides"})),
        );
        tokio::spawn(async move { executor.execute(&call, &CancellationToken::new()).await })
    };

    // Declined in the dialog: nothing reaches the model.
    let running = sample();
    let waiting = pending(&state, 1).await;
    let review = waiting[0].sampling.clone().expect("a sampling review");
    assert_eq!(review.endpoint.profile, "local");
    assert_eq!(review.endpoint.model, "toolscope-test");
    assert!(
        review
            .request
            .messages
            .iter()
            .any(|m| m.text.contains("tides")),
        "{review:?}"
    );
    let id = waiting[0].elicitation_id.clone();
    assert_eq!(
        state.elicitations.answer(&id, ElicitationAnswer::decline()),
        Ok(true)
    );
    let declined = running.await.expect("joins");
    assert!(
        declined.result.contains("refused to send"),
        "{}",
        declined.result
    );
    assert_eq!(model.requests().len(), 0);

    // Approved: the model's text is the server's sampling result.
    let running = sample();
    let id = pending(&state, 1).await[0].elicitation_id.clone();
    assert_eq!(
        state
            .elicitations
            .answer(&id, ElicitationAnswer::accept(Map::new())),
        Ok(true)
    );
    let answered = running.await.expect("joins");
    assert!(
        answered.result.contains("Sampled in the app"),
        "{}",
        answered.result
    );
    assert_eq!(model.requests().len(), 1);

    // No profile: declined with the reason, without asking.
    choose_sampling_profile(&state, None).expect("cleared");
    let declined = sample().await.expect("joins");
    assert!(
        declined.result.contains("no model endpoint is configured"),
        "{}",
        declined.result
    );
    state.sources().expect("open").mcp.shutdown();
}
