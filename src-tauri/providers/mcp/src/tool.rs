//! A connected MCP server as an engine [`Tool`]: its MCP tools are the methods, and a call
//! is a `tools/call` on the live connection.
//!
//! Cancellation: the executor cancels `ctx.cancel` and then drops this future (on Esc, on its
//! timeout). Either way the server hears `notifications/cancelled` for the request: a guard
//! sends it when the future is dropped before the response arrived.
//!
//! Tools the server wants called as tasks go through [`crate::tasks`]; which ones they are
//! comes from [`crate::task_support`].

use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, ErrorCode,
    RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use rmcp::RoleClient;
use serde_json::{Map, Value};
use toolscope_engine::types::ToolInfo;
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure, WireCall};

use crate::oauth::OAuthError;
use crate::result::into_value;
use crate::sources::Source;
use crate::task_support::{refused_as_plain_call, TaskMode};
use crate::tasks::{call_as_task, TaskError};

pub(crate) struct McpTool {
    pub(crate) source: Arc<Source>,
    pub(crate) info: ToolInfo,
}

impl Tool for McpTool {
    fn info(&self) -> ToolInfo {
        self.info.clone()
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let (connection, mcp_name) = self.source.route(method)?;
            let outcome = self
                .call_on(Arc::clone(&connection), mcp_name, args, ctx)
                .await;
            // Read after the call: a refresh during it replaced the token a server may echo.
            let secrets = connection.redactor().await;
            outcome
                .map(|value| secrets.redact_value(value))
                .map_err(|failure| secrets.redact_failure(failure))
        })
    }

    /// The `tools/call` request under the server's own tool name, as MCP Inspector or a test
    /// script would send it; the arguments are the person's own, nothing to redact.
    fn wire_call(
        &self,
        method: &str,
        args: &Map<String, Value>,
    ) -> Result<Option<WireCall>, ToolFailure> {
        let name = self
            .source
            .original_name(method)
            .ok_or_else(|| ToolFailure::UnknownMethod(method.to_owned()))?;
        Ok(Some(WireCall::JsonRpc {
            message: serde_json::json!({
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": args},
            }),
        }))
    }
}

/// How one attempt at a call ended: a failure, or the server refusing it (401, or 403 for
/// lack of scope), which a sign-in may answer.
enum Attempt {
    Failed(ToolFailure),
    Refused(ServiceError),
}

impl From<ToolFailure> for Attempt {
    fn from(failure: ToolFailure) -> Self {
        Self::Failed(failure)
    }
}

impl McpTool {
    /// The `tools/call` itself, sent once more after a sign-in when the server refuses it;
    /// [`Tool::call`] redacts what comes back.
    async fn call_on(
        &self,
        connection: Arc<crate::connection::Connection>,
        mcp_name: String,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> Result<Value, ToolFailure> {
        let again = connection.can_sign_in().then(|| args.clone());
        let seen = connection.sign_ins().await;
        let refused = match self.attempt(&connection, &mcp_name, args, &ctx).await {
            Ok(value) => return Ok(value),
            Err(Attempt::Failed(failure)) => return Err(failure),
            Err(Attempt::Refused(error)) => error,
        };
        let (Some(args), Some(answer)) = (again, connection.answer_refusal(&refused, seen).await)
        else {
            return Err(self.source.call_failure(refused));
        };
        if let Err(OAuthError::SignInRequired(why)) = answer {
            let message = format!(
                "MCP server '{}' refused the call: {why}; sign in to it in Sources",
                self.source.config.name
            );
            self.source.require_sign_in(why);
            return Err(ToolFailure::Transport(message));
        }
        if let Err(e) = answer {
            return Err(ToolFailure::Transport(format!(
                "MCP server '{}' refused the call until signed in, and signing in failed: {e}",
                self.source.config.name
            )));
        }
        match self.attempt(&connection, &mcp_name, args, &ctx).await {
            Ok(value) => Ok(value),
            Err(Attempt::Failed(failure)) => Err(failure),
            Err(Attempt::Refused(error)) => Err(self.source.call_failure(error)),
        }
    }

    /// A refusal a sign-in may answer, or the failure it is.
    fn refusal_or_failure(&self, error: ServiceError) -> Attempt {
        if error.auth_challenge().is_some() {
            Attempt::Refused(error)
        } else {
            Attempt::Failed(self.source.call_failure(error))
        }
    }

    async fn attempt(
        &self,
        connection: &crate::connection::Connection,
        mcp_name: &str,
        args: Map<String, Value>,
        ctx: &CallContext,
    ) -> Result<Value, Attempt> {
        let mode = connection.wire.mode(mcp_name);
        if mode == TaskMode::Task {
            return self.as_task(connection, mcp_name, args, ctx).await;
        }
        // Kept only where a refusal may mean "call me as a task" (see `task_support`).
        let retry_args = (mode == TaskMode::Unknown).then(|| args.clone());
        let params = CallToolRequestParams::new(mcp_name.to_owned()).with_arguments(args);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = connection
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.refusal_or_failure(e))?;
        let progress = connection.progress.open(handle.progress_token.clone(), ctx);
        let mut abandoned = AbandonGuard::new(handle.peer.clone(), handle.id.clone());
        let response = handle.await_response().await;
        abandoned.disarm();
        if let Some(progress) = progress {
            progress.settle().await;
        }
        match response {
            Ok(ServerResult::CallToolResult(result))
                if retry_args.is_some() && refused_as_plain_call(&result) =>
            {
                let args = retry_args.unwrap_or_default();
                self.as_task(connection, mcp_name, args, ctx).await
            }
            Ok(ServerResult::CallToolResult(result)) => Ok(into_value(result)?),
            Ok(other) => Err(Attempt::Failed(ToolFailure::Failed(format!(
                "the server answered tools/call with something else: {}",
                serde_json::to_string(&other).unwrap_or_default()
            )))),
            Err(ServiceError::McpError(error))
                if error.code == ErrorCode::METHOD_NOT_FOUND && retry_args.is_some() =>
            {
                let args = retry_args.unwrap_or_default();
                self.as_task(connection, mcp_name, args, ctx).await
            }
            Err(e) => Err(self.refusal_or_failure(e)),
        }
    }

    async fn as_task(
        &self,
        connection: &crate::connection::Connection,
        mcp_name: &str,
        args: Map<String, Value>,
        ctx: &CallContext,
    ) -> Result<Value, Attempt> {
        match call_as_task(connection, mcp_name, args, ctx).await {
            Ok(result) => Ok(into_value(result)?),
            Err(TaskError::Refused(e)) => Err(Attempt::Refused(e)),
            Err(TaskError::Service(e)) => Err(Attempt::Failed(self.source.call_failure(e))),
            Err(TaskError::Failed(message)) => Err(Attempt::Failed(ToolFailure::Failed(message))),
        }
    }
}

/// Sends `notifications/cancelled` if a request is dropped before its response arrived.
pub(crate) struct AbandonGuard {
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

impl AbandonGuard {
    pub(crate) fn new(peer: Peer<RoleClient>, id: RequestId) -> Self {
        Self {
            peer: Some(peer),
            id,
        }
    }

    /// The response arrived: nothing to cancel.
    pub(crate) fn disarm(&mut self) {
        self.peer = None;
    }
}

impl Drop for AbandonGuard {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else { return };
        let params = CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some("cancelled in Toolscope".to_owned()),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(params).await;
            });
        }
    }
}

/// How a failed request reads, with what the server printed last when it went away.
pub(crate) fn describe(error: &ServiceError) -> (bool, String) {
    match error {
        ServiceError::McpError(data) => (
            false,
            format!(
                "the server refused the call: {} (code {})",
                data.message, data.code.0
            ),
        ),
        ServiceError::TransportClosed => (
            true,
            "the connection to the server closed during the call".to_owned(),
        ),
        ServiceError::TransportSend(e) => (true, format!("the request could not be sent: {e}")),
        ServiceError::Cancelled { reason } => (
            false,
            format!(
                "the request was cancelled{}",
                reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
        ),
        ServiceError::Timeout { timeout } => (
            false,
            format!("no answer within {} ms", timeout.as_millis()),
        ),
        other => (true, other.to_string()),
    }
}
