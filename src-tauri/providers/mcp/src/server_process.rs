//! A stdio server's process. We spawn it ourselves rather than through rmcp so that its exit
//! status and stderr are ours to report: "exited with status 3" and the last lines it printed
//! say far more than "the connection closed".
//!
//! Until the handshake succeeds, nobody watches the process: a failed start is reported once,
//! by the connect path, with the exit status ([`ServerProcess::failed_start`]). After it, a
//! watcher stops the process with the session and reports an exit nobody asked for.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::sync::CancellationToken;

use crate::server_log::ServerLog;

/// How long a server whose handshake failed gets to exit and finish printing why.
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long a stopped session's server gets to exit on its own once its pipes are closed.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long an exit report waits for the last stderr lines to reach the log.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

pub(crate) struct ServerProcess {
    child: Child,
    /// Fires once the server's stderr has reached its end (all lines are in the log).
    stderr_done: CancellationToken,
}

impl ServerProcess {
    /// Starts `cmd` with piped stdio and copies its stderr lines into `log`. Returns the pipes
    /// to speak MCP over, or why it could not start.
    pub(crate) fn spawn(
        mut cmd: Command,
        log: Arc<ServerLog>,
    ) -> Result<(Self, ChildStdout, ChildStdin), String> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| e.to_string())?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err("its pipes could not be opened".into());
        };
        let stderr_done = CancellationToken::new();
        match child.stderr.take() {
            Some(stderr) => {
                let done = stderr_done.clone();
                tokio::spawn(async move {
                    let mut lines = BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        log.push(line);
                    }
                    done.cancel();
                });
            }
            None => stderr_done.cancel(),
        }
        Ok((Self { child, stderr_done }, stdout, stdin))
    }

    /// After a failed handshake: a server that could not start has usually exited already,
    /// and its status and last stderr lines are the real reason. Waits briefly for both (the
    /// lines go to the log the reason is read with) and returns the exit, or stops a server
    /// that is still running and returns `None`.
    pub(crate) async fn failed_start(mut self) -> Option<String> {
        let status = tokio::time::timeout(EXIT_WAIT, self.child.wait()).await;
        let _ = tokio::time::timeout(EXIT_WAIT, self.stderr_done.cancelled()).await;
        match status {
            Ok(status) => Some(exit_reason(status)),
            Err(_) => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                None
            }
        }
    }

    /// The session is up: stops the process when `shutdown` fires, and reports an exit
    /// nobody asked for through `closed` (cancelling `shutdown` so the session ends too).
    pub(crate) fn watch(
        mut self,
        shutdown: CancellationToken,
        closed: Arc<dyn Fn(String) + Send + Sync>,
    ) {
        tokio::spawn(async move {
            tokio::select! {
                status = self.child.wait() => {
                    let unexpected = !shutdown.is_cancelled();
                    shutdown.cancel();
                    if unexpected {
                        let _ = tokio::time::timeout(STDERR_DRAIN, self.stderr_done.cancelled()).await;
                        closed(exit_reason(status));
                    }
                }
                () = shutdown.cancelled() => {
                    // The pipes close with the session; a server that ignores that is stopped.
                    if tokio::time::timeout(STOP_GRACE, self.child.wait()).await.is_err() {
                        let _ = self.child.start_kill();
                        let _ = self.child.wait().await;
                    }
                }
            }
        });
    }
}

fn exit_reason(status: std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(status) => match status.code() {
            Some(code) => format!("the server process exited with status {code}"),
            None => format!("the server process was stopped ({status})"),
        },
        Err(e) => format!("the server process could not be watched: {e}"),
    }
}
