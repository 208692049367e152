//! The shared vocabulary of DESIGN.md: method metadata, parsed requests, execution results.
//!
//! These types cross every boundary (protocols, executor, history, CLI JSON, IPC), so they are
//! plain serde structs with stable snake_case field names.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ToolSource {
    Builtin,
    Http,
    Mcp,
    Wasm,
}

/// Behaviour hints for a method. `None` means "not stated"; an unstated method is treated as
/// destructive and not read-only, because a hint that was never given cannot be trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Annotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl Annotations {
    /// Only an explicit read-only hint makes a method safe to run in parallel.
    pub fn is_read_only(&self) -> bool {
        self.read_only == Some(true)
    }

    /// A method is destructive unless it says it is read-only or explicitly not destructive.
    pub fn is_destructive(&self) -> bool {
        if self.is_read_only() {
            return false;
        }
        self.destructive != Some(false)
    }
}

/// Per-protocol presentation overrides of a method.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ProtocolConfig {
    /// Command name shown in VCP definitions instead of the method name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcp_command: Option<String>,
}

/// Everything a model (or a form) needs to know about one method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MethodMetadata {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
    /// Only agent-callable methods are discoverable and executable by a model.
    pub agent_callable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_config: Option<ProtocolConfig>,
    #[serde(default)]
    pub annotations: Annotations,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// A tool as shown to users: identity plus its methods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolInfo {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: ToolSource,
    pub methods: Vec<MethodMetadata>,
}

/// Byte range `[start, end)` into the text a request or diagnostic came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
}

/// One tool call extracted from a model reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParsedToolRequest {
    pub request_id: String,
    /// Routing name `{toolId}_{methodName}`.
    pub tool_name: String,
    pub args: Map<String, Value>,
    pub raw_block: String,
    pub span: Span,
    /// Id of the protocol that produced this request.
    pub format: String,
    /// True when the wire format carries every value as text (VCP): the executor then coerces
    /// values to the schema's types before validating.
    #[serde(default)]
    pub untyped_args: bool,
}

#[cfg(test)]
mod request_id_tests {
    #[test]
    fn request_ids_are_unique_and_shaped_like_before() {
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| super::new_request_id()).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 37 && id.starts_with("call_")));
    }
}

impl ParsedToolRequest {
    /// A request typed by hand (executor pane, `toolscope call`): typed JSON arguments.
    pub fn manual(tool_name: impl Into<String>, args: Map<String, Value>) -> Self {
        Self {
            request_id: new_request_id(),
            tool_name: tool_name.into(),
            args,
            raw_block: String::new(),
            span: Span::new(0, 0),
            format: "manual".to_owned(),
            untyped_args: false,
        }
    }
}

/// A fresh unique request id, used when the reply did not carry one.
///
/// One random 128-bit base per process, stepped by an odd constant per id: a bijection on
/// 128-bit numbers, so ids never repeat within a process and still look unrelated, while a
/// 1 MB reply with 2,000 calls does not make 2,000 trips to the kernel's random source.
pub fn new_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static BASE: OnceLock<u128> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    const STEP: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835;
    let base = *BASE.get_or_init(|| uuid::Uuid::new_v4().as_u128());
    let n = u128::from(COUNTER.fetch_add(1, Ordering::Relaxed));
    let bits = base.wrapping_add(n.wrapping_mul(STEP));
    // Written by hand: `format!` of a u128 was a few percent of parsing a reply with many calls.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = *b"call_00000000000000000000000000000000";
    for (i, digit) in id[5..].iter_mut().enumerate() {
        let shift = 4 * (31 - i);
        *digit = HEX[((bits >> shift) & 0xF) as usize];
    }
    String::from_utf8_lossy(&id).into_owned()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

/// Why part of a reply could not be turned into a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticCode {
    UnclosedBlock,
    UnclosedValue,
    MissingToolName,
    DuplicateKey,
    StrayText,
    InvalidJson,
    UnknownKey,
    /// The routing name does not resolve (reported at parse time with `strict_unknown_tool`).
    UnknownTool,
    InternalError,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: DiagnosticCode,
    pub message: String,
    pub span: Span,
}

/// What a protocol extracted from one reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParseOutput {
    pub requests: Vec<ParsedToolRequest>,
    pub diagnostics: Vec<Diagnostic>,
    /// The reply's prose: what is left without call blocks, reasoning and format tokens.
    #[serde(default)]
    pub content: String,
}

impl ParseOutput {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ExecutionStatus {
    Success,
    Error,
}

/// The classified reasons a run can fail (DESIGN.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    InvalidName,
    ToolNotFound,
    MethodNotFound,
    NotAgentCallable,
    InvalidArgs,
    Denied,
    Timeout,
    Cancelled,
    ToolError,
    OutputTooLarge,
    Transport,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidName => "invalid_name",
            Self::ToolNotFound => "tool_not_found",
            Self::MethodNotFound => "method_not_found",
            Self::NotAgentCallable => "not_agent_callable",
            Self::InvalidArgs => "invalid_args",
            Self::Denied => "denied",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::ToolError => "tool_error",
            Self::OutputTooLarge => "output_too_large",
            Self::Transport => "transport",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One argument problem found by schema validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ArgumentIssue {
    /// JSON pointer into the arguments (`/` for the object itself).
    pub path: String,
    pub message: String,
}

/// A classified failure of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExecutionError {
    pub kind: ErrorKind,
    pub message: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<ArgumentIssue>,
}

/// Set when the output was longer than the cap and was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Truncation {
    pub original_bytes: u64,
    pub kept_bytes: u64,
}

/// The outcome of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ToolExecutionResult {
    pub request_id: String,
    pub tool_name: String,
    pub status: ExecutionStatus,
    /// The tool's output (non-string values serialised as JSON), or the error message.
    pub result: String,
    pub duration_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ExecutionError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
}

impl ToolExecutionResult {
    pub fn is_success(&self) -> bool {
        self.status == ExecutionStatus::Success
    }

    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.error.as_ref().map(|e| e.kind)
    }
}

/// "a string", "an object", ...: how messages name the kind of a JSON value.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
