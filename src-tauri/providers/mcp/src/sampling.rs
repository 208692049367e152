//! `sampling/createMessage`: a server asks the client's model to write a message.
//!
//! MCP keeps the person in the loop: the client shows the request, may refuse it, and chooses
//! the model. Here a request is read into a [`SamplingRequest`] (text messages only; what
//! Toolscope cannot send faithfully is refused with the reason, never half-sent), and a
//! [`Sampler`] answers it. [`DeclineSampling`] refuses every request (no endpoint chosen);
//! [`ModelSampler`] asks a [`SamplingConsent`] (the CLI's `--yes`, the app's dialog) and sends
//! approved requests to one of the endpoint profiles the agent loop uses, through the engine's
//! [`ModelClient`], so the provider never depends on a vendor's wire.
//!
//! Deliberate differences from the spec's wording, written down in `docs/mcp-during-a-call.md`:
//! `includeContext` is shown but adds nothing (Toolscope does not declare `sampling.context`),
//! `modelPreferences` are shown while the configured profile's model answers, and stop
//! sequences are shown but not sent (endpoint requests carry no stop list yet).

// Sampling is deprecated upstream (SEP-2577), but servers still use it.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    ContextInclusion, CreateMessageRequestParams, Role, SamplingContent,
    SamplingMessageContentBlock,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;
use toolscope_engine::agent::{Message, ModelClient, ModelRequest, RequestOptions};
use toolscope_engine::BoxFuture;

/// What a server sees when no model endpoint was chosen for sampling.
pub const SAMPLING_DECLINED: &str = "Toolscope declined sampling/createMessage: no model \
     endpoint is configured for MCP sampling, so this server cannot have a model write \
     through Toolscope";

/// A server's sampling request as the person reviews it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SamplingRequest {
    /// The configured name of the server that asks.
    pub server: String,
    pub system_prompt: Option<String>,
    pub messages: Vec<SamplingTurn>,
    pub max_tokens: u32,
    pub temperature: Option<f64>,
    /// Shown, not sent (see the module docs).
    pub stop_sequences: Vec<String>,
    /// The model names the server would prefer, best first (`modelPreferences.hints`).
    pub model_hints: Vec<String>,
    /// `thisServer` or `allServers` when the server asked for context Toolscope does not add.
    pub include_context: Option<String>,
    /// The task the request belongs to, when the server sent it for a task-augmented call.
    pub task_id: Option<String>,
}

/// One message of the conversation the server wants continued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SamplingTurn {
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
}

/// What the model wrote, as the server receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampledMessage {
    pub model: String,
    pub text: String,
    /// MCP's `endTurn`, `maxTokens`, `stopSequence`, or the endpoint's own word.
    pub stop_reason: Option<String>,
}

/// Why a request got no message; the server hears the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SamplingFailure {
    /// The person, or Toolscope on their behalf, said no (MCP's code -1).
    #[error("{0}")]
    Refused(String),
    /// The model endpoint failed (an internal error to the server).
    #[error("{0}")]
    Failed(String),
}

/// Answers sampling requests for every connection of a source set.
pub trait Sampler: Send + Sync {
    fn sample(
        &self,
        request: SamplingRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<SampledMessage, SamplingFailure>>;
}

/// Refuses every request with one reason: by default that no model endpoint was chosen for
/// sampling ([`SAMPLING_DECLINED`]), or why the chosen one cannot be used.
#[derive(Debug, Clone)]
pub struct DeclineSampling {
    reason: String,
}

impl DeclineSampling {
    pub fn because(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

impl Default for DeclineSampling {
    fn default() -> Self {
        Self::because(SAMPLING_DECLINED)
    }
}

impl Sampler for DeclineSampling {
    fn sample(
        &self,
        _: SamplingRequest,
        _: CancellationToken,
    ) -> BoxFuture<'_, Result<SampledMessage, SamplingFailure>> {
        Box::pin(async { Err(SamplingFailure::Refused(self.reason.clone())) })
    }
}

/// The endpoint that would answer, shown with the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SamplingEndpoint {
    /// The endpoint profile's name.
    pub profile: String,
    pub model: String,
    pub base_url: String,
}

/// Asks the person whether this request may go to this endpoint. `cancel` fires when the
/// server withdraws the request; the answer then goes nowhere.
pub trait SamplingConsent: Send + Sync {
    fn approve(
        &self,
        request: &SamplingRequest,
        endpoint: &SamplingEndpoint,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, bool>;
}

/// Sends approved requests to a model endpoint.
pub struct ModelSampler {
    model: Arc<dyn ModelClient>,
    endpoint: SamplingEndpoint,
    consent: Arc<dyn SamplingConsent>,
}

impl ModelSampler {
    pub fn new(
        profile: impl Into<String>,
        model: Arc<dyn ModelClient>,
        consent: Arc<dyn SamplingConsent>,
    ) -> Self {
        let info = model.info();
        Self {
            endpoint: SamplingEndpoint {
                profile: profile.into(),
                model: info.model,
                base_url: info.base_url,
            },
            model,
            consent,
        }
    }

    async fn answer(
        &self,
        request: SamplingRequest,
        cancel: CancellationToken,
    ) -> Result<SampledMessage, SamplingFailure> {
        if !self
            .consent
            .approve(&request, &self.endpoint, cancel.clone())
            .await
        {
            return Err(SamplingFailure::Refused(format!(
                "the person using Toolscope refused to send this sampling request to model \
                 '{}' (profile '{}')",
                self.endpoint.model, self.endpoint.profile
            )));
        }
        let messages: Vec<Message> = request
            .messages
            .iter()
            .map(|turn| match turn.role.as_str() {
                "assistant" => Message::Assistant {
                    text: turn.text.clone(),
                    calls: Vec::new(),
                },
                _ => Message::User {
                    text: turn.text.clone(),
                },
            })
            .collect();
        let options = RequestOptions {
            temperature: request.temperature,
            max_tokens: Some(request.max_tokens),
            ..RequestOptions::default()
        };
        let model_request = ModelRequest {
            system: request.system_prompt.as_deref(),
            messages: &messages,
            tools: None,
            options: &options,
        };
        let reply = self
            .model
            .send(model_request, &cancel, &mut |_| {})
            .await
            .map_err(|e| {
                SamplingFailure::Failed(format!(
                    "the model endpoint (profile '{}') failed: {e}",
                    self.endpoint.profile
                ))
            })?;
        Ok(SampledMessage {
            model: self.endpoint.model.clone(),
            text: reply.text,
            stop_reason: reply.finish_reason.as_deref().map(stop_reason),
        })
    }
}

impl Sampler for ModelSampler {
    fn sample(
        &self,
        request: SamplingRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<SampledMessage, SamplingFailure>> {
        Box::pin(self.answer(request, cancel))
    }
}

/// Each wire's finish reason in MCP's words, where MCP has one.
fn stop_reason(finish: &str) -> String {
    match finish {
        "stop" | "end_turn" | "STOP" | "completed" => "endTurn".into(),
        "length" | "max_tokens" | "MAX_TOKENS" | "max_output_tokens" => "maxTokens".into(),
        "stop_sequence" => "stopSequence".into(),
        other => other.to_owned(),
    }
}

/// Reads a request, or says why Toolscope cannot send it faithfully.
pub fn read_request(
    server: &str,
    params: CreateMessageRequestParams,
    task_id: Option<String>,
) -> Result<SamplingRequest, SamplingFailure> {
    if params.tools.as_ref().is_some_and(|tools| !tools.is_empty()) {
        return Err(SamplingFailure::Refused(
            "Toolscope did not declare sampling.tools and does not send tools to the model \
             in sampling requests"
                .into(),
        ));
    }
    let mut messages = Vec::with_capacity(params.messages.len());
    for (index, message) in params.messages.into_iter().enumerate() {
        let role = match message.role {
            Role::Assistant => "assistant",
            _ => "user",
        };
        let blocks = match message.content {
            SamplingContent::Single(block) => vec![block],
            SamplingContent::Multiple(blocks) => blocks,
        };
        let mut text = Vec::with_capacity(blocks.len());
        for block in blocks {
            match block {
                SamplingMessageContentBlock::Text(t) => text.push(t.text),
                other => {
                    return Err(SamplingFailure::Refused(format!(
                        "Toolscope sends text only to the model; message {} holds {} content",
                        index + 1,
                        block_kind(&other)
                    )))
                }
            }
        }
        messages.push(SamplingTurn {
            role: role.to_owned(),
            text: text.join("\n"),
        });
    }
    if messages.is_empty() {
        return Err(SamplingFailure::Refused(
            "the sampling request has no messages".into(),
        ));
    }
    let include_context = match params.include_context {
        Some(ContextInclusion::ThisServer) => Some("thisServer".to_owned()),
        Some(ContextInclusion::AllServers) => Some("allServers".to_owned()),
        _ => None,
    };
    Ok(SamplingRequest {
        server: server.to_owned(),
        system_prompt: params.system_prompt.filter(|s| !s.is_empty()),
        messages,
        max_tokens: params.max_tokens,
        temperature: params.temperature.map(f64::from),
        stop_sequences: params.stop_sequences.unwrap_or_default(),
        model_hints: params
            .model_preferences
            .and_then(|p| p.hints)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|hint| hint.name)
            .collect(),
        include_context,
        task_id,
    })
}

fn block_kind(block: &SamplingMessageContentBlock) -> &'static str {
    match block {
        SamplingMessageContentBlock::Text(_) => "text",
        SamplingMessageContentBlock::Image(_) => "image",
        SamplingMessageContentBlock::Audio(_) => "audio",
        SamplingMessageContentBlock::ToolUse(_) => "tool_use",
        SamplingMessageContentBlock::ToolResult(_) => "tool_result",
        _ => "unknown",
    }
}

/// The request in a few lines for a terminal or a log: who asks, what, and the last message.
pub fn describe(request: &SamplingRequest, endpoint: Option<&SamplingEndpoint>) -> String {
    let mut lines = vec![format!(
        "MCP server '{}' asks for a model reply (sampling/createMessage: {} message(s), up to \
         {} tokens)",
        request.server,
        request.messages.len(),
        request.max_tokens
    )];
    if let Some(endpoint) = endpoint {
        lines.push(format!(
            "  would be answered by: {} at {} (profile '{}')",
            endpoint.model, endpoint.base_url, endpoint.profile
        ));
    }
    if let Some(system) = &request.system_prompt {
        lines.push(format!("  system: {}", first_line(system)));
    }
    for turn in &request.messages {
        lines.push(format!("  {}: {}", turn.role, first_line(&turn.text)));
    }
    if !request.model_hints.is_empty() {
        lines.push(format!(
            "  preferred models (not followed): {}",
            request.model_hints.join(", ")
        ));
    }
    if let Some(context) = &request.include_context {
        lines.push(format!("  includeContext {context}: no context is added"));
    }
    if !request.stop_sequences.is_empty() {
        lines.push(format!(
            "  stop sequences (not sent): {:?}",
            request.stop_sequences
        ));
    }
    lines.join("\n")
}

/// A message's first line, cut to 200 characters, marked when anything was left out.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let cut: String = line.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut} …")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: serde_json::Value) -> CreateMessageRequestParams {
        serde_json::from_value(value).expect("valid sampling params")
    }

    #[test]
    fn reads_text_messages_and_what_is_not_followed() {
        let request = read_request(
            "srv",
            params(json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Hi"}},
                    {"role": "assistant", "content": [{"type": "text", "text": "Hello"},
                                                      {"type": "text", "text": "there"}]},
                ],
                "systemPrompt": "Be brief",
                "maxTokens": 50,
                "temperature": 0.5,
                "stopSequences": ["END"],
                "includeContext": "thisServer",
                "modelPreferences": {"hints": [{"name": "claude-3"}], "speedPriority": 0.5},
            })),
            Some("t-1".into()),
        )
        .expect("readable");
        assert_eq!(request.messages[1].text, "Hello\nthere");
        assert_eq!(request.messages[1].role, "assistant");
        assert_eq!(request.model_hints, vec!["claude-3".to_owned()]);
        assert_eq!(request.include_context.as_deref(), Some("thisServer"));
        assert_eq!(request.temperature, Some(0.5));
        let shown = describe(&request, None);
        assert!(shown.contains("system: Be brief"), "{shown}");
        assert!(shown.contains("stop sequences (not sent)"), "{shown}");
    }

    #[test]
    fn refuses_what_it_cannot_send_faithfully() {
        let image = read_request(
            "srv",
            params(json!({
                "messages": [{"role": "user", "content": {"type": "image", "data": "AA==",
                                                          "mimeType": "image/png"}}],
                "maxTokens": 5,
            })),
            None,
        );
        assert_eq!(
            image,
            Err(SamplingFailure::Refused(
                "Toolscope sends text only to the model; message 1 holds image content".into()
            ))
        );
        let empty = read_request("srv", params(json!({"messages": [], "maxTokens": 5})), None);
        assert!(
            matches!(empty, Err(SamplingFailure::Refused(_))),
            "{empty:?}"
        );
    }

    #[test]
    fn finish_reasons_use_mcps_words() {
        assert_eq!(stop_reason("stop"), "endTurn");
        assert_eq!(stop_reason("max_tokens"), "maxTokens");
        assert_eq!(stop_reason("MAX_TOKENS"), "maxTokens");
        assert_eq!(stop_reason("content_filter"), "content_filter");
    }
}
