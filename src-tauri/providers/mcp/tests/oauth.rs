//! Signing in to an OAuth-protected MCP server, end to end: the client's sign-in (discovery,
//! dynamic registration, PKCE, the loopback redirect, refresh, step-up, stored sign-ins)
//! against the test server's `--http-oauth` mode, a separate process that is both the
//! protected resource and its authorization server. A [`Person`] stands in for the browser:
//! it follows the authorization page's redirect back to the client's loopback listener.

mod common;
#[path = "oauth/support.rs"]
mod support;

use std::time::Duration;

use common::{executor, run};
use serde_json::{json, Value};
use support::*;
use toolscope_mcp::SourceStatus;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signs_in_at_the_handshake_then_lists_and_calls() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = connect(&server, &person, &files).await;

    let tool = registry.get(NAME).expect("registered");
    assert!(tool.method("echo-text").is_some(), "{:?}", tool.info());
    let calls = executor(&registry, Duration::from_secs(30));
    let echoed = run(&calls, "guarded_echo-text", json!({"text": "behind oauth"})).await;
    assert!(echoed.is_success(), "{echoed:?}");
    assert_eq!(echoed.result, "behind oauth");

    let opened = person.opened();
    assert_eq!(opened.len(), 1, "{opened:?}");
    assert!(
        opened[0].starts_with(&format!("{}/authorize?", server.base)),
        "{}",
        opened[0]
    );
    assert_eq!(
        query_value(&opened[0], "resource").as_deref(),
        Some(server.url.as_str())
    );
    assert_eq!(
        query_value(&opened[0], "code_challenge_method").as_deref(),
        Some("S256")
    );
    let redirects = person
        .redirects
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    assert_eq!(redirects.len(), 1, "{redirects:?}");
    assert!(
        redirects[0].starts_with("http://127.0.0.1:"),
        "{}",
        redirects[0]
    );
    assert_eq!(
        query_value(&redirects[0], "state"),
        query_value(&opened[0], "state")
    );

    let files_on_disk = stored(dir.path());
    assert_eq!(files_on_disk.len(), 1, "{files_on_disk:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files_on_disk[0])
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let stats = server.stats().await;
    assert_eq!(
        (
            stats["authorizations"].as_u64(),
            stats["code_exchanges"].as_u64()
        ),
        (Some(1), Some(1)),
        "{stats}"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_uses_the_stored_sign_in_without_the_browser() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let first = Person::default();
    let (_registry, sources) = connect(&server, &first, &files).await;
    sources.shutdown();

    let again = Person::default();
    let (registry, sources) = connect(&server, &again, &files).await;
    assert!(again.opened().is_empty(), "{:?}", again.opened());
    assert!(registry
        .get(NAME)
        .is_some_and(|t| t.method("echo-text").is_some()));
    let calls = executor(&registry, Duration::from_secs(30));
    let echoed = run(&calls, "guarded_echo-text", json!({"text": "still me"})).await;
    assert_eq!(echoed.result, "still me", "{echoed:?}");
    let stats = server.stats().await;
    assert_eq!(
        (
            stats["authorizations"].as_u64(),
            stats["refreshes"].as_u64()
        ),
        (Some(1), Some(0)),
        "{stats}"
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_forgets_the_sign_in_and_the_next_connection_needs_the_browser() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let first = Person::default();
    let (_registry, sources) = connect(&server, &first, &files).await;
    sources.shutdown();

    assert!(files.forget(NAME, &server.url).expect("forgets"));
    assert!(stored(dir.path()).is_empty());
    let after = Person::default();
    let (_registry, sources) = connect(&server, &after, &files).await;
    assert_eq!(after.opened().len(), 1, "{:?}", after.opened());
    assert_eq!(server.stats().await["authorizations"], json!(2));
    assert_eq!(stored(dir.path()).len(), 1, "signed in and stored again");
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_without_a_second_sign_in() {
    // Four seconds: long enough that the handshake does not refresh (rmcp refreshes once less
    // than half the lifetime is left), short enough to wait out.
    let server = Server::start(4).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = connect(&server, &person, &files).await;
    let calls = executor(&registry, Duration::from_secs(30));
    let first = run(&calls, "guarded_echo-text", json!({"text": "one"})).await;
    assert_eq!(first.result, "one", "{first:?}");
    let stats = server.stats().await;
    assert_eq!(stats["refreshes"], json!(0), "{stats}");
    let old_token = stored_access_token(dir.path());

    tokio::time::sleep(Duration::from_secs(5)).await;
    // The server's side: the old token is refused with the challenge that leads to sign-in.
    let refused = reqwest::Client::new()
        .post(&server.url)
        .bearer_auth(&old_token)
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
        .send()
        .await
        .expect("answers");
    assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);
    let challenge = refused
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            server.base
        )),
        "{challenge}"
    );

    let second = run(&calls, "guarded_echo-text", json!({"text": "two"})).await;
    assert_eq!(second.result, "two", "{second:?}");
    let stats = server.stats().await;
    assert_eq!(
        (
            stats["authorizations"].as_u64(),
            stats["refreshes"].as_u64()
        ),
        (Some(1), Some(1)),
        "{stats}"
    );
    assert_eq!(person.opened().len(), 1);
    let new_token = stored_access_token(dir.path());
    assert_ne!(new_token, old_token, "the refreshed token is stored");
    // The server echoes the token it was sent: the one a refresh put in use mid-session is
    // redacted like the first.
    let echoed = run(&calls, "guarded_whoami", json!({})).await;
    assert!(echoed.is_success(), "{echoed:?}");
    assert!(
        !echoed.result.contains(&new_token) && echoed.result.contains("\"token\":\"***\""),
        "{}",
        echoed.result
    );
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_needing_more_scope_steps_up_with_a_second_sign_in() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::default();
    let (registry, sources) = connect(&server, &person, &files).await;
    let calls = executor(&registry, Duration::from_secs(30));
    let before = run(&calls, "guarded_whoami", json!({})).await;
    let before: Value = serde_json::from_str(&before.result).expect("whoami is JSON");
    assert_eq!(before["scopes"], json!(["mcp"]), "{before}");

    let admin = run(&calls, "guarded_admin-op", json!({})).await;
    assert!(
        admin.is_success(),
        "{admin:?}; browser problems: {:?}",
        person.problems()
    );
    assert_eq!(admin.result, "admin done");
    let opened = person.opened();
    assert_eq!(opened.len(), 2, "{opened:?}");
    let scopes = query_value(&opened[1], "scope").unwrap_or_default();
    let scopes: Vec<&str> = scopes.split_whitespace().collect();
    assert!(
        scopes.contains(&"admin") && scopes.contains(&"mcp"),
        "{scopes:?}"
    );

    let after = run(&calls, "guarded_whoami", json!({})).await;
    let after: Value = serde_json::from_str(&after.result).expect("whoami is JSON");
    assert_eq!(after["stats"]["authorizations"], json!(2), "{after}");
    let granted = after["scopes"].as_array().cloned().unwrap_or_default();
    assert!(granted.contains(&json!("admin")), "{after}");
    sources.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_sign_in_fails_the_connection_with_the_reason() {
    let server = Server::start(3600).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let files = sign_in_files(dir.path());
    let person = Person::refusing();
    let (registry, sources) = source_set(&person, &files);
    let state = sources.add(server.config()).await.expect("adds");
    let SourceStatus::Failed { reason } = &state.status else {
        panic!("connected without signing in: {:?}", state.status);
    };
    assert!(reason.contains("signing in failed"), "{reason}");
    assert!(
        reason.contains("the person closed the sign-in window"),
        "{reason}"
    );
    assert!(registry
        .get(NAME)
        .is_none_or(|t| t.method("echo-text").is_none()));
    assert!(stored(dir.path()).is_empty());
    assert_eq!(server.stats().await["code_exchanges"], json!(0));
    sources.shutdown();
}
