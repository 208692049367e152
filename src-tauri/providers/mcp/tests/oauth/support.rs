//! The parts of the OAuth tests shared by their files: the test server in `--http-oauth` mode
//! as a child process, and a [`Person`] who stands in for the browser.

#![allow(dead_code)] // each test file uses a different part

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;
use toolscope_engine::Registry;
use toolscope_mcp::oauth::SignInPolicy;
use toolscope_mcp::sources::SourceOptions;
use toolscope_mcp::{
    Browser, ClientHooks, McpServerConfig, McpSources, McpTransport, SignInFiles, SourceStatus,
};

pub const NAME: &str = "guarded";

/// A running `toolscope-mcp-testserver --http-oauth`; it ends when this is dropped (its stdin
/// closes, and the child is killed).
pub struct Server {
    _child: Child,
    pub url: String,
    pub base: String,
}

impl Server {
    pub async fn start(token_lifetime: u64) -> Self {
        Self::spawn(&[
            "--http-oauth",
            "--token-lifetime",
            &token_lifetime.to_string(),
        ])
        .await
    }

    /// A server that misbehaves as `--oauth-fault NAME` says.
    pub async fn start_with_fault(token_lifetime: u64, fault: &str) -> Self {
        Self::spawn(&[
            "--http-oauth",
            "--token-lifetime",
            &token_lifetime.to_string(),
            "--oauth-fault",
            fault,
        ])
        .await
    }

    async fn spawn(args: &[&str]) -> Self {
        let mut child =
            tokio::process::Command::new(env!("CARGO_BIN_EXE_toolscope-mcp-testserver"))
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .expect("the test server starts");
        let stdout = child.stdout.take().expect("piped");
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("the server announces its URL in time")
            .expect("reads stdout")
            .expect("a line");
        let url = line
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        let base = url.trim_end_matches("/mcp").to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url}"
        );
        Self {
            _child: child,
            url,
            base,
        }
    }

    pub fn config(&self) -> McpServerConfig {
        McpServerConfig {
            name: NAME.into(),
            transport: McpTransport::Http {
                url: self.url.clone(),
                headers: Default::default(),
                oauth: None,
            },
            enabled: true,
        }
    }

    /// The `WWW-Authenticate` challenge the MCP endpoint answers a request without a token
    /// with, as a connection would receive it.
    pub async fn challenge(&self) -> String {
        let refused = reqwest::Client::new()
            .post(&self.url)
            .header("content-type", "application/json")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .send()
            .await
            .expect("answers");
        assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);
        refused
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .expect("a challenge")
            .to_owned()
    }

    /// The authorization server's counters (`GET /stats`).
    pub async fn stats(&self) -> Value {
        reqwest::get(format!("{}/stats", self.base))
            .await
            .expect("stats answer")
            .json()
            .await
            .expect("stats are JSON")
    }
}

/// Stands in for the person at the browser: approves by following the authorization page's
/// redirect to the client's loopback listener, or refuses to open the page at all.
#[derive(Clone, Default)]
pub struct Person {
    refuse: bool,
    /// Opens the page and never finishes it (walked away from the browser).
    walk_away: bool,
    /// The authorization URLs opened, in order.
    pub opened: Arc<Mutex<Vec<String>>>,
    /// Where the authorization server sent the browser back to.
    pub redirects: Arc<Mutex<Vec<String>>>,
    pub problems: Arc<Mutex<Vec<String>>>,
}

impl Person {
    pub fn refusing() -> Self {
        Self {
            refuse: true,
            ..Self::default()
        }
    }

    pub fn walking_away() -> Self {
        Self {
            walk_away: true,
            ..Self::default()
        }
    }

    pub fn opened(&self) -> Vec<String> {
        self.opened
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn problems(&self) -> Vec<String> {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn hooks(&self) -> ClientHooks {
        ClientHooks {
            browser: Arc::new(self.clone()),
            ..ClientHooks::default()
        }
    }

    pub async fn approve(&self, page: String) -> Result<(), String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        let answer = http.get(&page).send().await.map_err(|e| e.to_string())?;
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned)
            .ok_or_else(|| {
                format!(
                    "the authorization page answered {} without a redirect",
                    answer.status()
                )
            })?;
        self.redirects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(location.clone());
        let back = http
            .get(&location)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !back.status().is_success() {
            return Err(format!("the loopback listener answered {}", back.status()));
        }
        Ok(())
    }
}

impl Browser for Person {
    fn open(&self, _server: &str, url: &str) -> Result<(), String> {
        if self.refuse {
            return Err("the person closed the sign-in window".into());
        }
        self.opened
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(url.to_owned());
        if self.walk_away {
            return Ok(());
        }
        // Called inside the client's sign-in, on the runtime: the approval runs beside it, as a
        // person's browser would, while the client waits on its listener.
        let person = self.clone();
        let page = url.to_owned();
        tokio::spawn(async move {
            if let Err(problem) = person.approve(page).await {
                person
                    .problems
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(problem);
            }
        });
        Ok(())
    }
}

pub fn source_set(person: &Person, files: &SignInFiles) -> (Arc<Registry>, McpSources) {
    source_set_with(person, files, SignInPolicy::Automatic)
}

/// A source set whose servers sign in by themselves (`Automatic`, the CLI) or only when asked
/// (`Manual`, the app).
pub fn source_set_with(
    person: &Person,
    files: &SignInFiles,
    policy: SignInPolicy,
) -> (Arc<Registry>, McpSources) {
    let registry = Arc::new(Registry::new());
    let options = SourceOptions {
        handshake_timeout: Duration::from_secs(20),
        hooks: person.hooks(),
        sign_ins: Some(files.clone()),
        sign_in_policy: policy,
        ..SourceOptions::default()
    };
    (Arc::clone(&registry), McpSources::new(registry, options))
}

/// Adds the server and expects it ready (signed in, tools listed).
pub async fn connect(
    server: &Server,
    person: &Person,
    files: &SignInFiles,
) -> (Arc<Registry>, McpSources) {
    let (registry, sources) = source_set(person, files);
    let state = sources.add(server.config()).await.expect("adds");
    assert!(
        matches!(state.status, SourceStatus::Ready { .. }),
        "{:?}; browser problems: {:?}",
        state.status,
        person.problems()
    );
    (registry, sources)
}

pub fn sign_in_files(dir: &Path) -> SignInFiles {
    SignInFiles::new(dir.join("sign-ins"))
}

/// The files in the sign-in directory.
pub fn stored(dir: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(dir.join("sign-ins")) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    }
}

pub fn query_value(url: &str, name: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let value = parsed
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned());
    value
}

/// The access token in the one stored sign-in file.
pub fn stored_access_token(dir: &Path) -> String {
    let files = stored(dir);
    let text = std::fs::read_to_string(files.first().expect("a stored sign-in")).expect("reads");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    json.pointer("/credentials/token_response/access_token")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no access token in {json}"))
        .to_owned()
}
