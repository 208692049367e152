//! `toolscope proxy mcp --name NAME -- COMMAND ...`: Toolscope in the middle of a real agent
//! and its MCP server. The agent's configuration runs this instead of the server; the session
//! is recorded under `<data dir>/proxy/<name>/`. Stdout carries the forwarded messages only;
//! everything the proxy says goes to stderr.

use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use toolscope_engine::jsonl::Durability;
use toolscope_proxy::http_upstream::{run_http, HttpOptions, UpstreamAuth};
use toolscope_proxy::listen::McpListener;
use toolscope_proxy::recorder::{check_name, sessions_root, RecordOptions};
use toolscope_proxy::{
    agent_stdin_lines, run_stdio, session_id, EndReason, Recorder, SessionInfo, StdioOptions, Tap,
};

use crate::exit;
use crate::output::outln;
use crate::setup::data_dir;

#[derive(Debug, Args)]
pub struct ProxyArgs {
    #[command(subcommand)]
    kind: ProxyKind,
}

#[derive(Debug, Subcommand)]
enum ProxyKind {
    /// Start an MCP stdio server (or reach one over streamable HTTP with --url) and forward its
    /// traffic unchanged, recording every message.
    #[command(
        after_help = "Point the agent's MCP configuration at this command instead of \
        the server, e.g. \"command\": \"toolscope\", \"args\": [\"proxy\", \"mcp\", \"--name\", \
        \"files\", \"--\", \"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\", \"/tmp\"]. \
        Sessions are written to <data dir>/proxy/<name>/<session id>.jsonl (docs/proxy.md).\n\n\
        Exit codes: 0 the agent closed the session · 1 the server exited while the agent was \
        connected · 2 bad usage · 4 the server could not start or the record could not be \
        written · 130 interrupted by a signal"
    )]
    Mcp(McpProxyArgs),
    /// Listen on loopback for an agent's model requests (OpenAI Chat Completions and Responses,
    /// Anthropic Messages), forward them to the upstream unchanged, and record each exchange
    /// as a conversation with its reply parsed.
    #[command(
        after_help = "Point the agent's base URL at the one this prints (it carries a random \
        token; requests without it are refused, as are requests naming another host or coming \
        from a web page). The agent's own API key passes through to the upstream untouched. \
        Conversations are written to <data dir>/conversations/ and open in the app's Agent \
        pane (docs/proxy.md).\n\nExit codes: 0 stopped by SIGINT, SIGTERM or SIGHUP · 2 bad \
        usage · 4 cannot listen, or a record could not be written"
    )]
    Llm(crate::proxy_llm::LlmProxyArgs),
    /// Make a tool's calls slow, fail or return a mock result in a running (or the next)
    /// `proxy mcp --name NAME`; the proxy reads the change within a fraction of a second.
    #[command(
        after_help = "Examples:\n  toolscope proxy fault --name files --tool search --delay-ms 1500\n  \
        toolscope proxy fault --name files --tool read --error timeout\n  \
        toolscope proxy fault --name files --tool read --error tool_error --message \"disk full\"\n  \
        toolscope proxy fault --name files --tool read --mock '{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}'\n  \
        toolscope proxy fault --name files --tool lookup --mock-from Shop\n  \
        toolscope proxy fault --name files --tool read --clear\n\n\
        Error kinds: timeout (JSON-RPC -32001), server_error (-32603), invalid_params (-32602), \
        tool_error (a result with isError: true). --mock-from copies the mock an imported set gives \
        the definition of the same name (or --definition) into the plan; it answers after the \
        mock's latency. The plan is <data dir>/proxy/<name>/faults.json."
    )]
    Fault(crate::proxy_fault::FaultArgs),
    /// Send a recorded session's agent messages to the server again (a new recorded session)
    /// and report which answers changed.
    #[command(
        after_help = "The server's own requests (elicitation, sampling, roots) are answered as \
        the agent answered them. Exit codes: 0 every answer is the same · 1 some differ or got \
        none · 2 bad usage · 4 the record could not be written"
    )]
    Replay(crate::proxy_replay::ReplayArgs),
}

#[derive(Debug, Args)]
pub struct McpProxyArgs {
    /// Name of the server: sessions are recorded under <data dir>/proxy/<NAME>/.
    #[arg(long)]
    name: String,
    /// Refuse tools/call requests whose arguments do not match the tool's inputSchema
    /// (answered with JSON-RPC error -32602, never forwarded). Without it they are only flagged.
    #[arg(long)]
    enforce: bool,
    /// Sync every record line to disk (survives a power cut, at the cost of a disk sync per
    /// message); without it a line survives a killed proxy.
    #[arg(long)]
    fsync: bool,
    /// Record messages exactly as they were, even where they carry a value of a secret-looking
    /// environment variable (…KEY, …TOKEN, …SECRET, …PASSWORD) or of a --header.
    #[arg(long)]
    keep_secrets: bool,
    /// How long the server may take to exit after the agent closed the session.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    exit_grace_ms: u64,
    /// A streamable-HTTP server to forward to instead of starting a command; the agent still
    /// speaks stdio to the proxy.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// Serve the agent over streamable HTTP on this loopback address (port 0 picks one) instead
    /// of stdio; agents must send the printed bearer token. The server is still COMMAND.
    #[arg(long, value_name = "ADDRESS", conflicts_with = "url")]
    listen: Option<std::net::SocketAddr>,
    /// A header sent with every request to --url, e.g. "Authorization: Bearer TOKEN" (never
    /// recorded); repeat for more. Without an Authorization header, a server that refuses for
    /// want of authorization is signed in to with OAuth, as `toolscope call` signs in.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    headers: Vec<String>,
    /// With --url: pass a refusal for want of authorization on to the agent instead of signing
    /// in.
    #[arg(long, requires = "url")]
    no_sign_in: bool,
    /// The server's command line; everything from its first word on is the server's, so
    /// `--` before it is optional.
    #[arg(
        trailing_var_arg = true,
        required_unless_present = "url",
        num_args = 1..,
        value_name = "COMMAND"
    )]
    command: Vec<String>,
}

pub async fn proxy(global: &crate::GlobalArgs, args: ProxyArgs) -> u8 {
    match args.kind {
        ProxyKind::Mcp(args) => mcp(args).await,
        ProxyKind::Llm(args) => crate::proxy_llm::llm(args).await,
        ProxyKind::Fault(args) => crate::proxy_fault::fault(global, &args),
        ProxyKind::Replay(args) => crate::proxy_replay::run(args).await,
    }
}

async fn mcp(args: McpProxyArgs) -> u8 {
    if let Err(message) = check_name(&args.name) {
        eprintln!("error: {message}");
        return exit::USAGE;
    }
    let id = session_id();
    let record_options = RecordOptions {
        durability: if args.fsync {
            Durability::Fsync
        } else {
            Durability::Flush
        },
        secrets: if args.keep_secrets {
            Vec::new()
        } else {
            secrets(&args.headers)
        },
    };
    let root = sessions_root(&data_dir());
    let recorder = match Recorder::create_with(&root, &args.name, &id, &record_options) {
        Ok(recorder) => recorder,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    let mut headers = Vec::new();
    for header in &args.headers {
        match header.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() => {
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
            _ => {
                eprintln!("error: --header '{header}' is not NAME: VALUE");
                return exit::USAGE;
            }
        }
    }
    if let Some(url) = &args.url {
        if let Err(error) = url::Url::parse(url) {
            eprintln!("error: --url '{url}' is not a URL: {error}");
            return exit::USAGE;
        }
    }
    let argv = match &args.url {
        // The URL stands for the command line; headers may hold secrets and stay out.
        Some(url) => vec!["--url".to_owned(), url.clone()],
        None => args.command.clone(),
    };
    let name = args.name.clone();
    let info = SessionInfo {
        name: args.name,
        argv,
        enforce: args.enforce,
    };
    let tap = match Tap::start(recorder, &id, &info) {
        Ok(tap) => Arc::new(tap),
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    eprintln!(
        "toolscope proxy: recording to {}",
        tap.recorder().path().display()
    );
    let exit_grace = Duration::from_millis(args.exit_grace_ms);
    let outcome = match args.url {
        Some(url) => {
            let authorized = headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("authorization"));
            let auth = if authorized || args.no_sign_in {
                None
            } else {
                match crate::proxy_sign_in::ProxySignIn::open(&name, &url).await {
                    Ok(sign_in) => Some(Arc::new(sign_in) as Arc<dyn UpstreamAuth>),
                    Err(error) => {
                        eprintln!("error: cannot sign in to {url}: {error}");
                        return exit::USAGE;
                    }
                }
            };
            let options = HttpOptions {
                url,
                headers,
                exit_grace,
                auth,
            };
            let stdout = tokio::io::stdout();
            run_http(tap.clone(), options, agent_stdin_lines(), stdout, signal()).await
        }
        None => {
            let options = StdioOptions {
                argv: args.command,
                exit_grace,
            };
            match args.listen {
                Some(address) => listen(tap.clone(), options, address, &name).await,
                None => {
                    let stdout = tokio::io::stdout();
                    run_stdio(tap.clone(), options, agent_stdin_lines(), stdout, signal()).await
                }
            }
        }
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    if let Some(status) = outcome
        .server_status
        .filter(|_| outcome.reason == EndReason::ServerExited)
    {
        eprintln!("toolscope proxy: the server exited ({status})");
    }
    match outcome.reason {
        EndReason::Signal => exit::INTERRUPTED,
        EndReason::ServerExited => exit::TOOL_FAILED,
        EndReason::AgentClosed if tap.failure().is_some() => exit::ENVIRONMENT,
        EndReason::AgentClosed => exit::OK,
    }
}

/// What the record masks: the values of the environment variables whose names say they are
/// secret (the server inherits them, and a server may echo its environment), and the values of
/// the `--header`s (a bearer token without its scheme too). Short values are left alone: they
/// would mask ordinary words.
fn secrets(headers: &[String]) -> Vec<String> {
    const MARKERS: [&str; 6] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];
    let mut secrets: Vec<String> = std::env::vars()
        .filter(|(name, _)| {
            let name = name.to_ascii_uppercase();
            MARKERS.iter().any(|marker| name.contains(marker))
        })
        .map(|(_, value)| value)
        .collect();
    for header in headers {
        if let Some((_, value)) = header.split_once(':') {
            let value = value.trim();
            secrets.push(value.to_owned());
            if let Some((_, credential)) = value.split_once(' ') {
                secrets.push(credential.trim().to_owned());
            }
        }
    }
    secrets.retain(|s| s.len() >= 8);
    secrets
}

/// `--listen`: serves the agent over HTTP and says where, with the snippet MCP clients take.
async fn listen(
    tap: Arc<Tap>,
    options: StdioOptions,
    address: std::net::SocketAddr,
    name: &str,
) -> Result<toolscope_proxy::StdioOutcome, toolscope_proxy::ProxyError> {
    let token = std::env::var("TOOLSCOPE_PROXY_TOKEN")
        .ok()
        .filter(|t| t.len() >= 32 && t.bytes().all(|b| b.is_ascii_alphanumeric()));
    let (listener, agent_lines, writer) = McpListener::bind(address, token).await?;
    let snippet = serde_json::json!({"mcpServers": {name: {
        "type": "http",
        "url": listener.url(),
        "headers": {"Authorization": format!("Bearer {}", listener.token())},
    }}});
    outln!(
        "toolscope proxy mcp: serving {name} at {} (loopback only; send the token)\n{snippet}",
        listener.url()
    );
    let serving = tokio::spawn(listener.serve());
    let outcome = run_stdio(tap, options, agent_lines, writer, signal()).await;
    serving.abort();
    outcome
}

/// The name of the first of SIGINT, SIGTERM, SIGHUP to arrive (never resolves if none can be
/// watched).
pub(crate) async fn signal() -> String {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            return tokio::select! {
                _ = tokio::signal::ctrl_c() => "SIGINT",
                _ = term.recv() => "SIGTERM",
                _ = hup.recv() => "SIGHUP",
            }
            .to_owned();
        }
    }
    if tokio::signal::ctrl_c().await.is_ok() {
        return "SIGINT".to_owned();
    }
    std::future::pending().await
}
