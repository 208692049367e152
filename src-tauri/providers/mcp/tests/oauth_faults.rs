//! Bad input during a sign-in gets a clear, classified error and nothing stored: the test
//! server's `--oauth-fault` modes play a misconfigured or hostile authorization server, and
//! each test checks what a person sees (the server's status in Sources), what is left in the
//! sign-in directory, the sign-in's steps, and the [`OAuthError`] class a front end matches on.
//!
//! "A redirect to another host", for a native client, is not the browser being sent elsewhere
//! by `/authorize` (the client cannot see that: its loopback listener just never hears back,
//! which ends as a timeout). The redirects that decide where a person signs in are the ones
//! the client itself follows during discovery, so those are the threats tested:
//! - `redirect-elsewhere`: the protected-resource metadata the challenge points to answers 302
//!   to another origin. Following it would let that origin pick the authorization server
//!   (and with it, where the person types their password).
//! - `auth-server-elsewhere`: the protected-resource metadata names an authorization server at
//!   the cloud metadata address; contacting it would turn the sign-in into a request forgery
//!   against the person's network.

mod common;
#[path = "oauth/support.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use common::{executor, run};
use serde_json::json;
use support::*;
use toolscope_mcp::oauth::trace::{SignInStep, StepOutcome};
use toolscope_mcp::oauth::{sign_in, OAuthError, SignInContext, SignInPolicy};
use toolscope_mcp::{OAuthClientConfig, SourceStatus};

/// What a person is left with after connecting to a faulty server with `Automatic` sign-in.
struct Failure {
    reason: String,
    steps: Vec<SignInStep>,
    person: Person,
    server: Server,
    _dir: tempfile::TempDir,
}

/// Connects to a server started with `fault` and expects the connection to fail in signing in,
/// with nothing stored.
async fn connect_failing(fault: &str) -> Failure {
    let server = Server::start_with_fault(3600, fault).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = source_set(&person, &files);
    let state = sources.add(server.config()).await.expect("adds");
    let SourceStatus::Failed { reason } = state.status else {
        panic!("{fault}: did not fail: {:?}", state.status);
    };
    assert!(reason.contains("signing in failed"), "{reason}");
    assert!(!state.signed_in);
    assert!(registry.get(NAME).is_none(), "{fault}: no tools registered");
    assert!(stored(dir.path()).is_empty(), "{fault}: nothing stored");
    let steps = sources.sign_in_steps(NAME).expect("steps");
    sources.shutdown();
    Failure {
        reason,
        steps,
        person,
        server,
        _dir: dir,
    }
}

/// The class of the error a direct sign-in against a server started with `fault` ends in.
async fn sign_in_error(fault: &str) -> OAuthError {
    let server = Server::start_with_fault(3600, fault).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let context = SignInContext {
        files: Some(sign_in_files(dir.path())),
        trace: Arc::default(),
        policy: SignInPolicy::Automatic,
        ..SignInContext::default()
    };
    let challenge = server.challenge().await;
    let outcome = sign_in(
        NAME,
        &server.url,
        Some(&challenge),
        &OAuthClientConfig::default(),
        &Person::default(),
        Duration::from_secs(20),
        &context,
    )
    .await;
    assert!(stored(dir.path()).is_empty(), "{fault}: nothing stored");
    match outcome {
        Ok(_) => panic!("{fault}: signed in"),
        Err(e) => e,
    }
}

fn assert_mentions(text: &str, words: &[&str]) {
    for word in words {
        assert!(text.contains(word), "{word:?} missing from: {text}");
    }
}

/// The trace ends in `Stopped` carrying `words`, right after the step marked as the one that
/// failed, titled `failed_step`.
fn assert_stopped_at(steps: &[SignInStep], failed_step: &str, words: &[&str]) {
    let [.., marked, stopped] = steps else {
        panic!("too few steps: {steps:#?}");
    };
    assert_eq!(
        (stopped.title.as_str(), stopped.outcome),
        ("Stopped", StepOutcome::Failed)
    );
    assert_mentions(stopped.note.as_deref().unwrap_or_default(), words);
    assert_eq!(
        (marked.title.as_str(), marked.outcome),
        (failed_step, StepOutcome::Failed),
        "{steps:#?}"
    );
    assert!(marked.note.is_some(), "{marked:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_whose_issuer_does_not_match_stops_before_the_browser() {
    let failure = connect_failing("issuer-mismatch").await;
    assert_mentions(
        &failure.reason,
        &["https://login.example.com", "impostor", "\"issuer\""],
    );
    assert_stopped_at(&failure.steps, "Issuer check", &["login.example.com"]);
    assert!(failure.person.opened().is_empty(), "no browser");
    assert_eq!(failure.server.stats().await["registrations"], json!(0));

    match sign_in_error("issuer-mismatch").await {
        OAuthError::IssuerMismatch { received, .. } => {
            assert_eq!(received, "https://login.example.com")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discovery_redirect_to_another_host_is_not_followed() {
    let failure = connect_failing("redirect-elsewhere").await;
    assert_mentions(
        &failure.reason,
        &[
            "redirected to another site",
            "attacker.invalid",
            "server's address",
        ],
    );
    assert_stopped_at(&failure.steps, "Redirect refused", &["attacker.invalid"]);
    assert!(failure.person.opened().is_empty(), "no browser");

    match sign_in_error("redirect-elsewhere").await {
        OAuthError::RedirectedElsewhere { from, to } => {
            assert!(
                from.contains("/.well-known/oauth-protected-resource"),
                "{from}"
            );
            assert!(to.starts_with("http://attacker.invalid/"), "{to}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_server_at_an_internal_address_is_not_contacted() {
    let failure = connect_failing("auth-server-elsewhere").await;
    assert_mentions(
        &failure.reason,
        &["169.254.169.254", "internal address", "nothing was sent"],
    );
    assert_stopped_at(
        &failure.steps,
        "Authorization server refused",
        &["169.254.169.254"],
    );
    let everything = serde_json::to_string(&failure.steps).expect("serializes");
    assert!(
        !everything.contains("GET http://169.254.169.254"),
        "no request went there: {everything}"
    );

    assert!(matches!(
        sign_in_error("auth-server-elsewhere").await,
        OAuthError::ForbiddenAuthorizationServer { servers } if servers == "http://169.254.169.254"
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_with_another_state_is_not_exchanged() {
    let failure = connect_failing("bad-state").await;
    assert_mentions(&failure.reason, &["different state", "Sign in again"]);
    // The redirect itself is the step that went wrong.
    assert_stopped_at(&failure.steps, "Redirect received", &["different state"]);
    assert_eq!(failure.person.opened().len(), 1);
    let stats = failure.server.stats().await;
    assert_eq!(stats["code_exchanges"], json!(0), "{stats}");

    assert_eq!(sign_in_error("bad-state").await, OAuthError::StateMismatch);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_endpoint_answering_html_is_not_taken_for_a_token() {
    let failure = connect_failing("html-token").await;
    assert_mentions(
        &failure.reason,
        &["instead of JSON", "text/html", "address"],
    );
    assert_stopped_at(
        &failure.steps,
        "Token request (authorization code)",
        &["instead of JSON"],
    );

    match sign_in_error("html-token").await {
        OAuthError::NotJson { content_type } => {
            assert!(content_type.starts_with("text/html"), "{content_type}")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_on_a_live_connection_signs_in_again_when_allowed() {
    // Four seconds, as in tests/oauth.rs: no refresh at the handshake, short enough to wait out.
    let server = Server::start_with_fault(4, "expired-refresh").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = connect(&server, &person, &files).await;
    let first_token = stored_access_token(dir.path());
    let calls = executor(&registry, Duration::from_secs(30));

    tokio::time::sleep(Duration::from_secs(5)).await;
    let echoed = run(&calls, "guarded_echo-text", json!({"text": "again"})).await;
    assert_eq!(
        echoed.result,
        "again",
        "{echoed:?}; browser problems: {:?}",
        person.problems()
    );
    assert_eq!(person.opened().len(), 2, "a second browser sign-in");
    let stats = server.stats().await;
    assert_eq!(
        (
            stats["authorizations"].as_u64(),
            stats["refreshes"].as_u64()
        ),
        (Some(2), Some(0)),
        "{stats}"
    );
    assert_eq!(stored(dir.path()).len(), 1);
    assert_ne!(stored_access_token(dir.path()), first_token);
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_of_a_stored_sign_in_asks_the_person_and_forgets_it() {
    let server = Server::start_with_fault(4, "expired-refresh").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let first = Person::default();
    let (_registry, sources) = connect(&server, &first, &files).await;
    sources.shutdown();
    assert_eq!(stored(dir.path()).len(), 1);

    tokio::time::sleep(Duration::from_secs(5)).await;
    let person = Person::default();
    let (registry, sources) = source_set_with(&person, &files, SignInPolicy::Manual);
    let state = sources.add(server.config()).await.expect("adds");
    assert!(
        matches!(&state.status, SourceStatus::SignInRequired { .. }),
        "{:?}",
        state.status
    );
    assert!(!state.signed_in);
    assert!(person.opened().is_empty(), "no browser unasked");
    assert!(
        stored(dir.path()).is_empty(),
        "the dead sign-in is forgotten"
    );
    assert!(registry.get(NAME).is_none());

    let steps = sources.sign_in_steps(NAME).expect("steps");
    let refresh = steps
        .iter()
        .find(|s| s.title == "Token refresh")
        .unwrap_or_else(|| panic!("no refresh step: {steps:#?}"));
    assert_eq!(refresh.outcome, StepOutcome::Failed);
    assert_mentions(
        refresh.response.as_deref().unwrap_or_default(),
        &["invalid_grant", "refresh token expired"],
    );
    let stored_step = steps
        .iter()
        .find(|s| s.title == "Stored sign-in" && s.outcome == StepOutcome::Failed)
        .unwrap_or_else(|| panic!("no stored sign-in verdict: {steps:#?}"));
    assert_mentions(
        stored_step.note.as_deref().unwrap_or_default(),
        &["refused to renew", "expired", "Sign in again"],
    );
    assert_eq!(
        steps.last().map(|s| s.title.as_str()),
        Some("Refused by the server")
    );

    let state = sources.sign_in(NAME).await.expect("signs in");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}",
        state.status
    );
    assert_eq!(person.opened().len(), 1);
    assert_eq!(stored(dir.path()).len(), 1);
    sources.shutdown();
}
