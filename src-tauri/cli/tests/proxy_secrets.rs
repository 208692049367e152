//! The record masks secrets the proxy knows of: server-everything's `get-env` tool returns its
//! whole environment, which it inherited from the proxy; the agent receives it unchanged, the
//! record has the secret-looking variable's value masked (unless `--keep-secrets`).

mod proxy_support;

use proxy_support::*;
use serde_json::json;

const SECRET: &str = "sk-live-0123456789abcdef";

fn session(extra: &[&str]) -> (String, String) {
    let script = everything_script().expect("checked by the caller");
    let home = tempfile::tempdir().expect("tempdir");
    let server = vec![node(), script, "stdio".to_owned()];
    let mut command = proxy_command(home.path(), "everything", extra, &server);
    command.env("MY_SERVICE_API_KEY", SECRET);
    let mut peer = Peer::start(command);
    peer.initialize();
    let env = peer.request(1, "tools/call", json!({"name": "get-env", "arguments": {}}));
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));
    let record = serde_json::to_string(&record(home.path(), "everything")).expect("json");
    (env.to_string(), record)
}

#[test]
fn a_secret_the_server_echoes_reaches_the_agent_but_not_the_record() {
    if everything_script().is_none() {
        return;
    }
    let (received, record) = session(&[]);
    assert!(
        received.contains(SECRET),
        "the agent gets the server's answer unchanged"
    );
    assert!(!record.contains(SECRET), "masked in the record");
    assert!(
        record.contains("MY_SERVICE_API_KEY"),
        "the rest of the answer is kept"
    );

    let (_, kept) = session(&["--keep-secrets", "--fsync"]);
    assert!(
        kept.contains(SECRET),
        "--keep-secrets records messages as they were"
    );
}
