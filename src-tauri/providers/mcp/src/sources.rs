//! The configured MCP servers: their status, their stderr, approval of command lines, and
//! keeping each server's tool in the registry in step with what the server lists.
//!
//! A server's life: `disabled`, or `awaiting_approval` (a stdio command line nobody approved
//! yet: starting it runs a program), `connecting`, then `ready` or `failed` with the reason.
//! A server that goes away keeps its last tool listing in the registry, so Discovery still
//! shows its methods, and its calls fail with a `transport` error naming the reason until it
//! is reconnected. The list and the approvals live in two JSON files in the data directory
//! ([`SourceFiles`]); the list uses the `mcpServers` shape every MCP client reads.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde::Serialize;
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_engine::{Registry, ToolFailure};
use toolscope_protocol::method::{Annotations, MethodMetadata};

use crate::config::McpServerConfig;
use crate::connection::{connect, ConnectError, ConnectOptions, Connection, ServerLog};
use crate::oauth::trace::SignInTrace;
use crate::oauth::{Browser, OAuthError, SignInContext, SignInPolicy};
use crate::tool::{describe, McpTool};
use tokio_util::sync::CancellationToken;
use toolscope_engine::naming::MethodNames;

mod files;
pub use files::{Approvals, SourceFiles};

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SourceStatus {
    Disabled,
    /// Starting it runs this command line; the user has not approved it yet.
    AwaitingApproval {
        command_line: String,
    },
    Connecting,
    Ready {
        tools: u32,
        server: Option<String>,
    },
    /// The server requires signing in, and nobody asked to yet (the app does not open a
    /// browser unasked).
    SignInRequired {
        reason: String,
    },
    /// The sign-in page is open in the browser; the connection waits for it to come back.
    SigningIn {
        page: String,
    },
    Failed {
        reason: String,
    },
}

/// A server as the UI shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SourceState {
    pub config: McpServerConfig,
    /// The tool id its methods are routed under (`{tool_id}_{method}`).
    pub tool_id: String,
    pub command_line: Option<String>,
    pub status: SourceStatus,
    /// The connection holds a token (signed in now, or a sign-in stored from an earlier run).
    pub signed_in: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("no MCP server is named '{0}'")]
    Unknown(String),
    #[error("an MCP server named '{0}' exists already")]
    Duplicate(String),
    #[error("the name '{name}' gives tool id '{tool_id}', which {owner} uses already")]
    ToolIdTaken {
        name: String,
        tool_id: String,
        owner: String,
    },
    #[error("an MCP server needs a name")]
    EmptyName,
    #[error("the server list could not be saved: {0}")]
    Save(String),
    #[error("'{0}' is started as a command: only HTTP servers are signed in to")]
    NotSignedIn(String),
    #[error("the sign-in could not be forgotten: {0}")]
    SignOut(String),
}

/// Settings shared by every connection.
#[derive(Clone)]
pub struct SourceOptions {
    pub handshake_timeout: Duration,
    /// Where `${VAR}` in configs is looked up (the process environment, or a test's map).
    pub env: crate::connection::EnvLookup,
    /// Who answers what servers ask while they work (elicitation, roots).
    pub hooks: crate::interaction::ClientHooks,
    /// Where sign-ins are kept between runs; `None` keeps them for the connection only.
    pub sign_ins: Option<crate::oauth::store::SignInFiles>,
    /// Whether a server's refusal opens the browser by itself; [`McpSources::sign_in`] always
    /// does.
    pub sign_in_policy: SignInPolicy,
}

impl Default for SourceOptions {
    fn default() -> Self {
        Self {
            handshake_timeout: Duration::from_secs(30),
            env: Arc::new(|name| std::env::var(name).ok()),
            hooks: crate::interaction::ClientHooks::default(),
            sign_ins: None,
            sign_in_policy: SignInPolicy::Automatic,
        }
    }
}

struct Live {
    status: SourceStatus,
    connection: Option<Arc<Connection>>,
    names: MethodNames,
    /// Bumped on every (re)connect, so callbacks of an old connection change nothing.
    epoch: u64,
    signed_in: bool,
    /// Ends the current connection's sign-in if it waits for the browser.
    sign_in_cancel: CancellationToken,
}

/// One configured server.
pub struct Source {
    pub(crate) config: McpServerConfig,
    pub(crate) tool_id: String,
    log: Arc<ServerLog>,
    live: Mutex<Live>,
    registry: Arc<Registry>,
    changed: Arc<tokio::sync::watch::Sender<u64>>,
    /// The steps of its last sign-in, kept across reconnections.
    trace: Arc<SignInTrace>,
    /// Whether something has started it (or is about to): the startup's
    /// [`McpSources::start_all`] leaves such a server alone, so a server added or approved
    /// while startup is still under way is not connected twice.
    pub(crate) started: std::sync::atomic::AtomicBool,
}

impl Source {
    fn live(&self) -> std::sync::MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_status(&self, epoch: u64, status: SourceStatus) {
        let mut live = self.live();
        if live.epoch == epoch {
            live.status = status;
            drop(live);
            self.changed.send_modify(|n| *n += 1);
        }
    }

    fn state(&self) -> SourceState {
        let live = self.live();
        SourceState {
            config: self.config.clone(),
            tool_id: self.tool_id.clone(),
            command_line: self.config.transport.command_line(),
            status: live.status.clone(),
            signed_in: live.signed_in,
        }
    }

    /// The server's own name of the tool listed as `method`.
    pub(crate) fn original_name(&self, method: &str) -> Option<String> {
        self.live().names.original(method).map(str::to_owned)
    }

    /// The live connection and the MCP name of `method`, or why a call cannot be made.
    pub(crate) fn route(&self, method: &str) -> Result<(Arc<Connection>, String), ToolFailure> {
        let live = self.live();
        let Some(mcp_name) = live.names.original(method).map(str::to_owned) else {
            return Err(ToolFailure::UnknownMethod(method.to_owned()));
        };
        match (&live.connection, &live.status) {
            (Some(connection), _) => Ok((Arc::clone(connection), mcp_name)),
            (None, SourceStatus::Failed { reason }) => Err(ToolFailure::Transport(format!(
                "MCP server '{}' is not connected ({reason}); reconnect it in Sources",
                self.config.name
            ))),
            (None, _) => Err(ToolFailure::Transport(format!(
                "MCP server '{}' is not connected",
                self.config.name
            ))),
        }
    }

    /// A failed request as a tool failure; transport trouble carries the server's last words.
    pub(crate) fn call_failure(&self, error: rmcp::service::ServiceError) -> ToolFailure {
        let (transport, message) = describe(&error);
        if !transport {
            return ToolFailure::Failed(message);
        }
        ToolFailure::Transport(with_log_tail(
            format!("MCP server '{}': {message}", self.config.name),
            &self.log,
        ))
    }

    /// (Re)connects and lists the server's tools into the registry; `policy` says whether a
    /// refusal may open the browser.
    async fn connect(self: &Arc<Self>, options: &SourceOptions, policy: SignInPolicy) {
        let (epoch, cancel) = {
            let mut live = self.live();
            live.epoch += 1;
            live.sign_in_cancel.cancel();
            live.sign_in_cancel = CancellationToken::new();
            if let Some(old) = live.connection.take() {
                old.close();
            }
            live.status = SourceStatus::Connecting;
            (live.epoch, live.sign_in_cancel.clone())
        };
        self.changed.send_modify(|n| *n += 1);
        let weak = Arc::downgrade(self);
        let (on_change, on_close) = (weak.clone(), weak.clone());
        let mut hooks = options.hooks.clone();
        hooks.browser = Arc::new(ShowingSignIn {
            browser: Arc::clone(&options.hooks.browser),
            source: weak,
            epoch,
        });
        let connect_options = ConnectOptions {
            name: self.config.name.clone(),
            hooks,
            handshake_timeout: options.handshake_timeout,
            log: Arc::clone(&self.log),
            list_changed: Arc::new(move || {
                if let Some(source) = on_change.upgrade() {
                    tokio::spawn(async move { source.refresh(epoch).await });
                }
            }),
            closed: Arc::new(move |why| closed(&on_close, epoch, why)),
            env: Arc::clone(&options.env),
            sign_in: SignInContext {
                files: options.sign_ins.clone(),
                trace: Arc::clone(&self.trace),
                policy,
                cancel,
            },
        };
        match connect(&self.config.transport, connect_options).await {
            Ok(connection) => {
                let connection = Arc::new(connection);
                let signed_in = connection.signed_in().await;
                {
                    let mut live = self.live();
                    if live.epoch != epoch {
                        connection.close();
                        return;
                    }
                    live.connection = Some(Arc::clone(&connection));
                    live.signed_in = signed_in;
                }
                self.refresh(epoch).await;
            }
            Err(e) => self.set_status(epoch, self.failure_status(e)),
        }
    }

    /// A connection that could not be made or used: a sign-in the person has to start is not
    /// a failure.
    fn failure_status(&self, error: ConnectError) -> SourceStatus {
        match error {
            ConnectError::SignInRequired(reason) => SourceStatus::SignInRequired { reason },
            ConnectError::SignIn(OAuthError::Cancelled) => SourceStatus::SignInRequired {
                reason: "the sign-in was cancelled".into(),
            },
            other => SourceStatus::Failed {
                reason: with_log_tail(other.to_string(), &self.log),
            },
        }
    }

    /// A call was refused until the person signs in: say so in Sources too.
    pub(crate) fn require_sign_in(&self, reason: String) {
        let epoch = self.live().epoch;
        self.set_status(epoch, SourceStatus::SignInRequired { reason });
    }

    /// Lists the tools again and replaces this server's tool in the registry.
    async fn refresh(self: &Arc<Self>, epoch: u64) {
        let Some(connection) = self.live().connection.clone() else {
            return;
        };
        let tools = match connection.list_tools().await {
            Ok(tools) => tools,
            Err(e) => {
                self.set_status(epoch, self.failure_status(e));
                return;
            }
        };
        let names = MethodNames::assign(tools.iter().map(|t| t.name.as_ref()));
        let methods: Vec<MethodMetadata> = tools
            .iter()
            .filter_map(|t| method_metadata(t, &names))
            .collect();
        let info = ToolInfo {
            id: self.tool_id.clone(),
            name: self.config.name.clone(),
            description: match &connection.server {
                Some(server) => format!("MCP server '{}' ({server})", self.config.name),
                None => format!("MCP server '{}'", self.config.name),
            },
            source: ToolSource::Mcp,
            methods,
        };
        let count = u32::try_from(info.methods.len()).unwrap_or(u32::MAX);
        let signed_in = connection.signed_in().await;
        {
            let mut live = self.live();
            if live.epoch != epoch {
                return;
            }
            live.names = names;
            live.signed_in = signed_in;
        }
        let tool = Arc::new(McpTool {
            source: Arc::clone(self),
            info,
        });
        let status = match self.registry.upsert(tool) {
            Ok(_) => SourceStatus::Ready {
                tools: count,
                server: connection.server.clone(),
            },
            Err(e) => SourceStatus::Failed {
                reason: format!("its tools could not be registered: {e}"),
            },
        };
        self.set_status(epoch, status);
    }

    /// Ends a sign-in that waits for the browser; the connection then reports that it needs one.
    pub(crate) fn cancel_sign_in(&self) {
        self.live().sign_in_cancel.cancel();
    }

    fn disconnect(&self) {
        let mut live = self.live();
        live.epoch += 1;
        live.sign_in_cancel.cancel();
        live.signed_in = false;
        if let Some(connection) = live.connection.take() {
            connection.close();
        }
    }
}

/// The front end's browser, first showing in Sources that the connection now waits for it.
struct ShowingSignIn {
    browser: Arc<dyn Browser>,
    source: Weak<Source>,
    epoch: u64,
}

impl Browser for ShowingSignIn {
    fn open(&self, server: &str, url: &str) -> Result<(), String> {
        if let Some(source) = self.source.upgrade() {
            source.set_status(
                self.epoch,
                SourceStatus::SigningIn {
                    page: url.to_owned(),
                },
            );
        }
        self.browser.open(server, url)
    }
}

fn closed(source: &Weak<Source>, epoch: u64, why: String) {
    let Some(source) = source.upgrade() else {
        return;
    };
    let reason = with_log_tail(why, &source.log);
    {
        let mut live = source.live();
        if live.epoch != epoch {
            return;
        }
        live.connection = None;
        live.status = SourceStatus::Failed { reason };
    }
    source.changed.send_modify(|n| *n += 1);
}

fn with_log_tail(message: String, log: &ServerLog) -> String {
    let tail = log.tail(5);
    if tail.is_empty() {
        message
    } else {
        format!("{message}; it last printed: {}", tail.join(" | "))
    }
}

fn method_metadata(tool: &rmcp::model::Tool, names: &MethodNames) -> Option<MethodMetadata> {
    let name = names.method_name(&tool.name)?.to_owned();
    let mut description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default()
        .to_owned();
    if name != tool.name {
        description.push_str(&format!("\n(MCP tool name: {})", tool.name));
    }
    let mut parameters = serde_json::Value::Object((*tool.input_schema).clone());
    if parameters.get("type").is_none()
        && parameters
            .as_object()
            .is_some_and(serde_json::Map::is_empty)
    {
        parameters = serde_json::json!({"type": "object"});
    }
    let hints = tool.annotations.as_ref();
    Some(MethodMetadata {
        name,
        description: description.trim().to_owned(),
        parameters,
        agent_callable: true,
        protocol_config: None,
        annotations: Annotations {
            read_only: hints.and_then(|a| a.read_only_hint),
            destructive: hints.and_then(|a| a.destructive_hint),
            idempotent: hints.and_then(|a| a.idempotent_hint),
            open_world: hints.and_then(|a| a.open_world_hint),
        },
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|s| serde_json::Value::Object((**s).clone())),
    })
}

mod set;
pub use set::McpSources;
