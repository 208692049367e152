//! What went wrong in a sign-in, as a class a front end can tell apart and a sentence a person
//! can act on: what happened, why Toolscope stopped, what to do.
//!
//! rmcp reports most failures as structured [`AuthError`] variants, and those are mapped one to
//! one. Two classes it flattens: a discovery redirect to another site arrives as a
//! `DiscoveryRequestFailed` whose source is a private rmcp type, and a token endpoint that
//! answers HTML arrives as `TokenExchangeFailed(String)` with the oauth2 crate's wording.
//! Rather than match that text, the OAuth client notes what the answers showed (redirects,
//! content types, which origins were contacted) as [`Findings`], and the error is classified
//! from those.

use std::sync::Mutex;

use rmcp::transport::auth::AuthError;
use url::Url;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    /// The server refused, and the policy leaves signing in to the person.
    #[error("{0}: sign in to use it")]
    SignInRequired(String),
    #[error("could not listen on 127.0.0.1 for the sign-in redirect: {0}")]
    Listener(String),
    #[error("could not open the sign-in page: {0}")]
    Browser(String),
    #[error(
        "the sign-in did not come back within {0} s (finish it in the browser, then connect again)"
    )]
    Timeout(u64),
    #[error("the sign-in was cancelled before the browser came back")]
    Cancelled,
    #[error(
        "the authorization server refused the sign-in: {error}{}",
        describe(description)
    )]
    Refused {
        error: String,
        description: Option<String>,
    },
    /// RFC 8414 §3.3 (metadata) or RFC 9207 (the redirect's `iss`): the authorization server
    /// says it is someone other than the one Toolscope asked.
    #[error(
        "the authorization server at {expected} says it is {received}; one whose identity \
         does not match its address may be an impostor, so Toolscope stopped before signing \
         in. Ask the server's operator to correct the \"issuer\" in its authorization server \
         metadata"
    )]
    IssuerMismatch { expected: String, received: String },
    /// A discovery request was redirected to another origin, which would then decide where
    /// the person signs in.
    #[error(
        "while finding out how to sign in, {from} redirected to another site ({to}); Toolscope \
         does not follow a sign-in to another site, since that site would choose where you \
         sign in. Check the server's address, or ask its operator to publish its metadata \
         without a redirect"
    )]
    RedirectedElsewhere { from: String, to: String },
    /// The protected-resource metadata names authorization servers the address checks forbid
    /// (rmcp skips them without a request).
    #[error(
        "the server sends the sign-in to {servers}, an internal address (link-local, private, \
         loopback or a cloud metadata service) that a sign-in for this server may not reach; \
         nothing was sent there. Ask the server's operator to name a reachable authorization \
         server"
    )]
    ForbiddenAuthorizationServer { servers: String },
    /// The redirect's `state` is not the one this sign-in sent (RFC 6749 §10.12).
    #[error(
        "the sign-in redirect came back with a different state than the one Toolscope sent, so \
         it does not belong to this sign-in and may be forged; nothing was signed in. Sign in \
         again, and if it happens again, something is tampering with the redirect"
    )]
    StateMismatch,
    /// The token endpoint answered something other than JSON (RFC 6749 §5.1).
    #[error(
        "the authorization server's token endpoint answered {content_type} instead of JSON (an \
         HTML page is usually a login page, a proxy, or the wrong address), so no token was \
         issued. Check the server's address and its \"oauth\" settings, or ask its operator"
    )]
    NotJson { content_type: String },
    /// The refresh token was refused with `invalid_grant`: only a new sign-in helps.
    #[error(
        "the authorization server refused to renew the sign-in, which has expired or was \
         revoked ({0}). Sign in again"
    )]
    RefreshRejected(String),
    #[error("{0}")]
    Flow(String),
}

fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default()
}

impl OAuthError {
    /// The same error with `secrets` taken out of every text that came from elsewhere (a
    /// server's words, addresses, a refresh's reason).
    pub fn redacted(self, secrets: &toolscope_engine::redact::Redactor) -> Self {
        let r = |text: String| secrets.redact(&text);
        match self {
            Self::SignInRequired(why) => Self::SignInRequired(r(why)),
            Self::Listener(why) => Self::Listener(r(why)),
            Self::Browser(why) => Self::Browser(r(why)),
            Self::Refused { error, description } => Self::Refused {
                error: r(error),
                description: description.map(r),
            },
            Self::IssuerMismatch { expected, received } => Self::IssuerMismatch {
                expected: r(expected),
                received: r(received),
            },
            Self::RedirectedElsewhere { from, to } => Self::RedirectedElsewhere {
                from: r(from),
                to: r(to),
            },
            Self::ForbiddenAuthorizationServer { servers } => Self::ForbiddenAuthorizationServer {
                servers: r(servers),
            },
            Self::NotJson { content_type } => Self::NotJson {
                content_type: r(content_type),
            },
            Self::RefreshRejected(why) => Self::RefreshRejected(r(why)),
            Self::Flow(why) => Self::Flow(r(why)),
            same @ (Self::Timeout(_) | Self::Cancelled | Self::StateMismatch) => same,
        }
    }

    /// The check that stopped the sign-in, and what it found, when no HTTP step shows it: the
    /// answers were well-formed HTTP, so the trace marks the check itself.
    pub fn failed_check(&self) -> Option<(&'static str, String)> {
        match self {
            Self::IssuerMismatch { expected, received } => Some((
                "Issuer check",
                format!("expected the issuer {expected}, got {received}"),
            )),
            Self::RedirectedElsewhere { from, to } => Some((
                "Redirect refused",
                format!("{from} redirected to {to}, another origin: not followed"),
            )),
            Self::ForbiddenAuthorizationServer { servers } => Some((
                "Authorization server refused",
                format!("{servers} is not an address this sign-in may contact: nothing sent"),
            )),
            _ => None,
        }
    }

    /// `error`, in the class what the answers showed puts it in.
    pub(crate) fn classify(error: AuthError, findings: &Findings) -> Self {
        let seen = findings.lock();
        match error {
            AuthError::DiscoveryRequestFailed { .. } if seen.redirect.is_some() => {
                let (from, to) = seen.redirect.clone().unwrap_or_default();
                Self::RedirectedElsewhere { from, to }
            }
            AuthError::AuthorizationServersUnavailable {
                authorization_servers,
                ..
            } if authorization_servers.iter().any(|s| !seen.contacted(s)) => {
                let refused: Vec<String> = authorization_servers
                    .into_iter()
                    .filter(|s| !seen.contacted(s))
                    .collect();
                Self::ForbiddenAuthorizationServer {
                    servers: refused.join(", "),
                }
            }
            AuthError::TokenExchangeFailed(_) if seen.not_json.is_some() => Self::NotJson {
                content_type: seen.not_json.clone().unwrap_or_default(),
            },
            other => Self::from(other),
        }
    }
}

impl From<AuthError> for OAuthError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::AuthorizationServerMismatch {
                expected_issuer,
                received_issuer,
            } => Self::IssuerMismatch {
                expected: expected_issuer,
                received: received_issuer,
            },
            AuthError::TokenRefreshRejected(reason) => Self::RefreshRejected(reason),
            other => Self::Flow(explain(&other)),
        }
    }
}

/// rmcp's errors name the step that failed; say what it means for the person.
pub(crate) fn explain(error: &AuthError) -> String {
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
        AuthError::AuthorizationServerMissingIssuer { expected_issuer } => format!(
            "the authorization server's metadata does not say who it is (no \"issuer\"; \
             {expected_issuer} was expected), so it cannot be told from an impostor; ask the \
             server's operator to add it"
        ),
        AuthError::DiscoveryRequestFailed { url, source } => {
            format!("could not read {url} to find out how to sign in: {source}")
        }
        other => other.to_string(),
    }
}

/// What the OAuth answers of one sign-in showed.
#[derive(Debug, Default)]
pub(crate) struct Findings(Mutex<Seen>);

#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The origins requests went to (`scheme://host:port`).
    origins: Vec<String>,
    /// A redirect to another origin that was not followed: (from, to).
    redirect: Option<(String, String)>,
    /// The content type of a token answer that was not JSON.
    not_json: Option<String>,
}

impl Findings {
    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Seen {
    /// Whether a request went to the origin of `server` (a URL, as metadata names it).
    fn contacted(&self, server: &str) -> bool {
        Url::parse(server).is_ok_and(|url| self.origins.contains(&origin(&url)))
    }
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

impl Findings {
    /// Notes what one answer showed: where it came from, a redirect to another origin that a
    /// stopped request got (rmcp follows one itself only on the same origin), and a token
    /// answer that is not JSON.
    pub(crate) fn note(
        &self,
        sent_to: &Url,
        stopped: bool,
        for_token: bool,
        status: http::StatusCode,
        headers: &http::HeaderMap,
    ) {
        let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
        let mut seen = self.lock();
        // Once each: a connection refreshing for weeks must not grow the list.
        if !seen.origins.contains(&origin(sent_to)) {
            seen.origins.push(origin(sent_to));
        }
        if stopped && status.is_redirection() {
            let next = header(http::header::LOCATION).and_then(|l| sent_to.join(l).ok());
            if let Some(next) = next.filter(|next| origin(next) != origin(sent_to)) {
                seen.redirect = Some((sent_to.to_string(), next.to_string()));
            }
        }
        let content_type = header(http::header::CONTENT_TYPE);
        if for_token && status.is_success() && !content_type.is_some_and(|t| t.contains("json")) {
            seen.not_json = Some(content_type.unwrap_or("no content type").to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_is_told_apart_from_what_the_answers_showed() {
        let findings = Findings::default();
        let html = AuthError::TokenExchangeFailed("Other error: whatever".into());
        assert!(matches!(
            OAuthError::classify(AuthError::TokenExchangeFailed("x".into()), &findings),
            OAuthError::Flow(_)
        ));
        findings.lock().not_json = Some("text/html".into());
        findings
            .lock()
            .origins
            .push("http://127.0.0.1:9".to_owned());
        assert_eq!(
            OAuthError::classify(html, &findings),
            OAuthError::NotJson {
                content_type: "text/html".into()
            }
        );
        let unavailable = |servers: &[&str]| AuthError::AuthorizationServersUnavailable {
            resource_metadata_url: Url::parse("http://127.0.0.1:9/.well-known/x").expect("url"),
            authorization_servers: servers.iter().map(|s| s.to_string()).collect(),
        };
        assert!(matches!(
            OAuthError::classify(unavailable(&["http://127.0.0.1:9"]), &findings),
            OAuthError::Flow(_)
        ));
        assert_eq!(
            OAuthError::classify(
                unavailable(&["http://127.0.0.1:9", "http://169.254.169.254"]),
                &findings
            ),
            OAuthError::ForbiddenAuthorizationServer {
                servers: "http://169.254.169.254".into()
            }
        );
        assert!(matches!(
            OAuthError::from(AuthError::TokenRefreshRejected("invalid_grant".into())),
            OAuthError::RefreshRejected(_)
        ));
    }
}
