//! The client side of one connection: what Toolscope declares in `initialize`, and its answers
//! to what the server sends on its own (notifications, and the requests a server may make
//! while it works: `elicitation/create`, `roots/list`, `sampling/createMessage`).
//!
//! Everything a server asks and what Toolscope answered goes into the server's log too, so the
//! Sources pane shows why a tool behaved as it did ("declined: ..." next to its own output).

// Roots, sampling and logging are deprecated upstream (SEP-2577), but servers still use them.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorCode,
    FormElicitationCapability, Implementation, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProtocolVersion, Root, RootsCapabilities, SamplingCapability,
    SamplingMessage,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::Value;

use crate::elicitation::check_answer;
use crate::interaction::{ClientHooks, ElicitAction, ElicitationAnswer, ElicitationRequest};
use crate::progress::ProgressRoutes;
use crate::sampling::{read_request, SamplingFailure};
use crate::server_log::ServerLog;

/// The `_meta` key that ties a server's request to a task (MCP 2025-11-25 tasks).
pub(crate) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The error code MCP's sampling section uses for a request the client will not serve.
const SAMPLING_REFUSED: ErrorCode = ErrorCode(-1);

/// Receives what the server sends on its own.
#[derive(Clone)]
pub(crate) struct Handler {
    /// The configured name, shown to the person with anything the server asks.
    pub(crate) server: String,
    pub(crate) progress: Arc<ProgressRoutes>,
    pub(crate) log: Arc<ServerLog>,
    pub(crate) list_changed: Arc<dyn Fn() + Send + Sync>,
    pub(crate) hooks: ClientHooks,
}

impl Handler {
    fn note(&self, line: String) {
        self.log.push(format!("[toolscope] {line}"));
    }

    /// The person's answer as MCP's result; an `accept` whose values do not satisfy the
    /// requested schema is not sent (the server would get data it did not ask for).
    fn to_result(&self, answer: ElicitationAnswer, schema: &Value) -> ElicitResult {
        match answer.action {
            ElicitAction::Accept => {
                let content = answer.content.unwrap_or_default();
                match check_answer(schema, &content) {
                    Ok(()) => {
                        self.note("elicitation accepted".into());
                        ElicitResult::new(ElicitationAction::Accept)
                            .with_content(Value::Object(content))
                    }
                    Err(e) => {
                        self.note(format!("elicitation declined: {e}"));
                        ElicitResult::new(ElicitationAction::Decline)
                    }
                }
            }
            ElicitAction::Decline => {
                self.note("elicitation declined".into());
                ElicitResult::new(ElicitationAction::Decline)
            }
            ElicitAction::Cancel => {
                self.note("elicitation cancelled".into());
                ElicitResult::new(ElicitationAction::Cancel)
            }
        }
    }
}

/// The task a server's request belongs to, from its `_meta` (wherever rmcp put it).
fn related_task(context: &RequestContext<RoleClient>) -> Option<String> {
    context
        .meta
        .get(RELATED_TASK)
        .and_then(|task| task.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        p: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(p);
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        (self.list_changed)();
    }

    async fn on_logging_message(
        &self,
        p: LoggingMessageNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let data = match &p.data {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let logger = p
            .logger
            .as_deref()
            .map(|l| format!(" {l}"))
            .unwrap_or_default();
        self.log
            .push(format!("[log {:?}{logger}] {data}", p.level).to_lowercase());
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let task_id = related_task(&context);
        match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let schema = serde_json::to_value(&requested_schema)
                    .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
                self.note(format!("the server asks for input: {message}"));
                let request = ElicitationRequest {
                    server: self.server.clone(),
                    message,
                    requested_schema: schema.clone(),
                    task_id,
                };
                let answer = self
                    .hooks
                    .elicitor
                    .elicit(request, context.ct.clone())
                    .await;
                Ok(self.to_result(answer, &schema))
            }
            // Toolscope declares form mode only; a URL would send the person to a site.
            ElicitRequestParams::UrlElicitationParams { url, .. } => {
                self.note(format!(
                    "declined a URL elicitation ({url}): Toolscope supports form mode only"
                ));
                Ok(ElicitResult::new(ElicitationAction::Decline))
            }
            _ => {
                self.note("declined an elicitation of a mode Toolscope does not know".into());
                Ok(ElicitResult::new(ElicitationAction::Decline))
            }
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots: Vec<Root> = (self.hooks.roots)()
            .into_iter()
            .map(|root| {
                let uri = Root::new(root.uri());
                match root.name {
                    Some(name) => uri.with_name(name),
                    None => uri,
                }
            })
            .collect();
        self.note(format!(
            "roots/list answered with {}",
            roots
                .iter()
                .map(|r| r.uri.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok(ListRootsResult::new(roots))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let answer = match read_request(&self.server, params, related_task(&context)) {
            Ok(request) => {
                self.note(format!(
                    "the server asks for a model reply ({} message(s), up to {} tokens)",
                    request.messages.len(),
                    request.max_tokens
                ));
                let sampler = (self.hooks.sampler)();
                sampler.sample(request, context.ct.clone()).await
            }
            Err(refused) => Err(refused),
        };
        match answer {
            Ok(message) => {
                self.note(format!(
                    "sampling answered by model '{}' ({} characters, stop: {})",
                    message.model,
                    message.text.chars().count(),
                    message.stop_reason.as_deref().unwrap_or("not given")
                ));
                let reply = CreateMessageResult::new(
                    SamplingMessage::assistant_text(message.text),
                    message.model,
                );
                Ok(match message.stop_reason {
                    Some(reason) => reply.with_stop_reason(reason),
                    None => reply,
                })
            }
            Err(SamplingFailure::Refused(reason)) => {
                self.note(format!("declined a sampling request: {reason}"));
                Err(ErrorData::new(SAMPLING_REFUSED, reason, None))
            }
            Err(SamplingFailure::Failed(reason)) => {
                self.note(format!("sampling failed: {reason}"));
                Err(ErrorData::internal_error(reason, None))
            }
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            capabilities(),
            Implementation::new("toolscope", env!("CARGO_PKG_VERSION")).with_title("Toolscope"),
        )
        // The newest revision Toolscope implements, not rmcp's newest (2026-07-28): a client
        // offers what it speaks, and Toolscope follows 2025-11-25's tasks and `initialize`
        // lifecycle, not the 2026-07-28 tasks extension or its handshake-less lifecycle
        // (see `tasks`). A server that speaks 2026-07-28 answers with an older revision.
        .with_protocol_version(PROTOCOL_VERSION)
    }
}

/// The protocol revision offered in `initialize`.
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// Form elicitation, roots and sampling. Sampling is declared even when no endpoint is chosen
/// for it: a server then offers its sampling features and hears why they fail, instead of
/// hiding them from the person who came to debug them.
fn capabilities() -> ClientCapabilities {
    let mut elicitation = ElicitationCapability::new();
    elicitation.form = Some(FormElicitationCapability::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(elicitation);
    capabilities.roots = Some(RootsCapabilities::default());
    capabilities.sampling = Some(SamplingCapability::default());
    capabilities
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declares_form_elicitation_roots_and_sampling() {
        let value = serde_json::to_value(capabilities()).expect("serialises");
        assert_eq!(
            value,
            serde_json::json!({"roots": {}, "sampling": {}, "elicitation": {"form": {}}})
        );
    }
}
