//! The CLI's answers to what an MCP server asks during a call, and the task status it prints.
//!
//! A terminal command runs unattended as often as not (scripts, CI), so it never stops to ask:
//! an elicitation is declined, with what the server asked printed on stderr, unless `--yes`
//! was given; then it is accepted with the requested schema's own defaults (SEP-1034), and
//! declined with the reason when a required field has none. The roots a server sees are the
//! current directory, where the person ran the command. Sampling goes to the endpoint profile
//! named by `--sampling-endpoint` when `--yes` approves it, and is declined otherwise; either
//! way the request is shown on stderr.

use std::io::Write;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use toolscope_engine::{BoxFuture, CallProgress, ProgressSink, TaskProgress};
use toolscope_llm::model::EndpointModel;
use toolscope_llm::profiles::ProfileStore;
use toolscope_mcp::elicitation::{defaults_answer, describe};
use toolscope_mcp::oauth::browser;
use toolscope_mcp::sampling::{describe as describe_sampling, SampledMessage, SamplingFailure};
use toolscope_mcp::{
    Browser, ClientHooks, DeclineSampling, ElicitationAnswer, ElicitationRequest, Elicitor,
    ModelSampler, Sampler, SamplingConsent, SamplingEndpoint, SamplingRequest, WorkspaceRoot,
};

use crate::setup::{self, SetupError};

/// Hooks for the MCP servers of one command; `yes` is the command's `--yes`, `sampling` the
/// `--sampling-endpoint` profile.
pub fn hooks(yes: bool, sampling: Option<&str>) -> Result<ClientHooks, SetupError> {
    let sampler: Arc<dyn Sampler> = match sampling {
        Some(profile) => {
            let endpoint = ProfileStore::new(&setup::data_dir())
                .endpoint(profile)
                .map_err(|e| SetupError::usage(format!("--sampling-endpoint: {e}")))?;
            let model =
                EndpointModel::new(endpoint).map_err(|e| SetupError::environment(e.to_string()))?;
            Arc::new(ModelSampler::new(
                profile,
                Arc::new(model),
                Arc::new(TerminalConsent { yes }),
            ))
        }
        None => Arc::new(DeclinedWithHint::default()),
    };
    Ok(ClientHooks {
        elicitor: Arc::new(TerminalElicitor { yes }),
        roots: Arc::new(|| {
            std::env::current_dir()
                .map(|dir| vec![WorkspaceRoot::new(dir, "current directory")])
                .unwrap_or_default()
        }),
        sampler: Arc::new(move || Arc::clone(&sampler)),
        browser: Arc::new(TerminalBrowser),
    })
}

/// Opens a server's sign-in page: prints its address on stderr (always: the person may be on
/// another machine, or want another browser), then starts `$BROWSER` (its words, the address
/// in place of a `%s` or appended) or else `xdg-open`. A browser that does not start is only
/// reported: the sign-in still waits for the address to be opened by hand.
pub(crate) struct TerminalBrowser;

impl Browser for TerminalBrowser {
    fn open(&self, server: &str, url: &str) -> Result<(), String> {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{server}: sign in at {url}");
        let command = browser::configured().unwrap_or_else(|| "xdg-open".into());
        if let Err(e) = browser::launch(&command, url) {
            let _ = writeln!(stderr, "{e}; open the address above by hand");
        }
        Ok(())
    }
}

/// Approves sampling with `--yes`, declines without; prints what was asked either way.
struct TerminalConsent {
    yes: bool,
}

impl SamplingConsent for TerminalConsent {
    fn approve(
        &self,
        request: &SamplingRequest,
        endpoint: &SamplingEndpoint,
        _cancel: CancellationToken,
    ) -> BoxFuture<'_, bool> {
        let said = if self.yes {
            "sent to the model (--yes)"
        } else {
            "declined: the CLI does not stop to ask during a call (pass --yes to send it)"
        };
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(
            stderr,
            "{}\n{said}",
            describe_sampling(request, Some(endpoint))
        );
        let yes = self.yes;
        Box::pin(async move { yes })
    }
}

/// No profile was named: the server hears the provider's reason, the person how to change it.
#[derive(Default)]
struct DeclinedWithHint(DeclineSampling);

impl Sampler for DeclinedWithHint {
    fn sample(
        &self,
        request: SamplingRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<SampledMessage, SamplingFailure>> {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(
            stderr,
            "{}\ndeclined: no model endpoint for sampling (pass --sampling-endpoint PROFILE)",
            describe_sampling(&request, None)
        );
        self.0.sample(request, cancel)
    }
}

struct TerminalElicitor {
    yes: bool,
}

impl Elicitor for TerminalElicitor {
    fn elicit(
        &self,
        request: ElicitationRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'_, ElicitationAnswer> {
        let asked = describe(&request);
        let (answer, said) = if !self.yes {
            (
                ElicitationAnswer::decline(),
                "declined: the CLI does not stop to ask during a call (pass --yes to accept \
                 with the schema's defaults)"
                    .to_owned(),
            )
        } else {
            match defaults_answer(&request.requested_schema) {
                Ok(values) => {
                    let sent = serde_json::Value::Object(values.clone());
                    (
                        ElicitationAnswer::accept(values),
                        format!("accepted with the schema's defaults (--yes): {sent}"),
                    )
                }
                Err(e) => (ElicitationAnswer::decline(), format!("declined: {e}")),
            }
        };
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{asked}\n{said}");
        Box::pin(async move { answer })
    }
}

/// Prints a task-augmented call's status on stderr each time it changes, so a long task shows
/// it is alive (the result still goes to stdout alone).
#[derive(Default)]
pub struct TaskStatusOnStderr {
    last: Mutex<Option<(TaskProgress, Option<String>)>>,
}

impl ProgressSink for TaskStatusOnStderr {
    fn report(&self, progress: CallProgress) {
        let Some(task) = progress.task else { return };
        let shown = (task, progress.message);
        {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.as_ref() == Some(&shown) {
                return;
            }
            *last = Some(shown.clone());
        }
        let (task, message) = shown;
        let status = serde_json::to_value(task.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let message = message.map(|m| format!(": {m}")).unwrap_or_default();
        eprintln!("task {} {status}{message}", task.task_id);
    }
}
