//! Agent loop benchmarks (figures, not assertions): Toolscope's own cost per turn beyond the
//! model's and the tools' time, and the time from a call's last streamed piece to the call
//! being shown. The model is a played-back one (no network, no waiting), the tool the built-in
//! echo (microseconds), so what is measured is the loop: building requests, streaming events to
//! the observer, parsing, checking, executing, recording.
//! Run: `cargo bench -p toolscope-engine --bench agent`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use toolscope_builtin::{register_all, BuiltinOptions};
use toolscope_engine::agent::playback::{PlaybackModel, PlaybackTurn};
use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::{
    Agent, AgentEvent, AgentSettings, Confirmer, Decision, ModelInfo, ReplyEvent, ToolMode, Usage,
};
use toolscope_engine::discovery::Discovery;
use toolscope_engine::executor::{ConfirmationRequest, Executor, ExecutorOptions};
use toolscope_engine::history::History;
use toolscope_engine::{BoxFuture, Registry, ToolCallConfig};
use toolscope_protocol::ProtocolSet;

struct Approve;

impl Confirmer for Approve {
    fn decide<'a>(&'a self, _: u32, _: &'a ConfirmationRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Run { edited: None } })
    }
}

fn info() -> ModelInfo {
    ModelInfo {
        wire: "openai_chat".to_owned(),
        base_url: "playback".to_owned(),
        model: "playback".to_owned(),
        native_protocol: "openai_chat".to_owned(),
    }
}

fn finish(reason: &str) -> [ReplyEvent; 2] {
    [
        ReplyEvent::Usage {
            usage: Usage {
                input_tokens: 500,
                output_tokens: 40,
            },
        },
        ReplyEvent::Finished {
            reason: reason.to_owned(),
        },
    ]
}

/// Turn 1 calls echo (its arguments in 8-byte deltas, as a stream brings them), turn 2 answers.
fn native_turns() -> Vec<PlaybackTurn> {
    let arguments = json!({"message": "hello from the benchmark", "repeat": 2}).to_string();
    let mut first = vec![
        ReplyEvent::Text {
            text: "Let me echo that.".to_owned(),
        },
        ReplyEvent::CallStarted {
            index: 0,
            id: "call_1".to_owned(),
            name: "echo_echo".to_owned(),
        },
    ];
    for piece in arguments.as_bytes().chunks(8) {
        first.push(ReplyEvent::CallArguments {
            index: 0,
            fragment: String::from_utf8_lossy(piece).into_owned(),
        });
    }
    first.extend(finish("tool_calls"));
    let mut last = vec![ReplyEvent::Text {
        text: "Done: it echoed twice.".to_owned(),
    }];
    last.extend(finish("stop"));
    vec![PlaybackTurn::reply(first), PlaybackTurn::reply(last)]
}

/// The same conversation with the call written in Hermes markup, streamed in 6-byte deltas.
fn prompted_turns() -> Vec<PlaybackTurn> {
    let text = "Let me echo that.\n<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hello from the benchmark\", \"repeat\": 2}}\n</tool_call>";
    let mut first: Vec<ReplyEvent> = text
        .as_bytes()
        .chunks(6)
        .map(|piece| ReplyEvent::Text {
            text: String::from_utf8_lossy(piece).into_owned(),
        })
        .collect();
    first.extend(finish("stop"));
    let mut last = vec![ReplyEvent::Text {
        text: "Done: it echoed twice.".to_owned(),
    }];
    last.extend(finish("stop"));
    vec![PlaybackTurn::reply(first), PlaybackTurn::reply(last)]
}

struct Setup {
    _dir: tempfile::TempDir,
    protocols: ProtocolSet,
    executor: Executor,
    tools: Vec<toolscope_protocol::ToolDefinitionInput>,
    history: History,
    store: ConversationStore,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Arc::new(Registry::new());
    register_all(
        &registry,
        &BuiltinOptions {
            workspace_root: dir.path().join("ws"),
        },
    )
    .expect("built-ins");
    let protocols = ProtocolSet::standard();
    let tools = Discovery::new(Arc::clone(&registry), protocols.clone())
        .enabled_tools(&ToolCallConfig::default());
    let (history, _) = History::open(dir.path().join("history.jsonl")).expect("history");
    let store = ConversationStore::new(dir.path().join("conversations"));
    Setup {
        protocols,
        executor: Executor::new(registry, ExecutorOptions::default()),
        tools,
        history,
        store,
        _dir: dir,
    }
}

/// Runs one two-turn conversation; returns the time from the last streamed piece of the call
/// to the observer being told the parsed turn.
async fn conversation(
    setup: &Setup,
    turns: Vec<PlaybackTurn>,
    settings: &AgentSettings,
    record: bool,
) -> Duration {
    let model = PlaybackModel::new(info(), turns, false);
    let log = record.then(|| setup.store.create(&[]).expect("log"));
    let last_piece: Mutex<Option<Instant>> = Mutex::new(None);
    let shown: Mutex<Option<Duration>> = Mutex::new(None);
    let observer = |event: &AgentEvent| match event {
        AgentEvent::Reply { turn: 1, event }
            if !matches!(
                event,
                ReplyEvent::Usage { .. } | ReplyEvent::Finished { .. }
            ) =>
        {
            *last_piece.lock().expect("lock") = Some(Instant::now());
        }
        AgentEvent::Parse {
            turn: 1,
            event: toolscope_protocol::stream::StreamEvent::Call { .. },
        }
        | AgentEvent::TurnParsed { turn: 1, .. } => {
            let mut shown = shown.lock().expect("lock");
            if shown.is_none() {
                *shown = last_piece.lock().expect("lock").map(|at| at.elapsed());
            }
        }
        _ => {}
    };
    let agent = Agent {
        model: &model,
        protocols: &setup.protocols,
        executor: &setup.executor,
        tools: &setup.tools,
        confirmer: &Approve,
        history: record.then_some(&setup.history),
        log: log.as_ref(),
        observer: &observer,
    };
    let outcome = agent
        .run("Echo hello twice.", settings, &CancellationToken::new())
        .await
        .expect("runs");
    assert_eq!(outcome.tool_calls, 1);
    let shown = *shown.lock().expect("lock");
    shown.unwrap_or_default()
}

fn agent_benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let setup = setup();
    let native = AgentSettings::default();
    let prompted = AgentSettings {
        tools: ToolMode::Prompted {
            format: "hermes".to_owned(),
        },
        ..AgentSettings::default()
    };
    let mut group = c.benchmark_group("agent_two_turns");
    for (name, settings, turns, record) in [
        (
            "native",
            &native,
            native_turns as fn() -> Vec<PlaybackTurn>,
            false,
        ),
        ("native_recorded", &native, native_turns, true),
        ("prompted_hermes", &prompted, prompted_turns, false),
        ("prompted_hermes_recorded", &prompted, prompted_turns, true),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| runtime.block_on(conversation(&setup, turns(), settings, record)))
        });
    }
    group.finish();

    // The latency itself, not the whole conversation: summed over the iterations.
    let mut group = c.benchmark_group("agent_call_to_shown");
    for (name, settings, turns) in [
        ("native", &native, native_turns as fn() -> Vec<PlaybackTurn>),
        ("prompted_hermes", &prompted, prompted_turns),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| runtime.block_on(conversation(&setup, turns(), settings, false)))
                    .sum()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, agent_benches);
criterion_main!(benches);
