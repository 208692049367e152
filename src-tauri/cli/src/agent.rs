//! `toolscope agent`: the agent loop headless, for CI of a team's agent and quick checks of a
//! model's tool calling.
//!
//! The reply streams to stdout as it arrives and each call and result is a line on stderr
//! ([`crate::agent_view`]), so a person watches the loop; `--json` prints the whole transcript
//! (the conversation's records) at the end instead. Every conversation is recorded under
//! `<data dir>/conversations` unless `--no-record`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use toolscope_engine::agent::record::ConversationStore;
use toolscope_engine::agent::{
    select_tools, Agent, AgentEvent, AgentSettings, RequestOptions, StopReason, ToolChoice,
    ToolMode,
};
use toolscope_engine::config::CallMode;
use toolscope_engine::discovery::Discovery;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_llm::model::EndpointModel;

use crate::agent_view::{show, TerminalConfirmer};
use crate::commands::interrupt_token;
use crate::endpoints::EndpointArgs;
use crate::setup::{self, SetupError};
use crate::{exit, GlobalArgs};

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
    /// Run every call without asking (and accept what MCP servers ask, with its defaults).
    #[arg(long, short)]
    pub(crate) yes: bool,
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
