//! Run history: an append-only JSONL record of every run that survives a crash mid-write.
//!
//! Why a file of its own and why this shape: the settings store rewrites its file in place and
//! silently drops a corrupt file (TAURI-NOTES.md, "Persistence caution"), which is fine for
//! settings and unacceptable for the record of what a model asked for and what ran. So history
//! is one JSON object per line, only ever appended:
//!
//! * the file mechanics (one single-write line per entry, a torn tail set aside at open, a
//!   streaming read that reports skipped lines) are [`crate::jsonl`]'s, shared with the recorded
//!   conversations;
//! * every line carries `"v": 1` so that later schema changes can still read old files.
//!
//! [`Durability::Flush`] (the default) hands each line to the OS before `append` returns, which
//! survives a killed process; [`Durability::Fsync`] also syncs it to disk, which survives power
//! loss at the cost of one fsync per entry.
//!
//! Several processes may append to the same file (each line is a single append-mode write), but
//! the torn-tail repair in `open` assumes no other process is in the middle of a write.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jsonl::{read_lines, AppendLog, LogIoError};
pub use crate::jsonl::{Durability, OpenReport, SkippedLine, TornTail, TORN_FINAL_LINE_REASON};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ToolExecutionResult;

/// The `"v"` written on every line. Lines with another version are skipped by [`History::load`].
pub const HISTORY_FORMAT_VERSION: u32 = 1;

/// The request half of a record: what was asked for, without parser positions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RecordedRequest {
    pub request_id: String,
    /// Routing name `{toolId}_{methodName}`.
    pub tool_name: String,
    pub args: Map<String, Value>,
    /// Id of the protocol that produced the request (`"manual"` for hand-typed calls).
    pub format: String,
}

impl From<&ParsedToolRequest> for RecordedRequest {
    fn from(request: &ParsedToolRequest) -> Self {
        Self {
            request_id: request.request_id.clone(),
            tool_name: request.tool_name.clone(),
            args: request.args.clone(),
            format: request.format.clone(),
        }
    }
}

/// One recorded run: one line of the history file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct HistoryEntry {
    /// Unique id of this entry (uuid v4).
    pub id: String,
    /// The entry this one follows from (e.g. the previous step of a cycle), if any.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// When the entry was created, unix milliseconds.
    pub timestamp_ms: i64,
    /// Who ran it: `"cli"`, `"app"`, `"cycle"`, ...
    pub origin: String,
    pub request: RecordedRequest,
    pub result: ToolExecutionResult,
}

impl HistoryEntry {
    /// A new entry with a fresh uuid v4 id, stamped with the current time.
    pub fn new(
        parent_id: Option<String>,
        origin: impl Into<String>,
        request: RecordedRequest,
        result: ToolExecutionResult,
    ) -> Self {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            parent_id,
            timestamp_ms: now_ms(),
            origin: origin.into(),
            request,
            result,
        }
    }
}

/// Everything [`History::load`] read: the valid entries in file order and the skipped lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadedHistory {
    pub entries: Vec<HistoryEntry>,
    pub skipped: Vec<SkippedLine>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("history file {}: {action} failed: {source}", path.display())]
    Io {
        /// What was being done (`"opening"`, `"appending to"`, ...).
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("history file {}: cannot serialise entry {id}: {source}", path.display())]
    Serialize {
        path: PathBuf,
        id: String,
        #[source]
        source: serde_json::Error,
    },
}

impl From<LogIoError> for HistoryError {
    fn from(e: LogIoError) -> Self {
        HistoryError::Io {
            action: e.action,
            path: e.path,
            source: e.source,
        }
    }
}

/// What the history's errors call its file.
const KIND: &str = "history file";

/// An open history file. Cheap to share: `append` takes `&self` and is safe from any thread.
pub struct History {
    log: AppendLog,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("path", &self.log.path())
            .field("durability", &self.log.durability())
            .finish_non_exhaustive()
    }
}

impl History {
    /// Opens (creating parent directories and the file if missing) with [`Durability::Flush`],
    /// setting aside a torn tail left by a crash. See [`History::open_with`].
    pub fn open(path: impl AsRef<Path>) -> Result<(History, OpenReport), HistoryError> {
        Self::open_with(path, Durability::default())
    }

    /// Opens for appending with the given durability.
    ///
    /// If the file does not end with `'\n'`, the bytes after the last `'\n'` (a line torn by a
    /// crash) are copied to `<name>.torn-<unix ms>` next to it and the file is truncated back to
    /// that `'\n'`; the returned [`OpenReport`] says so. Complete lines are never modified.
    pub fn open_with(
        path: impl AsRef<Path>,
        durability: Durability,
    ) -> Result<(History, OpenReport), HistoryError> {
        let (log, report) = AppendLog::open_with(KIND, path.as_ref(), durability)?;
        Ok((History { log }, report))
    }

    /// The history file's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// The durability chosen at open.
    pub fn durability(&self) -> Durability {
        self.log.durability()
    }

    /// Appends `entry` as one line (`"v"` + the entry's fields, then `'\n'`) with a single write.
    ///
    /// Returns once the line is with the OS ([`Durability::Flush`]) or on disk
    /// ([`Durability::Fsync`]). An entry whose `duration_ms` is not finite is refused, because
    /// JSON cannot represent it and the line would not load back.
    pub fn append(&self, entry: &HistoryEntry) -> Result<(), HistoryError> {
        let line = self.serialise(entry)?;
        Ok(self.log.append_line(line)?)
    }

    /// Reads every entry of the history at `path` without opening it for append (and without
    /// repairing anything). Streams the file; a missing file loads as empty.
    ///
    /// Empty lines are ignored. A last line without `'\n'` is skipped as a torn write; any other
    /// line that is not a valid version-1 entry is skipped with the parse error as its reason.
    /// Valid lines before and after a skipped one are all kept.
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedHistory, HistoryError> {
        let loaded = read_lines(KIND, path.as_ref(), parse_line)?;
        Ok(LoadedHistory {
            entries: loaded.records,
            skipped: loaded.skipped,
        })
    }

    /// Streams the history at `path`, handing each valid entry to `visit` in file order without
    /// keeping it, so a summary over a long history ([`crate::metrics`]) holds only what it
    /// needs. Skips exactly what [`History::load`] skips and returns those lines.
    pub fn for_each_entry(
        path: impl AsRef<Path>,
        mut visit: impl FnMut(HistoryEntry),
    ) -> Result<Vec<SkippedLine>, HistoryError> {
        // The records are `()`: a Vec of a zero-sized type never allocates.
        let loaded = read_lines(KIND, path.as_ref(), |content| {
            parse_line(content).map(&mut visit)
        })?;
        Ok(loaded.skipped)
    }

    fn serialise(&self, entry: &HistoryEntry) -> Result<Vec<u8>, HistoryError> {
        let serialise_err = |source| HistoryError::Serialize {
            path: self.log.path().to_path_buf(),
            id: entry.id.clone(),
            source,
        };
        if !entry.result.duration_ms.is_finite() {
            return Err(serialise_err(
                <serde_json::Error as serde::ser::Error>::custom(format!(
                    "result.duration_ms is {}, which JSON cannot represent",
                    entry.result.duration_ms
                )),
            ));
        }
        let line = LineOut {
            v: HISTORY_FORMAT_VERSION,
            id: &entry.id,
            parent_id: &entry.parent_id,
            timestamp_ms: entry.timestamp_ms,
            origin: &entry.origin,
            request: &entry.request,
            result: &entry.result,
        };
        // Compact JSON escapes control characters inside strings, so the line holds no '\n'.
        serde_json::to_vec(&line).map_err(serialise_err)
    }
}

/// The on-disk shape of a line, written.
#[derive(Serialize)]
struct LineOut<'a> {
    v: u32,
    id: &'a str,
    parent_id: &'a Option<String>,
    timestamp_ms: i64,
    origin: &'a str,
    request: &'a RecordedRequest,
    result: &'a ToolExecutionResult,
}

/// The on-disk shape of a line, read.
#[derive(Deserialize)]
struct LineIn {
    v: u32,
    id: String,
    #[serde(default)]
    parent_id: Option<String>,
    timestamp_ms: i64,
    origin: String,
    request: RecordedRequest,
    result: ToolExecutionResult,
}

fn unsupported_version(v: &Value) -> String {
    format!("unsupported format version {v} (this build reads version {HISTORY_FORMAT_VERSION})")
}

fn parse_line(content: &[u8]) -> Result<HistoryEntry, String> {
    match serde_json::from_slice::<LineIn>(content) {
        Ok(line) if line.v == HISTORY_FORMAT_VERSION => Ok(HistoryEntry {
            id: line.id,
            parent_id: line.parent_id,
            timestamp_ms: line.timestamp_ms,
            origin: line.origin,
            request: line.request,
            result: line.result,
        }),
        Ok(line) => Err(unsupported_version(&Value::from(line.v))),
        Err(e) => {
            // Explain a line of another version by its version rather than by whatever field
            // this build did not find in it.
            let version = serde_json::from_slice::<Map<String, Value>>(content)
                .ok()
                .and_then(|mut object| object.remove("v"));
            match version {
                Some(v) if v != HISTORY_FORMAT_VERSION => Err(unsupported_version(&v)),
                _ => Err(e.to_string()),
            }
        }
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests;

mod tail;
pub use tail::HistoryTail;
