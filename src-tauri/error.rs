//! The one error type commands return. It crosses IPC as `{kind, message, details}` and is
//! generated into TypeScript, so the UI can branch on `kind` instead of parsing messages.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CommandErrorKind {
    /// Startup has not finished (or failed): built-in tools or history unavailable.
    NotReady,
    /// The workspace directory of the built-in tools could not be prepared.
    Workspace,
    /// The engine refused a tool registration.
    Registry,
    UnknownProtocol,
    UnknownFormat,
    /// An argument from the UI was malformed (bad run id, invalid settings, ...).
    InvalidInput,
    /// The history file could not be read or written.
    History,
    /// Settings could not be loaded or saved.
    Settings,
    /// A tool source refused the change (unknown or duplicate server, clashing tool id, ...).
    Source,
    /// A model endpoint refused, failed or could not be reached.
    Model,
    /// An engine task failed unexpectedly (a bug worth reporting).
    Internal,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub kind: CommandErrorKind,
    pub message: String,
    /// Structured context when there is some (paths, known ids, ...).
    pub details: Option<Value>,
}

impl CommandError {
    pub fn new(kind: CommandErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crosses_ipc_as_kind_message_details() {
        let error = CommandError::new(CommandErrorKind::UnknownFormat, "no such format")
            .with_details(json!({"known": ["vcp"]}));
        assert_eq!(
            serde_json::to_value(&error).expect("serialises"),
            json!({"kind": "unknown_format", "message": "no such format", "details": {"known": ["vcp"]}})
        );
        assert_eq!(error.to_string(), "no such format");
    }
}
