//! `toolscope`: the headless face of the engine, for scripts, CI and quick checks.
//!
//! Every command maps onto one engine call; this file only parses flags, reads inputs, prints
//! and chooses the exit code. Exit codes are part of the interface (see [`exit`]).

mod agent;
mod agent_view;
mod bench_parse;
mod commands;
mod confirm;
mod endpoints;
mod eval;
mod exit;
mod imported;
mod mcp_client;
mod output;
mod proxy;
mod proxy_fault;
mod proxy_llm;
mod proxy_replay;
mod proxy_sign_in;
mod render;
mod request_tools;
mod setup;
mod sign_out;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

// Parsing a long reply allocates one small map per call and frees them all together; glibc's
// allocator spends about a third of a 1 MB parse in malloc/free (consolidating freed chunks),
// mimalloc a fraction of that (measured with `perf record` on the hermes 1 MB input).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "toolscope",
    version,
    about = "Inspect, parse and run LLM tool calls from the command line",
    after_help = "Exit codes: 0 ok · 1 a tool call failed · 2 bad usage or input · \
                  3 the reply had no usable calls / parse errors · 4 environment error · \
                  5 the model endpoint failed · 130 interrupted"
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct GlobalArgs {
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Root directory of the workspace file tool [default: <data dir>/workspace].
    #[arg(long, global = true, value_name = "DIR", env = "TOOLSCOPE_WORKSPACE")]
    workspace: Option<PathBuf>,
    /// History file runs are appended to [default: <data dir>/history.jsonl].
    #[arg(long, global = true, value_name = "FILE", env = "TOOLSCOPE_HISTORY")]
    history: Option<PathBuf>,
    /// Do not record runs.
    #[arg(long, global = true)]
    no_history: bool,
    /// MCP servers to connect (a Claude Desktop / Cursor / VS Code config: `mcpServers` or
    /// `servers`). Their command lines are printed on stderr as they start.
    #[arg(long, global = true, value_name = "FILE", env = "TOOLSCOPE_MCP_CONFIG")]
    mcp_config: Option<PathBuf>,
    /// The endpoint profile (`toolscope endpoints add`) that answers MCP servers' sampling
    /// requests; with `--yes` they are sent to it, without they are declined and shown on
    /// stderr. Without a profile every sampling request is declined.
    #[arg(
        long,
        global = true,
        value_name = "PROFILE",
        env = "TOOLSCOPE_SAMPLING_ENDPOINT"
    )]
    sampling_endpoint: Option<String>,
    /// Directory of HTTP tool definitions (`*.json`, `*.toml`) to load.
    #[arg(long, global = true, value_name = "DIR", env = "TOOLSCOPE_HTTP_TOOLS")]
    http_tools: Option<PathBuf>,
    /// A WASM tool directory (manifest.toml or manifest.json beside its .wasm), or a folder of
    /// them, to load; repeat for more.
    #[arg(
        long = "wasm-tools",
        global = true,
        value_name = "DIR",
        env = "TOOLSCOPE_WASM_TOOLS"
    )]
    wasm_tools: Vec<PathBuf>,
    /// Approve what the --wasm-tools manifests ask for (environment variables, directories).
    /// Without it such tools are not loaded and their requests are printed on stderr.
    #[arg(long, global = true)]
    approve_wasm_grants: bool,
    /// Directory of declared formats (`*.toml`), listed after the built-in ones
    /// [default: <data dir>/formats].
    #[arg(long, global = true, value_name = "DIR", env = "TOOLSCOPE_FORMATS")]
    formats_dir: Option<PathBuf>,
    /// Directory of imported tool sets [default: <data dir>/imported].
    #[arg(long, global = true, value_name = "DIR", env = "TOOLSCOPE_IMPORTED")]
    imported_dir: Option<PathBuf>,
    /// The registry with the sources above, once connected (not a flag).
    #[arg(skip)]
    prepared: Option<setup::PreparedSources>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List tools and their methods.
    List(commands::ListArgs),
    /// Print the tool-definition prompt a protocol shows a model.
    Prompt(commands::PromptArgs),
    /// Extract tool calls from a reply (file or stdin) without running them.
    Parse(commands::ParseArgs),
    /// Call one method by its routing name.
    Call(commands::CallArgs),
    /// The full cycle on a reply: parse, execute, print the results block.
    Run(commands::RunArgs),
    /// Import tool definitions (OpenAI, Anthropic, Gemini, MCP, BFCL shapes) as a named set.
    Import(imported::ImportArgs),
    /// List, remove or mock the imported sets.
    Imported(imported::ImportedArgs),
    /// Parse a corpus of replies with known calls (JSON Lines) and report the agreement.
    Eval(eval::EvalArgs),
    /// List the wire formats the parser knows (built-in, then declared), or check format files.
    Formats(commands::FormatsArgs),
    /// Run the agent loop against a model endpoint: the model calls tools until it answers.
    Agent(agent::AgentArgs),
    /// List, add, remove or test model endpoint profiles.
    Endpoints(endpoints::EndpointsArgs),
    /// Time the parsers on a directory of replies with expected calls (manifest.json).
    BenchParse(bench_parse::BenchParseArgs),
    /// Calls, failures by kind, bytes and durations per tool and method, from the history.
    Stats(stats::StatsArgs),
    /// Forget the stored sign-in of an MCP server named in --mcp-config.
    SignOut(sign_out::SignOutArgs),
    /// Sit between an agent and its MCP server: forward everything unchanged, record it all.
    Proxy(proxy::ProxyArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            // clap prints help/version to stdout and errors to stderr itself.
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(exit::ENVIRONMENT);
        }
    };
    let code = runtime.block_on(commands::dispatch(cli.global, cli.command));
    ExitCode::from(code)
}
