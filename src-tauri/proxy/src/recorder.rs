//! The session file: `<data dir>/proxy/<name>/<session id>.jsonl`, append-only JSON Lines on
//! the engine's [`AppendLog`] (the history's crash-safe mechanism: one `write` per line, a
//! torn last line set aside on reopen). Every line is written through to the OS before the
//! message it describes is forwarded, so a killed proxy loses nothing it acknowledged.
//!
//! The recorder only stamps and appends; the order (`seq`) is kept by [`crate::tap::Tap`],
//! which calls it under one lock.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use toolscope_engine::jsonl::{AppendLog, Durability, LogIoError};
use toolscope_engine::redact::Redactor;

use crate::record::Event;

const KIND: &str = "proxy session";

/// What the header of a session says.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub name: String,
    pub argv: Vec<String>,
    pub enforce: bool,
}

/// A name usable as one directory: letters, digits, `.`, `_`, `-`; not starting with `.`.
pub fn check_name(name: &str) -> Result<(), String> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if fine {
        Ok(())
    } else {
        Err(format!(
            "invalid --name {name:?}: use 1-64 letters, digits, '.', '_' or '-' (not starting with '.')"
        ))
    }
}

/// A new session id: sortable by start time, unique across concurrent runs.
pub fn session_id() -> String {
    let uuid = uuid::Uuid::new_v4().simple().to_string();
    format!("{}-{}", Utc::now().format("%Y%m%dT%H%M%S%.3fZ"), &uuid[..8])
}

/// An open session file and the session's clock.
#[derive(Debug)]
pub struct Recorder {
    log: AppendLog,
    started: Instant,
    /// Secrets masked in every line (a message that carries one is then not byte for byte).
    redactor: Redactor,
}

/// How a session file is written.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// `Fsync` survives a power cut; `Flush` (the default) a killed proxy.
    pub durability: Durability,
    /// Values masked wherever they appear in a line.
    pub secrets: Vec<String>,
}

impl Recorder {
    /// Creates `<root>/<name>/<session_id>.jsonl` (directories included).
    pub fn create(root: &Path, name: &str, session_id: &str) -> Result<Self, LogIoError> {
        Self::create_with(root, name, session_id, &RecordOptions::default())
    }

    /// [`Recorder::create`] with a durability and secrets to mask.
    pub fn create_with(
        root: &Path,
        name: &str,
        session_id: &str,
        options: &RecordOptions,
    ) -> Result<Self, LogIoError> {
        let path = root.join(name).join(format!("{session_id}.jsonl"));
        let (log, _report) = AppendLog::open_with(KIND, &path, options.durability)?;
        let mut redactor = Redactor::default();
        for secret in &options.secrets {
            redactor.add(secret);
        }
        Ok(Self {
            log,
            started: Instant::now(),
            redactor,
        })
    }

    /// Opens (or continues) a session file at `path`.
    pub fn open(path: &Path) -> Result<Self, LogIoError> {
        let (log, _report) = AppendLog::open_with(KIND, path, Durability::Flush)?;
        Ok(Self {
            log,
            started: Instant::now(),
            redactor: Redactor::default(),
        })
    }

    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// Milliseconds since the session started (monotonic).
    pub fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Appends `event` stamped with `seq`, the wall clock and the session clock, and returns
    /// the session-clock time it was stamped with.
    pub fn append(&self, seq: u64, event: &Event<'_>) -> Result<f64, LogIoError> {
        let ms = self.elapsed_ms();
        let body = serde_json::to_vec(event).map_err(|e| LogIoError {
            kind: KIND,
            action: "encoding a record for",
            path: self.path().to_path_buf(),
            source: io::Error::other(e),
        })?;
        let at = Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true);
        let mut line = Vec::with_capacity(body.len() + 64);
        line.extend_from_slice(format!(r#"{{"seq":{seq},"at":"{at}","ms":{ms:.3},"#).as_bytes());
        // `body` is a JSON object with at least its `type`: splice its members in after ours.
        line.extend_from_slice(body.get(1..).unwrap_or_default());
        if !self.redactor.is_empty() {
            // Records are JSON text, so UTF-8: the lossy read never changes them.
            line = self
                .redactor
                .redact(&String::from_utf8_lossy(&line))
                .into_bytes();
        }
        self.log.append_line(line)?;
        Ok(ms)
    }
}

/// `<data dir>/proxy`: where the sessions of every name live.
pub fn sessions_root(data_dir: &Path) -> PathBuf {
    data_dir.join("proxy")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Direction;

    #[test]
    fn stamps_and_splices_records() {
        let dir = tempfile::tempdir().expect("tempdir");
        let recorder = Recorder::create(dir.path(), "demo", "s1").expect("create");
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(r#"{"jsonrpc":"2.0", "id":1,"result":{}}"#).expect("raw");
        let event = Event::Message {
            dir: Direction::ServerToAgent,
            origin: None,
            bytes: raw.get().len(),
            msg: Some(raw),
            text: None,
            base64: None,
        };
        recorder.append(3, &event).expect("append");
        let text = std::fs::read_to_string(dir.path().join("demo/s1.jsonl")).expect("read");
        assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
        assert!(
            text.contains(r#""msg":{"jsonrpc":"2.0", "id":1,"result":{}}"#),
            "{text}"
        );
        let value: serde_json::Value = serde_json::from_str(&text).expect("one JSON line");
        assert_eq!(value["seq"], 3);
        assert_eq!(value["type"], "message");
        assert_eq!(value["dir"], "server_to_agent");
        assert!(value["at"].as_str().is_some_and(|at| at.ends_with('Z')));
    }

    #[test]
    fn names_are_single_safe_directories() {
        assert!(check_name("github-tools_2.x").is_ok());
        for bad in ["", ".hidden", "../up", "a/b", "sp ace"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert_ne!(session_id(), session_id());
    }
}
