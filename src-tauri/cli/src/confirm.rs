//! Confirmation on the terminal: destructive calls are asked about on stderr when a person is
//! there to answer, and denied otherwise unless `--yes` was given.

use std::io::{BufRead, IsTerminal, Write};

use toolscope_engine::executor::{ConfirmReason, ConfirmationHook, ConfirmationRequest};
use toolscope_engine::BoxFuture;

#[derive(Debug, Clone, Copy)]
pub struct TerminalConfirmation;

impl ConfirmationHook for TerminalConfirmation {
    /// Without a terminal no one can answer: the executor then denies the call as unconfirmed
    /// (its suggestion names `--yes`) without asking.
    fn can_ask(&self) -> bool {
        std::io::stdin().is_terminal()
    }

    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            if !std::io::stdin().is_terminal() {
                eprintln!(
                    "denied: '{}' needs confirmation and stdin is not a terminal (pass --yes to allow)",
                    request.routing_name
                );
                return false;
            }
            let why = match request.reason {
                ConfirmReason::Destructive => "is destructive (or not marked safe)",
                ConfirmReason::Configured => "needs confirmation by configuration",
            };
            let args = serde_json::to_string_pretty(&request.args).unwrap_or_default();
            let prompt = format!(
                "'{}' {why}.\narguments: {args}\nRun it? [y/N] ",
                request.routing_name
            );
            tokio::task::spawn_blocking(move || {
                let mut stderr = std::io::stderr();
                let _ = stderr.write_all(prompt.as_bytes());
                let _ = stderr.flush();
                let mut answer = String::new();
                std::io::stdin().lock().read_line(&mut answer).is_ok()
                    && matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes")
            })
            .await
            .unwrap_or(false)
        })
    }
}
