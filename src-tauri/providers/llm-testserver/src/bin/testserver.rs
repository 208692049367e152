//! `toolscope-llm-testserver --script FILE [--port 0]`: serves a script to tests in other
//! processes (the app's end-to-end tests start it as a child process).
//!
//! It prints exactly one line to stdout, `listening on http://127.0.0.1:PORT`, and logs each
//! request to stderr. It serves until it is killed, interrupted, or its stdin closes (so it
//! does not outlive a parent that dies); `--ignore-stdin` serves on when stdin is closed or
//! `/dev/null`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tokio::io::AsyncReadExt;
use toolscope_llm_testserver::{Options, Script, TestServer};

#[derive(Debug, Parser)]
#[command(about = "Serves a scripted model conversation on 127.0.0.1")]
struct Args {
    /// The script (JSON).
    #[arg(long)]
    script: PathBuf,
    /// The port; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Keep serving when stdin closes.
    #[arg(long)]
    ignore_stdin: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let script = match Script::load(&args.script) {
        Ok(script) => script,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        port: args.port,
        log: true,
    };
    let server = match TestServer::start_with(script, options).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(1);
        }
    };
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "listening on {}", server.base_url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(1);
    }
    let stdin_closed = async {
        if args.ignore_stdin {
            std::future::pending::<()>().await;
        }
        let mut stdin = tokio::io::stdin();
        let mut buffer = [0u8; 1024];
        while matches!(stdin.read(&mut buffer).await, Ok(n) if n > 0) {}
    };
    tokio::select! {
        () = stdin_closed => eprintln!("stdin closed; stopping"),
        _ = tokio::signal::ctrl_c() => eprintln!("interrupted; stopping"),
    }
    server.shutdown();
    ExitCode::SUCCESS
}
