//! How a run fails inside the executor: the classified kind, the message, the argument issues,
//! and the suggestion written where the executor still knows what it needs (the registry's
//! names, the method's schema, the timeout, why confirmation was asked).

use super::suggest;
use super::ConfirmReason;
use crate::registry::{RegisteredMethod, Registry, ResolveError};
use toolscope_protocol::result::{ArgumentIssue, ErrorKind, ExecutionError};

pub(super) struct Failure {
    pub(super) kind: ErrorKind,
    pub(super) message: String,
    pub(super) issues: Vec<ArgumentIssue>,
    pub(super) suggestion: Option<String>,
}

impl Failure {
    pub(super) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            issues: Vec::new(),
            suggestion: None,
        }
    }

    pub(super) fn suggesting(mut self, suggestion: String) -> Self {
        self.suggestion = Some(suggestion);
        self
    }

    /// A routing name that leads to no method, with the registry's nearest callable names.
    pub(super) fn unresolved(name: &str, error: ResolveError, registry: &Registry) -> Self {
        let tools = registry.tools();
        let names = tools.iter().flat_map(|tool| {
            tool.methods
                .iter()
                .filter(|m| m.meta.agent_callable)
                .map(|m| m.routing_name.as_str())
        });
        Self::new(error.kind, error.message).suggesting(suggest::unknown_name(name, names))
    }

    pub(super) fn not_agent_callable(method: &RegisteredMethod) -> Self {
        Self::new(
            ErrorKind::NotAgentCallable,
            format!(
                "method '{}' is not agent-callable: a model may not invoke it",
                method.routing_name
            ),
        )
    }

    /// The classified error, with a suggestion from its kind where the site wrote none.
    pub(super) fn into_error(self) -> ExecutionError {
        let suggestion = self
            .suggestion
            .or_else(|| suggest::for_kind(self.kind, &self.message));
        ExecutionError {
            kind: self.kind,
            message: self.message,
            issues: self.issues,
            suggestion,
        }
    }
}

pub(super) fn confirm_reason_text(reason: ConfirmReason) -> &'static str {
    match reason {
        ConfirmReason::Destructive => "it is destructive or not annotated as safe",
        ConfirmReason::Configured => "the configuration requires confirming every call",
    }
}

pub(super) fn panic_text(error: tokio::task::JoinError) -> String {
    let payload = error.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-text panic payload".to_owned())
}
