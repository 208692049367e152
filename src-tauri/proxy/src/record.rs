//! The session file's vocabulary: one JSON object per line, each stamped by the recorder with
//! `seq` (the order of the file), `at` (wall clock, RFC 3339) and `ms` (monotonic milliseconds
//! since the session started), then tagged by `type`. docs/proxy.md shows one of each.
//!
//! `message` lines carry the forwarded JSON text itself (`msg`), byte for byte; every other
//! type is derived from messages and points back at them by `seq`.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use toolscope_protocol::result::ArgumentIssue;

/// Version of this record format, written in the `session` header.
pub const RECORD_FORMAT: u32 = 1;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    AgentToServer,
    ServerToAgent,
}

/// Who wrote a message the proxy delivered: absent for forwarded messages, `proxy` for the
/// answers the proxy gives itself (an `--enforce` refusal, the error for a request the server
/// died before answering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Proxy,
}

/// How the upstream process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExitStatusRecord {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

impl ExitStatusRecord {
    pub fn from_status(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
        }
    }
}

impl std::fmt::Display for ExitStatusRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit status {code}"),
            (None, Some(signal)) => write!(f, "killed by signal {signal}"),
            (None, None) => f.write_str("unknown status"),
        }
    }
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The agent closed its side (stdin): the normal end.
    AgentClosed,
    /// The server's stdout ended or its process exited while the agent was still there.
    ServerExited,
    /// The proxy got a signal (SIGINT, SIGTERM, SIGHUP).
    Signal,
}

/// One record, before the recorder stamps it.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// The first line of every session file.
    Session {
        session_id: &'a str,
        name: &'a str,
        /// The server's command line as given (argv only: the environment is never recorded).
        argv: &'a [String],
        proxy_version: &'a str,
        enforce: bool,
        format: u32,
    },
    /// A message as it was forwarded (or, with `origin`, as the proxy answered on its own).
    Message {
        dir: Direction,
        #[serde(skip_serializing_if = "Option::is_none")]
        origin: Option<Origin>,
        /// Length of the line without its terminator.
        bytes: usize,
        /// The JSON text, exactly as forwarded.
        #[serde(skip_serializing_if = "Option::is_none")]
        msg: Option<&'a RawValue>,
        /// A line that is not JSON, as text (invalid UTF-8 replaced) ...
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// ... and, when it was not UTF-8, its bytes in base64.
        #[serde(skip_serializing_if = "Option::is_none")]
        base64: Option<String>,
    },
    /// `initialize` and its answer: versions, client and server info and capabilities.
    Initialize {
        request_seq: u64,
        response_seq: u64,
        params: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Value>,
    },
    /// A `tools/list` result the agent received (the schemas are in that message).
    Tools {
        request_seq: u64,
        response_seq: u64,
        /// True when this was a follow-up page (`cursor` given): its tools add to the last ones.
        page: bool,
        names: Vec<String>,
    },
    /// A complete tool listing differs from the one before it: the previous session's last
    /// listing (`since_session`), or an earlier listing of this session. Written for the first
    /// listing after a previous session even when nothing changed.
    ToolsChanged {
        response_seq: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        since_session: Option<String>,
        added: Vec<String>,
        removed: Vec<String>,
        changed: Vec<String>,
    },
    /// A `tools/call` matched with its answer.
    Call {
        request_seq: u64,
        response_seq: u64,
        id: Box<RawValue>,
        tool: String,
        latency_ms: f64,
        /// `result`, `tool_error` (a result with `isError: true`) or `error` (JSON-RPC error).
        outcome: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Value>,
    },
    /// A `tools/call` whose arguments do not match the schema the agent was given.
    InvalidCall {
        call_seq: u64,
        id: Box<RawValue>,
        tool: String,
        /// The tool was not in the last `tools/list` the agent received.
        unknown_tool: bool,
        issues: Vec<ArgumentIssue>,
        /// The same issues as the rest of Toolscope words them.
        message: String,
        /// Refused by `--enforce` (answered with -32602, never forwarded).
        enforced: bool,
    },
    /// A fault of the plan (`faults.json`) applied to a call: delayed, or answered by the proxy
    /// with an error or a mock result instead of the server.
    Fault {
        call_seq: u64,
        id: Value,
        tool: String,
        /// `delay`, `error` or `mock` (a mock of an imported tool too).
        fault: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        delay_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_kind: Option<crate::faults::InjectedErrorKind>,
        /// For a mock of an imported tool: whose (`set/definition`).
        #[serde(skip_serializing_if = "Option::is_none")]
        imported: Option<String>,
    },
    /// `notifications/progress`, either way.
    Progress {
        message_seq: u64,
        dir: Direction,
        token: Value,
        progress: Option<Value>,
        total: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<Value>,
        /// The request that announced this progress token, when known.
        request_seq: Option<u64>,
    },
    /// An `elicitation/create` request from the server.
    Elicitation {
        message_seq: u64,
        id: Box<RawValue>,
        params: Option<Value>,
    },
    /// The agent's answer to an elicitation.
    ElicitationResult {
        request_seq: u64,
        response_seq: u64,
        action: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Value>,
    },
    /// `notifications/cancelled`, either way.
    Cancelled {
        message_seq: u64,
        dir: Direction,
        request_id: Option<Value>,
        reason: Option<Value>,
        request_seq: Option<u64>,
    },
    /// The last line of a session that ended in an orderly way (a killed proxy writes none).
    End {
        reason: EndReason,
        #[serde(skip_serializing_if = "Option::is_none")]
        signal: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        server_status: Option<ExitStatusRecord>,
        /// The server's last stderr lines, when it exited on its own.
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        stderr_tail: &'a [String],
        /// Agent requests the server never answered, answered by the proxy with an error.
        pending_answered: usize,
        messages: u64,
    },
}
