//! One conversation, turn by turn: request → streamed reply → parse → confirm → execute →
//! results back, with every step told to the observer and appended to the record. The turn's
//! stream is [`super::turn`]'s, its calls [`super::calls`]'.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::model::{Message, ModelClient, ModelRequest};
use super::record::{ConversationLog, Decision, Record};
use super::reply::Usage;
use super::{native, suggest, AgentEvent, AgentSettings, StopReason, ToolMode};
use crate::executor::{ApproveAll, ConfirmationRequest, Executor};
use crate::history::History;
use crate::tool::BoxFuture;
use toolscope_protocol::parser::{self, ParserError};
use toolscope_protocol::{Protocol, ProtocolSet, ToolDefinitionInput};

/// Asked before a call runs when the settings say so; may edit the arguments.
pub trait Confirmer: Send + Sync {
    fn decide<'a>(&'a self, turn: u32, request: &'a ConfirmationRequest)
        -> BoxFuture<'a, Decision>;
}

/// Everything a conversation runs against.
pub struct Agent<'a> {
    pub model: &'a dyn ModelClient,
    pub protocols: &'a ProtocolSet,
    pub executor: &'a Executor,
    /// The conversation's own tool set (seed 004's per-agent tools).
    pub tools: &'a [ToolDefinitionInput],
    pub confirmer: &'a dyn Confirmer,
    pub history: Option<&'a History>,
    pub log: Option<&'a ConversationLog>,
    pub observer: &'a (dyn Fn(&AgentEvent) + Sync),
}

/// How a conversation ended and what it said.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOutcome {
    pub conversation_id: Option<String>,
    pub reason: StopReason,
    pub turns: u32,
    pub tool_calls: u32,
    pub usage: Usage,
    pub messages: Vec<Message>,
    /// Records or history entries that could not be written (the run itself went on).
    pub record_errors: Vec<String>,
}

impl AgentOutcome {
    /// The text of the model's last reply.
    pub fn final_text(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::Assistant { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Format(#[from] ParserError),
    #[error("the {protocol} tool definitions are not a JSON array: {reason}")]
    NativeTools { protocol: String, reason: String },
}

impl Agent<'_> {
    pub async fn run(
        &self,
        task: &str,
        settings: &AgentSettings,
        cancel: &CancellationToken,
    ) -> Result<AgentOutcome, AgentError> {
        let info = self.model.info();
        let offered: Vec<String> = self
            .tools
            .iter()
            .flat_map(|tool| tool.methods.iter().map(|m| tool.routing_name(m)))
            .collect();
        let ToolSetup {
            system,
            native_tools,
            prompted,
        } = self.tool_setup(settings, &info.native_protocol)?;
        let mut run = RunState {
            messages: vec![Message::User {
                text: task.to_owned(),
            }],
            usage: Usage::default(),
            tool_calls: 0,
            record_errors: Vec::new(),
        };
        self.record(
            &mut run,
            Record::Started {
                id: self.log.map(|l| l.id().to_owned()).unwrap_or_default(),
                started_at_ms: chrono::Utc::now().timestamp_millis(),
                task: task.to_owned(),
                model: info.clone(),
                settings: settings.clone(),
                tools: offered.clone(),
            },
        );
        // Confirmation is the loop's (with editable arguments), so the executor does not ask again.
        let executor = self
            .executor
            .clone()
            .with_confirmation(Arc::new(ApproveAll));
        let mut turn = 0;
        let reason = loop {
            if cancel.is_cancelled() {
                break StopReason::Stopped;
            }
            if turn >= settings.max_iterations {
                break StopReason::MaxIterations {
                    limit: settings.max_iterations,
                };
            }
            if let Some(limit) = settings.token_budget {
                let used = run.usage.input_tokens + run.usage.output_tokens;
                if used >= limit {
                    break StopReason::TokenBudget { limit, used };
                }
            }
            turn += 1;
            (self.observer)(&AgentEvent::TurnStarted { turn });
            let request = ModelRequest {
                system: system.as_deref(),
                messages: &run.messages,
                tools: native_tools.as_ref(),
                options: &settings.request,
            };
            let (outcome, timing, chunk_errors) = self
                .stream_turn(turn, request, prompted.as_ref(), cancel)
                .await;
            run.record_errors.extend(chunk_errors);
            let mut reply = match outcome {
                Ok(reply) => reply,
                Err(error) => {
                    let kind = error.kind;
                    self.record(
                        &mut run,
                        Record::ModelFailed {
                            turn,
                            kind,
                            message: error.message.clone(),
                        },
                    );
                    (self.observer)(&AgentEvent::ModelFailed {
                        turn,
                        kind,
                        message: error.message.clone(),
                    });
                    if let Some(partial) = error.partial {
                        // What arrived is evidence: a call cut mid-way shows as incomplete.
                        let report =
                            self.report(&partial, prompted.as_ref(), &info.native_protocol);
                        self.finish_turn_record(&mut run, turn, partial, report, timing);
                    }
                    break if kind == super::ModelErrorKind::Cancelled {
                        StopReason::Stopped
                    } else {
                        StopReason::ModelFailed {
                            kind,
                            message: error.message,
                        }
                    };
                }
            };
            native::name_unnamed_calls(&mut reply, turn);
            if let Some(usage) = reply.usage {
                run.usage.input_tokens += usage.input_tokens;
                run.usage.output_tokens += usage.output_tokens;
            }
            let report = self.report(&reply, prompted.as_ref(), &info.native_protocol);
            let is_native = prompted.is_none();
            run.messages.push(Message::Assistant {
                text: reply.text.clone(),
                calls: if is_native {
                    reply.calls.clone()
                } else {
                    Vec::new()
                },
            });
            let has_calls = !report.requests.is_empty() || (is_native && !reply.calls.is_empty());
            self.finish_turn_record(&mut run, turn, reply.clone(), report.clone(), timing);
            if !has_calls {
                let feedback = match prompted.as_ref() {
                    Some(p) => suggest::for_parse_errors(&report.diagnostics, p.label()),
                    None => suggest::for_malformed_call(reply.finish_reason.as_deref()),
                };
                let Some(text) = feedback else {
                    break StopReason::Final;
                };
                self.record(
                    &mut run,
                    Record::Feedback {
                        turn,
                        text: text.clone(),
                    },
                );
                (self.observer)(&AgentEvent::Feedback {
                    turn,
                    text: text.clone(),
                });
                run.messages.push(Message::User { text });
                continue;
            }
            let requests = if is_native {
                native::requests_per_call(&reply, &report)
            } else {
                report.requests.iter().cloned().map(Ok).collect()
            };
            let calls = self
                .run_calls(
                    turn, requests, settings, &executor, &offered, &mut run, cancel,
                )
                .await;
            run.messages
                .push(self.results_message(prompted.as_ref(), &calls));
            if calls.stopped || cancel.is_cancelled() {
                break StopReason::Stopped;
            }
            if calls.limit_reached {
                break StopReason::MaxToolCalls {
                    limit: settings.max_total_tool_calls,
                };
            }
        };
        let ended = Record::Ended {
            reason: reason.clone(),
            turns: turn,
            tool_calls: run.tool_calls,
            usage: run.usage,
        };
        self.record(&mut run, ended);
        (self.observer)(&AgentEvent::Stopped {
            reason: reason.clone(),
            turns: turn,
            tool_calls: run.tool_calls,
            usage: run.usage,
        });
        Ok(AgentOutcome {
            conversation_id: self.log.map(|l| l.id().to_owned()),
            reason,
            turns: turn,
            tool_calls: run.tool_calls,
            usage: run.usage,
            messages: run.messages,
            record_errors: run.record_errors,
        })
    }

    /// The system prompt, the native tool definitions and the prompted format, per the mode.
    fn tool_setup(
        &self,
        settings: &AgentSettings,
        native_protocol: &str,
    ) -> Result<ToolSetup, AgentError> {
        let own = settings
            .system_prompt
            .clone()
            .filter(|s| !s.trim().is_empty());
        match &settings.tools {
            ToolMode::Native => {
                if self.tools.is_empty() {
                    // Some servers refuse an empty `tools` array; no tools means none is sent.
                    return Ok(ToolSetup {
                        system: own,
                        native_tools: None,
                        prompted: None,
                    });
                }
                let protocol = parser::named(self.protocols, native_protocol)?;
                let text = protocol.generate_tool_definitions(self.tools);
                let tools = serde_json::from_str::<Value>(&text)
                    .ok()
                    .filter(Value::is_array)
                    .ok_or_else(|| AgentError::NativeTools {
                        protocol: native_protocol.to_owned(),
                        reason: "the protocol rendered something else".to_owned(),
                    })?;
                Ok(ToolSetup {
                    system: own,
                    native_tools: Some(tools),
                    prompted: None,
                })
            }
            ToolMode::Prompted { format } => {
                let protocol = parser::named(self.protocols, format)?;
                let prompt = protocol.generate_tool_definitions(self.tools);
                let system = match own {
                    Some(own) => format!("{own}\n\n{prompt}"),
                    None => prompt,
                };
                Ok(ToolSetup {
                    system: Some(system),
                    native_tools: None,
                    prompted: Some(protocol),
                })
            }
        }
    }

    pub(super) fn record(&self, run: &mut RunState, record: Record) {
        if let Some(log) = self.log {
            if let Err(e) = log.append(record) {
                run.record_errors.push(e.to_string());
            }
        }
    }
}

/// How the tools reach the model: a system prompt, native definitions, the prompted format.
struct ToolSetup {
    system: Option<String>,
    native_tools: Option<Value>,
    prompted: Option<Arc<dyn Protocol>>,
}

pub(super) struct RunState {
    pub(super) messages: Vec<Message>,
    pub(super) usage: Usage,
    pub(super) tool_calls: u32,
    pub(super) record_errors: Vec<String>,
}
