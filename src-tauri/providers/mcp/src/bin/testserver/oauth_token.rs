//! The token endpoint of the test server's authorization server ([`crate::oauth_server`]):
//! the authorization-code grant with its PKCE, redirect-URI, client and `resource` checks, and
//! the refresh grant (which rotates the refresh token and may only narrow the scopes). Kept
//! apart because it is where a client's mistakes show: each refusal names the check that
//! failed, in RFC 6749's error vocabulary.

use std::collections::HashMap;
use std::time::Instant;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use http::{HeaderMap, StatusCode};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::oauth_http::{json_reply, plain, Reply};
use crate::oauth_server::{
    bad_request, oauth_error, parameters, random_token, Access, AuthServer, Book, Fault, Refresh,
    CODE_LIFETIME,
};

impl AuthServer {
    /// `POST /token` (RFC 6749 §4.1.3 and §6).
    pub fn token(&self, headers: &HeaderMap, body: &[u8]) -> Reply {
        if self.fault == Some(Fault::HtmlToken) {
            // What a token endpoint behind a single-sign-on proxy, or a mistyped one, answers.
            return html_page();
        }
        let params = match parameters(body) {
            Ok(params) => params,
            Err(why) => return bad_request("invalid_request", &why),
        };
        let mut book = self.book();
        let client_id = match authenticate(&book, headers, &params) {
            Ok(id) => id,
            Err(why) => return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", &why),
        };
        let get = |name: &str| params.get(name).map(String::as_str);
        let scopes = match get("grant_type") {
            Some("authorization_code") => {
                let Some(code) = get("code").and_then(|c| book.codes.remove(c)) else {
                    return bad_request("invalid_grant", "unknown or already used code");
                };
                if code.client_id != client_id || code.issued.elapsed() > CODE_LIFETIME {
                    return bad_request(
                        "invalid_grant",
                        "the code is expired or not this client's",
                    );
                }
                if get("redirect_uri") != Some(code.redirect_uri.as_str()) {
                    return bad_request(
                        "invalid_grant",
                        "redirect_uri differs from the authorization request's",
                    );
                }
                if get("resource") != Some(self.resource.as_str()) {
                    return bad_request(
                        "invalid_target",
                        &format!("resource must be {}", self.resource),
                    );
                }
                let Some(verifier) = get("code_verifier") else {
                    return bad_request("invalid_request", "code_verifier is required (PKCE)");
                };
                let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
                if !(43..=128).contains(&verifier.len()) || computed != code.challenge {
                    return bad_request(
                        "invalid_grant",
                        "code_verifier does not match the code_challenge",
                    );
                }
                book.stats.code_exchanges += 1;
                code.scopes
            }
            Some("refresh_token") if self.fault == Some(Fault::ExpiredRefresh) => {
                return bad_request("invalid_grant", "refresh token expired");
            }
            Some("refresh_token") => {
                let Some(refresh) = get("refresh_token").and_then(|r| book.refresh.remove(r))
                else {
                    return bad_request("invalid_grant", "unknown or already used refresh token");
                };
                if refresh.client_id != client_id {
                    return bad_request("invalid_grant", "the refresh token is not this client's");
                }
                if get("resource").is_some_and(|r| r != self.resource) {
                    return bad_request(
                        "invalid_target",
                        &format!("resource must be {}", self.resource),
                    );
                }
                let asked: Vec<String> = get("scope")
                    .map(|s| s.split_whitespace().map(str::to_owned).collect())
                    .unwrap_or_else(|| refresh.scopes.clone());
                if asked.iter().any(|s| !refresh.scopes.contains(s)) {
                    return bad_request("invalid_scope", "a refresh cannot add scopes");
                }
                book.stats.refreshes += 1;
                asked
            }
            Some(other) => {
                return bad_request("unsupported_grant_type", &format!("grant_type '{other}'"))
            }
            None => return bad_request("invalid_request", "grant_type is required"),
        };
        let access = random_token();
        let refresh = random_token();
        book.access.insert(
            access.clone(),
            Access {
                scopes: scopes.clone(),
                expires: Instant::now() + self.lifetime,
            },
        );
        book.refresh.insert(
            refresh.clone(),
            Refresh {
                client_id,
                scopes: scopes.clone(),
            },
        );
        json_reply(
            StatusCode::OK,
            &json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": self.lifetime.as_secs(),
                "refresh_token": refresh,
                "scope": scopes.join(" "),
            }),
        )
    }
}

/// A login page where JSON was due.
fn html_page() -> Reply {
    let mut reply = plain(
        StatusCode::OK,
        "<!doctype html><html><head><title>Sign in</title></head><body><form method=\"post\">\
         <input name=\"username\"><input name=\"password\" type=\"password\"></form></body></html>",
    );
    reply.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    reply
}

/// The client a token request comes from: HTTP Basic, or `client_id` (and `client_secret`) in
/// the form; a client registered with a secret must present it.
fn authenticate(
    book: &Book,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<String, String> {
    let basic = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "));
    let (id, secret) = match basic {
        Some(encoded) => {
            let decoded = STANDARD
                .decode(encoded.trim())
                .ok()
                .and_then(|d| String::from_utf8(d).ok())
                .ok_or("the Basic credentials are not valid base64 text")?;
            let (id, secret) = decoded
                .split_once(':')
                .ok_or("the Basic credentials have no ':'")?;
            // RFC 6749 §2.3.1: both halves are form-urlencoded before joining.
            let unescape = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default()
            };
            (unescape(id), Some(unescape(secret)))
        }
        None => (
            params
                .get("client_id")
                .cloned()
                .ok_or("client_id is required")?,
            params.get("client_secret").cloned(),
        ),
    };
    let client = book.clients.get(&id).ok_or("unknown client_id")?;
    match (&client.secret, secret) {
        (None, _) => Ok(id),
        (Some(expected), Some(given)) if *expected == given => Ok(id),
        (Some(_), _) => Err("the client secret is missing or wrong".into()),
    }
}
