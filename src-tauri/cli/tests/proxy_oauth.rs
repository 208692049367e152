//! `toolscope proxy mcp --url` in front of a server behind OAuth: the project's rmcp test server
//! in `--http-oauth` mode (its own authorization server) refuses the first request; the proxy
//! signs in through `$BROWSER` (a script standing in for the person, who approves), sends the
//! request again with the token, and the agent sees only the server's answers. A second proxy
//! of the same name uses the stored sign-in without a browser; the token is in no record.

mod proxy_support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use proxy_support::*;
use serde_json::json;

/// The test server, ended when dropped.
struct OAuthServer {
    child: Child,
    url: String,
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(testserver: &Path) -> OAuthServer {
    let mut child = Command::new(testserver)
        .args(["--http-oauth", "--token-lifetime", "3600"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the test server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("the server announces its URL");
    let url = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    OAuthServer { child, url }
}

/// A `$BROWSER` that approves: it opens the page, whose redirect lands on the proxy's loopback
/// listener, and counts the pages it was given.
fn approving_browser(dir: &Path) -> String {
    let script = dir.join("approve.py");
    let opened = dir.join("opened");
    std::fs::write(
        &script,
        format!(
            "import sys, urllib.request\n\
             open({opened:?}, 'a').write(sys.argv[1] + '\\n')\n\
             urllib.request.urlopen(sys.argv[1], timeout=20).read()\n",
            opened = opened.display().to_string()
        ),
    )
    .expect("script written");
    format!("python3 {}", script.display())
}

fn pages_opened(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("opened"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

fn proxy(home: &Path, url: &str, browser: &str) -> Peer {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command
        .env("TOOLSCOPE_HOME", home)
        .env("BROWSER", browser)
        .args(["proxy", "mcp", "--name", "guarded", "--url", url]);
    Peer::start(command)
}

fn session(peer: &mut Peer) -> serde_json::Value {
    let initialized = peer.initialize();
    assert!(initialized.get("result").is_some(), "{initialized}");
    peer.request(
        1,
        "tools/call",
        json!({"name": "echo_text", "arguments": {"text": "behind oauth"}}),
    )
}

#[test]
fn the_proxy_signs_in_to_an_oauth_upstream_and_keeps_the_sign_in() {
    let Some(testserver) = mcp_testserver() else {
        return;
    };
    let server = start_server(&testserver);
    let home = tempfile::tempdir().expect("tempdir");
    let browser = approving_browser(home.path());

    let mut peer = proxy(home.path(), &server.url, &browser);
    let answer = session(&mut peer);
    assert_eq!(
        answer["result"]["content"][0]["text"], "behind oauth",
        "{answer}"
    );
    let (code, _) = peer.finish();
    assert_eq!(code, Some(0));
    assert_eq!(pages_opened(home.path()), 1, "one sign-in");
    let stored = toolscope_mcp::SignInFiles::in_data_dir(home.path())
        .load("guarded", &server.url)
        .expect("the sign-in is stored where the CLI keeps its own");
    let token = serde_json::to_value(&stored.credentials)
        .expect("json")
        .pointer("/token_response/access_token")
        .and_then(|t| t.as_str().map(str::to_owned))
        .expect("an access token");

    // The agent never saw a refusal: its answers are the server's, none made up by the proxy.
    let records = record(home.path(), "guarded");
    assert!(
        !records.iter().any(|r| r["origin"] == "proxy"),
        "no answer came from the proxy"
    );

    // A second proxy of the same name and URL uses the stored sign-in: no page is opened.
    let mut again = proxy(home.path(), &server.url, &browser);
    let answer = session(&mut again);
    assert_eq!(answer["result"]["content"][0]["text"], "behind oauth");
    let (code, _) = again.finish();
    assert_eq!(code, Some(0));
    assert_eq!(pages_opened(home.path()), 1, "no second sign-in");

    let sessions = home.path().join("proxy").join("guarded");
    for entry in std::fs::read_dir(&sessions).expect("sessions") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        assert!(!text.contains(&token), "the token is in no record");
    }

    // With --no-sign-in the refusal reaches the agent as the proxy's JSON-RPC error.
    let fresh = tempfile::tempdir().expect("tempdir");
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command
        .env("TOOLSCOPE_HOME", fresh.path())
        .env("BROWSER", &browser)
        .args(["proxy", "mcp", "--name", "guarded", "--url", &server.url])
        .arg("--no-sign-in");
    let mut refused = Peer::start(command);
    let answer = refused.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "toolscope-test", "version": "1"}}),
    );
    assert_eq!(answer["error"]["data"]["http_status"], 401, "{answer}");
    refused.finish();
}
