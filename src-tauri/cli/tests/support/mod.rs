//! The CLI run as a script runs it: a sandboxed data directory, the real binary, its output.

#![allow(dead_code)] // each test file uses its own share of the helpers

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub struct Sandbox {
    home: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Self {
            home: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.home.path()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, None)
    }

    pub fn run_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(args)
            .env("TOOLSCOPE_HOME", self.path())
            .env_remove("TOOLSCOPE_WORKSPACE")
            .env_remove("TOOLSCOPE_HISTORY")
            .env_remove("TOOLSCOPE_SAMPLING_ENDPOINT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolscope starts");
        if let Some(mut pipe) = child.stdin.take() {
            if let Some(text) = stdin {
                pipe.write_all(text.as_bytes()).expect("stdin write");
            }
        }
        child.wait_with_output().expect("toolscope finishes")
    }

    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let output = self.run(args);
        let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout of {args:?} is not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
        });
        (output.status.code().unwrap_or(-1), value)
    }

    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.path().join(name);
        std::fs::write(&path, text).expect("write fixture");
        path.to_string_lossy().into_owned()
    }
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn routing_names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["methods"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["routing_name"].as_str().map(str::to_owned))
        .collect()
}

pub fn repo_path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
        .to_string_lossy()
        .into_owned()
}
