//! The Live view's commands: the sessions `toolscope proxy mcp` recorded under
//! `<data dir>/proxy/<name>/<session id>.jsonl` (docs/proxy.md, "The record"), listed with what
//! each holds so far, and read from a line on so a running session can be tailed cheaply.
//!
//! Two places are read: the app's own data directory, and the one `toolscope` (the CLI, and
//! so the proxy) uses when nothing says otherwise (`$TOOLSCOPE_HOME`, else
//! `$XDG_DATA_HOME/toolscope`, else `~/.local/share/toolscope`): the app's is Tauri's
//! per-app directory, which the proxy does not know about.
//!
//! The app only reads these files (with the engine's crash-safe `read_lines_from`, which keeps
//! every complete line and leaves a torn last one for the next read); it never starts a proxy.
//! Summaries are kept between calls and brought up to date from where the last read stopped,
//! so polling the list every second reads only what was appended since.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tauri::State;
use toolscope_engine::jsonl::{read_lines_from, LineCursor, SkippedLine, TORN_FINAL_LINE_REASON};
use toolscope_proxy::recorder::{check_name, sessions_root};

use super::proxy_records::parse_record;
pub use super::proxy_records::{
    ProxyDirection, ProxyExitStatus, ProxyIssue, ProxyRecord, ProxyRecordBody, ProxySessionEnd,
};
use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

const KIND: &str = "proxy session";

/// Where a read of a session file stopped; give it back to read what was appended since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SessionCursor {
    /// Lines read so far.
    pub line: u32,
    /// Bytes read so far (just after the last complete line).
    pub offset: u64,
}

/// The sessions, and the directories they were looked for in.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ProxySessions {
    /// The `proxy` directories read, in order (the app's own first).
    pub roots: Vec<String>,
    /// Newest first.
    pub sessions: Vec<ProxySessionSummary>,
}

/// Records of a session from a cursor on.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ProxySessionChunk {
    pub records: Vec<ProxyRecord>,
    /// Lines that could not be read (not JSON, no `seq`, a malformed record ...).
    pub skipped: Vec<SkippedLine>,
    /// Where the next read starts.
    pub next: SessionCursor,
    /// The file ends in a line still being written, or torn by a killed proxy.
    pub torn: bool,
    /// The cursor did not fit the file (it was replaced): these records start from line 0,
    /// and what was read before must be dropped.
    pub reset: bool,
}

/// A recorded session, for the list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, specta::Type)]
pub struct ProxySessionSummary {
    /// The proxy's `--name` (the directory).
    pub name: String,
    /// The session id (the file's name, sortable by start time).
    pub session_id: String,
    /// When the session started (RFC 3339), from its first record.
    pub started_at: Option<String>,
    /// The time of its latest record.
    pub last_at: Option<String>,
    /// When the file was last written (unix milliseconds).
    pub modified_ms: Option<f64>,
    /// The server's command line, or `["--url", URL]`.
    pub argv: Vec<String>,
    pub enforce: bool,
    /// The server's name and version from the `initialize` answer.
    pub server: Option<String>,
    /// The agent's name and version from the `initialize` request.
    pub client: Option<String>,
    /// Tools in the latest complete listing the agent received.
    pub tools: Option<u32>,
    /// Messages forwarded (either way) or answered by the proxy.
    pub messages: u32,
    /// Tool calls answered.
    pub calls: u32,
    /// Calls answered with `isError: true` or a JSON-RPC error.
    pub failed_calls: u32,
    /// Calls whose arguments did not match the schema (or named an unlisted tool).
    pub invalid_calls: u32,
    /// Invalid calls refused by `--enforce`.
    pub refused_calls: u32,
    /// The `end` record; `None` while running, or when the proxy was killed.
    pub end: Option<ProxySessionEnd>,
    /// The file ends in an incomplete line.
    pub torn: bool,
    /// Lines that could not be read.
    pub skipped_lines: u32,
}

fn invalid(message: String, details: Value) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, message).with_details(details)
}

fn io_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(CommandErrorKind::History, error.to_string())
}

/// A name or id usable as one path component (what the proxy itself accepts for `--name`).
fn checked<'a>(what: &str, value: &'a str) -> Result<&'a str, CommandError> {
    check_name(value).map(|()| value).map_err(|_| {
        invalid(
            format!("{value:?} is not a proxy session {what}: use 1-64 letters, digits, '.', '_' or '-', not starting with '.'"),
            json!({ "field": what }),
        )
    })
}

/// The `proxy` directories to read: the app's, then the CLI's when it is another one.
pub fn session_roots(app_data_dir: &Path, cli_data_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut roots = vec![sessions_root(app_data_dir)];
    if let Some(cli) = cli_data_dir.map(sessions_root) {
        if !roots.contains(&cli) {
            roots.push(cli);
        }
    }
    roots
}

/// The file of session `id` of server `name`: under the first of `roots` that has it.
pub fn session_path(roots: &[PathBuf], name: &str, id: &str) -> Result<PathBuf, CommandError> {
    let relative = Path::new(checked("name", name)?).join(format!("{}.jsonl", checked("id", id)?));
    roots
        .iter()
        .map(|root| root.join(&relative))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            invalid(
                format!("no proxy session '{id}' of '{name}'"),
                json!({ "name": name, "id": id }),
            )
        })
}

/// Whether `cursor` can be where a read of the file at `path` stopped: 0, or just after a
/// line's `'\n'` within the file.
fn cursor_fits(path: &Path, cursor: SessionCursor) -> Result<bool, std::io::Error> {
    if cursor.offset == 0 {
        return Ok(cursor.line == 0);
    }
    let mut file = File::open(path)?;
    if file.metadata()?.len() < cursor.offset {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(cursor.offset - 1))?;
    let mut byte = [0u8];
    file.read_exact(&mut byte)?;
    Ok(byte[0] == b'\n')
}

fn is_torn(skipped: &[SkippedLine]) -> bool {
    skipped
        .last()
        .is_some_and(|s| s.reason == TORN_FINAL_LINE_REASON)
}

/// The records of session `id` of `name` from `from` on (the whole file from the default
/// cursor), and where the next read starts.
pub fn read_session(
    roots: &[PathBuf],
    name: &str,
    id: &str,
    from: SessionCursor,
) -> Result<ProxySessionChunk, CommandError> {
    let path = session_path(roots, name, id)?;
    let fits = cursor_fits(&path, from).map_err(io_error)?;
    let start = if fits {
        LineCursor {
            offset: from.offset,
            line: from.line as usize,
        }
    } else {
        LineCursor::default()
    };
    let (mut loaded, next) = read_lines_from(KIND, &path, start, parse_record).map_err(io_error)?;
    let torn = is_torn(&loaded.skipped);
    if torn {
        // Not a problem of the file (yet): the line is read whole next time if it completes.
        loaded.skipped.pop();
    }
    Ok(ProxySessionChunk {
        records: loaded.records,
        skipped: loaded.skipped,
        next: SessionCursor {
            line: u32::try_from(next.line).unwrap_or(u32::MAX),
            offset: next.offset,
        },
        torn,
        reset: !fits,
    })
}

/// What a summary needs from a line, without building the message it may carry.
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default)]
    enforced: bool,
    #[serde(default)]
    page: bool,
    #[serde(default)]
    names: Vec<serde::de::IgnoredAny>,
}

/// `"name version"` from an `initialize` record's `clientInfo` / `serverInfo`.
fn software(info: Option<&Value>) -> Option<String> {
    let info = info?;
    let name = info.get("name")?.as_str()?;
    Some(match info.get("version").and_then(Value::as_str) {
        Some(version) => format!("{name} {version}"),
        None => name.to_owned(),
    })
}

impl ProxySessionSummary {
    fn take(&mut self, line: &[u8]) -> Result<(), String> {
        let peek: Peek = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        if peek.at.is_some() {
            self.last_at.clone_from(&peek.at);
        }
        match peek.kind.as_str() {
            "message" => self.messages += 1,
            "call" => {
                self.calls += 1;
                if matches!(peek.outcome.as_deref(), Some("error" | "tool_error")) {
                    self.failed_calls += 1;
                }
            }
            "invalid_call" => {
                self.invalid_calls += 1;
                if peek.enforced {
                    self.refused_calls += 1;
                }
            }
            "tools" => {
                let count = u32::try_from(peek.names.len()).unwrap_or(u32::MAX);
                self.tools = Some(match (peek.page, self.tools) {
                    (true, Some(before)) => before.saturating_add(count),
                    _ => count,
                });
            }
            "session" | "initialize" | "end" => match parse_record(line)?.body {
                ProxyRecordBody::Session { argv, enforce, .. } => {
                    self.started_at = peek.at;
                    self.argv = argv;
                    self.enforce = enforce;
                }
                ProxyRecordBody::Initialize { params, result, .. } => {
                    self.client = software(params.as_ref().and_then(|p| p.get("clientInfo")));
                    self.server = software(result.as_ref().and_then(|r| r.get("serverInfo")));
                }
                ProxyRecordBody::End(end) => self.end = Some(end),
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }
}

/// A summary and where its file was last read up to.
#[derive(Debug, Clone, Default)]
struct Cached {
    cursor: LineCursor,
    summary: ProxySessionSummary,
}

fn cache() -> &'static Mutex<HashMap<PathBuf, Cached>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Cached>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The summary of one file, brought up to date from where it was last read.
fn summarise(
    path: &Path,
    name: &str,
    id: &str,
    previous: Option<Cached>,
) -> Result<Cached, CommandError> {
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    let mut cached = previous
        .filter(|c| c.cursor.offset <= metadata.len())
        .unwrap_or_else(|| Cached {
            cursor: LineCursor::default(),
            summary: ProxySessionSummary {
                name: name.to_owned(),
                session_id: id.to_owned(),
                ..ProxySessionSummary::default()
            },
        });
    let summary = &mut cached.summary;
    summary.modified_ms = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0);
    if metadata.len() > cached.cursor.offset {
        let (loaded, next) = read_lines_from(KIND, path, cached.cursor, |line| summary.take(line))
            .map_err(io_error)?;
        summary.torn = is_torn(&loaded.skipped);
        let skipped = loaded.skipped.len() - usize::from(summary.torn);
        summary.skipped_lines = summary
            .skipped_lines
            .saturating_add(u32::try_from(skipped).unwrap_or(u32::MAX));
        cached.cursor = next;
    }
    Ok(cached)
}

/// The session files under `root`, as (name, id, path).
fn session_files(root: &Path) -> Vec<(String, String, PathBuf)> {
    let Ok(names) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for entry in names.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        // Real directories only: a link could lead out of the data directory.
        if check_name(&name).is_err() || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(sessions) = std::fs::read_dir(entry.path()) else {
            continue;
        };
        for session in sessions.flatten() {
            let file_name = session.file_name();
            let Some(id) = file_name.to_str().and_then(|f| f.strip_suffix(".jsonl")) else {
                continue;
            };
            if check_name(id).is_ok() && session.file_type().is_ok_and(|t| t.is_file()) {
                files.push((name.clone(), id.to_owned(), session.path()));
            }
        }
    }
    files
}

/// Every session under `roots` (`<data dir>/proxy` directories), newest first; a session in
/// two of them is listed once, from the first.
pub fn list_sessions(roots: &[PathBuf]) -> ProxySessions {
    let mut cache = lock(cache());
    let mut fresh = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for (name, id, path) in roots.iter().flat_map(|root| session_files(root)) {
        if !seen.insert((name.clone(), id.clone())) {
            continue;
        }
        let previous = cache.remove(&path);
        // A file gone since it was listed, or unreadable, is left out this time.
        if let Ok(cached) = summarise(&path, &name, &id, previous) {
            fresh.insert(path, cached);
        }
    }
    // What is left of these roots' entries are files that are gone.
    cache.retain(|path, _| !roots.iter().any(|root| path.starts_with(root)));
    let mut sessions: Vec<_> = fresh.values().map(|c| c.summary.clone()).collect();
    cache.extend(fresh);
    sessions.sort_by(|a, b| {
        b.session_id
            .cmp(&a.session_id)
            .then_with(|| a.name.cmp(&b.name))
    });
    ProxySessions {
        roots: roots.iter().map(|r| r.display().to_string()).collect(),
        sessions,
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))?
}

/// Every session `toolscope proxy mcp` recorded (in the app's data directory or the CLI's),
/// newest first.
#[tauri::command]
#[specta::specta]
pub async fn proxy_sessions_list(
    state: State<'_, AppState>,
) -> Result<ProxySessions, CommandError> {
    let roots = session_roots(state.data_dir()?, state.cli_data_dir());
    blocking(move || Ok(list_sessions(&roots))).await
}

/// The records of one session from `from` on (`{line: 0, offset: 0}` for all of it) and the
/// cursor to read what is appended next.
#[tauri::command]
#[specta::specta]
pub async fn proxy_session_read(
    state: State<'_, AppState>,
    name: String,
    id: String,
    from: SessionCursor,
) -> Result<ProxySessionChunk, CommandError> {
    let roots = session_roots(state.data_dir()?, state.cli_data_dir());
    blocking(move || read_session(&roots, &name, &id, from)).await
}

#[cfg(test)]
#[path = "proxy_sessions_tests.rs"]
mod tests;
