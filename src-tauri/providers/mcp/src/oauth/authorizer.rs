//! Answering a server's refusals on a live connection: a `401` on any request (a server may let
//! the handshake through and refuse `tools/list`, or revoke a token) or a `403` with
//! `insufficient_scope` (step-up: the scopes held plus the ones asked for). The token lands in
//! the manager the connection's transport shares, so the retried request carries it.
//!
//! Whether a refusal may open the browser at all is the front end's call ([`SignInPolicy`]):
//! the app connects its servers at startup, and a browser window nobody asked for would be a
//! surprise; there the refusal is reported, and the person signs in from Sources.

use std::sync::Arc;

use rmcp::transport::auth::{AuthorizationManager, WWWAuthenticateParams};
use tokio::sync::Mutex;

use super::trace::StepOutcome;
use super::{sign_in, Browser, OAuthClientConfig, OAuthError, SignInContext, SIGN_IN_WAIT};

/// Sign-ins one connection may start: a server that keeps refusing must not keep opening the
/// browser (the first sign-in, a step-up, and one more).
pub const MAX_SIGN_INS: u32 = 3;

/// Whether a refusal may start a sign-in by itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SignInPolicy {
    /// A refusal opens the browser (the CLI; the app once the person asked to sign in).
    #[default]
    Automatic,
    /// A refusal is reported as [`OAuthError::SignInRequired`]; the person starts the sign-in.
    Manual,
}

/// Signs one connection in, as its refusals require.
pub struct Authorizer {
    server: String,
    url: String,
    settings: OAuthClientConfig,
    browser: Arc<dyn Browser>,
    manager: Arc<Mutex<AuthorizationManager>>,
    context: SignInContext,
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
        context: SignInContext,
    ) -> Self {
        Self {
            server,
            url,
            settings,
            browser,
            manager,
            context,
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
        if self.context.policy == SignInPolicy::Manual {
            let why = if params.is_insufficient_scope() {
                format!(
                    "the server asks for more scopes ({}) than the sign-in granted",
                    settings.scopes.join(" ")
                )
            } else {
                "the server requires signing in".to_owned()
            };
            self.context.trace.push(
                "Refused by the server",
                StepOutcome::Info,
                None,
                Some(format!("WWW-Authenticate: {challenge}")),
                Some(format!("{why}; sign in from Sources")),
            );
            return Err(OAuthError::SignInRequired(why));
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
            &self.context,
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

    /// Whether the connection holds a token (a refresh may still be needed to use it).
    pub async fn holds_token(&self) -> bool {
        self.current_token().await.is_some()
    }

    /// The token held now, as it is (no refresh), for redacting what comes back.
    pub async fn current_token(&self) -> Option<String> {
        let (_, token) = self.manager.lock().await.get_credentials().await.ok()?;
        let json = serde_json::to_value(token?).ok()?;
        json.get("access_token")?.as_str().map(str::to_owned)
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
