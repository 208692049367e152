//! `toolscope proxy replay --name NAME`: sends a recorded session's agent messages again to
//! the server (the recorded command line or URL, or another one given) through a new recorded
//! session, and says which answers changed.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use toolscope_proxy::http_upstream::{HttpOptions, UpstreamAuth};
use toolscope_proxy::recorder::{check_name, sessions_root};
use toolscope_proxy::replay::{replay, ReplayPlan, Target};
use toolscope_proxy::stdio::StdioOptions;
use toolscope_proxy::{session_id, Recorder, SessionInfo, Tap};

use crate::exit;
use crate::output::outln;
use crate::setup::data_dir;

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The proxied server's name (as given to `proxy mcp --name`).
    #[arg(long)]
    name: String,
    /// The session to replay (its id, the file name without .jsonl); the latest by default.
    #[arg(long)]
    session: Option<String>,
    /// How long each request may wait for its answer.
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    timeout_ms: u64,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Replay against this streamable-HTTP server instead of the recorded one.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// Replay against this command instead of the recorded one.
    #[arg(trailing_var_arg = true, num_args = 1.., value_name = "COMMAND")]
    command: Vec<String>,
}

pub async fn run(args: ReplayArgs) -> u8 {
    if let Err(message) = check_name(&args.name) {
        eprintln!("error: {message}");
        return exit::USAGE;
    }
    let root = sessions_root(&data_dir());
    let dir = root.join(&args.name);
    let session = match args.session.clone().or_else(|| latest(&dir)) {
        Some(session) => session,
        None => {
            eprintln!(
                "error: no recorded session of '{}' in {}",
                args.name,
                dir.display()
            );
            return exit::USAGE;
        }
    };
    let path = dir.join(format!("{session}.jsonl"));
    let plan = match ReplayPlan::load(&path) {
        Ok(plan) => plan,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::USAGE;
        }
    };
    let argv = match (&args.url, args.command.is_empty()) {
        (Some(url), _) => vec!["--url".to_owned(), url.clone()],
        (None, false) => args.command.clone(),
        (None, true) => plan.argv.clone(),
    };
    let target = match argv.split_first() {
        Some((flag, [url])) if flag == "--url" => {
            // Signed in as the proxy was: the sign-in stored for this name and URL, else a new one.
            let auth = match crate::proxy_sign_in::ProxySignIn::open(&args.name, url).await {
                Ok(sign_in) => Arc::new(sign_in) as Arc<dyn UpstreamAuth>,
                Err(error) => {
                    eprintln!("error: cannot sign in to {url}: {error}");
                    return exit::USAGE;
                }
            };
            Target::Http(HttpOptions {
                url: url.clone(),
                headers: Vec::new(),
                exit_grace: Duration::from_secs(2),
                auth: Some(auth),
            })
        }
        Some(_) => Target::Stdio(StdioOptions {
            argv: argv.clone(),
            exit_grace: Duration::from_secs(2),
        }),
        None => {
            eprintln!("error: the session records no command line; give one after --");
            return exit::USAGE;
        }
    };
    let id = session_id();
    let tap = match Recorder::create(&root, &args.name, &id).and_then(|recorder| {
        let info = SessionInfo {
            name: args.name.clone(),
            argv,
            enforce: false,
        };
        Tap::start(recorder, &id, &info)
    }) {
        Ok(tap) => Arc::new(tap),
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    let report = match replay(plan, tap, target, Duration::from_millis(args.timeout_ms)).await {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    if args.json {
        outln!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else {
        outln!(
            "replayed {session} as {id}: {} requests, {} same, {} different, {} unanswered",
            report.requests.len(),
            report.same,
            report.different,
            report.unanswered
        );
        for compared in report.requests.iter().filter(|c| c.verdict != "same") {
            let what = compared.tool.as_ref().map_or_else(
                || compared.method.clone(),
                |t| format!("{} {t}", compared.method),
            );
            let paths = if compared.paths.is_empty() {
                String::new()
            } else {
                format!(" at {}", compared.paths.join(", "))
            };
            outln!(
                "  {} {what}: {}{paths}",
                compared.id,
                compared.verdict.replace('_', " ")
            );
        }
    }
    if report.different == 0 && report.unanswered == 0 {
        exit::OK
    } else {
        exit::TOOL_FAILED
    }
}

/// The newest session file of a server (ids sort by start time).
fn latest(dir: &std::path::Path) -> Option<String> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()?
                .strip_suffix(".jsonl")
                .map(str::to_owned)
        })
        .max()
}
