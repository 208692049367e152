//! The agent loop over the real built-in tools, a real history file and a real conversation
//! record. The model is scripted in-process here (the loop's rules, turn by turn); the same loop
//! against real HTTP endpoints is tested in the `llm` provider and the CLI.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use toolscope_builtin::{register_all, BuiltinOptions};
use toolscope_engine::agent::playback::{PlaybackModel, PlaybackTurn};
use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::replay::replay;
use toolscope_engine::agent::{
    Agent, AgentEvent, AgentSettings, Confirmer, Decision, Message, ModelErrorKind, ModelInfo,
    Record, ReplyEvent, StopReason, ToolMode, Usage,
};
use toolscope_engine::config::CallMode;
use toolscope_engine::discovery::Discovery;
use toolscope_engine::executor::{ConfirmationRequest, Executor, ExecutorOptions};
use toolscope_engine::history::History;
use toolscope_engine::tool::BoxFuture;
use toolscope_engine::{Registry, ToolCallConfig};
use toolscope_protocol::result::ExecutionStatus;
use toolscope_protocol::stream::StreamEvent;
use toolscope_protocol::ProtocolSet;

fn text(t: &str) -> ReplyEvent {
    ReplyEvent::Text { text: t.to_owned() }
}

fn call(index: usize, id: &str, name: &str, arguments: &str) -> Vec<ReplyEvent> {
    // Arguments arrive in two fragments, as they do over the wire.
    let cut = arguments.len() / 2;
    let cut = (0..=cut)
        .rev()
        .find(|&i| arguments.is_char_boundary(i))
        .unwrap_or(0);
    vec![
        ReplyEvent::CallStarted {
            index,
            id: id.to_owned(),
            name: name.to_owned(),
        },
        ReplyEvent::CallArguments {
            index,
            fragment: arguments[..cut].to_owned(),
        },
        ReplyEvent::CallArguments {
            index,
            fragment: arguments[cut..].to_owned(),
        },
    ]
}

fn finished(reason: &str) -> Vec<ReplyEvent> {
    vec![
        ReplyEvent::Usage {
            usage: Usage {
                input_tokens: 100,
                output_tokens: 20,
            },
        },
        ReplyEvent::Finished {
            reason: reason.to_owned(),
        },
    ]
}

fn reply(parts: Vec<Vec<ReplyEvent>>) -> PlaybackTurn {
    PlaybackTurn::reply(parts.into_iter().flatten().collect())
}

fn scripted(turns: Vec<PlaybackTurn>) -> PlaybackModel {
    PlaybackModel::new(info(), turns, false)
}

fn looping(turn: Vec<ReplyEvent>) -> PlaybackModel {
    PlaybackModel::new(info(), vec![PlaybackTurn::reply(turn)], true)
}

fn info() -> ModelInfo {
    ModelInfo {
        wire: "openai_chat".to_owned(),
        base_url: "scripted".to_owned(),
        model: "scripted-model".to_owned(),
        native_protocol: "openai_chat".to_owned(),
    }
}

/// Decides from a queue, and remembers what it was asked.
#[derive(Default)]
struct QueueConfirmer {
    decisions: Mutex<VecDeque<Decision>>,
    asked: Mutex<Vec<String>>,
}

impl Confirmer for QueueConfirmer {
    fn decide<'a>(
        &'a self,
        _turn: u32,
        request: &'a ConfirmationRequest,
    ) -> BoxFuture<'a, Decision> {
        self.asked
            .lock()
            .expect("lock")
            .push(request.routing_name.clone());
        let decision = self
            .decisions
            .lock()
            .expect("lock")
            .pop_front()
            .unwrap_or(Decision::Stop);
        Box::pin(async move { decision })
    }
}

struct Bench {
    _dir: tempfile::TempDir,
    registry: Arc<Registry>,
    history: History,
    store: ConversationStore,
}

impl Bench {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let registry = Arc::new(Registry::new());
        register_all(
            &registry,
            &BuiltinOptions {
                workspace_root: dir.path().join("ws"),
            },
        )
        .expect("builtins");
        let (history, _) = History::open(dir.path().join("history.jsonl")).expect("history");
        let store = ConversationStore::new(dir.path().join("conversations"));
        Self {
            _dir: dir,
            registry,
            history,
            store,
        }
    }

    async fn run(
        &self,
        model: &PlaybackModel,
        settings: &AgentSettings,
        confirmer: &QueueConfirmer,
    ) -> (toolscope_engine::agent::AgentOutcome, Vec<AgentEvent>) {
        let protocols = ProtocolSet::standard();
        let discovery = Discovery::new(Arc::clone(&self.registry), protocols.clone());
        let tools = discovery.enabled_tools(&ToolCallConfig::default());
        let executor = Executor::new(Arc::clone(&self.registry), ExecutorOptions::default());
        let log = self.store.create(&["sk-secret-key"]).expect("log");
        let events = Mutex::new(Vec::new());
        let observer = |event: &AgentEvent| events.lock().expect("lock").push(event.clone());
        let agent = Agent {
            model,
            protocols: &protocols,
            executor: &executor,
            tools: &tools,
            confirmer,
            history: Some(&self.history),
            log: Some(&log),
            observer: &observer,
        };
        let outcome = agent
            .run(
                "What is 2+3? (key sk-secret-key)",
                settings,
                &CancellationToken::new(),
            )
            .await
            .expect("runs");
        assert!(
            outcome.record_errors.is_empty(),
            "{:?}",
            outcome.record_errors
        );
        let events = events.into_inner().expect("lock");
        (outcome, events)
    }
}

fn results(events: &[AgentEvent]) -> Vec<(String, ExecutionStatus, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::CallFinished {
                result, suggestion, ..
            } => Some((result.result.clone(), result.status, suggestion.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn native_calls_run_and_their_results_answer_them_until_a_final_answer() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![
            vec![text("Let me compute.")],
            call(
                0,
                "call_a",
                "calculator_evaluate",
                r#"{"expression": "2+3"}"#,
            ),
            finished("tool_calls"),
        ]),
        reply(vec![vec![text("It is 5.")], finished("stop")]),
    ]);
    let (outcome, events) = bench
        .run(
            &model,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    assert_eq!(outcome.reason, StopReason::Final);
    assert_eq!((outcome.turns, outcome.tool_calls), (2, 1));
    assert_eq!(
        outcome.usage,
        Usage {
            input_tokens: 200,
            output_tokens: 40
        }
    );
    assert_eq!(outcome.final_text(), "It is 5.");
    assert_eq!(results(&events)[0].1, ExecutionStatus::Success);

    let requests = model.requests();
    let tools = requests[0].2.as_ref().expect("native tools sent");
    assert!(tools.as_array().is_some_and(|t| t
        .iter()
        .any(|d| d["function"]["name"] == "calculator_evaluate")));
    let Message::ToolResults { results } = &requests[1].1[2] else {
        panic!("{:?}", requests[1].1)
    };
    assert_eq!(results[0].call_id, "call_a");
    assert!(
        !results[0].is_error && results[0].content.contains('5'),
        "{:?}",
        results[0]
    );

    // The record has every step, the key is nowhere in it, and the history links to it.
    let id = outcome.conversation_id.expect("recorded");
    let raw = std::fs::read_to_string(bench.store.dir().join(format!("{id}.jsonl"))).expect("file");
    assert!(!raw.contains("sk-secret-key") && raw.contains("***"));
    let loaded = bench.store.load(&id).expect("load");
    let kinds: Vec<&str> = loaded
        .records
        .iter()
        .map(|r| record_kind(&r.record))
        .collect();
    assert_eq!(kinds.first(), Some(&"started"));
    assert_eq!(kinds.last(), Some(&"ended"));
    for kind in ["request", "chunk", "reply", "parsed", "result"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let summary = &bench.store.list("scripted").expect("list")[0];
    assert_eq!(
        (summary.turns, summary.tool_calls, summary.ended.clone()),
        (2, 1, Some(StopReason::Final))
    );
    let history = History::load(bench.history.path()).expect("history");
    assert_eq!(history.entries.len(), 1);
    assert_eq!(history.entries[0].parent_id.as_deref(), Some(id.as_str()));
    assert_eq!(history.entries[0].origin, "agent");
}

fn record_kind(record: &Record) -> &'static str {
    match record {
        Record::Started { .. } => "started",
        Record::Proxied { .. } => "proxied",
        Record::Request { .. } => "request",
        Record::Chunk { .. } => "chunk",
        Record::Retry { .. } => "retry",
        Record::Reply { .. } => "reply",
        Record::Parsed { .. } => "parsed",
        Record::Decided { .. } => "decided",
        Record::Result { .. } => "result",
        Record::Feedback { .. } => "feedback",
        Record::ModelFailed { .. } => "model_failed",
        Record::Ended { .. } => "ended",
    }
}

#[tokio::test]
async fn failures_go_back_with_suggestions_and_the_model_recovers() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![
            call(0, "c1", "calculator_evalute", r#"{"expression": "1"}"#),
            finished("tool_calls"),
        ]),
        reply(vec![
            call(0, "c2", "calculator_evaluate", r#"{"expr": "1"}"#),
            finished("tool_calls"),
        ]),
        reply(vec![
            call(0, "c3", "calculator_evaluate", r#"{"expression": "1+"#),
            finished("tool_calls"),
        ]),
        reply(vec![
            call(0, "c4", "calculator_evaluate", r#"{"expression": "6*7"}"#),
            finished("tool_calls"),
        ]),
        reply(vec![vec![text("42")], finished("stop")]),
    ]);
    let (outcome, events) = bench
        .run(
            &model,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    assert_eq!(outcome.reason, StopReason::Final);
    let results = results(&events);
    assert_eq!(results.len(), 4);
    let unknown = results[0].2.as_deref().expect("a suggestion");
    assert!(
        unknown.contains("Did you mean: calculator_evaluate"),
        "{unknown}"
    );
    let invalid = results[1].2.as_deref().expect("a suggestion");
    assert!(
        invalid.contains("schema") && invalid.contains("expression"),
        "{invalid}"
    );
    assert!(
        results[2].0.contains("could not be read"),
        "{}",
        results[2].0
    );
    assert_eq!(results[3].1, ExecutionStatus::Success);
    // What the model read carries the suggestion.
    let requests = model.requests();
    let Message::ToolResults { results: told } = &requests[1].1[2] else {
        panic!()
    };
    assert!(
        told[0].is_error && told[0].content.contains("Did you mean"),
        "{:?}",
        told[0]
    );
}

#[tokio::test]
async fn prompted_tools_stream_through_the_format_parser_and_results_use_its_shape() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![
            vec![text("Sure.\n<tool_"), text("call>\n{\"name\": \"calculator_evaluate\", \"argu"), text("ments\": {\"expression\": \"2+3\"}}\n</tool_call>")],
            finished("stop"),
        ]),
        reply(vec![vec![text("<tool_call>{\"name\": \"calculator_evaluate\", \"arguments\": {\"expression\": }</tool_call>")], finished("stop")]),
        reply(vec![vec![text("5")], finished("stop")]),
    ]);
    let settings = AgentSettings {
        tools: ToolMode::Prompted {
            format: "hermes".to_owned(),
        },
        system_prompt: Some("Be brief.".to_owned()),
        ..AgentSettings::default()
    };
    let (outcome, events) = bench
        .run(&model, &settings, &QueueConfirmer::default())
        .await;
    assert_eq!(outcome.reason, StopReason::Final);
    // The call was found while the reply streamed, before the turn ended.
    let call_at = events.iter().position(|e| {
        matches!(
            e,
            AgentEvent::Parse {
                event: StreamEvent::Call { .. },
                ..
            }
        )
    });
    let parsed_at = events
        .iter()
        .position(|e| matches!(e, AgentEvent::TurnParsed { .. }));
    assert!(
        call_at.is_some() && call_at < parsed_at,
        "{call_at:?} {parsed_at:?}"
    );

    let requests = model.requests();
    let system = requests[0].0.as_deref().expect("system prompt");
    assert!(
        system.starts_with("Be brief.\n\n") && system.contains("<tools>"),
        "{system}"
    );
    assert!(requests[0].2.is_none(), "no native tools in prompted mode");
    let Message::User { text: results } = &requests[1].1[2] else {
        panic!("{:?}", requests[1].1)
    };
    assert!(
        results.starts_with("<tool_response>") && results.contains('5'),
        "{results}"
    );
    // An unreadable call is explained, not executed.
    let feedback = events.iter().find_map(|e| match e {
        AgentEvent::Feedback { text, .. } => Some(text.clone()),
        _ => None,
    });
    assert!(feedback.is_some_and(|f| f.contains("could not be read")));
    assert_eq!(outcome.tool_calls, 1);
}

#[tokio::test]
async fn limits_end_a_conversation_that_would_go_on() {
    let bench = Bench::new();
    let one_call = [
        call(0, "", "calculator_evaluate", r#"{"expression": "1"}"#),
        finished("tool_calls"),
    ]
    .concat();
    let model = looping(one_call.clone());
    let settings = AgentSettings {
        max_iterations: 3,
        ..AgentSettings::default()
    };
    let (outcome, _) = bench
        .run(&model, &settings, &QueueConfirmer::default())
        .await;
    assert_eq!(outcome.reason, StopReason::MaxIterations { limit: 3 });
    assert_eq!((outcome.turns, outcome.tool_calls), (3, 3));

    let three = [
        call(0, "a", "calculator_evaluate", r#"{"expression": "1"}"#),
        call(1, "b", "calculator_evaluate", r#"{"expression": "2"}"#),
        call(2, "c", "calculator_evaluate", r#"{"expression": "3"}"#),
        finished("tool_calls"),
    ]
    .concat();
    let model = looping(three);
    let settings = AgentSettings {
        max_total_tool_calls: 2,
        ..AgentSettings::default()
    };
    let (outcome, events) = bench
        .run(&model, &settings, &QueueConfirmer::default())
        .await;
    assert_eq!(outcome.reason, StopReason::MaxToolCalls { limit: 2 });
    assert_eq!(outcome.tool_calls, 2);
    assert!(results(&events)[2].0.contains("limit of 2 tool calls"));

    let model = looping(one_call);
    let settings = AgentSettings {
        token_budget: Some(250),
        ..AgentSettings::default()
    };
    let (outcome, _) = bench
        .run(&model, &settings, &QueueConfirmer::default())
        .await;
    assert_eq!(
        outcome.reason,
        StopReason::TokenBudget {
            limit: 250,
            used: 360
        }
    );
}

#[tokio::test]
async fn confirmation_asks_for_writes_in_auto_and_edits_denials_and_stop_count() {
    let bench = Bench::new();
    let write = |id: &str, name: &str| {
        call(
            0,
            id,
            "workspace_write",
            &json!({"path": name, "content": "x"}).to_string(),
        )
    };
    let model = scripted(vec![
        reply(vec![
            call(0, "r", "calculator_evaluate", r#"{"expression": "1"}"#),
            finished("tool_calls"),
        ]),
        reply(vec![write("w1", "a.txt"), finished("tool_calls")]),
        reply(vec![write("w2", "b.txt"), finished("tool_calls")]),
        reply(vec![write("w3", "c.txt"), finished("tool_calls")]),
    ]);
    let confirmer = QueueConfirmer::default();
    let mut edited = serde_json::Map::new();
    edited.insert("path".to_owned(), json!("edited.txt"));
    edited.insert("content".to_owned(), json!("y"));
    confirmer.decisions.lock().expect("lock").extend([
        Decision::Run {
            edited: Some(edited),
        },
        Decision::Deny {
            reason: Some("not that file".to_owned()),
        },
        Decision::Stop,
    ]);
    let (outcome, events) = bench
        .run(&model, &AgentSettings::default(), &confirmer)
        .await;
    assert_eq!(outcome.reason, StopReason::Stopped);
    // The read-only calculator ran without asking; each write was asked about.
    assert_eq!(
        *confirmer.asked.lock().expect("lock"),
        ["workspace_write"; 3]
    );
    let results = results(&events);
    assert_eq!(results[0].1, ExecutionStatus::Success);
    assert_eq!(results[1].1, ExecutionStatus::Success, "{}", results[1].0);
    assert!(
        bench._dir.path().join("ws/edited.txt").is_file()
            && !bench._dir.path().join("ws/a.txt").exists()
    );
    assert!(results[2].0.contains("not that file"));
    assert!(results[2]
        .2
        .as_deref()
        .is_some_and(|s| s.contains("did not allow")));

    // Manual mode asks for read-only calls too.
    let model = scripted(vec![reply(vec![
        call(0, "r", "calculator_evaluate", r#"{"expression": "1"}"#),
        finished("tool_calls"),
    ])]);
    let confirmer = QueueConfirmer::default();
    let settings = AgentSettings {
        mode: CallMode::Manual,
        ..AgentSettings::default()
    };
    let (outcome, _) = bench.run(&model, &settings, &confirmer).await;
    assert_eq!(outcome.reason, StopReason::Stopped);
    assert_eq!(
        *confirmer.asked.lock().expect("lock"),
        ["calculator_evaluate"]
    );
}

#[tokio::test]
async fn a_stream_cut_mid_call_is_recorded_and_the_partial_call_never_runs() {
    let bench = Bench::new();
    let partial = [
        vec![text("Calling")],
        call(0, "x", "workspace_write", r#"{"path": "a.txt", "cont"#),
    ]
    .concat();
    let model = scripted(vec![PlaybackTurn {
        events: partial,
        fails_with: Some(ModelErrorKind::Cut),
    }]);
    let (outcome, events) = bench
        .run(
            &model,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    assert!(
        matches!(
            outcome.reason,
            StopReason::ModelFailed {
                kind: ModelErrorKind::Cut,
                ..
            }
        ),
        "{:?}",
        outcome.reason
    );
    assert!(results(&events).is_empty());
    let id = outcome.conversation_id.expect("id");
    let loaded = bench.store.load(&id).expect("load");
    let partial_reply = loaded.records.iter().find_map(|r| match &r.record {
        Record::Reply { reply, .. } => Some(reply.clone()),
        _ => None,
    });
    assert_eq!(partial_reply.map(|r| r.calls.len()), Some(1));
    assert!(loaded.records.iter().any(|r| matches!(
        r.record,
        Record::ModelFailed {
            kind: ModelErrorKind::Cut,
            ..
        }
    )));
}

#[tokio::test]
async fn replay_reads_recorded_replies_again_and_says_what_changed() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![vec![text("<tool_call>{\"name\": \"calculator_evaluate\", \"arguments\": {\"expression\": \"1\"}}</tool_call>")], finished("stop")]),
        reply(vec![vec![text("1")], finished("stop")]),
    ]);
    let settings = AgentSettings {
        tools: ToolMode::Prompted {
            format: "hermes".to_owned(),
        },
        ..AgentSettings::default()
    };
    let (outcome, _) = bench
        .run(&model, &settings, &QueueConfirmer::default())
        .await;
    let id = outcome.conversation_id.expect("id");
    let mut loaded = bench.store.load(&id).expect("load");
    let turns = replay(&loaded, &ProtocolSet::standard()).expect("replay");
    assert_eq!(turns.len(), 2);
    assert!(turns.iter().all(|t| !t.changed && t.recorded.is_some()));
    assert_eq!(turns[0].today.requests[0].tool_name, "calculator_evaluate");

    // As if the parser of the day had read the call differently.
    for timed in &mut loaded.records {
        if let Record::Parsed { turn: 1, report } = &mut timed.record {
            report.requests[0]
                .args
                .insert("expression".to_owned(), json!("2"));
        }
    }
    let turns = replay(&loaded, &ProtocolSet::standard()).expect("replay");
    assert!(turns[0].changed && !turns[1].changed);
    assert!(matches!(bench.store.delete(&id), Ok(())));
    assert!(bench.store.load(&id).is_err());
    assert!(bench.store.load("../etc/passwd").is_err());
}

#[tokio::test]
async fn a_recorded_conversation_plays_back_through_the_loop_without_a_model() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![
            call(0, "c1", "calculator_evaluate", r#"{"expression": "6*7"}"#),
            finished("tool_calls"),
        ]),
        reply(vec![vec![text("42")], finished("stop")]),
    ]);
    let (first, first_events) = bench
        .run(
            &model,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    let recorded = bench
        .store
        .load(&first.conversation_id.expect("id"))
        .expect("load");
    let again = PlaybackModel::from_conversation(&recorded).expect("a start record");
    let (second, second_events) = bench
        .run(
            &again,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    assert_eq!(
        (second.reason.clone(), second.turns, second.tool_calls),
        (StopReason::Final, 2, 1)
    );
    let outputs = |events: &[AgentEvent]| {
        results(events)
            .into_iter()
            .map(|r| (r.0, r.1))
            .collect::<Vec<_>>()
    };
    assert_eq!(outputs(&first_events), outputs(&second_events));
    assert_eq!(second.final_text(), "42");
}

#[tokio::test]
async fn a_malformed_native_call_is_told_back_instead_of_ending_the_conversation() {
    let bench = Bench::new();
    let model = scripted(vec![
        reply(vec![finished("MALFORMED_FUNCTION_CALL")]),
        reply(vec![vec![text("Sorry; 1.")], finished("STOP")]),
    ]);
    let (outcome, events) = bench
        .run(
            &model,
            &AgentSettings::default(),
            &QueueConfirmer::default(),
        )
        .await;
    assert_eq!((outcome.reason, outcome.turns), (StopReason::Final, 2));
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Feedback { text, .. } if text.contains("malformed"))));
}

#[tokio::test]
async fn an_unknown_prompted_format_is_refused_before_any_request() {
    let bench = Bench::new();
    let model = scripted(vec![]);
    let protocols = ProtocolSet::standard();
    let executor = Executor::new(Arc::clone(&bench.registry), ExecutorOptions::default());
    let agent = Agent {
        model: &model,
        protocols: &protocols,
        executor: &executor,
        tools: &[],
        confirmer: &QueueConfirmer::default(),
        history: None,
        log: None,
        observer: &|_| {},
    };
    let settings = AgentSettings {
        tools: ToolMode::Prompted {
            format: "nope".to_owned(),
        },
        ..AgentSettings::default()
    };
    let error = agent
        .run("x", &settings, &CancellationToken::new())
        .await
        .expect_err("refused");
    assert!(error.to_string().contains("nope"), "{error}");
    assert!(model.requests().is_empty());
}
