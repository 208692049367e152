//! What a server may ask of Toolscope while it works, and who answers: the front end (CLI or
//! app) passes [`ClientHooks`] in, the connection's handler calls them.
//!
//! MCP lets a server turn to its client mid-call: `elicitation/create` (ask the person for a
//! few values), `roots/list` (which directories it may work in) and `sampling/createMessage`
//! (have the client's model write something, see [`crate::sampling`]). The provider owns the protocol side (parsing,
//! checking an answer against the requested schema, the error a server sees); how a person is
//! asked differs between a terminal and a window, so that part is a trait.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::BoxFuture;

use crate::oauth::{Browser, NoBrowser};
use crate::sampling::{DeclineSampling, Sampler};

/// A server asks the person for input (form-mode `elicitation/create`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ElicitationRequest {
    /// The configured name of the server that asks.
    pub server: String,
    /// What the server says it needs, in its own words.
    pub message: String,
    /// The restricted JSON Schema (flat object of strings, numbers, booleans and enums) the
    /// answer must satisfy.
    pub requested_schema: Value,
    /// The task the request belongs to, when the server sent it for a task-augmented call.
    pub task_id: Option<String>,
}

/// The person's answer, as MCP's `ElicitResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ElicitationAnswer {
    pub action: ElicitAction,
    /// The values, only with `accept`; they must validate against the requested schema.
    pub content: Option<Map<String, Value>>,
}

/// `accept` sends values, `decline` says no, `cancel` dismisses without a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ElicitAction {
    Accept,
    Decline,
    Cancel,
}

impl ElicitationAnswer {
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}

/// Asks the person. `cancel` fires when the server withdraws the request (it cancelled it, or
/// the call it belongs to ended); the answer is then not sent anywhere.
pub trait Elicitor: Send + Sync {
    fn elicit(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, ElicitationAnswer>;
}

/// Declines every request: nobody is there to answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAll;

impl Elicitor for DeclineAll {
    fn elicit(
        &self,
        _: ElicitationRequest,
        _: CancellationToken,
    ) -> BoxFuture<'_, ElicitationAnswer> {
        Box::pin(async { ElicitationAnswer::decline() })
    }
}

/// A directory offered to servers through `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRoot {
    pub path: PathBuf,
    pub name: Option<String>,
}

impl WorkspaceRoot {
    pub fn new(path: impl Into<PathBuf>, name: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            name: Some(name.into()),
        }
    }

    /// The `file://` URI MCP wants: absolute, with every byte outside RFC 3986's unreserved
    /// set and `/` percent-encoded (spaces and non-ASCII names are common in home folders).
    pub fn uri(&self) -> String {
        file_uri(&self.path)
    }
}

fn file_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let text = absolute.to_string_lossy();
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// Who answers a server's requests, shared by every connection of a source set.
#[derive(Clone)]
pub struct ClientHooks {
    pub elicitor: Arc<dyn Elicitor>,
    /// The roots offered, read on every `roots/list` so a change applies at once.
    pub roots: Arc<dyn Fn() -> Vec<WorkspaceRoot> + Send + Sync>,
    /// Who answers `sampling/createMessage`, read on every request so a change of endpoint
    /// applies at once.
    pub sampler: Arc<dyn Fn() -> Arc<dyn Sampler> + Send + Sync>,
    /// Opens the sign-in page of a server that requires authorization.
    pub browser: Arc<dyn Browser>,
}

impl Default for ClientHooks {
    /// Declines elicitations and sampling, offers no roots and cannot sign in: the safe answer
    /// when no front end said more.
    fn default() -> Self {
        Self {
            elicitor: Arc::new(DeclineAll),
            roots: Arc::new(Vec::new),
            sampler: Arc::new(|| Arc::new(DeclineSampling::default()) as Arc<dyn Sampler>),
            browser: Arc::new(NoBrowser),
        }
    }
}

impl std::fmt::Debug for ClientHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHooks").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_absolute_percent_encoded_file_uris() {
        let root = WorkspaceRoot::new("/home/ana/My Projects/café", "workspace");
        assert_eq!(root.uri(), "file:///home/ana/My%20Projects/caf%C3%A9");
        let relative = WorkspaceRoot::new("here", "cwd").uri();
        assert!(relative.starts_with("file:///"), "{relative}");
        assert!(relative.ends_with("/here"), "{relative}");
    }
}
