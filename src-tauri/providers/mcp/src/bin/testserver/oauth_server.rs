//! The authorization server half of `--http-oauth`: dynamic registration (RFC 7591), an
//! authorization endpoint that approves at once (it stands in for the person clicking "Allow"),
//! and a token endpoint ([`crate::oauth_token`]) for the code (PKCE S256, RFC 7636) and
//! refresh grants, with the `resource` indicator (RFC 8707) checked on both.
//!
//! It exists so the client's sign-in meets the wire formats of a real, strict server in another
//! process, rather than a mock that agrees with whatever the client sends: every check a real
//! authorization server makes on a public native client is made here, and a request that fails
//! one gets the RFC 6749 error a real server would answer with.
//!
//! With `--oauth-fault NAME` it misbehaves in one way ([`Fault`]), as a misconfigured or hostile
//! server would, so the client's refusal and its message can be tested end to end.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use http::StatusCode;
use rand::RngCore;
use serde::Serialize;
use serde_json::{json, Value};

use crate::oauth_http::{json_reply, plain, redirect, Reply};

/// What the protected resource knows: `mcp` to use it at all, `admin` for `admin_op`.
pub const SCOPES: [&str; 2] = ["mcp", "admin"];
/// An authorization code is exchanged within seconds; a stale one is refused.
pub(crate) const CODE_LIFETIME: Duration = Duration::from_secs(60);

/// One way the server misbehaves (`--oauth-fault NAME`); each is something a client must refuse
/// without signing in, or (the last) must answer by signing in again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `issuer-mismatch`: the metadata names an issuer on another origin than where it is
    /// served (RFC 8414 §3.3: the client must not use it).
    IssuerMismatch,
    /// `redirect-elsewhere`: the protected-resource metadata the challenge points to redirects
    /// to another host, which would then decide where the person signs in.
    RedirectElsewhere,
    /// `auth-server-elsewhere`: the protected-resource metadata names an authorization server
    /// at a link-local address (a cloud metadata service), which the client must not contact.
    AuthServerElsewhere,
    /// `bad-state`: `/authorize` redirects back with a `state` other than the one it received.
    BadState,
    /// `html-token`: `/token` answers 200 with an HTML login page.
    HtmlToken,
    /// `expired-refresh`: every refresh grant is refused with `invalid_grant`.
    ExpiredRefresh,
}

impl Fault {
    pub fn parse(name: &str) -> Result<Self, String> {
        Ok(match name {
            "issuer-mismatch" => Self::IssuerMismatch,
            "redirect-elsewhere" => Self::RedirectElsewhere,
            "auth-server-elsewhere" => Self::AuthServerElsewhere,
            "bad-state" => Self::BadState,
            "html-token" => Self::HtmlToken,
            "expired-refresh" => Self::ExpiredRefresh,
            other => return Err(format!("unknown fault '{other}'")),
        })
    }
}

/// Where `redirect-elsewhere` sends the client: a host that is not the server's (`.invalid`
/// never resolves, so nothing is reached even if a client followed it).
pub const ELSEWHERE: &str = "http://attacker.invalid/.well-known/oauth-protected-resource/mcp";
/// The authorization server `auth-server-elsewhere` names: the cloud metadata address.
pub const LINK_LOCAL_SERVER: &str = "http://169.254.169.254";
/// The issuer `issuer-mismatch` claims.
pub const OTHER_ISSUER: &str = "https://login.example.com";

pub struct AuthServer {
    pub issuer: String,
    /// The protected resource's URL, the only `resource` tokens are issued for.
    pub resource: String,
    pub(crate) lifetime: Duration,
    pub fault: Option<Fault>,
    book: Mutex<Book>,
}

#[derive(Default)]
pub(crate) struct Book {
    pub(crate) clients: HashMap<String, Client>,
    pub(crate) codes: HashMap<String, Code>,
    pub(crate) access: HashMap<String, Access>,
    pub(crate) refresh: HashMap<String, Refresh>,
    pub(crate) stats: Stats,
}

pub(crate) struct Client {
    pub(crate) redirect_uris: Vec<String>,
    pub(crate) secret: Option<String>,
}

pub(crate) struct Code {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    pub(crate) challenge: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) issued: Instant,
}

pub(crate) struct Access {
    pub(crate) scopes: Vec<String>,
    pub(crate) expires: Instant,
}

pub(crate) struct Refresh {
    pub(crate) client_id: String,
    pub(crate) scopes: Vec<String>,
}

/// What a test asserts on ("signed in once, refreshed once"): `GET /stats` and `whoami`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub registrations: u32,
    /// Hits on `/authorize`: each one is a person sent to the browser.
    pub authorizations: u32,
    pub code_exchanges: u32,
    pub refreshes: u32,
}

/// An RFC 6749 §5.2 error answer.
pub(crate) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Reply {
    json_reply(
        status,
        &json!({"error": error, "error_description": description}),
    )
}

pub(crate) fn bad_request(error: &str, description: &str) -> Reply {
    oauth_error(StatusCode::BAD_REQUEST, error, description)
}

/// 256 random bits, URL-safe: codes, tokens and client ids.
pub(crate) fn random_token() -> String {
    let mut bytes = [0_u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Request parameters, refusing a repeated one (RFC 6749 §3.1: sent at most once).
pub(crate) fn parameters(encoded: &[u8]) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    for (name, value) in url::form_urlencoded::parse(encoded) {
        if map.insert(name.to_string(), value.into_owned()).is_some() {
            return Err(format!("'{name}' is given more than once"));
        }
    }
    Ok(map)
}

impl AuthServer {
    pub fn new(issuer: String, resource: String, lifetime: Duration, fault: Option<Fault>) -> Self {
        Self {
            issuer,
            resource,
            lifetime,
            fault,
            book: Mutex::new(Book::default()),
        }
    }

    pub(crate) fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn stats(&self) -> Stats {
        self.book().stats.clone()
    }

    /// The scopes of a live access token; `None` for an unknown or expired one.
    pub fn scopes_of(&self, token: &str) -> Option<Vec<String>> {
        let book = self.book();
        let access = book.access.get(token)?;
        (Instant::now() < access.expires).then(|| access.scopes.clone())
    }

    /// RFC 8414 metadata.
    pub fn metadata(&self) -> Value {
        let issuer = &self.issuer;
        let claimed = match self.fault {
            Some(Fault::IssuerMismatch) => OTHER_ISSUER,
            _ => issuer.as_str(),
        };
        json!({
            "issuer": claimed,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "registration_endpoint": format!("{issuer}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "scopes_supported": SCOPES,
        })
    }

    /// `POST /register` (RFC 7591 §3).
    pub fn register(&self, body: &[u8]) -> Reply {
        let Ok(Value::Object(request)) = serde_json::from_slice::<Value>(body) else {
            return bad_request("invalid_client_metadata", "the body is not a JSON object");
        };
        let uris: Option<Vec<String>> = request
            .get("redirect_uris")
            .and_then(Value::as_array)
            .and_then(|uris| uris.iter().map(|u| u.as_str().map(str::to_owned)).collect());
        let Some(uris) = uris.filter(|u| !u.is_empty()) else {
            return bad_request(
                "invalid_redirect_uri",
                "redirect_uris must be a non-empty array of strings",
            );
        };
        if let Some(bad) = uris.iter().find(|u| url::Url::parse(u).is_err()) {
            return bad_request(
                "invalid_redirect_uri",
                &format!("'{bad}' is not an absolute URL"),
            );
        }
        // RFC 7591 §2: absent means client_secret_basic.
        let method = request
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .unwrap_or("client_secret_basic")
            .to_owned();
        let secret = match method.as_str() {
            "none" => None,
            "client_secret_post" | "client_secret_basic" => Some(random_token()),
            other => {
                return bad_request(
                    "invalid_client_metadata",
                    &format!("token_endpoint_auth_method '{other}' is not supported"),
                )
            }
        };
        let client_id = random_token();
        let mut answer = request.clone();
        answer.insert("client_id".into(), json!(client_id));
        answer.insert("redirect_uris".into(), json!(uris));
        answer.insert("token_endpoint_auth_method".into(), json!(method));
        if let Some(secret) = &secret {
            answer.insert("client_secret".into(), json!(secret));
            answer.insert("client_secret_expires_at".into(), json!(0));
        }
        let mut book = self.book();
        book.stats.registrations += 1;
        book.clients.insert(
            client_id,
            Client {
                redirect_uris: uris,
                secret,
            },
        );
        json_reply(StatusCode::CREATED, &Value::Object(answer))
    }

    /// `GET /authorize`: approves at once what a careful server would show a person.
    pub fn authorize(&self, query: &str) -> Reply {
        let mut book = self.book();
        book.stats.authorizations += 1;
        let params = match parameters(query.as_bytes()) {
            Ok(params) => params,
            Err(why) => return plain(StatusCode::BAD_REQUEST, &why),
        };
        let get = |name: &str| params.get(name).map(String::as_str);
        let Some(client) = get("client_id").and_then(|id| book.clients.get(id)) else {
            return plain(StatusCode::BAD_REQUEST, "unknown client_id");
        };
        // Until the redirect URI is known to be the client's, errors must not be sent there.
        let redirect_uri = match get("redirect_uri") {
            Some(uri) if client.redirect_uris.iter().any(|r| r == uri) => uri.to_owned(),
            Some(_) => return plain(StatusCode::BAD_REQUEST, "redirect_uri is not registered"),
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => return plain(StatusCode::BAD_REQUEST, "redirect_uri is required"),
        };
        let Ok(mut back) = url::Url::parse(&redirect_uri) else {
            return plain(StatusCode::BAD_REQUEST, "redirect_uri is not a URL");
        };
        let state = get("state");
        let fail = |mut back: url::Url, error: &str, description: &str| {
            {
                let mut pairs = back.query_pairs_mut();
                pairs.append_pair("error", error);
                pairs.append_pair("error_description", description);
                if let Some(state) = state {
                    pairs.append_pair("state", state);
                }
            }
            redirect(back.as_str())
        };
        if get("response_type") != Some("code") {
            return fail(
                back,
                "unsupported_response_type",
                "response_type must be 'code'",
            );
        }
        let challenge = match (get("code_challenge"), get("code_challenge_method")) {
            (Some(c), Some("S256")) if (43..=128).contains(&c.len()) => c.to_owned(),
            (None, _) => return fail(back, "invalid_request", "code_challenge is required (PKCE)"),
            (Some(_), Some("S256")) => {
                return fail(
                    back,
                    "invalid_request",
                    "code_challenge must be 43 to 128 characters",
                )
            }
            _ => {
                return fail(
                    back,
                    "invalid_request",
                    "code_challenge_method must be S256",
                )
            }
        };
        if get("resource") != Some(self.resource.as_str()) {
            return fail(
                back,
                "invalid_target",
                &format!("resource must be {} (RFC 8707)", self.resource),
            );
        }
        let scopes: Vec<String> = match get("scope") {
            Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
            None => vec!["mcp".to_owned()],
        };
        if let Some(unknown) = scopes.iter().find(|s| !SCOPES.contains(&s.as_str())) {
            return fail(back, "invalid_scope", &format!("unknown scope '{unknown}'"));
        }
        let code = random_token();
        let client_id = get("client_id").unwrap_or_default().to_owned();
        book.codes.insert(
            code.clone(),
            Code {
                client_id,
                redirect_uri,
                challenge,
                scopes,
                issued: Instant::now(),
            },
        );
        // A forged state is what a login-CSRF attacker's redirect looks like to the client.
        let state = match self.fault {
            Some(Fault::BadState) => Some("forged-state"),
            _ => state,
        };
        {
            let mut pairs = back.query_pairs_mut();
            pairs.append_pair("code", &code);
            if let Some(state) = state {
                pairs.append_pair("state", state);
            }
        }
        redirect(back.as_str())
    }
}
