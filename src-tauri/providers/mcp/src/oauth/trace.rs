//! The steps of a server's last sign-in, as a person debugging a refusal needs to see them:
//! each request the flow sent and what came back (secrets masked), the browser and the
//! redirect, and where it stopped and why. A server that refuses a client is hard to debug
//! from one error line; the step where discovery, registration or the token request went
//! wrong usually says what to change.
//!
//! Refreshes made later by the same connection are added to the same trace, so "the token
//! expired and could not be refreshed" shows up with the token endpoint's answer.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

/// Steps kept per server: a long-lived connection refreshing every few minutes must not grow
/// without bound, and the first steps of a sign-in matter less than the last ones.
const MAX_STEPS: usize = 200;
/// Characters of a request or response body kept in a step.
const MAX_BODY_CHARS: usize = 4_000;
/// What stands for a masked value.
pub const MASK: &str = "•••";

/// Names of JSON fields, form fields and query parameters whose values are secrets.
const SECRET_FIELDS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code",
    "code_verifier",
    "registration_access_token",
    "password",
    "assertion",
    "client_assertion",
];
/// Headers whose values are secrets.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "cookie",
    "set-cookie",
    "proxy-authorization",
];

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    /// It did what the flow needed.
    Done,
    /// Nothing was found there, and the flow went on to the next place (discovery).
    Skipped,
    /// The flow stopped here.
    Failed,
    /// Something the person or the flow did (the browser opening, a redirect arriving).
    Info,
}

/// One step of a sign-in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SignInStep {
    /// Milliseconds since the trace began.
    pub elapsed_ms: u32,
    /// What the step is, in words ("Authorization server metadata (RFC 8414)").
    pub title: String,
    pub outcome: StepOutcome,
    /// The request as sent: request line, headers, body; secrets masked.
    pub request: Option<String>,
    /// The response: status line, headers, body; secrets masked, long bodies cut.
    pub response: Option<String>,
    /// What it means, or what to do about it.
    pub note: Option<String>,
}

/// The trace of one server; shared by its connection's sign-ins and refreshes.
#[derive(Debug)]
pub struct SignInTrace {
    inner: Mutex<Steps>,
}

#[derive(Debug)]
struct Steps {
    began: Instant,
    steps: VecDeque<SignInStep>,
}

impl Default for SignInTrace {
    fn default() -> Self {
        Self {
            inner: Mutex::new(Steps {
                began: Instant::now(),
                steps: VecDeque::new(),
            }),
        }
    }
}

impl SignInTrace {
    fn lock(&self) -> std::sync::MutexGuard<'_, Steps> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts over: a new sign-in replaces the steps of the previous one.
    pub fn begin(&self) {
        let mut inner = self.lock();
        inner.began = Instant::now();
        inner.steps.clear();
    }

    pub fn push(
        &self,
        title: impl Into<String>,
        outcome: StepOutcome,
        request: Option<String>,
        response: Option<String>,
        note: Option<String>,
    ) {
        let mut inner = self.lock();
        let elapsed_ms = u32::try_from(inner.began.elapsed().as_millis()).unwrap_or(u32::MAX);
        if inner.steps.len() == MAX_STEPS {
            inner.steps.pop_front();
        }
        inner.steps.push_back(SignInStep {
            elapsed_ms,
            title: title.into(),
            outcome,
            request,
            response,
            note,
        });
    }

    /// A step without an HTTP exchange.
    pub fn note(&self, title: impl Into<String>, outcome: StepOutcome, note: impl Into<String>) {
        self.push(title, outcome, None, None, Some(note.into()));
    }

    pub fn steps(&self) -> Vec<SignInStep> {
        self.lock().steps.iter().cloned().collect()
    }
}

/// An HTTP message as text for a step: `first` line, headers (secret ones masked), then the
/// body with secret fields masked and cut at [`MAX_BODY_CHARS`].
pub fn http_text(first: &str, headers: &http::HeaderMap, body: &[u8]) -> String {
    let mut text = String::from(first);
    for (name, value) in headers {
        let value = if SECRET_HEADERS.contains(&name.as_str()) {
            mask_credentials_header(value.to_str().unwrap_or_default())
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        text.push_str(&format!("\n{name}: {value}"));
    }
    if !body.is_empty() {
        text.push_str("\n\n");
        text.push_str(&cut(&mask_body(&String::from_utf8_lossy(body))));
    }
    text
}

/// Keeps the scheme of an `Authorization` value ("Bearer", "Basic"), which tells how the
/// client authenticated, and masks the rest.
fn mask_credentials_header(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, _)) => format!("{scheme} {MASK}"),
        None => MASK.to_owned(),
    }
}

/// A body with its secret fields masked: JSON (any depth) or a form / query string.
pub fn mask_body(body: &str) -> String {
    if let Ok(mut json) = serde_json::from_str::<serde_json::Value>(body) {
        mask_json(&mut json);
        return serde_json::to_string_pretty(&json).unwrap_or_default();
    }
    if body.contains('=') && !body.contains(char::is_whitespace) {
        return mask_pairs(body);
    }
    body.to_owned()
}

fn mask_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if SECRET_FIELDS.contains(&key.as_str()) && !value.is_null() {
                    *value = serde_json::Value::String(MASK.to_owned());
                } else {
                    mask_json(value);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(mask_json),
        _ => {}
    }
}

/// `a=1&code=xyz` → `a=1&code=•••`.
fn mask_pairs(pairs: &str) -> String {
    pairs
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if SECRET_FIELDS.contains(&key) => format!("{key}={MASK}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A URL with the secret parameters of its query masked (the redirect carries the code).
pub fn mask_url(address: &str) -> String {
    match address.split_once('?') {
        Some((base, query)) => format!("{base}?{}", mask_pairs(query)),
        None => address.to_owned(),
    }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_BODY_CHARS) {
        Some((at, _)) => format!("{}\n… ({} more bytes)", &text[..at], text.len() - at),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_tokens_codes_and_secrets_wherever_they_appear() {
        let json = mask_body(
            r#"{"access_token":"at-123","token_type":"Bearer","nested":{"refresh_token":"rt"}}"#,
        );
        assert!(
            !json.contains("at-123") && !json.contains("\"rt\""),
            "{json}"
        );
        assert!(json.contains("Bearer"), "{json}");
        let form =
            mask_body("grant_type=authorization_code&code=abc&code_verifier=xyz&client_id=c1");
        assert_eq!(
            form,
            "grant_type=authorization_code&code=•••&code_verifier=•••&client_id=c1"
        );
        assert_eq!(
            mask_url("http://127.0.0.1:5/callback?code=abc&state=s1"),
            "http://127.0.0.1:5/callback?code=•••&state=s1"
        );
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "authorization",
            http::HeaderValue::from_static("Basic dXNlcjpwYXNz"),
        );
        headers.insert("accept", http::HeaderValue::from_static("application/json"));
        let text = http_text("POST /token", &headers, b"");
        assert!(text.contains("authorization: Basic •••"), "{text}");
        assert!(text.contains("accept: application/json"), "{text}");
    }

    #[test]
    fn keeps_the_latest_steps_and_starts_over_on_begin() {
        let trace = SignInTrace::default();
        for i in 0..(MAX_STEPS + 5) {
            trace.note(format!("step {i}"), StepOutcome::Info, "");
        }
        let steps = trace.steps();
        assert_eq!(steps.len(), MAX_STEPS);
        assert_eq!(steps[0].title, "step 5");
        trace.begin();
        assert!(trace.steps().is_empty());
    }

    #[test]
    fn cuts_long_bodies_on_a_character_boundary() {
        let long = "é".repeat(MAX_BODY_CHARS + 10);
        let text = cut(&long);
        assert!(text.starts_with(&"é".repeat(MAX_BODY_CHARS)));
        assert!(text.ends_with("(20 more bytes)"), "{text}");
    }
}
