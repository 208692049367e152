//! Reads meaning into the message stream: which request each answer belongs to, what the
//! `initialize` handshake and each `tools/list` said, how long each `tools/call` took and how
//! it ended, whether its arguments matched the schema the agent was given, and the progress,
//! elicitation and cancellation traffic around them.
//!
//! Pure and synchronous (no I/O, no clock of its own): the transport hands it each message
//! with the `seq` and session time the recorder gave it, and writes what it returns. So any
//! transport (stdio now, HTTP later) and any reader of a recorded session can drive it.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::message::Envelope;
use crate::observer_tools::ToolSchemas;
use crate::record::{Direction, Event};
use crate::tools_diff::{listed, Baseline, Listing, ToolsDiff};
use toolscope_engine::executor::validate::format_issues;

/// JSON-RPC "invalid params": what `--enforce` answers an invalid call with.
pub const INVALID_PARAMS: i64 = -32602;

#[derive(Debug)]
enum Kind {
    Initialize(Option<Value>),
    ToolsList { page: bool },
    ToolCall(String),
    Elicitation,
    Other,
}

/// A request still waiting for its answer.
#[derive(Debug)]
pub struct Pending {
    pub seq: u64,
    pub ms: f64,
    pub id: Box<RawValue>,
    pub method: String,
    kind: Kind,
    progress_token: Option<String>,
    /// The sender cancelled it: the other side should not answer, and the proxy will not.
    cancelled: bool,
}

/// An answer the proxy gives the agent itself instead of forwarding the request.
#[derive(Debug)]
pub struct Refusal {
    /// The JSON-RPC error response, one line without terminator.
    pub response: String,
}

#[derive(Debug, Default, Deserialize)]
struct Meta<'a> {
    #[serde(rename = "progressToken", borrow, default)]
    progress_token: Option<&'a RawValue>,
}

#[derive(Debug, Default, Deserialize)]
struct Params<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    cursor: Option<Value>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<Meta<'a>>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(rename = "progressToken", borrow, default)]
    progress_token: Option<&'a RawValue>,
}

fn params<'a>(envelope: &Envelope<'a>) -> Params<'a> {
    envelope
        .params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default()
}

fn value(raw: Option<&RawValue>) -> Option<Value> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
}

fn field(raw: Option<&RawValue>, name: &str) -> Option<Value> {
    value(raw).and_then(|mut v| v.get_mut(name).map(Value::take))
}

/// The state of one session's conversation.
#[derive(Debug, Default)]
pub struct Observer {
    enforce: bool,
    /// Requests from the agent to the server, by id text.
    agent_requests: HashMap<String, Pending>,
    /// Requests from the server to the agent (elicitation, sampling, roots), by id text.
    server_requests: HashMap<String, Pending>,
    /// Progress tokens announced by requests, to the request's `seq`.
    progress_tokens: HashMap<String, u64>,
    tools: ToolSchemas,
    /// The listing the next complete one is compared with.
    baseline: Option<Baseline>,
    /// The listing being received (pages add to it).
    listing: Listing,
}

impl Observer {
    pub fn new(enforce: bool) -> Self {
        Self {
            enforce,
            ..Self::default()
        }
    }

    /// Compares the first complete listing with `baseline` (the previous session's).
    pub fn set_baseline(&mut self, baseline: Baseline) {
        self.baseline = Some(baseline);
    }

    /// Adds a listing page; when the listing is complete, the difference from the last one.
    fn tools_listed(
        &mut self,
        seq: u64,
        result: &str,
        page: bool,
        events: &mut Vec<Event<'static>>,
    ) {
        let Ok(result) = serde_json::from_str::<Value>(result) else {
            return;
        };
        let (tools, more) = listed(&result);
        if !page {
            self.listing.clear();
        }
        self.listing.extend(tools);
        if more {
            return;
        }
        if let Some(baseline) = self.baseline.take() {
            let diff = ToolsDiff::between(&baseline.tools, &self.listing);
            if baseline.session.is_some() || !diff.is_empty() {
                events.push(Event::ToolsChanged {
                    response_seq: seq,
                    since_session: baseline.session,
                    added: diff.added,
                    removed: diff.removed,
                    changed: diff.changed,
                });
            }
        }
        self.baseline = Some(Baseline {
            session: None,
            tools: self.listing.clone(),
        });
    }

    /// The agent's requests the server has not answered yet, oldest first.
    pub fn pending_agent_requests(&self) -> Vec<&Pending> {
        let mut pending: Vec<&Pending> = self
            .agent_requests
            .values()
            .filter(|p| !p.cancelled)
            .collect();
        pending.sort_by_key(|p| p.seq);
        pending
    }

    /// Observes one message (or batch) that went `dir`, recorded as `seq` at session time
    /// `ms`. Returns the derived events, and for an invalid call under `--enforce` the answer
    /// to give the agent instead of forwarding it.
    pub fn observe(
        &mut self,
        dir: Direction,
        seq: u64,
        ms: f64,
        messages: &[Envelope<'_>],
    ) -> (Vec<Event<'static>>, Option<Refusal>) {
        let mut events = Vec::new();
        let mut refusal = None;
        let single = messages.len() == 1;
        for envelope in messages {
            if envelope.is_request() {
                let refused = self.request(dir, seq, ms, envelope, &mut events);
                if single {
                    refusal = refused;
                }
            } else if envelope.is_response() {
                self.response(dir, seq, ms, envelope, &mut events);
            } else if envelope.method.is_some() {
                self.notification(dir, seq, envelope, &mut events);
            }
        }
        (events, refusal)
    }

    fn request(
        &mut self,
        dir: Direction,
        seq: u64,
        ms: f64,
        envelope: &Envelope<'_>,
        events: &mut Vec<Event<'static>>,
    ) -> Option<Refusal> {
        let (Some(id), Some(method)) = (envelope.id, envelope.method.as_deref()) else {
            return None;
        };
        let params = params(envelope);
        let id = id.to_owned();
        let mut refusal = None;
        let kind = match (dir, method) {
            (Direction::AgentToServer, "initialize") => Kind::Initialize(value(envelope.params)),
            (Direction::AgentToServer, "tools/list") => Kind::ToolsList {
                page: params.cursor.is_some(),
            },
            (Direction::AgentToServer, "tools/call") => {
                let tool = params.name.clone().unwrap_or_default();
                if let Some(check) = self.tools.check(&tool, params.arguments.as_ref()) {
                    let enforced = self.enforce && !check.unknown_tool;
                    let message = format_issues(&check.issues);
                    if enforced {
                        refusal = Some(Refusal {
                            response: json!({
                                "jsonrpc": "2.0",
                                "id": &id,
                                "error": {
                                    "code": INVALID_PARAMS,
                                    "message": format!("Invalid params for tool '{tool}' (refused by the Toolscope proxy). {message}"),
                                    "data": {"issues": &check.issues},
                                },
                            })
                            .to_string(),
                        });
                    }
                    events.push(Event::InvalidCall {
                        call_seq: seq,
                        id: id.clone(),
                        tool: tool.clone(),
                        unknown_tool: check.unknown_tool,
                        issues: check.issues,
                        message,
                        enforced,
                    });
                }
                Kind::ToolCall(tool)
            }
            (Direction::ServerToAgent, "elicitation/create") => {
                events.push(Event::Elicitation {
                    message_seq: seq,
                    id: id.clone(),
                    params: value(envelope.params),
                });
                Kind::Elicitation
            }
            _ => Kind::Other,
        };
        let progress_token = params
            .meta
            .and_then(|m| m.progress_token)
            .map(|t| t.get().to_owned());
        if let Some(token) = &progress_token {
            self.progress_tokens.insert(token.clone(), seq);
        }
        let pending = Pending {
            seq,
            ms,
            id,
            method: method.to_owned(),
            kind,
            progress_token,
            cancelled: false,
        };
        let key = pending.id.get().to_owned();
        match dir {
            Direction::AgentToServer => self.agent_requests.insert(key, pending),
            Direction::ServerToAgent => self.server_requests.insert(key, pending),
        };
        refusal
    }

    fn response(
        &mut self,
        dir: Direction,
        seq: u64,
        ms: f64,
        envelope: &Envelope<'_>,
        events: &mut Vec<Event<'static>>,
    ) {
        let Some(key) = envelope.id_key() else {
            return;
        };
        let requests = match dir {
            Direction::ServerToAgent => &mut self.agent_requests,
            Direction::AgentToServer => &mut self.server_requests,
        };
        let Some(pending) = requests.remove(key) else {
            return;
        };
        if let Some(token) = &pending.progress_token {
            self.progress_tokens.remove(token);
        }
        let result = envelope.result.map(RawValue::get);
        let error = value(envelope.error);
        match pending.kind {
            Kind::Initialize(params) => events.push(Event::Initialize {
                request_seq: pending.seq,
                response_seq: seq,
                params,
                result: value(envelope.result),
                error,
            }),
            Kind::ToolsList { page } => {
                if let Some(result) = result {
                    let names = self.tools.listed(result, page);
                    events.push(Event::Tools {
                        request_seq: pending.seq,
                        response_seq: seq,
                        page,
                        names,
                    });
                    self.tools_listed(seq, result, page, events);
                }
            }
            Kind::ToolCall(tool) => {
                let tool_error =
                    field(envelope.result, "isError").is_some_and(|v| v == Value::Bool(true));
                let outcome = match (&error, tool_error) {
                    (Some(_), _) => "error",
                    (None, true) => "tool_error",
                    (None, false) => "result",
                };
                events.push(Event::Call {
                    request_seq: pending.seq,
                    response_seq: seq,
                    id: pending.id,
                    tool,
                    latency_ms: ((ms - pending.ms) * 1000.0).round() / 1000.0,
                    outcome,
                    error,
                });
            }
            Kind::Elicitation => events.push(Event::ElicitationResult {
                request_seq: pending.seq,
                response_seq: seq,
                action: field(envelope.result, "action"),
                error,
            }),
            Kind::Other => {}
        }
    }

    fn notification(
        &mut self,
        dir: Direction,
        seq: u64,
        envelope: &Envelope<'_>,
        events: &mut Vec<Event<'static>>,
    ) {
        match envelope.method.as_deref() {
            Some("notifications/progress") => {
                let params = params(envelope);
                let token = params.progress_token.map(|t| t.get().to_owned());
                let request_seq = token
                    .as_deref()
                    .and_then(|t| self.progress_tokens.get(t).copied());
                events.push(Event::Progress {
                    message_seq: seq,
                    dir,
                    token: value(params.progress_token).unwrap_or(Value::Null),
                    progress: field(envelope.params, "progress"),
                    total: field(envelope.params, "total"),
                    message: field(envelope.params, "message"),
                    request_seq,
                });
            }
            Some("notifications/cancelled") => {
                let params = params(envelope);
                // The sender cancels its own request: the agent's went to the server.
                let requests = match dir {
                    Direction::AgentToServer => &mut self.agent_requests,
                    Direction::ServerToAgent => &mut self.server_requests,
                };
                let cancelled = params.request_id.and_then(|id| requests.get_mut(id.get()));
                let request_seq = cancelled.map(|p| {
                    p.cancelled = true;
                    p.seq
                });
                events.push(Event::Cancelled {
                    message_seq: seq,
                    dir,
                    request_id: value(params.request_id),
                    reason: field(envelope.params, "reason"),
                    request_seq,
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "observer_tests.rs"]
mod tests;
