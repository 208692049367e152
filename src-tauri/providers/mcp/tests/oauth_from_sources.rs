//! Signing in the way the app does it: servers connect at startup without opening a browser
//! (`SignInPolicy::Manual`), a server that requires authorization shows "sign in required",
//! the person starts the sign-in, reads its steps, and signs out. Against the test server's
//! `--http-oauth` mode, with a [`Person`] standing in for the browser.

mod common;
#[path = "oauth/support.rs"]
mod support;

use std::time::Duration;

use common::{eventually, executor, run};
use serde_json::json;
use support::*;
use toolscope_mcp::oauth::trace::StepOutcome;
use toolscope_mcp::oauth::SignInPolicy;
use toolscope_mcp::SourceStatus;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_asks_before_signing_in_then_shows_the_steps_and_signs_out() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = source_set_with(&person, &files, SignInPolicy::Manual);

    let state = sources.add(server.config()).await.expect("adds");
    assert!(
        matches!(&state.status, SourceStatus::SignInRequired { reason } if reason.contains("requires signing in")),
        "{:?}",
        state.status
    );
    assert!(!state.signed_in);
    assert!(person.opened().is_empty(), "no browser unasked");
    assert_eq!(
        server.stats().await["registrations"],
        json!(0),
        "nothing registered unasked"
    );
    assert!(registry.get(NAME).is_none());

    let state = sources.sign_in(NAME).await.expect("signs in");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}; browser problems: {:?}",
        state.status,
        person.problems()
    );
    assert!(state.signed_in);
    assert_eq!(person.opened().len(), 1);
    let calls = executor(&registry, Duration::from_secs(30));
    let echoed = run(&calls, "guarded_echo-text", json!({"text": "asked first"})).await;
    assert_eq!(echoed.result, "asked first", "{echoed:?}");

    let steps = sources.sign_in_steps(NAME).expect("steps");
    let titles: Vec<&str> = steps.iter().map(|s| s.title.as_str()).collect();
    for expected in [
        "Refused by the server",
        "Protected resource metadata (RFC 9728)",
        "Authorization server metadata (RFC 8414)",
        "Client registration (RFC 7591)",
        "Sign-in page opened in the browser",
        "Redirect received",
        "Token request (authorization code)",
        "Signed in",
    ] {
        assert!(
            titles.contains(&expected),
            "{expected} missing from {titles:?}"
        );
    }
    assert!(
        steps.iter().all(|s| s.outcome != StepOutcome::Failed),
        "{steps:#?}"
    );
    let token = stored_access_token(dir.path());
    let everything = serde_json::to_string(&steps).expect("serializes");
    assert!(!everything.contains(&token), "the access token is masked");
    let exchange = steps
        .iter()
        .find(|s| s.title == "Token request (authorization code)")
        .expect("token step");
    let sent = exchange.request.as_deref().unwrap_or_default();
    assert!(
        sent.contains("code=•••") && sent.contains("code_verifier=•••"),
        "{sent}"
    );
    let answer = exchange.response.as_deref().unwrap_or_default();
    assert!(
        answer.starts_with("200 OK") && answer.contains("\"access_token\": \"•••\""),
        "{answer}"
    );

    let state = sources.sign_out(NAME).await.expect("signs out");
    assert!(
        matches!(state.status, SourceStatus::SignInRequired { .. }),
        "{:?}",
        state.status
    );
    assert!(!state.signed_in);
    assert!(stored(dir.path()).is_empty(), "the stored sign-in is gone");
    assert_eq!(person.opened().len(), 1, "signing out opens nothing");
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_left_in_the_browser_can_be_cancelled() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::walking_away();
    let (_registry, sources) = source_set_with(&person, &files, SignInPolicy::Manual);
    sources.add(server.config()).await.expect("adds");
    let sources = std::sync::Arc::new(sources);
    let signing = {
        let sources = std::sync::Arc::clone(&sources);
        tokio::spawn(async move { sources.sign_in(NAME).await })
    };
    let waiting = eventually(Duration::from_secs(10), || {
        matches!(
            sources.state(NAME).map(|s| s.status),
            Ok(SourceStatus::SigningIn { .. })
        )
    })
    .await;
    assert!(waiting, "{:?}", sources.state(NAME));
    assert_eq!(person.opened().len(), 1);

    sources.cancel_sign_in(NAME).expect("cancels");
    let state = tokio::time::timeout(Duration::from_secs(5), signing)
        .await
        .expect("the sign-in ends at once, not after five minutes")
        .expect("joins")
        .expect("a state");
    assert!(
        matches!(&state.status, SourceStatus::SignInRequired { reason } if reason.contains("cancelled")),
        "{:?}",
        state.status
    );
    assert!(stored(dir.path()).is_empty());
    let steps = sources.sign_in_steps(NAME).expect("steps");
    let last = steps.last().expect("a step");
    assert_eq!(last.outcome, StepOutcome::Failed);
    assert!(
        last.note
            .as_deref()
            .unwrap_or_default()
            .contains("cancelled"),
        "{last:?}"
    );
    sources.shutdown();
}
