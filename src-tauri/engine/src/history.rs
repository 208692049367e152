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
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use std::sync::Arc;
    use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus};

    fn result_for(request_id: &str, text: &str, ok: bool) -> ToolExecutionResult {
        ToolExecutionResult {
            request_id: request_id.to_owned(),
            tool_name: "calc_eval".to_owned(),
            status: if ok {
                ExecutionStatus::Success
            } else {
                ExecutionStatus::Error
            },
            result: text.to_owned(),
            duration_ms: 1.25,
            error: (!ok).then(|| ExecutionError {
                kind: ErrorKind::ToolError,
                message: text.to_owned(),
                issues: Vec::new(),
            }),
            truncated: None,
        }
    }

    fn entry(n: usize) -> HistoryEntry {
        let mut args = Map::new();
        args.insert("expr".to_owned(), json!(format!("{n} + 1")));
        args.insert("nested".to_owned(), json!({"list": [n, "x\ny", null]}));
        let parsed = ParsedToolRequest::manual("calc_eval", args);
        let result = result_for(&parsed.request_id, &format!("{}", n + 1), n % 3 != 0);
        HistoryEntry::new(None, "cli", RecordedRequest::from(&parsed), result)
    }

    fn write_raw(path: &Path, bytes: &[u8]) {
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .expect("open raw");
        f.write_all(bytes).expect("write raw");
    }

    #[test]
    fn history_round_trips_entries() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested/dir/history.jsonl");
        let (history, report) = History::open(&path).expect("open");
        assert_eq!(report, OpenReport::default());
        assert_eq!(history.path(), path.as_path());
        let entries: Vec<_> = (0..5).map(entry).collect();
        for e in &entries {
            history.append(e).expect("append");
        }
        let loaded = History::load(&path).expect("load");
        assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
        assert_eq!(loaded.entries, entries);

        // Every line is one JSON object carrying the format version first.
        let text = fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 5);
        for line in text.lines() {
            assert!(line.starts_with("{\"v\":1,"), "{line}");
        }
    }

    #[test]
    fn history_entry_new_sets_id_and_time() {
        let a = entry(1);
        let b = entry(2);
        assert_ne!(a.id, b.id);
        assert!(uuid::Uuid::parse_str(&a.id).is_ok());
        assert!(a.timestamp_ms > 1_600_000_000_000);
        assert_eq!(a.origin, "cli");
        assert_eq!(a.request.format, "manual");
    }

    #[test]
    fn history_parent_id_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let first = entry(1);
        let mut second = entry(2);
        second.parent_id = Some(first.id.clone());
        history.append(&first).expect("append");
        history.append(&second).expect("append");
        let loaded = History::load(&path).expect("load");
        assert_eq!(loaded.entries[0].parent_id, None);
        assert_eq!(
            loaded.entries[1].parent_id.as_deref(),
            Some(first.id.as_str())
        );
        assert_eq!(loaded.entries, vec![first, second]);
    }

    #[test]
    fn history_missing_file_loads_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let loaded = History::load(dir.path().join("nope.jsonl")).expect("load");
        assert_eq!(loaded, LoadedHistory::default());
    }

    #[test]
    fn history_torn_final_line_is_skipped_then_set_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("history.jsonl");
        let entries: Vec<_> = (0..3).map(entry).collect();
        {
            let (history, _) = History::open(&path).expect("open");
            for e in &entries {
                history.append(e).expect("append");
            }
        }
        let intact_len = fs::metadata(&path).expect("meta").len();
        let fragment = br#"{"v":1,"id":"torn","parent_id":null,"timestamp_ms":17"#;
        write_raw(&path, fragment);

        // load: the torn line is reported, the complete ones are all there.
        let loaded = History::load(&path).expect("load");
        assert_eq!(loaded.entries, entries);
        assert_eq!(
            loaded.skipped,
            vec![SkippedLine {
                line: 4,
                byte_offset: intact_len,
                reason: TORN_FINAL_LINE_REASON.to_owned(),
            }]
        );

        // open: the fragment moves to a side file and the file ends at the last '\n' again.
        let (history, report) = History::open(&path).expect("reopen");
        let torn = report.torn_tail.expect("torn tail reported");
        assert_eq!(torn.bytes, fragment.len() as u64);
        assert_eq!(torn.set_aside_to.parent(), path.parent());
        let side_name = torn
            .set_aside_to
            .file_name()
            .and_then(|n| n.to_str())
            .expect("side name");
        assert!(side_name.starts_with("history.jsonl.torn-"), "{side_name}");
        assert_eq!(fs::read(&torn.set_aside_to).expect("side"), fragment);
        assert_eq!(fs::metadata(&path).expect("meta").len(), intact_len);

        let extra = entry(9);
        history.append(&extra).expect("append after repair");
        let loaded = History::load(&path).expect("load");
        assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
        let mut expected = entries.clone();
        expected.push(extra);
        assert_eq!(loaded.entries, expected);

        // A clean file is left alone by the next open.
        drop(history);
        let (_, report) = History::open(&path).expect("reopen clean");
        assert_eq!(report.torn_tail, None);
    }

    #[test]
    fn history_file_that_is_only_a_fragment_is_emptied() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        // Longer than one backwards-read chunk, with no newline at all.
        let fragment = vec![b'x'; 200_000];
        write_raw(&path, &fragment);
        let (history, report) = History::open(&path).expect("open");
        let torn = report.torn_tail.expect("torn");
        assert_eq!(torn.bytes, fragment.len() as u64);
        assert_eq!(fs::read(&torn.set_aside_to).expect("side"), fragment);
        assert_eq!(fs::metadata(&path).expect("meta").len(), 0);
        let e = entry(1);
        history.append(&e).expect("append");
        assert_eq!(History::load(&path).expect("load").entries, vec![e]);
    }

    #[test]
    fn history_torn_tail_after_long_line_finds_the_right_newline() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let mut big = entry(1);
        big.result.result = "y".repeat(300_000);
        history.append(&big).expect("append");
        drop(history);
        let intact_len = fs::metadata(&path).expect("meta").len();
        write_raw(&path, &vec![b'z'; 150_000]);
        let (_, report) = History::open(&path).expect("reopen");
        assert_eq!(report.torn_tail.map(|t| t.bytes), Some(150_000));
        assert_eq!(fs::metadata(&path).expect("meta").len(), intact_len);
        assert_eq!(History::load(&path).expect("load").entries, vec![big]);
    }

    #[test]
    fn history_corrupt_middle_lines_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let a = entry(1);
        let b = entry(2);
        let c = entry(3);
        history.append(&a).expect("append");
        write_raw(&path, b"{not json at all\n");
        write_raw(&path, b"\n   \n");
        write_raw(&path, b"{\"v\":1,\"id\":\"x\"}\n");
        history.append(&b).expect("append");
        write_raw(&path, b"{\"v\":7,\"whatever\":true}\n");
        write_raw(&path, b"[1,2,3]\n");
        write_raw(&path, &[0xff, 0xfe, b'\n']);
        history.append(&c).expect("append");

        let loaded = History::load(&path).expect("load");
        assert_eq!(loaded.entries, vec![a, b, c]);
        let lines: Vec<_> = loaded.skipped.iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![2, 5, 7, 8, 9]);
        assert!(
            loaded.skipped[1].reason.contains("missing field"),
            "{:?}",
            loaded.skipped[1]
        );
        assert!(
            loaded.skipped[2]
                .reason
                .contains("unsupported format version 7"),
            "{:?}",
            loaded.skipped[2]
        );
        // Byte offsets point at the start of each skipped line.
        let raw = fs::read(&path).expect("read");
        for s in &loaded.skipped {
            let at = usize::try_from(s.byte_offset).expect("offset fits");
            assert!(at == 0 || raw[at - 1] == b'\n', "{s:?}");
        }
        assert!(loaded
            .skipped
            .iter()
            .all(|s| s.reason != TORN_FINAL_LINE_REASON));
    }

    #[test]
    fn history_open_never_rewrites_complete_lines_even_if_corrupt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        write_raw(&path, b"garbage line\n{\"also\":\"not an entry\"}\n");
        let before = fs::read(&path).expect("read");
        let (_, report) = History::open(&path).expect("open");
        assert_eq!(report.torn_tail, None);
        assert_eq!(fs::read(&path).expect("read"), before);
    }

    #[test]
    fn history_concurrent_appends_never_interleave() {
        const THREADS: usize = 8;
        const PER_THREAD: usize = 200;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let history = Arc::new(history);
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let history = Arc::clone(&history);
                std::thread::spawn(move || {
                    for i in 0..PER_THREAD {
                        let mut e = entry(i);
                        // Vary the size so some writes are large.
                        e.result.result = format!("t{t}-{i}-").repeat(1 + (i % 7) * 300);
                        history.append(&e).expect("append");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
        let text = fs::read_to_string(&path).expect("read");
        assert!(text.ends_with('\n'));
        let mut count = 0;
        for line in text.lines() {
            serde_json::from_str::<Value>(line).expect("every line is JSON");
            count += 1;
        }
        assert_eq!(count, THREADS * PER_THREAD);
        let loaded = History::load(&path).expect("load");
        assert!(loaded.skipped.is_empty());
        assert_eq!(loaded.entries.len(), THREADS * PER_THREAD);
        let ids: std::collections::HashSet<_> = loaded.entries.iter().map(|e| &e.id).collect();
        assert_eq!(ids.len(), THREADS * PER_THREAD);
    }

    #[test]
    fn history_fsync_durability_appends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open_with(&path, Durability::Fsync).expect("open");
        assert_eq!(history.durability(), Durability::Fsync);
        let e = entry(4);
        history.append(&e).expect("append");
        assert_eq!(History::load(&path).expect("load").entries, vec![e]);
    }

    #[test]
    fn history_refuses_non_finite_duration() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let mut e = entry(1);
        e.result.duration_ms = f64::NAN;
        let err = history.append(&e).expect_err("NaN refused");
        assert!(matches!(err, HistoryError::Serialize { .. }));
        assert!(err.to_string().contains("h.jsonl"), "{err}");
        assert_eq!(fs::metadata(&path).expect("meta").len(), 0);
    }

    #[test]
    fn history_errors_name_the_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A directory where the file should be.
        let path = dir.path().join("is_a_dir");
        fs::create_dir(&path).expect("mkdir");
        let err = History::open(&path).expect_err("cannot open a directory");
        assert!(err.to_string().contains("is_a_dir"), "{err}");
        let err = History::load(&path).expect_err("cannot load a directory");
        assert!(err.to_string().contains("is_a_dir"), "{err}");
    }

    #[test]
    fn history_append_after_failed_write_ends_the_fragment_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        let (history, _) = History::open(&path).expect("open");
        // Simulate a write that failed part-way and left a fragment behind.
        write_raw(&path, b"{\"v\":1,\"id\":\"half");
        history.lock().dirty = true;
        let e = entry(1);
        history.append(&e).expect("append");
        assert!(!history.lock().dirty);
        let loaded = History::load(&path).expect("load");
        assert_eq!(loaded.entries, vec![e]);
        assert_eq!(loaded.skipped.len(), 1);
        assert_eq!(loaded.skipped[0].line, 1);
    }

    #[test]
    fn history_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<History>();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn history_arbitrary_strings_always_load(
            pairs in proptest::collection::vec((any::<String>(), any::<String>()), 0..4),
            texts in proptest::collection::vec(any::<String>(), 1..4),
            origin in any::<String>(),
            tool in any::<String>(),
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join("h.jsonl");
            let (history, _) = History::open(&path).expect("open");
            let mut written = Vec::new();
            for (i, text) in texts.iter().enumerate() {
                let mut args = Map::new();
                for (k, v) in &pairs {
                    args.insert(k.clone(), Value::String(v.clone()));
                }
                let mut parsed = ParsedToolRequest::manual(tool.clone(), args);
                parsed.format = text.clone();
                let result = result_for(&parsed.request_id, text, i % 2 == 0);
                let mut e = HistoryEntry::new(
                    Some(text.clone()),
                    origin.clone(),
                    RecordedRequest::from(&parsed),
                    result,
                );
                e.id = format!("{}{}", e.id, text);
                history.append(&e).expect("append");
                written.push(e);
            }
            let loaded = History::load(&path).expect("load");
            prop_assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
            prop_assert_eq!(loaded.entries, written);
            let raw = fs::read(&path).expect("read");
            prop_assert_eq!(raw.iter().filter(|&&b| b == b'\n').count(), texts.len());
        }
    }
}
