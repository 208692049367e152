//! A real crash: a child process appends to the history in a loop and is SIGKILLed at a random
//! moment, many times over. After every kill, `open` + `load` must give only complete entries,
//! keep every entry whose `append` had returned, and never lose a complete line.
//!
//! The child is this same test binary, re-executed with `--exact crash_writer_child` and an
//! environment variable naming the history file; without that variable the child test does
//! nothing.

use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Map};
use toolscope_engine::history::{History, HistoryEntry, RecordedRequest};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ExecutionStatus, ToolExecutionResult};

const WRITER_ENV: &str = "TOOLSCOPE_HISTORY_CRASH_WRITER";
const ROUNDS: usize = 50;
/// At most this many acknowledged appends before a round's kill, so kills land both before
/// the first entry and deep into a run of appends.
const MAX_APPENDS_BEFORE_KILL: u64 = 4;
const READY: &str = "READY";
const DONE: &str = "DONE ";
const WRITER_THREADS: u64 = 3;

/// A cheap random number from the OS-seeded uuid generator (no rand dependency).
fn random_below(n: u64) -> u64 {
    let bits = uuid::Uuid::new_v4().as_u128();
    // Truncation is the point: any 64 random bits will do.
    (bits as u64) % n.max(1)
}

/// The payload of an entry is derived from its id so that a damaged entry would be noticed.
fn payload_for(id: &str, len: usize) -> String {
    // Ids are ASCII uuids, so cutting at any byte is a char boundary.
    let mut payload = id.repeat(len / id.len().max(1) + 1);
    payload.truncate(len);
    payload
}

fn make_entry(seq: u64) -> HistoryEntry {
    let mut args = Map::new();
    args.insert("seq".to_owned(), json!(seq));
    let parsed = ParsedToolRequest::manual("crash_test", args);
    let result = ToolExecutionResult {
        request_id: parsed.request_id.clone(),
        tool_name: parsed.tool_name.clone(),
        status: ExecutionStatus::Success,
        result: String::new(),
        duration_ms: 0.5,
        error: None,
        truncated: None,
    };
    let mut entry = HistoryEntry::new(None, "crash-test", RecordedRequest::from(&parsed), result);
    // Mostly small entries, now and then one of up to 1 MiB: a longer write gives the kill
    // more chances to land inside it.
    let limit = if random_below(8) == 0 {
        1024 * 1024
    } else {
        64 * 1024
    };
    let len = usize::try_from(random_below(limit)).unwrap_or(1024);
    entry.result.result = payload_for(&entry.id, len);
    entry
}

/// The child side. Does nothing unless started by `crash_kills_never_lose_completed_entries`.
#[test]
fn crash_writer_child() {
    let Some(path) = std::env::var_os(WRITER_ENV) else {
        return;
    };
    let (history, _) = History::open(PathBuf::from(path)).expect("child opens history");
    {
        let mut out = std::io::stdout().lock();
        // The harness may have printed "test crash_writer_child ... " without a newline.
        writeln!(out, "\n{READY}").expect("stdout");
        out.flush().expect("stdout");
    }
    // Bounded so that an orphaned child cannot run forever.
    let deadline = Instant::now() + Duration::from_secs(20);
    // Several writers: entries are built in parallel, so a kill more often lands inside a
    // write, and concurrent appends are crashed too.
    std::thread::scope(|scope| {
        for thread in 0..WRITER_THREADS {
            let history = &history;
            scope.spawn(move || {
                let mut seq = 0u64;
                while Instant::now() < deadline {
                    let entry = make_entry(thread * 1_000_000 + seq);
                    history.append(&entry).expect("child appends");
                    // Only after append returned: the parent may rely on this id being there.
                    let mut out = std::io::stdout().lock();
                    writeln!(out, "{DONE}{}", entry.id).expect("stdout");
                    out.flush().expect("stdout");
                    seq += 1;
                }
            });
        }
    });
}

/// Complete lines (ending in '\n') of the raw file, and the bytes after the last one.
fn split_raw(path: &Path) -> (Vec<Vec<u8>>, Vec<u8>) {
    let raw = fs::read(path).unwrap_or_default();
    let keep = raw.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let (complete, tail) = raw.split_at(keep);
    let lines = complete
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    (lines, tail.to_vec())
}

struct Round {
    ready: bool,
    completed: Vec<String>,
}

fn run_child_and_kill(exe: &Path, history_path: &Path) -> Round {
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "crash_writer_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, history_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn writer");
    let stdout = child.stdout.take().expect("child stdout");
    let (ready_tx, ready_rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut completed = Vec::new();
        let mut ready = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line == READY {
                ready = true;
                let _ = ready_tx.send(());
            } else if let Some(id) = line.strip_prefix(DONE) {
                completed.push(id.to_owned());
                let _ = ready_tx.send(());
            }
        }
        (ready, completed)
    });

    // Kill at a random moment after the writer is up and has acknowledged a random number of
    // appends (or give up waiting and kill anyway).
    for _ in 0..=random_below(MAX_APPENDS_BEFORE_KILL + 1) {
        if ready_rx.recv_timeout(Duration::from_secs(5)).is_err() {
            break;
        }
    }
    std::thread::sleep(Duration::from_micros(random_below(40_000)));
    child.kill().expect("SIGKILL writer");
    child.wait().expect("reap writer");
    let (ready, completed) = reader.join().expect("stdout reader");
    Round { ready, completed }
}

#[test]
fn crash_kills_never_lose_completed_entries() {
    let started = Instant::now();
    let exe = std::env::current_exe().expect("current exe");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("runs").join("history.jsonl");

    let mut acknowledged: HashSet<String> = HashSet::new();
    let mut known_ids: Vec<String> = Vec::new();
    let mut torn_rounds = 0;
    // Acknowledged or complete entries missing after a restart, summed over the rounds.
    let mut lost = 0usize;
    let mut ready_rounds = 0;

    for round in 0..ROUNDS {
        let outcome = run_child_and_kill(&exe, &path);
        ready_rounds += usize::from(outcome.ready);
        acknowledged.extend(outcome.completed);

        // What the crash left on disk, before any repair.
        let (complete_lines, tail) = split_raw(&path);

        let (history, report) = History::open(&path).expect("open after crash");
        match (&report.torn_tail, tail.is_empty()) {
            (None, true) => {}
            (Some(torn), false) => {
                torn_rounds += 1;
                assert_eq!(torn.bytes, tail.len() as u64, "round {round}");
                let set_aside = fs::read(&torn.set_aside_to).expect("read torn side file");
                assert_eq!(
                    set_aside, tail,
                    "round {round}: side file holds the torn bytes"
                );
            }
            (report, empty) => {
                panic!("round {round}: report {report:?} but tail empty = {empty}")
            }
        }
        drop(history);

        // After repair the file is exactly the complete lines, byte for byte.
        let (repaired_lines, repaired_tail) = split_raw(&path);
        assert!(
            repaired_tail.is_empty(),
            "round {round}: tail left after open"
        );
        assert_eq!(
            repaired_lines, complete_lines,
            "round {round}: complete lines changed"
        );

        let loaded = History::load(&path).expect("load after crash");
        assert!(
            loaded.skipped.is_empty(),
            "round {round}: skipped lines {:?}",
            loaded.skipped
        );
        // No complete line is lost: every one of them is an entry.
        lost += complete_lines.len().saturating_sub(loaded.entries.len());
        assert_eq!(loaded.entries.len(), complete_lines.len(), "round {round}");

        // Entries are whole: the payload matches the id it was derived from.
        for entry in &loaded.entries {
            let expected = payload_for(&entry.id, entry.result.result.len());
            assert_eq!(
                entry.result.result, expected,
                "round {round}: damaged entry"
            );
            assert_eq!(entry.origin, "crash-test");
        }

        // Earlier entries stay, in order, and nothing is duplicated.
        let ids: Vec<String> = loaded.entries.iter().map(|e| e.id.clone()).collect();
        assert!(
            ids.starts_with(&known_ids),
            "round {round}: earlier entries changed"
        );
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "round {round}: duplicate ids");

        // Every append that returned before the kill is in the file.
        let present: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let missing: Vec<&String> = acknowledged
            .iter()
            .filter(|id| !present.contains(id.as_str()))
            .collect();
        lost += missing.len();
        assert!(
            missing.is_empty(),
            "round {round}: acknowledged entries missing: {missing:?}"
        );
        known_ids = ids;
    }

    assert!(ready_rounds > 0, "the writer never started");
    assert!(
        !acknowledged.is_empty(),
        "the writer never completed an append"
    );
    // Not asserted (timing-dependent), but worth seeing when run with --nocapture.
    println!(
        "history kill -9: {ROUNDS} rounds, {} entries on disk, {} acknowledged before a kill, \
         {lost} lost, {torn_rounds} torn tails set aside and reported, {:?}",
        known_ids.len(),
        acknowledged.len(),
        started.elapsed()
    );
    // The side files sit next to the history, one per torn tail.
    let side_files = fs::read_dir(path.parent().expect("parent"))
        .expect("list dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".torn-"))
        .count();
    assert_eq!(side_files, torn_rounds);
}
