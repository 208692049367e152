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
//! and errors that say what to do.

pub mod callback;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, OAuthState, WWWAuthenticateParams,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use self::callback::CallbackListener;
use self::store::{FileCredentialStore, SignInFiles};

/// Sign-ins one connection may start: a server that keeps refusing must not keep opening the
/// browser (the first sign-in, a step-up, and one more).
pub const MAX_SIGN_INS: u32 = 3;
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

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    #[error("could not listen on 127.0.0.1 for the sign-in redirect: {0}")]
    Listener(String),
    #[error("could not open the sign-in page: {0}")]
    Browser(String),
    #[error(
        "the sign-in did not come back within {0} s (finish it in the browser, then connect again)"
    )]
    Timeout(u64),
    #[error(
        "the authorization server refused the sign-in: {error}{}",
        describe(description)
    )]
    Refused {
        error: String,
        description: Option<String>,
    },
    #[error("{0}")]
    Flow(String),
}

fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}

impl From<AuthError> for OAuthError {
    fn from(error: AuthError) -> Self {
        Self::Flow(explain(&error))
    }
}

/// rmcp's errors name the step that failed; say what it means for the person.
fn explain(error: &AuthError) -> String {
    match error {
        AuthError::NoAuthorizationSupport => {
            "the server asks for authorization but publishes no way to get it (no protected \
             resource or authorization server metadata)"
                .into()
        }
        AuthError::PkceUnsupported => {
            "the authorization server does not support PKCE with S256, which MCP requires".into()
        }
        AuthError::RegistrationFailed(reason) => format!(
            "could not register Toolscope with the authorization server ({reason}); give a \
             pre-registered client id in the server's \"oauth\" settings"
        ),
        AuthError::TokenExchangeFailed(reason) => {
            format!("the authorization server did not issue a token: {reason}")
        }
        other => other.to_string(),
    }
}

/// Runs one sign-in for the MCP server at `url`: discovery (seeded from the 401's
/// `WWW-Authenticate` when there is one), client identity, the browser, the redirect, and the
/// token exchange. The manager returned holds the token and refreshes it.
/// With `files`, the token is written there (and rewritten on every refresh).
pub async fn sign_in(
    server: &str,
    url: &str,
    challenge: Option<&str>,
    client: &OAuthClientConfig,
    browser: &dyn Browser,
    wait: Duration,
    files: Option<&SignInFiles>,
) -> Result<AuthorizationManager, OAuthError> {
    require_tls_off_loopback(url, "the MCP server")?;
    let listener = CallbackListener::bind().await?;
    let mut manager = AuthorizationManager::new(url).await?;
    if let Some(files) = files {
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
    state.start_authorization(request).await?;
    let page = state.get_authorization_url().await?;
    require_tls_off_loopback(&page, "the authorization page")?;
    browser.open(server, &page).map_err(OAuthError::Browser)?;
    let redirect = listener.wait(wait).await?;
    state.handle_callback_url(&redirect).await?;
    state
        .into_authorization_manager()
        .ok_or_else(|| OAuthError::Flow("the sign-in ended without a token".into()))
}

/// Tokens and codes travel in the clear over `http://`: only a loopback address may use it.
fn require_tls_off_loopback(address: &str, what: &str) -> Result<(), OAuthError> {
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
/// nothing is stored. Metadata that cannot be fetched now leaves the token usable until it
/// expires.
pub async fn restore(server: &str, url: &str, files: &SignInFiles) -> Option<AuthorizationManager> {
    let saved = files.load(server, url)?;
    let mut manager = AuthorizationManager::new(url).await.ok()?;
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
        let _ = manager.configure_client(client);
    }
    Some(manager)
}

/// Signs a connection in, at the handshake or later: a `401` on any request (a server may let
/// the handshake through and refuse `tools/list`, or revoke a token) or a `403` with
/// `insufficient_scope` (step-up: the scopes held plus the ones asked for). The token lands in
/// the manager the connection's transport shares, so the retried request carries it.
pub struct Authorizer {
    server: String,
    url: String,
    settings: OAuthClientConfig,
    browser: Arc<dyn Browser>,
    manager: Arc<Mutex<AuthorizationManager>>,
    files: Option<SignInFiles>,
    /// Sign-ins so far and the scopes the last one was granted; held across a sign-in, so
    /// requests refused together start one sign-in, not several.
    state: Mutex<Signed>,
}

#[derive(Default)]
struct Signed {
    count: u32,
    granted: Vec<String>,
}

impl Authorizer {
    pub fn new(
        server: String,
        url: String,
        settings: OAuthClientConfig,
        browser: Arc<dyn Browser>,
        manager: Arc<Mutex<AuthorizationManager>>,
        files: Option<SignInFiles>,
    ) -> Self {
        Self {
            server,
            url,
            settings,
            browser,
            manager,
            files,
            state: Mutex::new(Signed::default()),
        }
    }

    /// Answers one refusal. `sign_ins_seen` is what [`Self::sign_ins`] said when the refused
    /// request was sent: if another request signed in since, that request is only retried.
    pub async fn authorize(&self, challenge: &str, sign_ins_seen: u32) -> Result<(), OAuthError> {
        let mut signed = self.state.lock().await;
        if signed.count != sign_ins_seen {
            return Ok(());
        }
        let params = url::Url::parse(&self.url)
            .map(|base| WWWAuthenticateParams::parse(challenge, &base))
            .unwrap_or_default();
        let mut settings = self.settings.clone();
        if params.is_insufficient_scope() {
            let required: Vec<String> = params
                .scope
                .as_deref()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            if required.iter().all(|scope| signed.granted.contains(scope)) {
                return Err(OAuthError::Flow(format!(
                    "the server refuses the request for lack of scope ({}), although the token \
                     holds {}; signing in again would not change that",
                    params.scope.as_deref().unwrap_or("none named"),
                    describe_scopes(&signed.granted)
                )));
            }
            let mut union = signed.granted.clone();
            union.extend(required.into_iter().filter(|s| !signed.granted.contains(s)));
            settings.scopes = union;
        }
        if signed.count >= MAX_SIGN_INS {
            return Err(OAuthError::Flow(format!(
                "the server still refuses after {MAX_SIGN_INS} sign-ins on this connection; \
                 reconnect it to try again"
            )));
        }
        signed.count += 1;
        let challenge = Some(challenge).filter(|c| !c.trim().is_empty());
        let manager = sign_in(
            &self.server,
            &self.url,
            challenge,
            &settings,
            self.browser.as_ref(),
            SIGN_IN_WAIT,
            self.files.as_ref(),
        )
        .await?;
        signed.granted = granted_scopes(&manager).await;
        if signed.granted.is_empty() {
            // A token response may leave `scope` out when it grants what was asked.
            signed.granted = settings.scopes;
        }
        *self.manager.lock().await = manager;
        Ok(())
    }

    /// How many sign-ins this connection has made.
    pub async fn sign_ins(&self) -> u32 {
        self.state.lock().await.count
    }

    /// The current access token, for the connection's redaction list.
    pub async fn access_token(&self) -> Option<String> {
        self.manager.lock().await.get_access_token().await.ok()
    }
}

/// The scopes the token response granted (its `scope`, space-separated), read from its JSON
/// form rather than through the oauth2 crate's traits.
async fn granted_scopes(manager: &AuthorizationManager) -> Vec<String> {
    let Ok((_, Some(token))) = manager.get_credentials().await else {
        return Vec::new();
    };
    serde_json::to_value(&token)
        .ok()
        .and_then(|json| {
            json.get("scope")
                .and_then(|s| s.as_str().map(str::to_owned))
        })
        .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn describe_scopes(scopes: &[String]) -> String {
    if scopes.is_empty() {
        "no scopes".into()
    } else {
        scopes.join(" ")
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
            None,
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
