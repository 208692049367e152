//! Real agents' model clients for the tests: the OpenAI and Anthropic Python SDKs, from the
//! venv that `scripts/setup.sh --test` builds outside the checkout (pinned by
//! `scripts/sdk-constraints.txt`), driven by `tests/fixtures/proxy_llm/sdk_client.py`, which
//! prints one JSON document of what the SDK handed it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long one scenario may take (the real model answers in about 1-4 s a turn; Python and
/// the SDKs take a few seconds to import on a busy 2-core machine).
const TIMEOUT: Duration = Duration::from_secs(240);

/// Where `scripts/setup.sh --test` puts the venv, beside the model server's.
pub fn venv_dir() -> PathBuf {
    crate::llama_server::cache_dir().join("sdk-venv")
}

/// Where a scenario's SDK clients point.
pub struct Target<'a> {
    /// The OpenAI SDK's `base_url` (ends in `/v1`).
    pub openai_base_url: &'a str,
    /// The Anthropic SDK's `base_url`.
    pub anthropic_base_url: &'a str,
    pub api_key: &'a str,
    pub model: &'a str,
}

/// The venv's Python; panics with what to run when the venv is missing (the SDKs install from
/// PyPI as wheels, so a missing venv is a setup step not taken, never a reason to skip).
pub fn python() -> PathBuf {
    let venv = venv_dir();
    let python = venv.join("bin/python");
    assert!(
        python.is_file() && venv.join("toolscope-constraints.txt").is_file(),
        "the SDK venv is missing or incomplete at {} (no bin/python or no \
         toolscope-constraints.txt): run `bash scripts/setup.sh --test`",
        venv.display()
    );
    python
}

/// Runs `sdk_client.py SCENARIO` against `target` and returns what it printed.
pub fn run(scenario: &str, target: &Target) -> Value {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/proxy_llm/sdk_client.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    let out = std::fs::File::create(&out_path).expect("stdout file");
    let err = std::fs::File::create(&err_path).expect("stderr file");
    let mut command = Command::new(python());
    command
        .arg(&script)
        .arg(scenario)
        .env("SDK_OPENAI_BASE_URL", target.openai_base_url)
        .env("SDK_ANTHROPIC_BASE_URL", target.anthropic_base_url)
        .env("SDK_API_KEY", target.api_key)
        .env("SDK_MODEL", target.model)
        .env("NO_PROXY", "127.0.0.1")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // Nothing from the environment may redirect the SDKs or add credentials.
    for name in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
    ] {
        command.env_remove(name);
    }
    let started = Instant::now();
    let mut child = command.spawn().expect("the SDK venv's python starts");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for python") {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "sdk_client.py {scenario} did not finish within {} s; stderr:\n{}",
                TIMEOUT.as_secs(),
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    eprintln!(
        "sdk_client.py {scenario} -> {}: {status} in {:.1} s",
        target.openai_base_url,
        started.elapsed().as_secs_f64()
    );
    assert!(
        status.success(),
        "sdk_client.py {scenario} failed ({status}); stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("sdk_client.py {scenario} printed no JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    })
}
