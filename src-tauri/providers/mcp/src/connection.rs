//! One live connection to an MCP server: starting it, the client handler that receives its
//! notifications, listing its tools, and noticing when it goes away.
//!
//! A stdio server's process is ours, not rmcp's ([`crate::server_process`] says why), and its
//! stdout passes [`crate::task_support`] on the way to rmcp. What the server sends on its own
//! is handled in [`crate::client_handler`].
//!
//! Secrets: every value substituted for a `${VAR}` and every env entry or header whose name says
//! it holds a secret go into the connection's [`Redactor`]. Its call results and errors and the
//! server's log lines pass through it, so a server that echoes its token does not put it into
//! the history, the UI or a model's context.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::Tool as McpToolInfo;
use rmcp::service::{ClientInitializeError, Peer, RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use tokio_util::sync::CancellationToken;
use toolscope_engine::redact::Redactor;

use crate::client_handler::Handler;
use crate::config::{expand_variables, ConfigError, McpTransport};
use crate::interaction::ClientHooks;
use crate::oauth::{Authorizer, OAuthError, SignInContext};
use crate::progress::{ProgressCounting, ProgressRoutes};
pub use crate::server_log::ServerLog;
use crate::server_process::ServerProcess;
use crate::task_support::{Tapped, WireFacts};

mod http;

/// Shorter values are not treated as secrets even where a name says so: redacting `1` or
/// `true` everywhere would garble every result, and real tokens are longer.
const MIN_SECRET_CHARS: usize = 8;
/// Env entries and headers whose names contain one of these (any case) hold secrets.
const SECRET_NAME_PARTS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "key",
    "auth",
    "credential",
    "cookie",
    "session",
];

/// Looks up `${VAR}` values: the process environment, or a test's map.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("could not start '{command}': {reason}")]
    Spawn { command: String, reason: String },
    #[error("the server did not complete the MCP handshake: {0}")]
    Handshake(String),
    #[error("the server did not answer the MCP handshake within {0} s")]
    HandshakeTimeout(u64),
    #[error("listing the server's tools failed: {0}")]
    ListTools(String),
    #[error("invalid header '{0}': {1}")]
    Header(String, String),
    /// The server answered the handshake with 401 (its `WWW-Authenticate` challenge inside).
    #[error("the server requires signing in (it answered 401 Unauthorized)")]
    Unauthorized(String),
    #[error("the server requires signing in, and signing in failed: {0}")]
    SignIn(OAuthError),
    /// The server refused, and the person has to start the sign-in (see `SignInPolicy`).
    #[error("{0}")]
    SignInRequired(String),
}

impl From<OAuthError> for ConnectError {
    fn from(error: OAuthError) -> Self {
        match error {
            OAuthError::SignInRequired(why) => Self::SignInRequired(why),
            other => Self::SignIn(other),
        }
    }
}

impl ConnectError {
    /// The same error with `secrets` taken out of the texts that came from elsewhere (a URL
    /// in a transport error, the server's own words).
    fn redacted(self, secrets: &Redactor) -> Self {
        match self {
            Self::Handshake(message) => Self::Handshake(secrets.redact(&message)),
            Self::ListTools(message) => Self::ListTools(secrets.redact(&message)),
            Self::SignIn(error) => Self::SignIn(error.redacted(secrets)),
            Self::SignInRequired(why) => Self::SignInRequired(secrets.redact(&why)),
            other => other,
        }
    }
}

/// What [`connect`] needs besides the transport.
pub struct ConnectOptions {
    /// The server's configured name, shown with anything it asks the person.
    pub name: String,
    /// Who answers what the server asks while it works.
    pub hooks: ClientHooks,
    pub handshake_timeout: Duration,
    pub log: Arc<ServerLog>,
    pub list_changed: Arc<dyn Fn() + Send + Sync>,
    /// Called once when the connection ends by itself, with why (not on [`Connection::close`]).
    pub closed: Arc<dyn Fn(String) + Send + Sync>,
    pub env: EnvLookup,
    /// Where this server's sign-ins are kept and traced, and whether one may start unasked.
    pub sign_in: SignInContext,
}

/// A connected server.
pub struct Connection {
    pub peer: Peer<RoleClient>,
    pub progress: Arc<ProgressRoutes>,
    /// "name version" of the server, as it introduced itself.
    pub server: Option<String>,
    shutdown: CancellationToken,
    /// The secrets this connection was started with: its results, errors and log lines must
    /// not carry them.
    pub secrets: Arc<Redactor>,
    /// `secrets` plus the token in use now, which a refresh replaces during the session.
    with_token: Mutex<(Option<String>, Arc<Redactor>)>,
    /// Which tools must be called as tasks, as far as the transport shows it.
    pub wire: Arc<WireFacts>,
    /// Signs an HTTP connection in when the server refuses a request (`None`: stdio).
    authorizer: Option<Arc<Authorizer>>,
}

impl Connection {
    /// Ends the session (stdio: closes the pipes, then stops the process).
    pub fn close(&self) {
        self.shutdown.cancel();
    }

    /// Every tool the server lists, following pagination.
    pub async fn list_tools(&self) -> Result<Vec<McpToolInfo>, ConnectError> {
        let seen = self.sign_ins().await;
        let refused = match self.peer.list_all_tools().await {
            Ok(tools) => return Ok(tools),
            Err(e) => e,
        };
        let outcome = match self.answer_refusal(&refused, seen).await {
            Some(Ok(())) => self.peer.list_all_tools().await,
            Some(Err(e)) => return Err(ConnectError::from(e).redacted(&self.secrets)),
            None => Err(refused),
        };
        outcome.map_err(|e| {
            let message = match e.auth_challenge() {
                Some(challenge) => {
                    format!("the server refuses it even when signed in ({challenge})")
                }
                None => e.to_string(),
            };
            ConnectError::ListTools(self.secrets.redact(&message))
        })
    }

    /// What results and errors must not carry: the connection's secrets and the token in use
    /// now (a refresh or a new sign-in replaces it mid-session).
    pub async fn redactor(&self) -> Arc<Redactor> {
        let token = match &self.authorizer {
            Some(authorizer) => authorizer.current_token().await,
            None => None,
        };
        let Some(token) = token.filter(|t| t.chars().count() >= MIN_SECRET_CHARS) else {
            return Arc::clone(&self.secrets);
        };
        let mut cached = self.with_token.lock().unwrap_or_else(|e| e.into_inner());
        if cached.0.as_deref() != Some(token.as_str()) {
            let mut redactor = (*self.secrets).clone();
            redactor.add(&token);
            *cached = (Some(token), Arc::new(redactor));
        }
        Arc::clone(&cached.1)
    }

    /// Whether the connection holds a token from a sign-in.
    pub async fn signed_in(&self) -> bool {
        match &self.authorizer {
            Some(authorizer) => authorizer.holds_token().await,
            None => false,
        }
    }

    /// Whether a refused request can be answered by signing in (an HTTP server).
    pub fn can_sign_in(&self) -> bool {
        self.authorizer.is_some()
    }

    /// Sign-ins this connection has made; read it before sending a request, and hand it to
    /// [`Self::answer_refusal`] if the request is refused.
    pub async fn sign_ins(&self) -> u32 {
        match &self.authorizer {
            Some(authorizer) => authorizer.sign_ins().await,
            None => 0,
        }
    }

    /// When `error` is the server refusing a request (`401`, or `403` for lack of scope),
    /// signs in or steps up, after which the request may be sent once more; `None` when the
    /// error is something else.
    pub async fn answer_refusal(
        &self,
        error: &ServiceError,
        sign_ins_seen: u32,
    ) -> Option<Result<(), OAuthError>> {
        let challenge = error.auth_challenge()?;
        let authorizer = self.authorizer.as_ref()?;
        Some(authorizer.authorize(challenge, sign_ins_seen).await)
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Starts (stdio) or reaches (HTTP) the server and completes the MCP handshake.
pub async fn connect(
    transport: &McpTransport,
    options: ConnectOptions,
) -> Result<Connection, ConnectError> {
    let progress: Arc<ProgressRoutes> = Arc::default();
    let wire: Arc<WireFacts> = Arc::default();
    let handler = Handler {
        server: options.name.clone(),
        progress: Arc::clone(&progress),
        log: Arc::clone(&options.log),
        list_changed: Arc::clone(&options.list_changed),
        hooks: options.hooks.clone(),
    };
    let shutdown = CancellationToken::new();
    let secrets = Mutex::new(Redactor::default());
    let lookup = |name: &str| {
        let value = (options.env)(name);
        if let Some(value) = &value {
            note_secret(&secrets, value);
        }
        value
    };
    let timeout = options.handshake_timeout;
    let mut authorizer = None;
    let service = match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let command = expand_variables(command, "command", &lookup)?;
            let mut cmd = tokio::process::Command::new(&command);
            for (i, arg) in args.iter().enumerate() {
                cmd.arg(expand_variables(arg, &format!("args[{i}]"), &lookup)?);
            }
            for (key, value) in env {
                let value = expand_variables(value, &format!("env.{key}"), &lookup)?;
                if is_secret_name(key) {
                    note_secret(&secrets, &value);
                }
                cmd.env(key, value);
            }
            if let Some(cwd) = cwd {
                cmd.current_dir(expand_variables(cwd, "cwd", &lookup)?);
            }
            options.log.set_secrets(Arc::new(snapshot(&secrets)));
            let (process, stdout, stdin) = ServerProcess::spawn(cmd, Arc::clone(&options.log))
                .map_err(|reason| ConnectError::Spawn {
                    command: snapshot(&secrets).redact(&command),
                    reason,
                })?;
            let stdout = Tapped::new(stdout, Arc::clone(&wire));
            match handshake(handler, (stdout, stdin), timeout).await {
                Ok(service) => {
                    process.watch(shutdown.clone(), Arc::clone(&options.closed));
                    service
                }
                Err(e) => {
                    let e = match (e, process.failed_start().await) {
                        (ConnectError::Handshake(message), Some(ended)) => {
                            ConnectError::Handshake(format!("{message}; {ended}"))
                        }
                        (e, _) => e,
                    };
                    return Err(e.redacted(&snapshot(&secrets)));
                }
            }
        }
        McpTransport::Http {
            url,
            headers,
            oauth,
        } => {
            let (service, signer) = http::connect(
                handler,
                http::Endpoint {
                    url,
                    headers,
                    oauth: oauth.as_ref(),
                },
                &options,
                &lookup,
                &secrets,
            )
            .await?;
            authorizer = Some(signer);
            service
        }
    };
    let server = service.peer_info().and_then(|info| {
        info.server_info
            .as_ref()
            .map(|s| format!("{} {}", s.name, s.version))
    });
    let peer = service.peer().clone();
    // A stdio server's end is reported by its process watcher, with the exit status; the
    // session only speaks if the process outlives its pipes.
    let grace = match transport {
        McpTransport::Stdio { .. } => Duration::from_secs(1),
        McpTransport::Http { .. } => Duration::ZERO,
    };
    watch_session(service, shutdown.clone(), grace, options.closed);
    Ok(Connection {
        peer,
        progress,
        server,
        shutdown,
        secrets: Arc::new(snapshot(&secrets)),
        with_token: Mutex::new((None, Arc::new(snapshot(&secrets)))),
        wire,
        authorizer,
    })
}

fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
}

fn note_secret(secrets: &Mutex<Redactor>, value: &str) {
    if value.chars().count() >= MIN_SECRET_CHARS {
        secrets.lock().unwrap_or_else(|e| e.into_inner()).add(value);
    }
}

fn snapshot(secrets: &Mutex<Redactor>) -> Redactor {
    secrets.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

async fn handshake<T, E, A>(
    handler: Handler,
    transport: T,
    timeout: Duration,
) -> Result<RunningService<RoleClient, Handler>, ConnectError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let counting = ProgressCounting::new(transport.into_transport(), Arc::clone(&handler.progress));
    match tokio::time::timeout(timeout, handler.serve(counting)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => match e.auth_challenge() {
            Some(challenge) => Err(ConnectError::Unauthorized(challenge.to_owned())),
            None if e.is_authorization_required() => Err(ConnectError::Unauthorized(String::new())),
            None => Err(ConnectError::Handshake(describe_initialize_error(&e))),
        },
        Err(_) => Err(ConnectError::HandshakeTimeout(timeout.as_secs())),
    }
}

/// rmcp's own text for a transport failure names the transport's Rust type, which says nothing
/// to a user; the underlying error and what was being attempted do.
fn describe_initialize_error(e: &ClientInitializeError) -> String {
    match e {
        ClientInitializeError::TransportError { error, context } => {
            format!("{} (while trying to {context})", error.error)
        }
        other => other.to_string(),
    }
}

/// Ends the session when `shutdown` fires, and reports a session that ended by itself.
fn watch_session(
    service: RunningService<RoleClient, Handler>,
    shutdown: CancellationToken,
    grace: Duration,
    closed: Arc<dyn Fn(String) + Send + Sync>,
) {
    let token = service.cancellation_token();
    tokio::spawn(async move {
        let mut waiting = std::pin::pin!(service.waiting());
        tokio::select! {
            () = shutdown.cancelled() => {
                token.cancel();
                let _ = waiting.await;
            }
            quit = &mut waiting => {
                tokio::time::sleep(grace).await;
                if !shutdown.is_cancelled() {
                    let why = match quit {
                        Ok(rmcp::service::QuitReason::JoinError(e)) | Err(e) => format!("the MCP session failed: {e}"),
                        Ok(_) => "the server closed the connection".to_owned(),
                    };
                    shutdown.cancel();
                    closed(why);
                }
            }
        }
    });
}
