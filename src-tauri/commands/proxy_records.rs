//! The records of a proxied MCP session as the Live pane reads them: the types of
//! `toolscope_proxy::record` (docs/proxy.md, "The record") again, with the derives the app's
//! IPC needs and the fields the pane shows. They are read from the file, not shared with the
//! proxy: the proxy writes borrowed, serialize-only events, and a record type it adds later must
//! reach an older app as `Unknown`, not as an error.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProxyDirection {
    AgentToServer,
    ServerToAgent,
}

/// How the server process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ProxyExitStatus {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// One argument problem of an invalid call (`path` is a JSON pointer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ProxyIssue {
    pub path: String,
    pub message: String,
}

/// The `end` record: why and how a session ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ProxySessionEnd {
    /// `agent_closed`, `server_exited` or `signal`.
    pub reason: String,
    pub signal: Option<String>,
    pub server_status: Option<ProxyExitStatus>,
    /// Absent when the server wrote nothing to stderr.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    pub pending_answered: u32,
    pub messages: u64,
}

/// What a record says, by its `type` (docs/proxy.md has the table). Fields the proxy leaves
/// out read as `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProxyRecordBody {
    Session {
        session_id: String,
        name: String,
        argv: Vec<String>,
        proxy_version: String,
        enforce: bool,
        format: u32,
    },
    Message {
        dir: ProxyDirection,
        /// `proxy` on the answers the proxy gave itself.
        origin: Option<String>,
        bytes: u64,
        /// The JSON message as forwarded.
        msg: Option<Value>,
        /// A line that was not JSON.
        text: Option<String>,
    },
    Initialize {
        request_seq: u64,
        response_seq: u64,
        params: Option<Value>,
        result: Option<Value>,
        error: Option<Value>,
    },
    Tools {
        request_seq: u64,
        response_seq: u64,
        page: bool,
        names: Vec<String>,
    },
    ToolsChanged {
        response_seq: u64,
        since_session: Option<String>,
        added: Vec<String>,
        removed: Vec<String>,
        changed: Vec<String>,
    },
    Call {
        request_seq: u64,
        response_seq: u64,
        id: Value,
        tool: String,
        latency_ms: f64,
        /// `result`, `tool_error` or `error`.
        outcome: String,
        error: Option<Value>,
    },
    InvalidCall {
        call_seq: u64,
        id: Value,
        tool: String,
        unknown_tool: bool,
        issues: Vec<ProxyIssue>,
        message: String,
        enforced: bool,
    },
    Progress {
        message_seq: u64,
        dir: ProxyDirection,
        token: Value,
        progress: Option<Value>,
        total: Option<Value>,
        message: Option<Value>,
        request_seq: Option<u64>,
    },
    Elicitation {
        message_seq: u64,
        id: Value,
        params: Option<Value>,
    },
    ElicitationResult {
        request_seq: u64,
        response_seq: u64,
        action: Option<Value>,
        error: Option<Value>,
    },
    Cancelled {
        message_seq: u64,
        dir: ProxyDirection,
        request_id: Option<Value>,
        reason: Option<Value>,
        request_seq: Option<u64>,
    },
    End(ProxySessionEnd),
    /// A record of a `type` this version of the app does not know (a newer proxy's), kept so
    /// the timeline can say so.
    Unknown {
        /// Its `type`.
        kind: String,
    },
}

/// One line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ProxyRecord {
    pub seq: u64,
    /// Wall clock, RFC 3339 UTC.
    pub at: String,
    /// Milliseconds since the session started.
    pub ms: f64,
    pub body: ProxyRecordBody,
}

/// A line of the file: the stamp, then the typed record (an unknown `type` kept as such).
pub(crate) fn parse_record(line: &[u8]) -> Result<ProxyRecord, String> {
    #[derive(Deserialize)]
    struct Stamp {
        seq: u64,
        at: String,
        ms: f64,
        #[serde(rename = "type")]
        kind: String,
    }
    let value: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    let stamp = Stamp::deserialize(&value).map_err(|e| format!("not a proxy record: {e}"))?;
    let body = match ProxyRecordBody::deserialize(&value) {
        Ok(body) => body,
        Err(e) if e.to_string().starts_with("unknown variant") => {
            ProxyRecordBody::Unknown { kind: stamp.kind }
        }
        Err(e) => return Err(format!("a malformed '{}' record: {e}", stamp.kind)),
    };
    Ok(ProxyRecord {
        seq: stamp.seq,
        at: stamp.at,
        ms: stamp.ms,
        body,
    })
}
