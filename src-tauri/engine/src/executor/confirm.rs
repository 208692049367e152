//! Confirmation before a run (seed 000 §4.5): destructive methods (or every call, when the
//! configuration says so) run only once a hook approves; a denial says why it was asked.

use serde_json::{Map, Value};

use super::failure::{confirm_reason_text, Failure};
use super::suggest::{self, Denial};
use super::Executor;
use crate::registry::RegisteredMethod;
use crate::tool::BoxFuture;
use toolscope_protocol::method::Annotations;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

/// Why a run needs the user's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ConfirmReason {
    /// The method is destructive or does not say it is not.
    Destructive,
    /// The configuration asks to confirm every call.
    Configured,
}

/// What the user is asked to approve.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConfirmationRequest {
    pub request_id: String,
    pub routing_name: String,
    pub args: Map<String, Value>,
    pub annotations: Annotations,
    pub reason: ConfirmReason,
}

/// Asked before a call that needs approval; `false` denies it.
pub trait ConfirmationHook: Send + Sync {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, bool>;

    /// Whether anyone is there to answer (a CLI whose stdin is not a terminal: no). When not,
    /// the call is denied as unconfirmed rather than as refused by a person, so the error and
    /// its suggestion say what actually happened.
    fn can_ask(&self) -> bool {
        true
    }
}

/// Approves everything (`--yes`, tests).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl ConfirmationHook for ApproveAll {
    fn confirm<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        Box::pin(async { true })
    }
}

impl Executor {
    pub(super) async fn confirm(
        &self,
        request: &ParsedToolRequest,
        method: &RegisteredMethod,
        args: &Map<String, Value>,
    ) -> Result<(), Failure> {
        let reason = if method.meta.annotations.is_destructive() {
            ConfirmReason::Destructive
        } else if self.options.require_confirmation {
            ConfirmReason::Configured
        } else {
            return Ok(());
        };
        let Some(hook) = self.confirmation.as_ref().filter(|hook| hook.can_ask()) else {
            return Err(Failure::new(
                ErrorKind::Denied,
                format!(
                    "'{}' needs confirmation ({}) and no one is there to confirm it",
                    method.routing_name,
                    confirm_reason_text(reason)
                ),
            )
            .suggesting(suggest::denied(Denial::Unconfirmed(reason))));
        };
        let question = ConfirmationRequest {
            request_id: request.request_id.clone(),
            routing_name: method.routing_name.clone(),
            args: args.clone(),
            annotations: method.meta.annotations.clone(),
            reason,
        };
        if hook.confirm(&question).await {
            Ok(())
        } else {
            Err(Failure::new(
                ErrorKind::Denied,
                format!("the user denied '{}'", method.routing_name),
            )
            .suggesting(suggest::denied(Denial::Declined {
                reason: Some(reason),
                said: None,
            })))
        }
    }
}
