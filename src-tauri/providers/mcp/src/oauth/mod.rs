//! Signing in to an MCP server that requires authorization, as the MCP spec's authorization
//! section describes it: OAuth 2.1 with PKCE (S256), protected-resource metadata (RFC 9728),
//! authorization-server metadata (RFC 8414, OpenID discovery, the 2025-03-26 fallbacks), a
//! pre-registered client, a Client ID Metadata Document or dynamic registration (RFC 7591), and
//! the `resource` indicator (RFC 8707) in every authorization and token request.
//!
//! rmcp's `auth` module does that protocol work (discovery, registration, scope selection from
//! the challenge or `scopes_supported`, PKCE, the code exchange, the token endpoint's auth
//! method, refresh before expiry and on a 401). What a native client adds around it lives here:
//! the loopback redirect ([`callback`]), the person's browser (a front-end hook, [`Browser`]),
//! answering refusals on a live connection ([`authorizer`]), a trace of every step
//! ([`trace`], fed by the HTTP client in [`http`]), and errors that say what went wrong and what
//! to do, one class per kind of failure (`error`).

pub mod authorizer;
pub mod browser;
pub mod callback;
mod error;
mod http;
pub mod store;
pub mod trace;

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, OAuthState,
    StoredCredentials,
};
use serde::{Deserialize, Serialize};

pub use self::authorizer::{Authorizer, SignInPolicy, MAX_SIGN_INS};
use self::callback::CallbackListener;
pub use self::error::OAuthError;
use self::error::{explain, Findings};
use self::store::{FileCredentialStore, SignInFiles};
use self::trace::{mask_url, SignInTrace, StepOutcome};
/// How long restoring a stored sign-in may spend discovering the authorization server again.
const RESTORE_DISCOVERY_LIMIT: Duration = Duration::from_secs(10);
/// How long a sign-in waits for the browser to come back.
pub const SIGN_IN_WAIT: Duration = Duration::from_secs(300);
/// The name a dynamically registered client gets at the authorization server.
const CLIENT_NAME: &str = "Toolscope";

/// How Toolscope identifies itself to a server's authorization server, from the server's config
/// entry (`"oauth": {...}`). Everything is optional: without it, Toolscope registers itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthClientConfig {
    /// A client id registered with the authorization server beforehand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Its secret, for a confidential client; `${VAR}` keeps it out of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The HTTPS URL of a Client ID Metadata Document describing Toolscope, used where the
    /// authorization server supports them and no client id is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for instead of the ones the server suggests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

/// Opens a page for the person: the system browser in the app, `$BROWSER` in the CLI.
pub trait Browser: Send + Sync {
    /// `server` is the configured name of the server the page signs in to.
    fn open(&self, server: &str, url: &str) -> Result<(), String>;
}

/// For front ends that cannot show a page: sign-in fails at once with the reason.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBrowser;

impl Browser for NoBrowser {
    fn open(&self, _: &str, _: &str) -> Result<(), String> {
        Err("this front end cannot open a browser to sign in".into())
    }
}

/// Where one server's sign-ins are kept and shown, and whether one may start unasked.
#[derive(Debug, Clone, Default)]
pub struct SignInContext {
    /// `None` keeps a sign-in for its connection only.
    pub files: Option<SignInFiles>,
    pub trace: Arc<SignInTrace>,
    pub policy: SignInPolicy,
    /// Ends a sign-in that waits for the browser (the person gave up on the page, or the
    /// connection was replaced): its listener closes at once instead of after five minutes.
    pub cancel: tokio_util::sync::CancellationToken,
}

/// Runs one sign-in for the MCP server at `url`: discovery (seeded from the 401's
/// `WWW-Authenticate` when there is one), client identity, the browser, the redirect, and the
/// token exchange. The manager returned holds the token and refreshes it. Every step goes to
/// the context's trace, which starts over; with its `files`, the token is written there (and
/// rewritten on every refresh).
pub async fn sign_in(
    server: &str,
    url: &str,
    challenge: Option<&str>,
    client: &OAuthClientConfig,
    browser: &dyn Browser,
    wait: Duration,
    context: &SignInContext,
) -> Result<AuthorizationManager, OAuthError> {
    let trace = &context.trace;
    trace.begin();
    if let Some(challenge) = challenge {
        trace.push(
            "Refused by the server",
            StepOutcome::Info,
            None,
            Some(format!("WWW-Authenticate: {challenge}")),
            Some("the challenge names where to discover how to sign in".into()),
        );
    }
    let outcome = run_sign_in(server, url, challenge, client, browser, wait, context).await;
    match &outcome {
        Ok(_) => trace.note("Signed in", StepOutcome::Done, "the token is in use"),
        Err(e) => {
            if let Some((check, note)) = e.failed_check() {
                trace.note(check, StepOutcome::Failed, note);
            }
            trace.note("Stopped", StepOutcome::Failed, e.to_string());
        }
    }
    outcome
}

async fn run_sign_in(
    server: &str,
    url: &str,
    challenge: Option<&str>,
    client: &OAuthClientConfig,
    browser: &dyn Browser,
    wait: Duration,
    context: &SignInContext,
) -> Result<AuthorizationManager, OAuthError> {
    require_tls_off_loopback(url, "the MCP server")?;
    let listener = CallbackListener::bind().await?;
    let (mut manager, findings) = watched_manager(url, &context.trace).await?;
    // rmcp flattens some failures; what the answers showed tells them apart (see `error`).
    let classify = |e: AuthError| OAuthError::classify(e, &findings);
    if let Some(files) = &context.files {
        manager.set_credential_store(FileCredentialStore::new(
            files.clone(),
            server,
            url,
            listener.redirect_uri(),
            client.client_secret.clone(),
        ));
    }
    let mut request = AuthorizationRequest::new(listener.redirect_uri())
        .with_client_name(CLIENT_NAME)
        .with_application_type("native");
    request = if client.scopes.is_empty() {
        request.with_initial_scope_selection()
    } else {
        request.with_scopes(client.scopes.iter().cloned())
    };
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    if let Some(id) = &client.client_id {
        request = request.with_preregistered_client(id);
        if let Some(secret) = &client.client_secret {
            request = request.with_client_secret(secret);
        }
    }
    if let Some(document) = &client.client_metadata_url {
        request = request.with_client_metadata_url(document);
    }

    let mut state = OAuthState::Unauthorized(manager);
    state.start_authorization(request).await.map_err(classify)?;
    let page = state.get_authorization_url().await.map_err(classify)?;
    let sent_state = url::Url::parse(&page).ok().and_then(|page| {
        page.query_pairs()
            .find(|(name, _)| name == "state")
            .map(|(_, value)| value.into_owned())
    });
    require_tls_off_loopback(&page, "the authorization page")?;
    browser.open(server, &page).map_err(OAuthError::Browser)?;
    context.trace.push(
        "Sign-in page opened in the browser",
        StepOutcome::Info,
        Some(format!("GET {}", mask_url(&page))),
        None,
        Some(format!(
            "waiting up to {} s for the browser to come back to {}",
            wait.as_secs(),
            listener.redirect_uri()
        )),
    );
    let redirect = tokio::select! {
        redirect = listener.wait(wait) => redirect?,
        () = context.cancel.cancelled() => return Err(OAuthError::Cancelled),
    };
    // Checked here, not left to rmcp: it reports an unknown state as an internal error
    // ("Authorization state not found"), which would not tell a forged redirect apart.
    let returned_state = AuthorizationCallback::from_redirect_url(&redirect)
        .ok()
        .map(|callback| callback.csrf_token);
    let forged = sent_state.is_some() && returned_state != sent_state;
    context.trace.push(
        "Redirect received",
        if forged {
            StepOutcome::Failed
        } else {
            StepOutcome::Done
        },
        Some(format!("GET {}", mask_url(&redirect))),
        None,
        forged.then(|| "its state is not the one this sign-in sent".to_owned()),
    );
    if forged {
        return Err(OAuthError::StateMismatch);
    }
    state
        .handle_callback_url(&redirect)
        .await
        .map_err(classify)?;
    state
        .into_authorization_manager()
        .ok_or_else(|| OAuthError::Flow("the sign-in ended without a token".into()))
}

/// The manager a connection to server `name` at `url` starts with: the sign-in stored for it
/// when the context keeps sign-ins and one is there (renewed if it expired), else one without
/// a token, whose first refusal starts a sign-in.
pub async fn starting_manager(
    name: &str,
    url: &str,
    context: &SignInContext,
) -> Result<AuthorizationManager, OAuthError> {
    if let Some(files) = &context.files {
        if let Some(manager) = restore(name, url, files, &context.trace).await {
            return Ok(manager);
        }
    }
    manager_for(url, &context.trace).await
}

/// A manager for the server at `url` whose requests go through Toolscope's traced,
/// address-checked client; with no token yet, the connection's first refusal starts a sign-in.
pub async fn manager_for(
    url: &str,
    trace: &Arc<SignInTrace>,
) -> Result<AuthorizationManager, OAuthError> {
    Ok(watched_manager(url, trace).await?.0)
}

/// A manager as [`manager_for`] makes it, with what its requests' answers show.
async fn watched_manager(
    url: &str,
    trace: &Arc<SignInTrace>,
) -> Result<(AuthorizationManager, Arc<Findings>), OAuthError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| OAuthError::Flow(format!("the MCP server has no valid address ({e})")))?;
    let findings = Arc::new(Findings::default());
    let client = http::TracedHttpClient::new(&parsed, Arc::clone(trace), Arc::clone(&findings))
        .map_err(OAuthError::Flow)?;
    let manager = AuthorizationManager::new_with_oauth_http_client(url, Arc::new(client)).await?;
    Ok((manager, findings))
}

/// Tokens and codes travel in the clear over `http://`: only a loopback address may use it.
pub(crate) fn require_tls_off_loopback(address: &str, what: &str) -> Result<(), OAuthError> {
    let parsed = url::Url::parse(address)
        .map_err(|e| OAuthError::Flow(format!("{what} has no valid address ({e})")))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if parsed.scheme() == "https" || loopback {
        return Ok(());
    }
    Err(OAuthError::Flow(format!(
        "refusing to sign in: {what} is at {}://{}, and a token or code sent there would \
         travel unencrypted (plain HTTP is allowed on loopback only)",
        parsed.scheme(),
        parsed.host_str().unwrap_or("?")
    )))
}

/// The sign-in stored for this server, ready to use: its token, and what refreshing it needs
/// (the authorization server's metadata, discovered again, and the client). `None` when
/// nothing is stored, or when the stored token has expired and the authorization server
/// refuses to renew it (then the file is forgotten: its refresh token is dead, and keeping it
/// would fail every start the same way). Metadata that cannot be fetched now leaves the
/// token usable until it expires.
pub async fn restore(
    server: &str,
    url: &str,
    files: &SignInFiles,
    trace: &Arc<SignInTrace>,
) -> Option<AuthorizationManager> {
    let saved = files.load(server, url)?;
    trace.begin();
    trace.note(
        "Stored sign-in found",
        StepOutcome::Info,
        "signed in on an earlier run; discovering the authorization server again to refresh it",
    );
    let mut manager = manager_for(url, trace).await.ok()?;
    manager.set_credential_store(FileCredentialStore::new(
        files.clone(),
        server,
        url,
        saved.redirect_uri.clone(),
        saved.client_secret.clone(),
    ));
    // Bounded: an authorization server that does not answer must not hold up the connection.
    let discovery = tokio::time::timeout(RESTORE_DISCOVERY_LIMIT, manager.resolve_metadata());
    if let Ok(Ok(resolution)) = discovery.await {
        manager.set_metadata(resolution.metadata);
        let mut client = rmcp::transport::auth::OAuthClientConfig::new(
            saved.credentials.client_id.clone(),
            saved.redirect_uri.clone(),
        );
        if let Some(secret) = saved.client_secret {
            client = client.with_client_secret(secret);
        }
        if let Err(e) = manager.configure_client(client) {
            trace.note("Stored sign-in", StepOutcome::Failed, explain(&e));
        } else if has_expired(&saved.credentials) {
            // Renewed here rather than on the first request, where rmcp turns a refused
            // refresh into a bare "authorization required" and the reason is lost.
            if let Err(AuthError::TokenRefreshRejected(reason)) = manager.refresh_token().await {
                let refused = OAuthError::RefreshRejected(reason);
                trace.note("Stored sign-in", StepOutcome::Failed, refused.to_string());
                if let Err(e) = files.forget(server, url) {
                    trace.note(
                        "Stored sign-in",
                        StepOutcome::Failed,
                        format!("could not forget it: {e}"),
                    );
                }
                return None;
            }
        }
    } else {
        trace.note(
            "Stored sign-in",
            StepOutcome::Failed,
            "the authorization server could not be discovered now: the stored token is used \
             until it expires, and cannot be refreshed",
        );
    }
    Some(manager)
}

/// Whether a stored access token's lifetime has run out (one without an expiry never does).
fn has_expired(credentials: &StoredCredentials) -> bool {
    let lifetime = credentials
        .token_response
        .as_ref()
        .and_then(|token| serde_json::to_value(token).ok())
        .and_then(|json| json.get("expires_in").and_then(serde_json::Value::as_u64));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    match (lifetime, credentials.token_received_at) {
        (Some(lifetime), Some(received)) => now >= received.saturating_add(lifetime),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn refuses_to_sign_in_over_plain_http_off_loopback_before_any_request() {
        let outcome = sign_in(
            "remote",
            "http://mcp.example.com/mcp",
            None,
            &OAuthClientConfig::default(),
            &NoBrowser,
            Duration::from_secs(1),
            &SignInContext::default(),
        )
        .await;
        match outcome {
            Err(OAuthError::Flow(message)) => {
                assert!(message.contains("unencrypted"), "{message}")
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("signed in over plain HTTP"),
        }
        for allowed in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:8080/mcp",
            "http://localhost:8080/mcp",
            "http://[::1]:8080/mcp",
        ] {
            assert!(require_tls_off_loopback(allowed, "x").is_ok(), "{allowed}");
        }
    }
}
