//! One turn's calls: confirmed as the settings ask (arguments editable), run by the executor,
//! recorded, and told back to the model with a suggestion when they failed (the suggestion
//! travels in the classified error, so the result blocks and the record carry it too).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::model::{Message, ToolResultMessage};
use super::record::{Decision, Record};
use super::{suggest, AgentEvent, AgentSettings};
use crate::config::CallMode;
use crate::executor::suggest::{call_limit, denied, Denial};
use crate::executor::{ConfirmReason, ConfirmationRequest, Executor};
use crate::history::{HistoryEntry, RecordedRequest};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult};
use toolscope_protocol::Protocol;

use super::run::{Agent, RunState};

/// What one turn's calls came to.
pub(super) struct TurnCalls {
    pub(super) results: Vec<ToolExecutionResult>,
    pub(super) stopped: bool,
    pub(super) limit_reached: bool,
}

impl Agent<'_> {
    /// Confirms and executes one turn's calls; `requests` holds, per call, the request or why
    /// it cannot run.
    #[allow(clippy::too_many_arguments)] // one turn's whole context; a struct would only rename it
    pub(super) async fn run_calls(
        &self,
        turn: u32,
        requests: Vec<Result<ParsedToolRequest, Box<ToolExecutionResult>>>,
        settings: &AgentSettings,
        executor: &Executor,
        offered: &[String],
        run: &mut RunState,
        cancel: &CancellationToken,
    ) -> TurnCalls {
        let mut slots: Vec<Option<ToolExecutionResult>> = Vec::with_capacity(requests.len());
        let mut to_run: Vec<(usize, ParsedToolRequest)> = Vec::new();
        let mut stopped = false;
        let mut limit_reached = false;
        for prepared in requests {
            // A call that could not be read still counts: the model made it.
            let request = match prepared {
                Err(failure) => {
                    run.tool_calls += 1;
                    slots.push(Some(*failure));
                    continue;
                }
                Ok(request) => request,
            };
            if stopped {
                slots.push(Some(not_run(
                    &request,
                    ErrorKind::Cancelled,
                    "not run: the conversation was stopped",
                )));
                continue;
            }
            if run.tool_calls >= settings.max_total_tool_calls {
                limit_reached = true;
                let message = format!(
                    "not run: the conversation's limit of {} tool calls was reached",
                    settings.max_total_tool_calls
                );
                let mut result = not_run(&request, ErrorKind::Denied, &message);
                suggest_with(
                    &mut result,
                    call_limit(
                        u64::from(settings.max_total_tool_calls),
                        "in one conversation",
                        "max_total_tool_calls",
                    ),
                );
                slots.push(Some(result));
                continue;
            }
            run.tool_calls += 1;
            if request.incomplete {
                let message = "not run: the call was cut off before it ended, so its arguments may be partial";
                slots.push(Some(not_run(&request, ErrorKind::InvalidArgs, message)));
                continue;
            }
            if let Some(error) = executor.check(&request) {
                slots.push(Some(failed(&request, error)));
                continue;
            }
            let mut request = request;
            if let Some(reason) = self.confirm_reason(settings, executor, &request) {
                let asked = ConfirmationRequest {
                    request_id: request.request_id.clone(),
                    routing_name: request.tool_name.clone(),
                    args: request.args.clone(),
                    annotations: executor
                        .registry()
                        .resolve(&request.tool_name)
                        .map(|(_, m)| m.meta.annotations.clone())
                        .unwrap_or_default(),
                    reason,
                };
                let decision = tokio::select! {
                    decision = self.confirmer.decide(turn, &asked) => decision,
                    () = cancel.cancelled() => Decision::Stop,
                };
                self.record(
                    run,
                    Record::Decided {
                        turn,
                        request_id: request.request_id.clone(),
                        tool_name: request.tool_name.clone(),
                        decision: decision.clone(),
                    },
                );
                match decision {
                    Decision::Run { edited } => {
                        if let Some(args) = edited {
                            request.args = args;
                        }
                    }
                    Decision::Deny { reason: said } => {
                        let message = match &said {
                            Some(said) => {
                                format!("the user denied '{}': {said}", request.tool_name)
                            }
                            None => format!("the user denied '{}'", request.tool_name),
                        };
                        let mut result = not_run(&request, ErrorKind::Denied, &message);
                        let why = Denial::Declined {
                            reason: Some(reason),
                            said: said.as_deref(),
                        };
                        suggest_with(&mut result, denied(why));
                        slots.push(Some(result));
                        continue;
                    }
                    Decision::Stop => {
                        stopped = true;
                        slots.push(Some(not_run(
                            &request,
                            ErrorKind::Cancelled,
                            "not run: the conversation was stopped",
                        )));
                        continue;
                    }
                }
            }
            to_run.push((slots.len(), request));
            slots.push(None);
        }
        let batch: Vec<ParsedToolRequest> = to_run.iter().map(|(_, r)| r.clone()).collect();
        let executed = executor.execute_all(&batch, cancel).await;
        for ((slot, request), result) in to_run.into_iter().zip(executed) {
            self.remember(run, &request, &result);
            slots[slot] = Some(result);
        }
        let mut results: Vec<ToolExecutionResult> = slots.into_iter().flatten().collect();
        for result in &mut results {
            let schema = executor.registry().parameters_of(&result.tool_name);
            // Against the names this conversation offered (the registry may hold more), and
            // into the error itself, so the record and the result blocks say the same.
            let suggestion = suggest::for_result(result, offered, schema.as_ref());
            if let Some(error) = result.error.as_mut() {
                error.suggestion.clone_from(&suggestion);
            }
            self.record(
                run,
                Record::Result {
                    turn,
                    result: result.clone(),
                    suggestion: suggestion.clone(),
                },
            );
            (self.observer)(&AgentEvent::CallFinished {
                turn,
                result: result.clone(),
                suggestion,
            });
        }
        TurnCalls {
            results,
            stopped,
            limit_reached,
        }
    }

    fn confirm_reason(
        &self,
        settings: &AgentSettings,
        executor: &Executor,
        request: &ParsedToolRequest,
    ) -> Option<ConfirmReason> {
        if settings.mode == CallMode::Manual || executor.options().require_confirmation {
            return Some(ConfirmReason::Configured);
        }
        let read_only = executor
            .registry()
            .resolve(&request.tool_name)
            .is_ok_and(|(_, method)| method.meta.annotations.is_read_only());
        (!read_only).then_some(ConfirmReason::Destructive)
    }

    /// The results as the model reads them: native result messages, or the prompted format's
    /// own result block. Failures carry their suggestion (in the error, which formats show).
    pub(super) fn results_message(
        &self,
        prompted: Option<&Arc<dyn Protocol>>,
        calls: &TurnCalls,
    ) -> Message {
        match prompted {
            Some(protocol) => Message::User {
                text: protocol.format_tool_results(&calls.results),
            },
            None => Message::ToolResults {
                results: calls
                    .results
                    .iter()
                    .map(|result| ToolResultMessage {
                        call_id: result.request_id.clone(),
                        name: result.tool_name.clone(),
                        is_error: result.status == ExecutionStatus::Error,
                        content: result.text_for_model().into_owned(),
                    })
                    .collect(),
            },
        }
    }

    fn remember(
        &self,
        run: &mut RunState,
        request: &ParsedToolRequest,
        result: &ToolExecutionResult,
    ) {
        let Some(history) = self.history else {
            return;
        };
        let parent = self.log.map(|l| l.id().to_owned());
        let entry = HistoryEntry::new(
            parent,
            "agent",
            RecordedRequest::from(request),
            result.clone(),
        );
        if let Err(e) = history.append(&entry) {
            run.record_errors.push(e.to_string());
        }
    }
}

fn failed(request: &ParsedToolRequest, error: ExecutionError) -> ToolExecutionResult {
    ToolExecutionResult {
        request_id: request.request_id.clone(),
        tool_name: request.tool_name.clone(),
        status: ExecutionStatus::Error,
        result: error.message.clone(),
        duration_ms: 0.0,
        error: Some(error),
        truncated: None,
    }
}

fn not_run(request: &ParsedToolRequest, kind: ErrorKind, message: &str) -> ToolExecutionResult {
    failed(request, ExecutionError::new(kind, message))
}

fn suggest_with(result: &mut ToolExecutionResult, suggestion: String) {
    if let Some(error) = result.error.as_mut() {
        error.suggestion = Some(suggestion);
    }
}
