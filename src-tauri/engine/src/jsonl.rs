//! Append-only JSON Lines files that survive a crash mid-write: the mechanism under the run
//! history and the recorded conversations.
//!
//! Both are evidence (what a model asked for, what ran, what came back), so neither may lose a
//! complete record or glue a new one onto a fragment:
//!
//! * each record is one line written with one `write_all` on a file opened in append mode,
//!   under a mutex, so lines from concurrent callers never interleave;
//! * a crash can only damage the *last* line. [`AppendLog::open_with`] copies such a torn tail
//!   to a side file `<name>.torn-<unix ms>` and truncates the file back to its last `'\n'`;
//!   complete lines are never touched;
//! * [`read_lines`] streams a file and keeps every line its caller can parse, reporting (not
//!   hiding) the ones it had to skip.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

/// The reason given for a last line that has no terminating `'\n'`.
pub const TORN_FINAL_LINE_REASON: &str = "torn final line (incomplete write)";

/// A file operation that failed, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("{} {}: {action} failed: {source}", .kind, path.display())]
pub struct LogIoError {
    /// `"history file"`, `"conversation"`, ...: set by the log's owner through [`AppendLog::open_with`].
    pub kind: &'static str,
    /// What was being done (`"opening"`, `"appending to"`, ...).
    pub action: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
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

/// Lines read back by [`read_lines`]: the parsed ones in file order and the skipped ones.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedLines<T> {
    pub records: Vec<T>,
    pub skipped: Vec<SkippedLine>,
}

impl<T> Default for LoadedLines<T> {
    fn default() -> Self {
        Self {
            records: Vec::new(),
            skipped: Vec::new(),
        }
    }
}

fn io_err<'a>(
    kind: &'static str,
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> LogIoError + 'a {
    move |source| LogIoError {
        kind,
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The append-mode handle plus whether the last write may have left a fragment behind.
struct Writer {
    file: File,
    /// Set when a write failed part-way: the next append first ends the fragment with `'\n'`
    /// so the fragment stays a (skipped) line of its own instead of corrupting the next record.
    dirty: bool,
}

/// An open JSON Lines file. Cheap to share: `append_line` takes `&self` and is safe from any
/// thread.
pub struct AppendLog {
    kind: &'static str,
    path: PathBuf,
    durability: Durability,
    writer: Mutex<Writer>,
}

impl std::fmt::Debug for AppendLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendLog")
            .field("path", &self.path)
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

impl AppendLog {
    /// Opens for appending (creating parent directories and the file if missing).
    ///
    /// If the file does not end with `'\n'`, the bytes after the last `'\n'` (a line torn by a
    /// crash) are copied to `<name>.torn-<unix ms>` next to it and the file is truncated back to
    /// that `'\n'`; the returned [`OpenReport`] says so. `kind` names the file in errors.
    pub fn open_with(
        kind: &'static str,
        path: &Path,
        durability: Durability,
    ) -> Result<(AppendLog, OpenReport), LogIoError> {
        let mut created = false;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                fs::create_dir_all(parent).map_err(io_err(
                    kind,
                    "creating the directory of",
                    path,
                ))?;
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
            .map_err(io_err(kind, "opening", path))?;
        if created && durability == Durability::Fsync {
            sync_parent_dir(path);
        }
        let torn_tail = set_aside_torn_tail(kind, &mut file, path, durability)?;
        let log = AppendLog {
            kind,
            path: path.to_path_buf(),
            durability,
            writer: Mutex::new(Writer { file, dirty: false }),
        };
        Ok((log, OpenReport { torn_tail }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Appends `line` (which must hold no `'\n'`; compact JSON never does) and a `'\n'` with a
    /// single write, returning once it is with the OS or, with [`Durability::Fsync`], on disk.
    pub fn append_line(&self, mut line: Vec<u8>) -> Result<(), LogIoError> {
        line.push(b'\n');
        let mut writer = self.lock();
        if writer.dirty {
            line.insert(0, b'\n');
        }
        if let Err(source) = writer.file.write_all(&line) {
            writer.dirty = true;
            return Err(io_err(self.kind, "appending to", &self.path)(source));
        }
        writer.dirty = false;
        if self.durability == Durability::Fsync {
            writer
                .file
                .sync_data()
                .map_err(io_err(self.kind, "syncing", &self.path))?;
        }
        Ok(())
    }

    /// Whether the next append first ends a fragment left by a failed write (tests set it to
    /// simulate one, since a real part-way failure cannot be provoked portably).
    #[cfg(test)]
    pub(crate) fn dirty(&self) -> bool {
        self.lock().dirty
    }

    #[cfg(test)]
    pub(crate) fn set_dirty(&self) {
        self.lock().dirty = true;
    }

    fn lock(&self) -> MutexGuard<'_, Writer> {
        // A panic while holding the lock cannot leave a half-written line in memory: the line is
        // built before locking, and `dirty` covers a write that failed part-way.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Reads every line of the file at `path` without opening it for append (and without repairing
/// anything), keeping what `parse` accepts. Streams the file; a missing file reads as empty.
///
/// Empty lines are ignored. A last line without `'\n'` is skipped as a torn write; a line
/// `parse` refuses is skipped with its reason. Valid lines around a skipped one are all kept.
pub fn read_lines<T>(
    kind: &'static str,
    path: &Path,
    parse: impl FnMut(&[u8]) -> Result<T, String>,
) -> Result<LoadedLines<T>, LogIoError> {
    Ok(read_lines_from(kind, path, LineCursor::default(), parse)?.0)
}

/// Where a read of a log stopped: just after its last complete line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCursor {
    /// Bytes of the file already read.
    pub offset: u64,
    /// Lines already read (the next line's number is one more).
    pub line: usize,
}

/// [`read_lines`] from `start` on, for a reader that keeps what it read and later reads only
/// what was appended since. Returns where the next read starts: after the last complete line,
/// so a line still being written (reported as torn this time, as [`read_lines`] would) is read
/// again, whole, next time.
pub fn read_lines_from<T>(
    kind: &'static str,
    path: &Path,
    start: LineCursor,
    mut parse: impl FnMut(&[u8]) -> Result<T, String>,
) -> Result<(LoadedLines<T>, LineCursor), LogIoError> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok((LoadedLines::default(), LineCursor::default()))
        }
        Err(e) => return Err(io_err(kind, "opening", path)(e)),
    };
    if start.offset > 0 {
        file.seek(SeekFrom::Start(start.offset))
            .map_err(io_err(kind, "reading", path))?;
    }
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut loaded = LoadedLines::default();
    let mut buf = Vec::new();
    let mut cursor = start;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(io_err(kind, "reading", path))?;
        if n == 0 {
            break;
        }
        let line_no = cursor.line + 1;
        let line_offset = cursor.offset;
        let terminated = buf.last() == Some(&b'\n');
        if !terminated {
            if !buf.iter().all(u8::is_ascii_whitespace) {
                loaded.skipped.push(SkippedLine {
                    line: line_no,
                    byte_offset: line_offset,
                    reason: TORN_FINAL_LINE_REASON.to_owned(),
                });
            }
            break;
        }
        cursor = LineCursor {
            offset: line_offset + n as u64,
            line: line_no,
        };
        let content = &buf[..buf.len() - 1];
        if content.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse(content) {
            Ok(record) => loaded.records.push(record),
            Err(reason) => loaded.skipped.push(SkippedLine {
                line: line_no,
                byte_offset: line_offset,
                reason,
            }),
        }
    }
    Ok((loaded, cursor))
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Moves the bytes after the last '\n' (if any) to a side file and truncates them away.
fn set_aside_torn_tail(
    kind: &'static str,
    file: &mut File,
    path: &Path,
    durability: Durability,
) -> Result<Option<TornTail>, LogIoError> {
    let len = file
        .metadata()
        .map_err(io_err(kind, "inspecting", path))?
        .len();
    if len == 0 {
        return Ok(None);
    }
    let keep = match last_newline(file, len).map_err(io_err(kind, "reading", path))? {
        Some(pos) => pos + 1,
        None => 0,
    };
    if keep == len {
        return Ok(None);
    }
    let torn = len - keep;

    let (side_path, mut side) = create_side_file(kind, path)?;
    file.seek(SeekFrom::Start(keep))
        .map_err(io_err(kind, "reading the torn tail of", path))?;
    let copied = io::copy(&mut Read::by_ref(file).take(torn), &mut side).map_err(io_err(
        kind,
        "copying the torn tail of",
        path,
    ))?;
    if copied != torn {
        return Err(LogIoError {
            kind,
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
        .map_err(io_err(kind, "syncing the torn-tail file of", path))?;
    drop(side);
    sync_parent_dir(path);

    file.set_len(keep)
        .map_err(io_err(kind, "truncating the torn tail of", path))?;
    if durability == Durability::Fsync {
        file.sync_all().map_err(io_err(kind, "syncing", path))?;
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
fn create_side_file(kind: &'static str, path: &Path) -> Result<(PathBuf, File), LogIoError> {
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
            Err(e) => return Err(io_err(kind, "creating a torn-tail file for", path)(e)),
        }
    }
    Err(LogIoError {
        kind,
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
