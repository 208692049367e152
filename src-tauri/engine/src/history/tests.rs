//! Tests of `history`, kept beside it so the module itself stays readable.

use super::*;
use proptest::prelude::*;
use serde_json::json;
use std::fs::{self, OpenOptions};
use std::io::Write;
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
        error: (!ok).then(|| ExecutionError::new(ErrorKind::ToolError, text)),
        truncated: None,
    }
}

pub(super) fn entry(n: usize) -> HistoryEntry {
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
    history.log.set_dirty();
    let e = entry(1);
    history.append(&e).expect("append");
    assert!(!history.log.dirty());
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
