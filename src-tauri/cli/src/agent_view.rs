//! What `toolscope agent` shows on the terminal while the loop runs, and how it asks a person
//! to confirm a call (y / n / edit / stop; denied without a terminal unless `--yes`).

use std::io::{BufRead, IsTerminal, Write};

use serde_json::Value;

use crate::output::outln;
use toolscope_engine::agent::{AgentEvent, Confirmer, Decision, ReplyEvent, StopReason};
use toolscope_engine::executor::ConfirmationRequest;
use toolscope_engine::BoxFuture;

/// What a person watching the terminal sees: the reply on stdout, the rest on stderr.
pub fn show(event: &AgentEvent) {
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
            crate::output::write_bytes(text.as_bytes());
        }
        AgentEvent::TurnParsed { report, timing, .. } => {
            outln!();
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
pub struct TerminalConfirmer {
    pub yes: bool,
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
