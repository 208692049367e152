//! The outcome of a call, as formats feed it back to a model: status, text and a classified
//! error (DESIGN.md's error kinds).

use serde::{Deserialize, Serialize};

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
    /// A sandboxed tool (WASM) hit its memory cap.
    MemoryLimit,
    Transport,
    /// The tool's own rate limit (seed 004's `rate_limit`) had no free slot before the call's
    /// deadline; the message says when to retry.
    RateLimited,
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
            Self::MemoryLimit => "memory_limit",
            Self::Transport => "transport",
            Self::RateLimited => "rate_limited",
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
    /// What a model or a person can do about it (seed 001's `Suggestion:`): the names meant,
    /// the schema where the arguments failed with a valid example, the limit and how to raise
    /// it, why a call was denied. Optional so history written before it still loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

impl ExecutionError {
    /// An error with no argument issues and no suggestion (yet).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            issues: Vec::new(),
            suggestion: None,
        }
    }

    pub fn with_suggestion(mut self, suggestion: Option<String>) -> Self {
        self.suggestion = suggestion;
        self
    }
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

    /// The failure's suggestion, if it failed and has one.
    pub fn suggestion(&self) -> Option<&str> {
        self.error.as_ref()?.suggestion.as_deref()
    }

    /// The result text as a model reads it in a plain-text slot: the text, then for a failure
    /// with a suggestion a blank line and `Suggestion: …` (seed 001's error output).
    pub fn text_for_model(&self) -> std::borrow::Cow<'_, str> {
        match self.suggestion() {
            Some(suggestion) => {
                std::borrow::Cow::Owned(format!("{}\n\nSuggestion: {suggestion}", self.result))
            }
            None => std::borrow::Cow::Borrowed(&self.result),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(suggestion: Option<&str>) -> ToolExecutionResult {
        ToolExecutionResult {
            request_id: "r1".to_owned(),
            tool_name: "a_b".to_owned(),
            status: ExecutionStatus::Error,
            result: "Error: no".to_owned(),
            duration_ms: 0.0,
            error: Some(
                ExecutionError::new(ErrorKind::Timeout, "Error: no")
                    .with_suggestion(suggestion.map(str::to_owned)),
            ),
            truncated: None,
        }
    }

    #[test]
    fn the_suggestion_follows_the_text_and_old_lines_still_load() {
        assert_eq!(
            failed(Some("Raise it.")).text_for_model(),
            "Error: no\n\nSuggestion: Raise it."
        );
        assert_eq!(failed(None).text_for_model(), "Error: no");
        // A history line written before suggestions existed.
        let old: ExecutionError =
            serde_json::from_str(r#"{"kind":"timeout","message":"late"}"#).expect("loads");
        assert_eq!(old.suggestion, None);
        let written = serde_json::to_string(&old).expect("serialises");
        assert!(!written.contains("suggestion"), "{written}");
    }

    #[test]
    fn serde_and_as_str_spell_every_kind_alike() {
        use ErrorKind::*;
        for kind in [
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
            MemoryLimit,
            Transport,
            RateLimited,
        ] {
            let written = serde_json::to_string(&kind).expect("serialises");
            assert_eq!(written, format!("\"{kind}\""));
            let read: ErrorKind = serde_json::from_str(&written).expect("reads back");
            assert_eq!(read, kind);
        }
        assert_eq!(ErrorKind::RateLimited.as_str(), "rate_limited");
    }
}
