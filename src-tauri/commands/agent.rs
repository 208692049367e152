//! Agent commands: endpoint profiles, a live conversation streamed over a per-run channel (with
//! confirmations answered by `agent_confirm`, stopped by `cancel_run`), and the recorded
//! conversations: list, open, delete, replay, export a turn.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::State;
use tokio::sync::oneshot;
use toolscope_engine::agent::record::{ConversationSummary, LoadedConversation};
use toolscope_engine::agent::replay::{replay, ReplayError, ReplayedTurn};
#[cfg(test)]
use toolscope_engine::agent::Record;
use toolscope_engine::agent::{
    select_tools, Agent, AgentError, AgentEvent, AgentSettings, Confirmer, Decision, StopReason,
    Usage,
};
use toolscope_engine::executor::{ConfirmationRequest, Executor, ExecutorOptions};
use toolscope_engine::BoxFuture;
use toolscope_llm::model::EndpointModel;
use toolscope_llm::profiles::{KeySource, Profile};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

/// A profile as the Agent pane shows it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct EndpointProfile {
    pub name: String,
    /// `openai_chat`, `openai_responses`, `anthropic`, `gemini`.
    pub wire: String,
    pub base_url: String,
    pub model: String,
    /// Where the key comes from: `none`, `env`, `stored`.
    pub key_source: String,
    /// The variable, for `env`.
    pub key_env: Option<String>,
}

/// What a live conversation reports.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentRunEvent {
    /// The conversation's record was created.
    Started {
        conversation_id: String,
    },
    Agent {
        event: AgentEvent,
    },
    /// A call waits for `agent_confirm` with this id.
    ConfirmationNeeded {
        confirmation_id: String,
        turn: u32,
        request: ConfirmationRequest,
    },
}

/// How a live conversation ended.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AgentRunSummary {
    pub conversation_id: Option<String>,
    pub reason: StopReason,
    pub turns: u32,
    pub tool_calls: u32,
    pub usage: Usage,
    pub record_errors: Vec<String>,
}

fn model_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::Model, error.to_string())
}

fn input_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, error.to_string())
}

#[tauri::command]
#[specta::specta]
pub async fn endpoint_profiles(
    state: State<'_, AppState>,
) -> Result<Vec<EndpointProfile>, CommandError> {
    let profiles = state.profiles()?.list().map_err(input_error)?;
    Ok(profiles.into_iter().map(view).collect())
}

fn view(profile: Profile) -> EndpointProfile {
    let (key_source, key_env) = match profile.key {
        KeySource::None => ("none", None),
        KeySource::Env { var } => ("env", Some(var)),
        KeySource::Stored => ("stored", None),
    };
    EndpointProfile {
        name: profile.name,
        wire: serde_json::to_value(profile.wire)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        base_url: profile.base_url,
        model: profile.model,
        key_source: key_source.to_owned(),
        key_env,
    }
}

/// Saves a profile; `key`, when given, is kept in the owner-only key file (never in the
/// profile) and the profile then uses it.
#[tauri::command]
#[specta::specta]
pub async fn endpoint_save(
    state: State<'_, AppState>,
    profile: EndpointProfile,
    key: Option<String>,
) -> Result<(), CommandError> {
    let store = state.profiles()?;
    let wire = serde_json::from_value(serde_json::Value::String(profile.wire.clone()))
        .map_err(|_| input_error(format!("unknown wire '{}'", profile.wire)))?;
    let source = match (key.as_deref().map(str::trim), profile.key_source.as_str()) {
        (Some(key), _) if !key.is_empty() => {
            store.store_key(&profile.name, key).map_err(input_error)?;
            KeySource::Stored
        }
        (_, "env") => KeySource::Env {
            var: profile.key_env.clone().unwrap_or_default(),
        },
        (_, "stored") => KeySource::Stored,
        _ => KeySource::None,
    };
    store
        .save(Profile {
            name: profile.name,
            wire,
            base_url: profile.base_url,
            model: profile.model,
            key: source,
            idle_timeout_s: 60,
        })
        .map_err(input_error)
}

#[tauri::command]
#[specta::specta]
pub async fn endpoint_remove(state: State<'_, AppState>, name: String) -> Result<(), CommandError> {
    state.profiles()?.remove(&name).map_err(input_error)
}

/// "Test connection": the models the endpoint serves.
#[tauri::command]
#[specta::specta]
pub async fn endpoint_test(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<String>, CommandError> {
    let endpoint = state.profiles()?.endpoint(&name).map_err(input_error)?;
    let model = EndpointModel::new(endpoint).map_err(model_error)?;
    model.list_models().await.map_err(model_error)
}

/// Asks the UI through the run's channel and waits for `agent_confirm`.
struct ChannelConfirmer {
    channel: Channel<AgentRunEvent>,
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<Decision>>>>,
}

impl Confirmer for ChannelConfirmer {
    fn decide<'a>(
        &'a self,
        turn: u32,
        request: &'a ConfirmationRequest,
    ) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let confirmation_id = uuid::Uuid::new_v4().to_string();
            let (answer, answered) = oneshot::channel();
            lock(&self.pending).insert(confirmation_id.clone(), answer);
            let asked = self.channel.send(AgentRunEvent::ConfirmationNeeded {
                confirmation_id: confirmation_id.clone(),
                turn,
                request: request.clone(),
            });
            // The loop stops waiting when the run is cancelled; a dropped sender means the same.
            let decision = match asked {
                Err(_) => Decision::Stop,
                Ok(()) => answered.await.unwrap_or(Decision::Stop),
            };
            lock(&self.pending).remove(&confirmation_id);
            decision
        })
    }
}

/// Runs a conversation with the profile's endpoint and the enabled tools (or only `tools`,
/// routing names or tool ids). `run_id` is what `cancel_run` takes.
#[tauri::command]
#[specta::specta]
pub async fn agent_start(
    state: State<'_, AppState>,
    profile: String,
    task: String,
    settings: AgentSettings,
    tools: Option<Vec<String>>,
    run_id: String,
    on_event: Channel<AgentRunEvent>,
) -> Result<AgentRunSummary, CommandError> {
    let conversation = Conversation {
        profile: &profile,
        task: &task,
        settings: &settings,
        tools: tools.as_deref(),
    };
    run_conversation(&state, conversation, &run_id, &on_event).await
}

/// What `agent_start` was asked to run.
pub(crate) struct Conversation<'a> {
    pub profile: &'a str,
    pub task: &'a str,
    pub settings: &'a AgentSettings,
    pub tools: Option<&'a [String]>,
}

pub(crate) async fn run_conversation(
    state: &AppState,
    conversation: Conversation<'_>,
    run_id: &str,
    on_event: &Channel<AgentRunEvent>,
) -> Result<AgentRunSummary, CommandError> {
    let Conversation {
        profile,
        task,
        settings,
        tools,
    } = conversation;
    let endpoint = state.profiles()?.endpoint(profile).map_err(input_error)?;
    let secret = endpoint.api_key.clone();
    let model = EndpointModel::new(endpoint).map_err(model_error)?;
    let history = state.history()?;
    let offered = select_tools(
        state.discovery.enabled_tools(&state.config()),
        tools.unwrap_or_default(),
    )
    .map_err(|unknown| input_error(format!("no enabled tool or method '{unknown}'")))?;
    let run = state.begin_run(run_id)?;
    let secrets: Vec<&str> = secret.iter().map(String::as_str).collect();
    let log = state
        .conversations()?
        .create(&secrets)
        .map_err(|e| CommandError::new(CommandErrorKind::History, e.to_string()))?;
    let _ = on_event.send(AgentRunEvent::Started {
        conversation_id: log.id().to_owned(),
    });
    let protocols = state.protocols();
    let executor = Executor::new(
        state.registry.clone(),
        ExecutorOptions::from(&state.config()),
    );
    let confirmer = ChannelConfirmer {
        channel: on_event.clone(),
        pending: Arc::clone(&state.agent_confirmations),
    };
    let channel = on_event.clone();
    let observer = move |event: &AgentEvent| {
        let _ = channel.send(AgentRunEvent::Agent {
            event: event.clone(),
        });
    };
    let agent = Agent {
        model: &model,
        protocols: &protocols,
        executor: &executor,
        tools: &offered,
        confirmer: &confirmer,
        history: Some(&history),
        log: Some(&log),
        observer: &observer,
    };
    let outcome = agent.run(task, settings, &run.token).await.map_err(|e| {
        let kind = match e {
            AgentError::Format(_) => CommandErrorKind::UnknownFormat,
            AgentError::NativeTools { .. } => CommandErrorKind::Internal,
        };
        CommandError::new(kind, e.to_string())
    })?;
    Ok(AgentRunSummary {
        conversation_id: outcome.conversation_id,
        reason: outcome.reason,
        turns: outcome.turns,
        tool_calls: outcome.tool_calls,
        usage: outcome.usage,
        record_errors: outcome.record_errors,
    })
}

/// Answers a `confirmation_needed` event; false when nobody is waiting for it any more.
#[tauri::command]
#[specta::specta]
pub async fn agent_confirm(
    state: State<'_, AppState>,
    confirmation_id: String,
    decision: Decision,
) -> Result<bool, CommandError> {
    Ok(answer(&state, &confirmation_id, decision))
}

pub(crate) fn answer(state: &AppState, confirmation_id: &str, decision: Decision) -> bool {
    let waiting = lock(&state.agent_confirmations).remove(confirmation_id);
    waiting.is_some_and(|answer| answer.send(decision).is_ok())
}

fn stored(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::History, error.to_string())
}

/// Recorded conversations, newest first; `query` filters by task and model.
#[tauri::command]
#[specta::specta]
pub async fn conversations_list(
    state: State<'_, AppState>,
    query: Option<String>,
) -> Result<Vec<ConversationSummary>, CommandError> {
    state
        .conversations()?
        .list(query.as_deref().unwrap_or_default())
        .map_err(stored)
}

#[tauri::command]
#[specta::specta]
pub async fn conversation_load(
    state: State<'_, AppState>,
    id: String,
) -> Result<LoadedConversation, CommandError> {
    state.conversations()?.load(&id).map_err(stored)
}

#[tauri::command]
#[specta::specta]
pub async fn conversation_delete(
    state: State<'_, AppState>,
    id: String,
) -> Result<(), CommandError> {
    state.conversations()?.delete(&id).map_err(stored)
}

/// Each recorded reply read again by today's parsers (no model involved).
#[tauri::command]
#[specta::specta]
pub async fn conversation_replay(
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<ReplayedTurn>, CommandError> {
    let conversation = state.conversations()?.load(&id).map_err(stored)?;
    replay(&conversation, &state.protocols()).map_err(|e| {
        let kind = match e {
            ReplayError::NoStart => CommandErrorKind::InvalidInput,
            ReplayError::Format(_) => CommandErrorKind::UnknownFormat,
        };
        CommandError::new(kind, e.to_string())
    })
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod tests;
