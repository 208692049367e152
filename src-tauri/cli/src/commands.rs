//! One function per subcommand: read inputs, call the engine, render, pick the exit code.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::cycle::{run_cycle, CycleOptions};
use toolscope_engine::discovery::{Discovery, MethodFilter};
use toolscope_engine::eval::EvalCase;
use toolscope_engine::executor::{ApproveAll, ConfirmationHook, Executor, ExecutorOptions};
use toolscope_engine::history::{HistoryEntry, RecordedRequest};
use toolscope_engine::strict;
use toolscope_engine::types::ToolSource;
use toolscope_engine::ToolCallConfig;
use toolscope_protocol::declared::DeclaredFormat;
use toolscope_protocol::parser;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;
use toolscope_protocol::{Protocol, ProtocolSet};

use crate::confirm::TerminalConfirmation;
use crate::output::{out, outln};
use crate::render;
use crate::request_tools::RequestToolsArgs;
use crate::setup::{self, SetupError};
use crate::{exit, Command, GlobalArgs};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only methods whose names or descriptions contain every word of this query.
    query: Option<String>,
    /// Include methods a model may not call.
    #[arg(long)]
    all: bool,
    /// Only tools from this source (builtin, http, mcp, wasm).
    #[arg(long, value_parser = parse_source)]
    source: Option<ToolSource>,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Protocol whose tool-definition prompt to print.
    #[arg(long, default_value = "vcp")]
    protocol: String,
    /// A ToolCallConfig JSON file (tool toggles, enabled, ...).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Agent id, part of the prompt cache key.
    #[arg(long)]
    agent: Option<String>,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// Format of the reply, or `auto` to detect it.
    #[arg(long, short, default_value = "auto")]
    format: String,
    /// Reply file; `-` or nothing reads stdin.
    file: Option<PathBuf>,
    #[command(flatten)]
    request_tools: RequestToolsArgs,
    /// Drop what a serving stack would not return: calls cut off before they closed, and calls
    /// to tools the request (or, without --tools, the registry) does not define.
    #[arg(long)]
    strict: bool,
}

#[derive(Debug, Args)]
pub struct ExecutionFlags {
    /// Per-call timeout in milliseconds [default: from config, else 30000].
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Output cap in bytes [default: from config, else 65536].
    #[arg(long, value_name = "BYTES")]
    max_output_bytes: Option<u64>,
    /// Approve calls that need confirmation without asking, and accept what MCP servers ask
    /// during a call (elicitation) with the requested schema's defaults.
    #[arg(long, short)]
    yes: bool,
    /// A ToolCallConfig JSON file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// Routing name `{toolId}_{methodName}`, e.g. calculator_evaluate.
    name: String,
    /// Arguments as a JSON object.
    #[arg(long, short, value_name = "JSON", conflicts_with = "args_file")]
    args: Option<String>,
    /// Read the arguments JSON from a file (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    args_file: Option<PathBuf>,
    #[command(flatten)]
    flags: ExecutionFlags,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Reply file; `-` or nothing reads stdin.
    file: Option<PathBuf>,
    /// Format of the reply, or `auto` to detect it.
    #[arg(long, short, default_value = "auto")]
    format: String,
    #[command(flatten)]
    flags: ExecutionFlags,
    /// The request's tools; calls to an imported set's tools (`--tool-set`) run as its methods.
    #[command(flatten)]
    request_tools: RequestToolsArgs,
    /// Append the run as a test case (reply, its calls as the expected ones, results) to this
    /// JSON Lines file, for `toolscope eval`.
    #[arg(long, value_name = "FILE")]
    export_case: Option<PathBuf>,
}

fn parse_source(text: &str) -> Result<ToolSource, String> {
    serde_json::from_value(Value::String(text.to_lowercase()))
        .map_err(|_| format!("unknown source '{text}' (builtin, http, mcp, imported, wasm)"))
}

pub async fn dispatch(mut global: GlobalArgs, command: Command) -> u8 {
    // The proxy starts only the server on its own command line, whatever the environment says.
    let proxy = matches!(command, Command::Proxy(_));
    if !proxy
        && (global.mcp_config.is_some()
            || global.http_tools.is_some()
            || !global.wasm_tools.is_empty())
    {
        // `--yes` also accepts what MCP servers ask during calls, with the schema's defaults.
        let yes = match &command {
            Command::Call(args) => args.flags.yes,
            Command::Run(args) => args.flags.yes,
            Command::Agent(args) => args.yes,
            _ => false,
        };
        let hooks = match crate::mcp_client::hooks(yes, global.sampling_endpoint.as_deref()) {
            Ok(hooks) => hooks,
            Err(error) => {
                eprintln!("error: {}", error.message);
                return error.code;
            }
        };
        match setup::prepare_sources(&global, hooks).await {
            Ok(prepared) => global.prepared = Some(prepared),
            Err(error) => {
                eprintln!("error: {}", error.message);
                return error.code;
            }
        }
    }
    let outcome = match command {
        Command::List(args) => list(&global, args),
        Command::Prompt(args) => prompt(&global, args),
        Command::Parse(args) => parse(&global, args),
        Command::Call(args) => call(&global, args).await,
        Command::Run(args) => run(&global, args).await,
        Command::Import(args) => crate::imported::import(&global, args),
        Command::Imported(args) => crate::imported::imported(&global, args),
        Command::Eval(args) => crate::eval::eval(&global, args),
        Command::Formats(args) => Ok(formats(&global, &args)),
        Command::Agent(args) => crate::agent::agent(&global, args).await,
        Command::Endpoints(args) => crate::endpoints::endpoints(&global, args).await,
        Command::BenchParse(args) => crate::bench_parse::bench_parse(&global, args),
        Command::Stats(args) => crate::stats::stats(&global, &args),
        Command::SignOut(args) => crate::sign_out::sign_out(&global, &args),
        Command::Proxy(args) => Ok(crate::proxy::proxy(&global, args).await),
    };
    outcome.unwrap_or_else(|error| {
        eprintln!("error: {}", error.message);
        error.code
    })
}

fn list(global: &GlobalArgs, args: ListArgs) -> Result<u8, SetupError> {
    let discovery = Discovery::new(setup::registry(global)?, setup::protocols(global));
    let tools = discovery.discovered_methods(&MethodFilter {
        query: args.query,
        include_non_callable: args.all,
        source: args.source,
    });
    if global.json {
        render::json(&tools);
    } else {
        render::tool_list(&tools);
    }
    Ok(exit::OK)
}

fn prompt(global: &GlobalArgs, args: PromptArgs) -> Result<u8, SetupError> {
    let config = setup::config(args.config.as_deref())?;
    let discovery = Discovery::new(setup::registry(global)?, setup::protocols(global));
    let text = discovery
        .generate_prompt(&args.protocol, &config, args.agent.as_deref())
        .map_err(|e| SetupError::usage(e.to_string()))?;
    if global.json {
        render::json(&serde_json::json!({"protocol": args.protocol, "prompt": &*text}));
    } else {
        out!("{text}");
    }
    Ok(exit::OK)
}

fn parse(global: &GlobalArgs, args: ParseArgs) -> Result<u8, SetupError> {
    let request_tools = args.request_tools.load(global)?;
    let text = setup::read_input(args.file.as_deref())?;
    let mut report = parser::parse(&setup::protocols(global), &text, Some(&args.format))
        .map_err(|e| SetupError::usage(e.to_string()))?;
    let checks = match &request_tools {
        // The request's tools decide, as they would for a serving stack.
        Some(tools) if args.strict => Some(tools.check_strict(&mut report)),
        Some(tools) => Some(tools.check(&mut report)),
        // Typing text values needs the schemas; parsing must still work without a usable
        // workspace.
        None => {
            let registry = setup::registry(global).ok();
            if args.strict {
                match &registry {
                    Some(registry) => strict::against_registry(&mut report, registry),
                    None => parser::drop_incomplete(&mut report),
                }
            }
            parser::type_arguments(&mut report, |name| {
                registry.as_ref().and_then(|r| r.parameters_of(name))
            });
            None
        }
    };
    if global.json {
        match &checks {
            Some(checks) => render::json(&render::CheckedReport {
                report: &report,
                checks,
            }),
            None => render::json(&report),
        }
    } else {
        render::parse_report(&report, &text, checks.as_deref());
    }
    Ok(if report.has_errors() {
        exit::NO_CALLS
    } else {
        exit::OK
    })
}

fn executor(
    global: &GlobalArgs,
    flags: &ExecutionFlags,
) -> Result<(Executor, ToolCallConfig), SetupError> {
    let mut config = setup::config(flags.config.as_deref())?;
    if let Some(timeout) = flags.timeout_ms {
        config.timeout_ms = timeout;
    }
    if let Some(cap) = flags.max_output_bytes {
        config.max_tool_output_bytes = cap;
    }
    let hook: Arc<dyn ConfirmationHook> = if flags.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(TerminalConfirmation)
    };
    let executor = Executor::new(setup::registry(global)?, ExecutorOptions::from(&config))
        .with_confirmation(hook)
        .with_progress(Arc::new(crate::mcp_client::TaskStatusOnStderr::default()));
    Ok((executor, config))
}

/// A token cancelled by Ctrl-C, so a long call ends as `cancelled` instead of killing us.
pub(crate) fn interrupt_token() -> CancellationToken {
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\ninterrupted: cancelling…");
            trigger.cancel();
        }
    });
    token
}

fn call_args(args: &CallArgs) -> Result<Map<String, Value>, SetupError> {
    let text = match (&args.args, &args.args_file) {
        (Some(json), _) => json.clone(),
        (None, Some(file)) => setup::read_input(Some(file))?,
        (None, None) => "{}".to_owned(),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(SetupError::usage(format!(
            "--args must be a JSON object, got {}",
            toolscope_protocol::request::json_kind(&other)
        ))),
        Err(e) => Err(SetupError::usage(format!("--args is not valid JSON: {e}"))),
    }
}

async fn call(global: &GlobalArgs, args: CallArgs) -> Result<u8, SetupError> {
    let arguments = call_args(&args)?;
    let (executor, _) = executor(global, &args.flags)?;
    let history = setup::history(global)?;
    let request = ParsedToolRequest::manual(&args.name, arguments);
    let cancel = interrupt_token();
    let result = executor.execute(&request, &cancel).await;
    if let Some(history) = &history {
        let entry = HistoryEntry::new(None, "cli", RecordedRequest::from(&request), result.clone());
        if let Err(e) = history.append(&entry) {
            eprintln!("warning: the run was not recorded: {e}");
        }
    }
    if global.json {
        render::json(&result);
    } else {
        render::result(&result);
    }
    Ok(match result.error_kind() {
        None => exit::OK,
        Some(ErrorKind::Cancelled) if cancel.is_cancelled() => exit::INTERRUPTED,
        Some(_) => exit::TOOL_FAILED,
    })
}

async fn run(global: &GlobalArgs, args: RunArgs) -> Result<u8, SetupError> {
    let request_tools = args.request_tools.load(global)?;
    let reply = setup::read_input(args.file.as_deref())?;
    let (executor, config) = executor(global, &args.flags)?;
    let history = setup::history(global)?;
    let cancel = interrupt_token();
    let options = CycleOptions {
        format: Some(&args.format),
        max_calls: usize::try_from(config.max_total_tool_calls).unwrap_or(usize::MAX),
        origin: "cli",
        strict_unknown_tool: config.strict_unknown_tool,
        request_tools: request_tools.as_ref(),
    };
    let outcome = run_cycle(
        &reply,
        &options,
        &setup::protocols(global),
        &executor,
        history.as_ref(),
        &cancel,
    )
    .await
    .map_err(|e| SetupError::usage(e.to_string()))?;
    for error in &outcome.history_errors {
        eprintln!("warning: a run was not recorded: {error}");
    }
    if let Some(path) = &args.export_case {
        let case = toolscope_engine::export::test_case(
            &reply,
            &outcome,
            executor.registry(),
            request_tools.as_ref(),
        );
        append_case(path, &case)?;
    }
    if global.json {
        render::json(&outcome);
    } else {
        render::cycle(&outcome, &reply);
    }
    Ok(if cancel.is_cancelled() {
        exit::INTERRUPTED
    } else if !outcome.has_tool_requests {
        exit::NO_CALLS
    } else if outcome.all_succeeded() {
        exit::OK
    } else {
        exit::TOOL_FAILED
    })
}

/// Appends the run to a cases file as one JSON line.
fn append_case(path: &std::path::Path, case: &EvalCase) -> Result<(), SetupError> {
    use std::io::Write;
    let line = serde_json::to_string(case)
        .map_err(|e| SetupError::environment(format!("cannot write the test case: {e}")))?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| writeln!(file, "{line}"))
        .map_err(|e| SetupError::environment(format!("--export-case {}: {e}", path.display())))
}

#[derive(Debug, Args)]
pub struct FormatsArgs {
    /// Check these format descriptions (TOML) instead of listing: each is read as a declared
    /// format and its problems are printed by line; exit 2 when any has one.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    check: Vec<PathBuf>,
}

fn formats(global: &GlobalArgs, args: &FormatsArgs) -> u8 {
    if !args.check.is_empty() {
        return check_formats(global, &args.check);
    }
    let set = setup::protocols(global);
    // The names vLLM's and SGLang's `--tool-call-parser` use for the same formats are accepted
    // wherever a format is named (`parse -f qwen25`, an eval case's `format`).
    let aliases = set.aliases();
    let aliases_of = |id: &str| -> Vec<&str> {
        aliases
            .iter()
            .filter(|(_, target)| *target == id)
            .map(|(alias, _)| *alias)
            .collect()
    };
    let formats: Vec<Value> = set
        .iter()
        .map(|p| serde_json::json!({"id": p.id(), "label": p.label(), "aliases": aliases_of(p.id())}))
        .collect();
    if global.json {
        render::json(&formats);
    } else {
        let width = set.ids().iter().map(|id| id.len()).max().unwrap_or(0);
        for protocol in set.iter() {
            let also = aliases_of(protocol.id());
            if also.is_empty() {
                outln!("{:<width$}  {}", protocol.id(), protocol.label());
            } else {
                outln!(
                    "{:<width$}  {} (also: {})",
                    protocol.id(),
                    protocol.label(),
                    also.join(", ")
                );
            }
        }
    }
    exit::OK
}

/// `formats --check`: what a person writing a description runs after each edit.
fn check_formats(global: &GlobalArgs, files: &[PathBuf]) -> u8 {
    let builtin = ProtocolSet::standard();
    let mut results = Vec::new();
    for file in files {
        let problem = match std::fs::read_to_string(file) {
            Err(e) => Some(format!("{}: cannot read: {e}", file.display())),
            Ok(source) => match DeclaredFormat::from_toml(&source) {
                Err(e) => Some(format!(
                    "{}:{}:{}: {}",
                    file.display(),
                    e.line,
                    e.column,
                    e.message
                )),
                Ok(format) if builtin.get(format.id()).is_some() => Some(format!(
                    "{}: format id '{}' is a built-in format's; rename it",
                    file.display(),
                    format.id()
                )),
                Ok(_) => None,
            },
        };
        results.push((file, problem));
    }
    if global.json {
        let report: Vec<Value> = results
            .iter()
            .map(|(file, problem)| serde_json::json!({"file": file, "problem": problem}))
            .collect();
        render::json(&report);
    } else {
        for (file, problem) in &results {
            match problem {
                Some(problem) => outln!("{problem}"),
                None => outln!("{}: ok", file.display()),
            }
        }
    }
    if results.iter().any(|(_, problem)| problem.is_some()) {
        exit::USAGE
    } else {
        exit::OK
    }
}
