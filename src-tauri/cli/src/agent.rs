//! `toolscope agent`: the agent loop headless, for CI of a team's agent and quick checks of a
//! model's tool calling; `toolscope endpoints`: the connection profiles it can use.
//!
//! The reply streams to stdout as it arrives and each call and result is a line on stderr, so a
//! person watches the loop; `--json` prints the whole transcript (the conversation's records)
//! at the end instead. Every conversation is recorded under `<data dir>/conversations` unless
//! `--no-record`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::{
    select_tools, Agent, AgentEvent, AgentSettings, Confirmer, Decision, ReplyEvent,
    RequestOptions, StopReason, ToolChoice, ToolMode,
};
use toolscope_engine::config::CallMode;
use toolscope_engine::discovery::Discovery;
use toolscope_engine::executor::{ConfirmationRequest, Executor, ExecutorOptions};
use toolscope_engine::BoxFuture;
use toolscope_llm::client::{Endpoint, Wire};
use toolscope_llm::model::EndpointModel;
use toolscope_llm::profiles::{KeySource, Profile, ProfileStore, WireName};

use crate::setup::{self, SetupError};
use crate::{exit, GlobalArgs};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum WireArg {
    /// OpenAI-compatible Chat Completions (vLLM, SGLang, llama.cpp, Ollama, LM Studio, ...).
    Openai,
    /// OpenAI's Responses API.
    Responses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
}

impl WireArg {
    fn name(self) -> WireName {
        match self {
            Self::Openai => WireName::OpenaiChat,
            Self::Responses => WireName::OpenaiResponses,
            Self::Anthropic => WireName::Anthropic,
            Self::Gemini => WireName::Gemini,
        }
    }
}

/// Which endpoint: a saved profile, or one given on the command line.
#[derive(Debug, Args)]
pub struct EndpointArgs {
    /// A saved profile (`toolscope endpoints add`).
    #[arg(long, short, value_name = "PROFILE", conflicts_with_all = ["url", "model"])]
    endpoint: Option<String>,
    /// Base URL (`http://127.0.0.1:8000/v1` for an OpenAI-compatible server).
    #[arg(long, value_name = "URL", requires = "model")]
    url: Option<String>,
    #[arg(long, value_enum, default_value = "openai")]
    wire: WireArg,
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// Environment variable holding the API key (with --url).
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Seconds the stream may stay silent before it counts as stalled.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    idle_timeout: u64,
}

impl EndpointArgs {
    fn resolve(&self) -> Result<Endpoint, SetupError> {
        if let Some(name) = &self.endpoint {
            return ProfileStore::new(&setup::data_dir())
                .endpoint(name)
                .map_err(|e| SetupError::usage(e.to_string()));
        }
        let (Some(url), Some(model)) = (&self.url, &self.model) else {
            return Err(SetupError::usage(
                "name an endpoint: --endpoint PROFILE, or --url URL --model MODEL",
            ));
        };
        let api_key = match &self.api_key_env {
            None => None,
            Some(var) => Some(
                std::env::var(var)
                    .map_err(|_| SetupError::usage(format!("--api-key-env: ${var} is not set")))?,
            ),
        };
        Ok(Endpoint::new(
            wire_of(self.wire.name()),
            url.clone(),
            model.clone(),
            api_key,
            Duration::from_secs(self.idle_timeout.max(1)),
        ))
    }
}

fn wire_of(name: WireName) -> Wire {
    match name {
        WireName::OpenaiChat => Wire::OpenAiChat,
        WireName::OpenaiResponses => Wire::OpenAiResponses,
        WireName::Anthropic => Wire::Anthropic,
        WireName::Gemini => Wire::Gemini,
    }
}

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The task for the model (`-` or nothing reads stdin).
    task: Option<String>,
    #[command(flatten)]
    endpoint: EndpointArgs,
    /// Describe the tools in the system prompt in this wire format (hermes, vcp, json_strict,
    /// ...) instead of sending them as the API's native tools.
    #[arg(long, short, value_name = "FORMAT", conflicts_with = "native")]
    format: Option<String>,
    /// Send the tools as the API's native `tools` (the default).
    #[arg(long)]
    native: bool,
    /// Only these tools (tool ids or routing names, comma-separated) [default: every enabled tool].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    tools: Vec<String>,
    /// Your own system prompt, sent before the tool prompt.
    #[arg(long, value_name = "TEXT")]
    system: Option<String>,
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_iterations: u32,
    #[arg(long, value_name = "N", default_value_t = 32)]
    max_tool_calls: u32,
    /// Stop once input plus output tokens reach this many.
    #[arg(long, value_name = "TOKENS")]
    token_budget: Option<u64>,
    /// Ask before every call, not only the ones that are not read-only.
    #[arg(long)]
    manual: bool,
    /// Run every call without asking.
    #[arg(long, short)]
    yes: bool,
    /// auto, none, required, or a tool's name.
    #[arg(long, value_name = "CHOICE", default_value = "auto")]
    tool_choice: String,
    #[arg(long, value_name = "BOOL")]
    parallel_tool_calls: Option<bool>,
    #[arg(long)]
    temperature: Option<f64>,
    #[arg(long, value_name = "TOKENS")]
    max_tokens: Option<u32>,
    /// Per-call timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    timeout_ms: u64,
    /// Where conversations are recorded [default: <data dir>/conversations].
    #[arg(long, value_name = "DIR", env = "TOOLSCOPE_CONVERSATIONS")]
    conversations: Option<PathBuf>,
    /// Do not record the conversation.
    #[arg(long)]
    no_record: bool,
}

pub async fn agent(global: &GlobalArgs, args: AgentArgs) -> Result<u8, SetupError> {
    let task = match args.task.as_deref() {
        Some(task) if task != "-" => task.to_owned(),
        _ => setup::read_input(None)?,
    };
    let endpoint = args.endpoint.resolve()?;
    let secret = endpoint.api_key.clone();
    let model = EndpointModel::new(endpoint).map_err(|e| SetupError::environment(e.to_string()))?;
    let settings = settings(&args)?;
    let registry = setup::registry(global)?;
    let protocols = setup::protocols(global);
    let discovery = Discovery::new(Arc::clone(&registry), protocols.clone());
    let tools = select_tools(discovery.enabled_tools(&setup::config(None)?), &args.tools).map_err(
        |unknown| {
            SetupError::usage(format!(
                "--tools: no enabled tool or method '{unknown}' (see `toolscope list`)"
            ))
        },
    )?;
    let options = ExecutorOptions {
        timeout: Duration::from_millis(args.timeout_ms),
        ..ExecutorOptions::default()
    };
    let executor = Executor::new(registry, options);
    let history = setup::history(global)?;
    let store = ConversationStore::new(
        args.conversations
            .clone()
            .unwrap_or_else(|| setup::data_dir().join("conversations")),
    );
    let log = if args.no_record {
        None
    } else {
        let secrets: Vec<&str> = secret.iter().map(String::as_str).collect();
        Some(
            store
                .create(&secrets)
                .map_err(|e| SetupError::environment(e.to_string()))?,
        )
    };
    let confirmer = TerminalConfirmer { yes: args.yes };
    let json = global.json;
    let observer = move |event: &AgentEvent| {
        if !json {
            show(event);
        }
    };
    let cancel = interrupt_token();
    let agent = Agent {
        model: &model,
        protocols: &protocols,
        executor: &executor,
        tools: &tools,
        confirmer: &confirmer,
        history: history.as_ref(),
        log: log.as_ref(),
        observer: &observer,
    };
    let outcome = agent
        .run(&task, &settings, &cancel)
        .await
        .map_err(|e| SetupError::usage(e.to_string()))?;
    for error in &outcome.record_errors {
        eprintln!("warning: not recorded: {error}");
    }
    if json {
        let records = match (&outcome.conversation_id, log.is_some()) {
            (Some(id), true) => store.load(id).map(|c| c.records).unwrap_or_default(),
            _ => Vec::new(),
        };
        crate::render::json(&serde_json::json!({
            "conversation_id": outcome.conversation_id,
            "reason": outcome.reason,
            "turns": outcome.turns,
            "tool_calls": outcome.tool_calls,
            "usage": outcome.usage,
            "final_text": outcome.final_text(),
            "records": records,
        }));
    } else if let Some(id) = &outcome.conversation_id {
        eprintln!("recorded as {id}");
    }
    Ok(match outcome.reason {
        StopReason::Final => exit::OK,
        StopReason::Stopped if cancel.is_cancelled() => exit::INTERRUPTED,
        StopReason::Stopped => exit::TOOL_FAILED,
        StopReason::ModelFailed { .. } => exit::MODEL_FAILED,
        StopReason::MaxIterations { .. }
        | StopReason::MaxToolCalls { .. }
        | StopReason::TokenBudget { .. } => exit::LIMIT_REACHED,
    })
}

fn settings(args: &AgentArgs) -> Result<AgentSettings, SetupError> {
    let tool_choice = match args.tool_choice.as_str() {
        "auto" => ToolChoice::Auto,
        "none" => ToolChoice::None,
        "required" => ToolChoice::Required,
        "" => return Err(SetupError::usage("--tool-choice cannot be empty")),
        name => ToolChoice::Named {
            name: name.to_owned(),
        },
    };
    Ok(AgentSettings {
        tools: match (&args.format, args.native) {
            (Some(format), false) => ToolMode::Prompted {
                format: format.clone(),
            },
            _ => ToolMode::Native,
        },
        max_iterations: args.max_iterations,
        max_total_tool_calls: args.max_tool_calls,
        token_budget: args.token_budget,
        mode: if args.manual {
            CallMode::Manual
        } else {
            CallMode::Auto
        },
        system_prompt: args.system.clone(),
        request: RequestOptions {
            tool_choice,
            parallel_tool_calls: args.parallel_tool_calls,
            temperature: args.temperature,
            max_tokens: args.max_tokens,
        },
    })
}

/// What a person watching the terminal sees: the reply on stdout, the rest on stderr.
fn show(event: &AgentEvent) {
    let mut out = std::io::stdout();
    match event {
        AgentEvent::TurnStarted { turn } => eprintln!("── turn {turn}"),
        AgentEvent::Retry {
            attempt,
            of,
            wait_ms,
            reason,
            ..
        } => eprintln!(
            "   {reason}: retry {attempt} of {of} in {:.1} s",
            *wait_ms as f64 / 1000.0
        ),
        AgentEvent::Reply {
            event: ReplyEvent::Text { text },
            ..
        } => {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
        AgentEvent::TurnParsed { report, timing, .. } => {
            println!();
            for request in &report.requests {
                let args = Value::Object(request.args.clone());
                eprintln!("→ {} {args}", request.tool_name);
            }
            for d in &report.diagnostics {
                eprintln!("   {:?}: {}", d.severity, d.message);
            }
            if let Some(first) = timing.first_token_ms {
                eprintln!(
                    "   first token {first:.0} ms, reply {:.0} ms",
                    timing.total_ms
                );
            }
        }
        AgentEvent::CallFinished {
            result, suggestion, ..
        } => {
            let status = match &result.error {
                None => "ok".to_owned(),
                Some(e) => e.kind.as_str().to_owned(),
            };
            eprintln!(
                "← {} {status} ({:.1} ms): {}",
                result.tool_name,
                result.duration_ms,
                first_line(&result.result)
            );
            if let Some(suggestion) = suggestion {
                eprintln!("   suggestion: {}", first_line(suggestion));
            }
        }
        AgentEvent::Feedback { text, .. } => eprintln!("   told the model: {}", first_line(text)),
        AgentEvent::ModelFailed { message, .. } => eprintln!("error: {message}"),
        AgentEvent::Stopped {
            reason,
            turns,
            tool_calls,
            usage,
        } => eprintln!(
            "── stopped: {} after {turns} turn(s), {tool_calls} call(s), {} tokens in / {} out",
            describe(reason),
            usage.input_tokens,
            usage.output_tokens
        ),
        _ => {}
    }
}

fn describe(reason: &StopReason) -> String {
    match reason {
        StopReason::Final => "final answer".to_owned(),
        StopReason::MaxIterations { limit } => format!("{limit} model requests (--max-iterations)"),
        StopReason::MaxToolCalls { limit } => format!("{limit} tool calls (--max-tool-calls)"),
        StopReason::TokenBudget { limit, used } => {
            format!("{used} of {limit} tokens (--token-budget)")
        }
        StopReason::Stopped => "stopped".to_owned(),
        StopReason::ModelFailed { message, .. } => format!("the model endpoint failed: {message}"),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Asks on the terminal (y / n / e(dit) / s(top)); with no terminal, denies unless `--yes`.
struct TerminalConfirmer {
    yes: bool,
}

impl Confirmer for TerminalConfirmer {
    fn decide<'a>(
        &'a self,
        _turn: u32,
        request: &'a ConfirmationRequest,
    ) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            if self.yes {
                return Decision::Run { edited: None };
            }
            if !std::io::stdin().is_terminal() {
                return Decision::Deny {
                    reason: Some(
                        "no one was there to confirm it (the run was not given --yes)".to_owned(),
                    ),
                };
            }
            let args = serde_json::to_string(&request.args).unwrap_or_default();
            let prompt = format!(
                "\n'{}' {args}\nRun it? [y]es / [n]o / [e]dit arguments / [s]top: ",
                request.routing_name
            );
            tokio::task::spawn_blocking(move || ask(&prompt))
                .await
                .unwrap_or(Decision::Stop)
        })
    }
}

fn ask(prompt: &str) -> Decision {
    let mut stderr = std::io::stderr();
    let read = || {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(|_| line)
    };
    let _ = stderr.write_all(prompt.as_bytes());
    let _ = stderr.flush();
    let Ok(answer) = read() else {
        return Decision::Stop;
    };
    match answer.trim() {
        "y" | "Y" | "yes" => Decision::Run { edited: None },
        "s" | "S" | "stop" => Decision::Stop,
        "e" | "E" | "edit" => {
            let _ = stderr.write_all(b"arguments (one line of JSON): ");
            let _ = stderr.flush();
            match read().map(|line| serde_json::from_str::<Value>(&line)) {
                Ok(Ok(Value::Object(args))) => Decision::Run { edited: Some(args) },
                _ => Decision::Deny {
                    reason: Some("the edited arguments were not a JSON object".to_owned()),
                },
            }
        }
        _ => Decision::Deny { reason: None },
    }
}

fn interrupt_token() -> CancellationToken {
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\ninterrupted: stopping the conversation…");
            trigger.cancel();
        }
    });
    token
}

#[derive(Debug, Args)]
pub struct EndpointsArgs {
    #[command(subcommand)]
    action: Option<EndpointsAction>,
}

#[derive(Debug, Subcommand)]
enum EndpointsAction {
    /// List the saved profiles (the default).
    List,
    /// Save a profile (replacing one of the same name).
    Add {
        name: String,
        #[arg(long)]
        url: String,
        #[arg(long)]
        model: String,
        #[arg(long, value_enum, default_value = "openai")]
        wire: WireArg,
        /// Take the API key from this environment variable when the profile is used.
        #[arg(long, value_name = "VAR", conflicts_with = "key_stdin")]
        key_env: Option<String>,
        /// Read the API key once from stdin and keep it in the owner-only key file.
        #[arg(long)]
        key_stdin: bool,
    },
    /// Delete a profile and its stored key.
    Remove { name: String },
    /// Connect and list the models the endpoint serves.
    Test { name: String },
}

pub async fn endpoints(global: &GlobalArgs, args: EndpointsArgs) -> Result<u8, SetupError> {
    let store = ProfileStore::new(&setup::data_dir());
    let failed = |e: toolscope_llm::profiles::ProfileError| SetupError::usage(e.to_string());
    match args.action.unwrap_or(EndpointsAction::List) {
        EndpointsAction::List => {
            let profiles = store.list().map_err(failed)?;
            if global.json {
                crate::render::json(&profiles);
            } else if profiles.is_empty() {
                println!("no endpoint profiles (add one with `toolscope endpoints add`)");
            }
            if !global.json {
                for p in &profiles {
                    println!("{:<16} {:?} {} {}", p.name, p.wire, p.base_url, p.model);
                }
            }
        }
        EndpointsAction::Add {
            name,
            url,
            model,
            wire,
            key_env,
            key_stdin,
        } => {
            let key = match (key_env, key_stdin) {
                (Some(var), _) => KeySource::Env { var },
                (None, true) => {
                    let key = setup::read_input(None)?;
                    store.store_key(&name, key.trim()).map_err(failed)?;
                    KeySource::Stored
                }
                (None, false) => KeySource::None,
            };
            store
                .save(Profile {
                    name: name.clone(),
                    wire: wire.name(),
                    base_url: url,
                    model,
                    key,
                    idle_timeout_s: 60,
                })
                .map_err(failed)?;
            eprintln!("saved endpoint profile '{name}'");
        }
        EndpointsAction::Remove { name } => {
            store.remove(&name).map_err(failed)?;
            eprintln!("removed endpoint profile '{name}'");
        }
        EndpointsAction::Test { name } => {
            let endpoint = store.endpoint(&name).map_err(failed)?;
            let model =
                EndpointModel::new(endpoint).map_err(|e| SetupError::environment(e.to_string()))?;
            match model.list_models().await {
                Ok(models) => {
                    if global.json {
                        crate::render::json(&models);
                    } else {
                        println!("connected: {} model(s)", models.len());
                        for m in &models {
                            println!("  {m}");
                        }
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(exit::MODEL_FAILED);
                }
            }
        }
    }
    Ok(exit::OK)
}
