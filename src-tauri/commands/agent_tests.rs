//! The agent commands against the scripted model server on 127.0.0.1: a profile, a live
//! conversation over the channel with a confirmation answered, then the recorded conversation
//! listed, replayed and exported.

use std::time::Duration;

use serde_json::{json, Value};
use tauri::ipc::InvokeResponseBody;
use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::replay::replay;
use toolscope_engine::config::CallMode;
use toolscope_llm::profiles::WireName;
use toolscope_llm_testserver::{Script, TestServer};

use super::*;
use crate::commands::agent_export::turn_export;

fn recording_channel() -> (Channel<AgentRunEvent>, Arc<Mutex<Vec<Value>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let channel = Channel::new(move |body| {
        if let InvokeResponseBody::Json(text) = body {
            if let Ok(value) = serde_json::from_str(&text) {
                lock(&sink).push(value);
            }
        }
        Ok(())
    });
    (channel, events)
}

fn script(name: &str) -> Script {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/llm/scripts")
        .join(name);
    Script::load(&path).expect("script")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_conversation_runs_with_a_confirmation_and_is_recorded_replayed_and_exported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = Arc::new(AppState::default());
    state.start(Ok(dir.path()));
    let server = TestServer::start(script("recovers_from_invalid_args.json"))
        .await
        .expect("server");
    state
        .profiles()
        .expect("profiles")
        .save(Profile {
            name: "scripted".to_owned(),
            wire: WireName::Anthropic,
            base_url: server.base_url(),
            model: "toolscope-test".to_owned(),
            key: KeySource::None,
            idle_timeout_s: 5,
        })
        .expect("saved");
    assert_eq!(
        serde_json::to_value(view(
            state.profiles().expect("p").list().expect("l").remove(0)
        ))
        .expect("json")["wire"],
        "anthropic"
    );

    let (channel, events) = recording_channel();
    let running = {
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let settings = AgentSettings {
                mode: CallMode::Manual,
                ..AgentSettings::default()
            };
            let conversation = Conversation {
                profile: "scripted",
                task: "What is 2 * (3 + 4)?",
                settings: &settings,
                tools: Some(&["calculator".to_owned()]),
            };
            run_conversation(&state, conversation, "agent-run-1", &channel).await
        })
    };
    // Manual mode asks for the one call that can be read (the first has broken arguments).
    let mut asked = None;
    for _ in 0..400 {
        asked = lock(&events)
            .iter()
            .find(|e| e["kind"] == "confirmation_needed")
            .and_then(|e| e["confirmation_id"].as_str().map(str::to_owned));
        if asked.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut edited = serde_json::Map::new();
    edited.insert("expression".to_owned(), json!("(3 + 4) * 2"));
    assert!(answer(
        &state,
        &asked.expect("a confirmation"),
        Decision::Run {
            edited: Some(edited)
        }
    ));
    let summary = running.await.expect("joined").expect("ran");
    assert_eq!(summary.reason, StopReason::Final);
    assert_eq!((summary.turns, summary.tool_calls), (3, 2));
    let kinds: Vec<Value> = lock(&events).iter().map(|e| e["kind"].clone()).collect();
    assert_eq!(kinds[0], "started");
    assert!(lock(&events)
        .iter()
        .any(|e| e["event"]["type"] == "call_finished"
            && e["event"]["result"]["status"] == "success"));

    let store: ConversationStore = state.conversations().expect("store");
    let listed = store.list("").expect("list");
    assert_eq!(listed.len(), 1);
    let id = summary.conversation_id.expect("id");
    let loaded = store.load(&id).expect("load");
    assert!(loaded.records.iter().any(|r| matches!(
        &r.record,
        Record::Decided {
            decision: Decision::Run { edited: Some(_) },
            ..
        }
    )));
    let turns = replay(&loaded, &state.protocols()).expect("replay");
    assert_eq!(turns.len(), 3);
    assert!(turns.iter().all(|t| !t.changed));

    let export = turn_export(&id, &loaded.records, 2).expect("export");
    assert_eq!(export.format, "openai_chat");
    assert!(export.reply.contains("call_calc_2"), "{}", export.reply);
    assert!(
        export
            .curl
            .contains(&format!("{}/v1/messages", server.base_url())),
        "{}",
        export.curl
    );
    assert!(export.curl.contains("$API_KEY") && export.request.contains("tool_result"));
    let case: toolscope_engine::eval::EvalCase =
        serde_json::from_str(&export.eval_case).expect("an eval case");
    assert_eq!(case.id.as_deref(), Some(format!("{id}#2").as_str()));
    assert_eq!(case.expected.len(), 1, "{}", export.eval_case);
    assert_eq!(case.expected[0].name, "calculator_evaluate");
    assert!(case.tools.is_some(), "the request's tools go with the case");
    // The case replays: `toolscope eval` reads the reply back to the same call.
    let outcome = toolscope_engine::eval::evaluate_case(
        &case,
        "exported".to_owned(),
        &state.protocols(),
        None,
        None,
    )
    .expect("parsed");
    assert!(outcome.agrees, "{outcome:?}");
    assert!(turn_export(&id, &loaded.records, 9).is_err());
    // The edited arguments ran: the server's last request carries their result (14).
    let requests = server.requests();
    assert!(requests[2].raw_body.contains("14"));
}
