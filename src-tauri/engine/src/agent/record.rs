//! Conversations as evidence: every request, raw chunk, reply, parse, decision and result of an
//! agent run, appended as it happens to one JSON Lines file per conversation.
//!
//! The file is written through [`crate::jsonl`] (the history's crash-safe mechanics), so a run
//! killed mid-turn keeps everything up to the last complete line and the next open sets a torn
//! line aside. Each line carries `"v"` and the milliseconds since the conversation started, so
//! a timeline can be drawn from the file alone. Secrets the run knows (the endpoint's key) are
//! scrubbed from every line before it is written, whatever field they turn up in.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{ModelErrorKind, ModelInfo};
use super::reply::{AssembledReply, Usage};
use super::{AgentSettings, StopReason, TurnTiming};
use crate::jsonl::{read_lines, AppendLog, Durability, LogIoError, SkippedLine};
use crate::redact::Redactor;
use toolscope_protocol::parser::ParseReport;
use toolscope_protocol::result::ToolExecutionResult;

/// The `"v"` of every line.
pub const CONVERSATION_FORMAT_VERSION: u32 = 1;
const KIND: &str = "conversation";

/// What a person decided about one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run it; `edited` holds the arguments when the person changed them.
    Run {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        edited: Option<serde_json::Map<String, Value>>,
    },
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// End the conversation here.
    Stop,
}

/// One line of a conversation file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Started {
        id: String,
        /// Unix milliseconds.
        started_at_ms: i64,
        task: String,
        model: ModelInfo,
        settings: AgentSettings,
        /// The names the model was offered.
        tools: Vec<String>,
    },
    /// The start of a conversation recorded by the model proxy (`toolscope proxy llm`): an
    /// agent of the person's own talked to `upstream` through Toolscope. It has no settings or
    /// decisions (the agent made them); its turns are the agent's requests and the replies.
    Proxied {
        id: String,
        /// Unix milliseconds.
        started_at_ms: i64,
        /// The first user message of the conversation, as the agent sent it (shortened).
        first_message: String,
        model: ModelInfo,
        /// Where the proxy forwarded the requests.
        upstream: String,
        /// The tool names the agent offered the model in its first request.
        tools: Vec<String>,
    },
    Request {
        turn: u32,
        body: Value,
    },
    /// One SSE event's data as received.
    Chunk {
        turn: u32,
        data: String,
    },
    Retry {
        turn: u32,
        attempt: u32,
        of: u32,
        wait_ms: u64,
        reason: String,
    },
    Reply {
        turn: u32,
        reply: AssembledReply,
        timing: TurnTiming,
    },
    Parsed {
        turn: u32,
        report: ParseReport,
    },
    Decided {
        turn: u32,
        request_id: String,
        tool_name: String,
        decision: Decision,
    },
    Result {
        turn: u32,
        result: ToolExecutionResult,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestion: Option<String>,
    },
    /// What the loop told the model about a reply it could not act on.
    Feedback {
        turn: u32,
        text: String,
    },
    ModelFailed {
        turn: u32,
        kind: ModelErrorKind,
        message: String,
    },
    Ended {
        reason: StopReason,
        turns: u32,
        tool_calls: u32,
        usage: Usage,
    },
}

/// A record with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TimedRecord {
    /// Milliseconds since the conversation started.
    pub t_ms: f64,
    #[serde(flatten)]
    pub record: Record,
}

#[derive(Serialize)]
struct LineOut<'a> {
    v: u32,
    #[serde(flatten)]
    record: &'a TimedRecord,
}

#[derive(Deserialize)]
struct LineIn {
    v: u32,
    #[serde(flatten)]
    record: TimedRecord,
}

/// A conversation file open for appending.
#[derive(Debug)]
pub struct ConversationLog {
    id: String,
    log: AppendLog,
    started: Instant,
    redactor: Redactor,
}

impl ConversationLog {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// Milliseconds since the conversation started.
    pub fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Appends `record`, stamped with the time since the start, with known secrets scrubbed.
    pub fn append(&self, record: Record) -> Result<(), LogIoError> {
        let timed = TimedRecord {
            t_ms: (self.elapsed_ms() * 1000.0).round() / 1000.0,
            record,
        };
        let line = LineOut {
            v: CONVERSATION_FORMAT_VERSION,
            record: &timed,
        };
        let text = serde_json::to_string(&line).map_err(|e| LogIoError {
            kind: KIND,
            action: "serialising a record for",
            path: self.log.path().to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        let text = if self.redactor.is_empty() {
            text
        } else {
            self.redactor.redact(&text)
        };
        self.log.append_line(text.into_bytes())
    }
}

/// A conversation read back.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LoadedConversation {
    pub id: String,
    pub records: Vec<TimedRecord>,
    pub skipped: Vec<SkippedLine>,
}

/// One line of the conversation list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConversationSummary {
    pub id: String,
    pub started_at_ms: i64,
    /// The task, or for a proxied conversation its first user message.
    pub task: String,
    pub model: String,
    /// Recorded by the model proxy rather than run by Toolscope's own agent loop.
    pub proxied: bool,
    pub turns: u32,
    pub tool_calls: u32,
    /// `None` while running, or when the run was killed before it could say how it ended.
    pub ended: Option<StopReason>,
    pub usage: Usage,
}

#[derive(Debug, thiserror::Error)]
pub enum ConversationError {
    #[error(transparent)]
    Io(#[from] LogIoError),
    #[error("no conversation '{0}'")]
    NotFound(String),
    #[error("'{0}' is not a conversation id")]
    InvalidId(String),
}

/// The directory of conversation files (`<id>.jsonl`), where new ones are written, and any
/// other directories whose conversations are read with them (the app also shows what the CLI's
/// model proxy recorded in the CLI's data directory).
#[derive(Debug, Clone)]
pub struct ConversationStore {
    dir: PathBuf,
    others: Vec<PathBuf>,
    durability: Durability,
}

impl ConversationStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            others: Vec::new(),
            durability: Durability::default(),
        }
    }

    /// Also lists, loads and deletes the conversations of `dir`; ids found in both are the
    /// first directory's.
    pub fn with_other(mut self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        if dir != self.dir && !self.others.contains(&dir) {
            self.others.push(dir);
        }
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts a new conversation file; ids sort by start time. `secrets` are scrubbed from
    /// every line.
    pub fn create(&self, secrets: &[&str]) -> Result<ConversationLog, ConversationError> {
        let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
        let short = uuid::Uuid::new_v4().simple().to_string();
        let id = format!("{stamp}-{}", &short[..8]);
        let (log, _) = AppendLog::open_with(KIND, &self.path_of(&id)?, self.durability)?;
        let mut redactor = Redactor::default();
        for secret in secrets {
            redactor.add(secret);
        }
        Ok(ConversationLog {
            id,
            log,
            started: Instant::now(),
            redactor,
        })
    }

    pub fn load(&self, id: &str) -> Result<LoadedConversation, ConversationError> {
        let path = self.existing(id)?;
        let loaded = read_lines(KIND, &path, parse_line)?;
        Ok(LoadedConversation {
            id: id.to_owned(),
            records: loaded.records,
            skipped: loaded.skipped,
        })
    }

    /// Every conversation, newest first; a query keeps those whose task or model contains it
    /// (case-insensitive).
    pub fn list(&self, query: &str) -> Result<Vec<ConversationSummary>, ConversationError> {
        let needle = query.trim().to_lowercase();
        let mut summaries: Vec<ConversationSummary> = Vec::new();
        for dir in std::iter::once(&self.dir).chain(&self.others) {
            let entries = match fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(LogIoError {
                        kind: "conversations folder",
                        action: "listing",
                        path: dir.clone(),
                        source,
                    }
                    .into())
                }
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Some(id) = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_suffix(".jsonl"))
                else {
                    continue;
                };
                if summaries.iter().any(|s| s.id == id) {
                    continue;
                }
                let Some(summary) = summary_of(&path, || self.load(id))? else {
                    continue;
                };
                let haystack = format!("{} {}", summary.task, summary.model).to_lowercase();
                if needle.is_empty() || haystack.contains(&needle) {
                    summaries.push(summary);
                }
            }
        }
        summaries.sort_by(|a, b| b.started_at_ms.cmp(&a.started_at_ms).then(b.id.cmp(&a.id)));
        Ok(summaries)
    }

    pub fn delete(&self, id: &str) -> Result<(), ConversationError> {
        let path = self.existing(id)?;
        fs::remove_file(&path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => ConversationError::NotFound(id.to_owned()),
            _ => LogIoError {
                kind: KIND,
                action: "deleting",
                path: path.clone(),
                source,
            }
            .into(),
        })
    }

    /// The file of `id` in the first directory that has it.
    fn existing(&self, id: &str) -> Result<PathBuf, ConversationError> {
        let name = self.path_of(id)?;
        let name = name.file_name().map(PathBuf::from).unwrap_or_default();
        std::iter::once(&self.dir)
            .chain(&self.others)
            .map(|dir| dir.join(&name))
            .find(|path| path.is_file())
            .ok_or_else(|| ConversationError::NotFound(id.to_owned()))
    }

    /// The file of `id`; ids are the store's own, so anything that could leave the directory is
    /// refused rather than resolved.
    fn path_of(&self, id: &str) -> Result<PathBuf, ConversationError> {
        let valid = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid {
            return Err(ConversationError::InvalidId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.jsonl")))
    }
}

fn parse_line(content: &[u8]) -> Result<TimedRecord, String> {
    match serde_json::from_slice::<LineIn>(content) {
        Ok(line) if line.v == CONVERSATION_FORMAT_VERSION => Ok(line.record),
        Ok(line) => Err(format!(
            "unsupported format version {} (this build reads version {CONVERSATION_FORMAT_VERSION})",
            line.v
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// The list line of a conversation; `None` for a file without its start record.
/// A file's summary as of its length and modification time: the Agent pane lists the
/// conversations every few seconds while a proxied one may be growing, and reading every file
/// whole each time would grow with the whole history. Process-wide, so every store shares it.
type SummaryCache = HashMap<PathBuf, (u64, Option<SystemTime>, Option<ConversationSummary>)>;

fn summary_of(
    path: &Path,
    load: impl FnOnce() -> Result<LoadedConversation, ConversationError>,
) -> Result<Option<ConversationSummary>, ConversationError> {
    static CACHE: OnceLock<Mutex<SummaryCache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let stamp = fs::metadata(path)
        .ok()
        .map(|meta| (meta.len(), meta.modified().ok()));
    if let Some((len, modified)) = stamp {
        let cached = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((l, m, summary)) = cached.get(path) {
            if *l == len && *m == modified && modified.is_some() {
                return Ok(summary.clone());
            }
        }
    }
    let summary = summarise(&load()?);
    if let Some((len, modified)) = stamp {
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_owned(), (len, modified, summary.clone()));
    }
    Ok(summary)
}

pub fn summarise(conversation: &LoadedConversation) -> Option<ConversationSummary> {
    let mut records = conversation.records.iter().map(|r| &r.record);
    let (started_at_ms, task, model, proxied) = match records.next()? {
        Record::Started {
            started_at_ms,
            task,
            model,
            ..
        } => (started_at_ms, task, model, false),
        Record::Proxied {
            started_at_ms,
            first_message,
            model,
            ..
        } => (started_at_ms, first_message, model, true),
        _ => return None,
    };
    let mut summary = ConversationSummary {
        id: conversation.id.clone(),
        started_at_ms: *started_at_ms,
        task: task.clone(),
        model: model.model.clone(),
        proxied,
        turns: 0,
        tool_calls: 0,
        ended: None,
        usage: Usage::default(),
    };
    for record in records {
        match record {
            Record::Request { turn, .. } => summary.turns = summary.turns.max(*turn),
            Record::Result { .. } => summary.tool_calls += 1,
            // The agent ran its calls out of sight: the calls its model asked for are counted.
            Record::Parsed { report, .. } if proxied => {
                summary.tool_calls += report.requests.len() as u32;
            }
            Record::Reply { reply, .. } => {
                if let Some(usage) = reply.usage {
                    summary.usage.input_tokens += usage.input_tokens;
                    summary.usage.output_tokens += usage.output_tokens;
                }
            }
            Record::Ended { reason, .. } => summary.ended = Some(reason.clone()),
            _ => {}
        }
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxied(store: &ConversationStore, first_message: &str) -> String {
        start_proxied(store, first_message).id().to_owned()
    }

    /// A new proxied conversation, its log kept open to append to.
    fn start_proxied(store: &ConversationStore, first_message: &str) -> ConversationLog {
        let log = store.create(&[]).expect("create");
        log.append(Record::Proxied {
            id: log.id().to_owned(),
            started_at_ms: chrono::Utc::now().timestamp_millis(),
            first_message: first_message.to_owned(),
            model: ModelInfo {
                wire: "openai_chat".to_owned(),
                base_url: "http://127.0.0.1:9/v1".to_owned(),
                model: "m".to_owned(),
                native_protocol: "openai_chat".to_owned(),
            },
            upstream: "http://127.0.0.1:9/v1".to_owned(),
            tools: Vec::new(),
        })
        .expect("append");
        log
    }

    #[test]
    fn a_listed_summary_follows_a_conversation_as_it_grows() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = ConversationStore::new(dir.path());
        let log = start_proxied(&store, "grows");
        let turns = || store.list("").expect("list")[0].turns;
        assert_eq!(turns(), 0);
        assert_eq!(turns(), 0, "the cached summary of an unchanged file");
        for turn in 1..=2 {
            log.append(Record::Request {
                turn,
                body: Value::Null,
            })
            .expect("append");
            assert_eq!(turns(), turn, "a grown file is read again");
        }
    }

    #[test]
    fn another_directory_is_listed_loaded_and_deleted_with_the_first() {
        let app = tempfile::tempdir().expect("tempdir");
        let cli = tempfile::tempdir().expect("tempdir");
        let own = proxied(&ConversationStore::new(app.path()), "in the app");
        let theirs = proxied(&ConversationStore::new(cli.path()), "from the CLI's proxy");
        let store = ConversationStore::new(app.path()).with_other(cli.path());
        let mut tasks: Vec<String> = store
            .list("")
            .expect("list")
            .into_iter()
            .map(|s| s.task)
            .collect();
        tasks.sort();
        assert_eq!(tasks, ["from the CLI's proxy", "in the app"]);
        assert_eq!(store.load(&theirs).expect("load").id, theirs);
        store.delete(&theirs).expect("delete");
        assert!(matches!(
            store.load(&theirs),
            Err(ConversationError::NotFound(_))
        ));
        assert_eq!(store.list("").expect("list").len(), 1);
        assert_eq!(store.load(&own).expect("load").id, own);
        assert!(ConversationStore::new(app.path())
            .with_other(app.path())
            .others
            .is_empty());
    }
}
