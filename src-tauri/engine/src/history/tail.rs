//! The history as a list keeps it: what each entry shows, read once, then only what was appended
//! since. Reloading the whole file for every refresh made each run cost a parse of every run
//! before it (and the app re-reads after each run), so a long history slowed every click.
//!
//! The file is append-only, so what was read stays valid while the file only grows. Anything
//! else (it shrank, or on Unix it is another file now) starts the read over.

use std::path::{Path, PathBuf};

use crate::jsonl::{read_lines_from, LineCursor, SkippedLine};

use super::{parse_line, HistoryEntry, HistoryError, KIND};

/// Entries of one history file as `T`, in file order, kept up to date by [`HistoryTail::refresh`].
#[derive(Debug)]
pub struct HistoryTail<T> {
    path: PathBuf,
    cursor: LineCursor,
    identity: Option<FileIdentity>,
    records: Vec<T>,
    /// Lines skipped in what was read, in file order.
    skipped: Vec<SkippedLine>,
    /// A last line still without its `'\n'` at the latest refresh (read again next time).
    torn: Option<SkippedLine>,
}

/// Which file the path named when it was read (Unix: device and inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
}

fn identity(metadata: &std::fs::Metadata) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileIdentity {
            device: metadata.dev(),
            inode: metadata.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

impl<T> HistoryTail<T> {
    /// Nothing read yet: the first [`HistoryTail::refresh`] reads the whole file.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            cursor: LineCursor::default(),
            identity: None,
            records: Vec::new(),
            skipped: Vec::new(),
            torn: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads what was appended since the last refresh, turning each new entry into a `T`.
    pub fn refresh(&mut self, mut keep: impl FnMut(HistoryEntry) -> T) -> Result<(), HistoryError> {
        let metadata = match std::fs::metadata(&self.path) {
            Ok(metadata) => Some(metadata),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(HistoryError::Io {
                    action: "reading",
                    path: self.path.clone(),
                    source,
                })
            }
        };
        let (length, identity) = metadata
            .as_ref()
            .map_or((0, None), |m| (m.len(), identity(m)));
        if length < self.cursor.offset || identity != self.identity {
            self.cursor = LineCursor::default();
            self.records.clear();
            self.skipped.clear();
        }
        self.identity = identity;
        let (loaded, cursor) = read_lines_from(KIND, &self.path, self.cursor, |content| {
            parse_line(content).map(&mut keep)
        })?;
        self.cursor = cursor;
        self.records.extend(loaded.records);
        self.torn = None;
        for skipped in loaded.skipped {
            if skipped.byte_offset >= cursor.offset {
                self.torn = Some(skipped);
            } else {
                self.skipped.push(skipped);
            }
        }
        Ok(())
    }

    /// The entries read, oldest first.
    pub fn records(&self) -> &[T] {
        &self.records
    }

    /// The lines that could not be read, as [`super::History::load`] reports them.
    pub fn skipped(&self) -> Vec<SkippedLine> {
        self.skipped.iter().chain(&self.torn).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::History;
    use super::*;
    use crate::jsonl::TORN_FINAL_LINE_REASON;

    fn entry(id: &str) -> HistoryEntry {
        let mut entry = super::super::tests::entry(1);
        entry.id = id.to_owned();
        entry
    }

    fn ids(tail: &HistoryTail<String>) -> Vec<&str> {
        tail.records().iter().map(String::as_str).collect()
    }

    #[test]
    fn reads_only_what_was_appended_and_agrees_with_a_full_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("history.jsonl");
        let (history, _) = History::open(&path).expect("open");
        let mut tail = HistoryTail::new(&path);
        tail.refresh(|e| e.id).expect("empty refresh");
        assert!(tail.records().is_empty());

        history.append(&entry("a")).expect("append");
        history.append(&entry("b")).expect("append");
        tail.refresh(|e| e.id).expect("refresh");
        assert_eq!(ids(&tail), ["a", "b"]);

        // A broken line and a half-written last line, as another process could leave them.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open for append");
        file.write_all(b"{not json}\n").expect("write");
        history.append(&entry("c")).expect("append");
        file.write_all(b"{\"v\":1,\"id\":\"d").expect("write");
        let mut seen = 0;
        tail.refresh(|e| {
            seen += 1;
            e.id
        })
        .expect("refresh");
        assert_eq!(seen, 1, "only the appended entry is parsed");
        assert_eq!(ids(&tail), ["a", "b", "c"]);
        let full = History::load(&path).expect("load");
        assert_eq!(tail.skipped(), full.skipped);
        assert_eq!(
            tail.skipped().last().map(|s| s.reason.as_str()),
            Some(TORN_FINAL_LINE_REASON)
        );

        // The torn line is finished: read whole, and no longer reported.
        file.write_all(b"\"}\n").expect("write");
        history.append(&entry("e")).expect("append");
        tail.refresh(|e| e.id).expect("refresh");
        assert_eq!(ids(&tail), ["a", "b", "c", "e"]);
        assert_eq!(tail.skipped(), History::load(&path).expect("load").skipped);
    }

    #[test]
    fn starts_over_when_the_file_shrinks_or_is_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("history.jsonl");
        let (history, _) = History::open(&path).expect("open");
        history.append(&entry("a")).expect("append");
        history.append(&entry("b")).expect("append");
        let mut tail = HistoryTail::new(&path);
        tail.refresh(|e| e.id).expect("refresh");
        assert_eq!(ids(&tail), ["a", "b"]);

        let other = dir.path().join("other.jsonl");
        let (replacement, _) = History::open(&other).expect("open");
        replacement.append(&entry("x")).expect("append");
        replacement.append(&entry("y")).expect("append");
        replacement.append(&entry("z")).expect("append");
        std::fs::rename(&other, &path).expect("replace");
        tail.refresh(|e| e.id).expect("refresh");
        assert_eq!(ids(&tail), ["x", "y", "z"]);

        std::fs::write(&path, b"").expect("truncate");
        tail.refresh(|e| e.id).expect("refresh");
        assert!(tail.records().is_empty());
    }
}
