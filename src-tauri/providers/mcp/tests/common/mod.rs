//! Shared set-up of the provider's integration tests: a registry, a source set, an executor,
//! and waiting for a server to reach a state.

#![allow(dead_code)] // each test file uses a different part

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::{BoxFuture, Registry};
use toolscope_mcp::sources::SourceOptions;
use toolscope_mcp::{
    ClientHooks, ElicitationAnswer, ElicitationRequest, Elicitor, McpServerConfig, McpSources,
    McpTransport, SourceStatus,
};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ToolExecutionResult;

pub fn stdio(name: &str, command: &str, args: &[&str]) -> McpServerConfig {
    McpServerConfig {
        name: name.into(),
        transport: McpTransport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: Default::default(),
            cwd: None,
        },
        enabled: true,
    }
}

pub fn test_server(name: &str, args: &[&str]) -> McpServerConfig {
    stdio(name, env!("CARGO_BIN_EXE_toolscope-mcp-testserver"), args)
}

pub fn sources() -> (Arc<Registry>, McpSources) {
    sources_with(ClientHooks::default())
}

/// A source set whose servers' questions go to `hooks`.
pub fn sources_with(hooks: ClientHooks) -> (Arc<Registry>, McpSources) {
    let registry = Arc::new(Registry::new());
    let options = SourceOptions {
        handshake_timeout: Duration::from_secs(20),
        hooks,
        ..SourceOptions::default()
    };
    (Arc::clone(&registry), McpSources::new(registry, options))
}

type Answer =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync>;

/// Answers elicitations with a closure and keeps every request it saw.
#[derive(Clone)]
pub struct Person {
    pub seen: Arc<Mutex<Vec<ElicitationRequest>>>,
    answer: Answer,
}

impl Person {
    pub fn new(
        answer: impl Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        Self {
            seen: Arc::default(),
            answer: Arc::new(answer),
        }
    }

    /// Always gives the same answer.
    pub fn answering(answer: ElicitationAnswer) -> Self {
        Self::new(move |_| {
            let answer = answer.clone();
            Box::pin(async move { answer })
        })
    }

    pub fn requests(&self) -> Vec<ElicitationRequest> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn hooks(&self) -> ClientHooks {
        ClientHooks {
            elicitor: Arc::new(self.clone()),
            ..ClientHooks::default()
        }
    }
}

impl Elicitor for Person {
    fn elicit(
        &self,
        request: ElicitationRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'_, ElicitationAnswer> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        (self.answer)(request)
    }
}

/// Adds and approves a server, and waits until it is ready.
pub async fn ready(sources: &McpSources, config: McpServerConfig) {
    let name = config.name.clone();
    let state = sources.add(config).await.expect("adds");
    assert!(
        matches!(state.status, SourceStatus::AwaitingApproval { .. }),
        "{:?}",
        state.status
    );
    let state = sources.approve(&name).await.expect("approves");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}",
        state.status
    );
}

/// Polls `check` until it holds or `limit` passes.
pub async fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    check()
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub fn executor(registry: &Arc<Registry>, timeout: Duration) -> Executor {
    let options = ExecutorOptions {
        timeout,
        ..ExecutorOptions::default()
    };
    Executor::new(Arc::clone(registry), options).with_confirmation(Arc::new(ApproveAll))
}

pub async fn run(executor: &Executor, routing_name: &str, arguments: Value) -> ToolExecutionResult {
    let request = ParsedToolRequest::manual(routing_name, args(arguments));
    executor.execute(&request, &CancellationToken::new()).await
}
