//! Run history: an append-only JSONL record of every run that survives a crash mid-write.
//!
//! Why a file of its own and why this shape: the settings store rewrites its file in place and
//! silently drops a corrupt file (TAURI-NOTES.md, "Persistence caution"), which is fine for
//! settings and unacceptable for the record of what a model asked for and what ran. So history
//! is one JSON object per line, only ever appended:
//!
//! * each entry is serialised to a single line and written with one `write_all` on a file opened
//!   in append mode, under a mutex, so lines from concurrent callers never interleave;
//! * a crash can only ever damage the *last* line. [`History::open`] finds such a torn tail,
//!   copies it to a side file `<name>.torn-<unix ms>` and truncates the file back to its last
//!   `'\n'`, so the next append never glues onto a fragment. Complete lines are never touched;
//! * [`History::load`] streams the file line by line and keeps every valid entry, reporting (not
//!   hiding) the lines it had to skip;
//! * every line carries `"v": 1` so that later schema changes can still read old files.
//!
//! [`Durability::Flush`] (the default) hands each line to the OS before `append` returns, which
//! survives a killed process; [`Durability::Fsync`] also syncs it to disk, which survives power
//! loss at the cost of one fsync per entry.
//!
//! Several processes may append to the same file (each line is a single append-mode write), but
//! the torn-tail repair in `open` assumes no other process is in the middle of a write.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ToolExecutionResult;

/// The `"v"` written on every line. Lines with another version are skipped by [`History::load`].
pub const HISTORY_FORMAT_VERSION: u32 = 1;

/// The reason given for a last line that has no terminating `'\n'`.
pub const TORN_FINAL_LINE_REASON: &str = "torn final line (incomplete write)";

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

/// How far `append` goes before it returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// The line is handed to the OS (no user-space buffering): survives a killed process.
    #[default]
    Flush,
    /// The line is also synced to disk (`fsync`): survives power loss.
    Fsync,
}

/// A torn tail found and set aside by [`History::open`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TornTail {
    /// How many bytes followed the last `'\n'` and were moved out of the history file.
    pub bytes: u64,
    /// The side file that now holds them.
    pub set_aside_to: PathBuf,
}

/// What [`History::open`] had to do to the file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OpenReport {
    pub torn_tail: Option<TornTail>,
}

/// A line [`History::load`] could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    /// Offset of the line's first byte in the file.
    pub byte_offset: u64,
    pub reason: String,
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

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> HistoryError + 'a {
    move |source| HistoryError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The append-mode handle plus whether the last write may have left a fragment behind.
struct Writer {
    file: File,
    /// Set when a write failed part-way: the next append first ends the fragment with `'\n'`
    /// so the fragment stays a (skipped) line of its own instead of corrupting the next entry.
    dirty: bool,
}

/// An open history file. Cheap to share: `append` takes `&self` and is safe from any thread.
pub struct History {
    path: PathBuf,
    durability: Durability,
    writer: Mutex<Writer>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("path", &self.path)
            .field("durability", &self.durability)
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
        let path = path.as_ref();
        let mut created = false;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                fs::create_dir_all(parent).map_err(io_err("creating the directory of", path))?;
                created = true;
            }
        }
        if !path.exists() {
            created = true;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_err("opening", path))?;
        if created && durability == Durability::Fsync {
            sync_parent_dir(path);
        }

        let torn_tail = set_aside_torn_tail(&mut file, path, durability)?;
        let history = History {
            path: path.to_path_buf(),
            durability,
            writer: Mutex::new(Writer { file, dirty: false }),
        };
        Ok((history, OpenReport { torn_tail }))
    }

    /// The history file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The durability chosen at open.
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Appends `entry` as one line (`"v"` + the entry's fields, then `'\n'`) with a single write.
    ///
    /// Returns once the line is with the OS ([`Durability::Flush`]) or on disk
    /// ([`Durability::Fsync`]). An entry whose `duration_ms` is not finite is refused, because
    /// JSON cannot represent it and the line would not load back.
    pub fn append(&self, entry: &HistoryEntry) -> Result<(), HistoryError> {
        let mut line = self.serialise(entry)?;
        line.push(b'\n');

        let mut writer = self.lock();
        if writer.dirty {
            line.insert(0, b'\n');
        }
        if let Err(source) = writer.file.write_all(&line) {
            writer.dirty = true;
            return Err(HistoryError::Io {
                action: "appending to",
                path: self.path.clone(),
                source,
            });
        }
        writer.dirty = false;
        if self.durability == Durability::Fsync {
            writer
                .file
                .sync_data()
                .map_err(io_err("syncing", &self.path))?;
        }
        Ok(())
    }

    /// Reads every entry of the history at `path` without opening it for append (and without
    /// repairing anything). Streams the file; a missing file loads as empty.
    ///
    /// Empty lines are ignored. A last line without `'\n'` is skipped as a torn write; any other
    /// line that is not a valid version-1 entry is skipped with the parse error as its reason.
    /// Valid lines before and after a skipped one are all kept.
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedHistory, HistoryError> {
        let path = path.as_ref();
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(LoadedHistory::default()),
            Err(e) => return Err(io_err("opening", path)(e)),
        };
        let mut reader = BufReader::with_capacity(64 * 1024, file);
        let mut loaded = LoadedHistory::default();
        let mut buf = Vec::new();
        let mut offset: u64 = 0;
        let mut line_no: usize = 0;
        loop {
            buf.clear();
            let n = reader
                .read_until(b'\n', &mut buf)
                .map_err(io_err("reading", path))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            let line_offset = offset;
            offset += n as u64;

            let terminated = buf.last() == Some(&b'\n');
            let content = if terminated {
                &buf[..buf.len() - 1]
            } else {
                &buf[..]
            };
            if content.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if !terminated {
                loaded.skipped.push(SkippedLine {
                    line: line_no,
                    byte_offset: line_offset,
                    reason: TORN_FINAL_LINE_REASON.to_owned(),
                });
                break;
            }
            match parse_line(content) {
                Ok(entry) => loaded.entries.push(entry),
                Err(reason) => loaded.skipped.push(SkippedLine {
                    line: line_no,
                    byte_offset: line_offset,
                    reason,
                }),
            }
        }
        Ok(loaded)
    }

    fn serialise(&self, entry: &HistoryEntry) -> Result<Vec<u8>, HistoryError> {
        let serialise_err = |source| HistoryError::Serialize {
            path: self.path.clone(),
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

    fn lock(&self) -> MutexGuard<'_, Writer> {
        // A panic while holding the lock cannot leave a half-written line in memory: the line is
        // built before locking, and `dirty` covers a write that failed part-way.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
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

/// Moves the bytes after the last '\n' (if any) to a side file and truncates them away.
fn set_aside_torn_tail(
    file: &mut File,
    path: &Path,
    durability: Durability,
) -> Result<Option<TornTail>, HistoryError> {
    let len = file.metadata().map_err(io_err("inspecting", path))?.len();
    if len == 0 {
        return Ok(None);
    }
    let keep = match last_newline(file, len).map_err(io_err("reading", path))? {
        Some(pos) => pos + 1,
        None => 0,
    };
    if keep == len {
        return Ok(None);
    }
    let torn = len - keep;

    let (side_path, mut side) = create_side_file(path)?;
    file.seek(SeekFrom::Start(keep))
        .map_err(io_err("reading the torn tail of", path))?;
    let copied = io::copy(&mut Read::by_ref(file).take(torn), &mut side)
        .map_err(io_err("copying the torn tail of", path))?;
    if copied != torn {
        return Err(HistoryError::Io {
            action: "copying the torn tail of",
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("expected {torn} bytes after the last newline, read {copied}"),
            ),
        });
    }
    // The fragment must be safe in its side file before it is cut from the history.
    side.sync_all()
        .map_err(io_err("syncing the torn-tail file of", path))?;
    drop(side);
    sync_parent_dir(path);

    file.set_len(keep)
        .map_err(io_err("truncating the torn tail of", path))?;
    if durability == Durability::Fsync {
        file.sync_all().map_err(io_err("syncing", path))?;
    }
    Ok(Some(TornTail {
        bytes: torn,
        set_aside_to: side_path,
    }))
}

/// Position of the last '\n' in the first `len` bytes, reading backwards in chunks.
fn last_newline(file: &mut File, len: u64) -> io::Result<Option<u64>> {
    const CHUNK: u64 = 64 * 1024;
    let mut buf = vec![0u8; CHUNK as usize];
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(start + i as u64));
        }
        end = start;
    }
    Ok(None)
}

/// Creates `<name>.torn-<unix ms>` (or `...-<n>` if that exists) next to `path`.
fn create_side_file(path: &Path) -> Result<(PathBuf, File), HistoryError> {
    let name = path
        .file_name()
        .map(OsString::from)
        .unwrap_or_else(|| OsString::from("history"));
    let stamp = now_ms();
    for attempt in 0u32..1000 {
        let mut side_name = name.clone();
        side_name.push(format!(".torn-{stamp}"));
        if attempt > 0 {
            side_name.push(format!("-{attempt}"));
        }
        let side_path = path.with_file_name(side_name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&side_path)
        {
            Ok(file) => return Ok((side_path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_err("creating a torn-tail file for", path)(e)),
        }
    }
    Err(HistoryError::Io {
        action: "creating a torn-tail file for",
        path: path.to_path_buf(),
        source: io::Error::new(
            io::ErrorKind::AlreadyExists,
            "too many torn-tail files with the same timestamp",
        ),
    })
}

/// Best effort: make a newly created directory entry durable. Errors are ignored because not
/// every platform can open or sync a directory, and the data itself has been synced already.
fn sync_parent_dir(path: &Path) {
    let Some(parent) = path.parent() else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests;
