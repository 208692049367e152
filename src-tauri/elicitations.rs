//! What MCP servers ask the person while a call runs, in the app.
//!
//! A server's `elicitation/create` becomes a pending elicitation here and the app tells the UI
//! with the `elicitations-changed` event; the UI reads them with `elicitations_pending`, shows
//! a form built from the requested schema, and answers with `answer_elicitation` (the same
//! shape as a call's confirmation: a signal, then a command that answers and wakes the waiting
//! call). Pending ones are read rather than carried in the event, so a form opened late (a
//! pane mounted after the event) still sees what waits. When the server withdraws a request
//! (its call was cancelled), it leaves the list and the form closes on the next read.
//!
//! Sampling: a server's `sampling/createMessage` goes to the endpoint profile chosen for it
//! (`Settings.sampling_profile`), and only after the person approves it. The approval waits
//! here like an elicitation with no fields (`PendingElicitation.sampling` carries what to
//! review), so one dialog, one event and one answer command serve both; accepting sends the
//! request to the model. With no profile chosen, or one that cannot be used, the server hears
//! why it was declined.
//!
//! Roots: the app has no workspace directory setting yet, so servers are offered the person's
//! home directory, read on every `roots/list`; a setting would replace [`roots`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde::Serialize;
use serde_json::json;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use toolscope_engine::BoxFuture;
use toolscope_llm::model::EndpointModel;
use toolscope_llm::profiles::ProfileStore;
use toolscope_mcp::elicitation::check_answer;
use toolscope_mcp::{
    ClientHooks, DeclineSampling, ElicitAction, ElicitationAnswer, ElicitationRequest, Elicitor,
    ModelSampler, Sampler, SamplingConsent, SamplingEndpoint, SamplingRequest, WorkspaceRoot,
};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::lock;

/// The event telling the UI that the pending elicitations changed.
pub const CHANGED: &str = "elicitations-changed";

/// An elicitation waiting for the person.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct PendingElicitation {
    pub elicitation_id: String,
    pub request: ElicitationRequest,
    /// Set when the server asks for a model reply: accepting (with no values) approves it.
    pub sampling: Option<SamplingReview>,
}

/// A sampling request as the person reviews it, with the endpoint that would answer.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct SamplingReview {
    pub request: SamplingRequest,
    pub endpoint: SamplingEndpoint,
}

struct Waiting {
    pending: PendingElicitation,
    answer: oneshot::Sender<ElicitationAnswer>,
}

/// The pending elicitations, and how the UI hears of changes.
#[derive(Default)]
pub struct ElicitationDesk {
    waiting: Mutex<Vec<Waiting>>,
    announce: OnceLock<Box<dyn Fn() + Send + Sync>>,
    /// The endpoint profile that answers sampling requests, as the settings say.
    sampling_profile: RwLock<Option<String>>,
}

impl ElicitationDesk {
    pub fn set_sampling_profile(&self, profile: Option<String>) {
        *self
            .sampling_profile
            .write()
            .unwrap_or_else(|e| e.into_inner()) = profile;
    }

    pub fn sampling_profile(&self) -> Option<String> {
        self.sampling_profile
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Set once the window exists; until then nobody could answer, so requests are declined.
    pub fn set_announcer(&self, announce: impl Fn() + Send + Sync + 'static) {
        let _ = self.announce.set(Box::new(announce));
    }

    fn announce(&self) {
        if let Some(announce) = self.announce.get() {
            announce();
        }
    }

    /// What waits, oldest first.
    pub fn pending(&self) -> Vec<PendingElicitation> {
        lock(&self.waiting)
            .iter()
            .map(|w| w.pending.clone())
            .collect()
    }

    /// Passes the person's answer on. An `accept` whose values do not satisfy the requested
    /// schema is refused and the elicitation keeps waiting, so the form can say what to fix.
    /// `Ok(false)`: nobody waits for this id any more.
    pub fn answer(
        &self,
        elicitation_id: &str,
        answer: ElicitationAnswer,
    ) -> Result<bool, CommandError> {
        let mut waiting = lock(&self.waiting);
        let Some(index) = waiting
            .iter()
            .position(|w| w.pending.elicitation_id == elicitation_id)
        else {
            return Ok(false);
        };
        if answer.action == ElicitAction::Accept {
            let content = answer.content.clone().unwrap_or_default();
            check_answer(&waiting[index].pending.request.requested_schema, &content)
                .map_err(|e| CommandError::new(CommandErrorKind::InvalidInput, e.to_string()))?;
        }
        let entry = waiting.remove(index);
        drop(waiting);
        let delivered = entry.answer.send(answer).is_ok();
        self.announce();
        Ok(delivered)
    }

    fn forget(&self, elicitation_id: &str) {
        let removed = {
            let mut waiting = lock(&self.waiting);
            let before = waiting.len();
            waiting.retain(|w| w.pending.elicitation_id != elicitation_id);
            waiting.len() != before
        };
        if removed {
            self.announce();
        }
    }
}

impl ElicitationDesk {
    /// Puts `pending` on the list and waits for the person, or for the server to withdraw it.
    async fn wait_for_answer(
        &self,
        request: ElicitationRequest,
        sampling: Option<SamplingReview>,
        cancel: CancellationToken,
    ) -> ElicitationAnswer {
        if self.announce.get().is_none() {
            return ElicitationAnswer::decline();
        }
        let elicitation_id = uuid::Uuid::new_v4().to_string();
        let (answer, answered) = oneshot::channel();
        lock(&self.waiting).push(Waiting {
            pending: PendingElicitation {
                elicitation_id: elicitation_id.clone(),
                request,
                sampling,
            },
            answer,
        });
        self.announce();
        let outcome = tokio::select! {
            answer = answered => answer.unwrap_or_else(|_| ElicitationAnswer::cancel()),
            () = cancel.cancelled() => ElicitationAnswer::cancel(),
        };
        self.forget(&elicitation_id);
        outcome
    }
}

impl Elicitor for ElicitationDesk {
    fn elicit(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, ElicitationAnswer> {
        Box::pin(self.wait_for_answer(request, None, cancel))
    }
}

impl SamplingConsent for ElicitationDesk {
    fn approve(
        &self,
        request: &SamplingRequest,
        endpoint: &SamplingEndpoint,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, bool> {
        let question = ElicitationRequest {
            server: request.server.clone(),
            message: format!(
                "The server asks for a model reply from '{}' (profile '{}').",
                endpoint.model, endpoint.profile
            ),
            requested_schema: json!({"type": "object", "properties": {}}),
            task_id: request.task_id.clone(),
        };
        let review = SamplingReview {
            request: request.clone(),
            endpoint: endpoint.clone(),
        };
        Box::pin(async move {
            self.wait_for_answer(question, Some(review), cancel)
                .await
                .action
                == ElicitAction::Accept
        })
    }
}

/// Who answers a sampling request now: the chosen profile's endpoint after the person's
/// approval, or a refusal that says why.
fn sampler(desk: &Arc<ElicitationDesk>, data_dir: &Path) -> Arc<dyn Sampler> {
    let Some(profile) = desk.sampling_profile() else {
        return Arc::new(DeclineSampling::default());
    };
    let model = ProfileStore::new(data_dir)
        .endpoint(&profile)
        .map_err(|e| e.to_string())
        .and_then(|endpoint| EndpointModel::new(endpoint).map_err(|e| e.to_string()));
    match model {
        Ok(model) => Arc::new(ModelSampler::new(
            profile,
            Arc::new(model),
            Arc::clone(desk) as Arc<dyn SamplingConsent>,
        )),
        Err(e) => Arc::new(DeclineSampling::because(format!(
            "Toolscope declined sampling/createMessage: the endpoint profile '{profile}' chosen \
             for MCP sampling cannot be used ({e})"
        ))),
    }
}

/// The directories offered to servers: the home directory (see the module docs).
fn roots() -> Vec<WorkspaceRoot> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(|home| vec![WorkspaceRoot::new(PathBuf::from(home), "home")])
        .unwrap_or_default()
}

/// Opens a server's sign-in page: `$BROWSER` when the person set one (tests set it to a
/// program that stands in for the person), else the system's default browser. It is only
/// reached after the person asked to sign in: the app's sources never sign in by themselves.
struct SystemBrowser;

impl toolscope_mcp::Browser for SystemBrowser {
    fn open(&self, _server: &str, url: &str) -> Result<(), String> {
        match toolscope_mcp::oauth::browser::configured() {
            Some(command) => toolscope_mcp::oauth::browser::launch(&command, url),
            None => open::that_detached(url).map_err(|e| {
                format!("could not open the system browser ({e}); open {url} by hand")
            }),
        }
    }
}

/// The app's answers to what servers ask; profiles and their keys live under `data_dir`.
pub fn hooks(desk: &Arc<ElicitationDesk>, data_dir: &Path) -> ClientHooks {
    let sampling_desk = Arc::clone(desk);
    let data_dir = data_dir.to_path_buf();
    ClientHooks {
        elicitor: Arc::clone(desk) as Arc<dyn Elicitor>,
        roots: Arc::new(roots),
        sampler: Arc::new(move || sampler(&sampling_desk, &data_dir)),
        browser: Arc::new(SystemBrowser),
    }
}
