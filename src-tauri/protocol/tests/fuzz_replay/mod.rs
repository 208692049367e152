//! Replaying fuzz inputs as normal tests, shared by the formats' `fuzz_regressions` and the
//! engine's (which includes this file by path): where the fixtures are, and how an entry point
//! is run on each input so that one run names every failure.
//!
//! `tests/fixtures/fuzz/<target>/<name>` holds the raw (minimised) input of a finding of the
//! cargo-fuzz target `<target>` (see `fuzz/`, run by `scripts/fuzz.sh`).
#![allow(dead_code)] // each including test uses part of it

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The repository's `tests/fixtures` (both including crates sit at `src-tauri/<crate>`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The files of `dir`, sorted; none when it does not exist.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("readable fixture directory").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// The recorded findings of one fuzz target, named by their path.
pub fn findings(target: &str) -> Vec<(String, Vec<u8>)> {
    files_in(&fixtures().join("fuzz").join(target))
        .into_iter()
        .map(|path| {
            let data = std::fs::read(&path).expect("readable fixture");
            (path.display().to_string(), data)
        })
        .collect()
}

/// Every parser fixture reply as the seed corpus writes it (`<format id>\n<reply>`).
pub fn parser_fixture_inputs() -> Vec<(String, Vec<u8>)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("parser"))
        .expect("parser fixtures")
        .map(|entry| entry.expect("readable directory").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut inputs = Vec::new();
    for dir in dirs {
        let format = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let format = format.expect("named directory");
        for path in files_in(&dir) {
            if path.extension().is_some_and(|ext| ext == "txt") {
                let mut data = format!("{format}\n").into_bytes();
                data.extend(std::fs::read(&path).expect("readable fixture"));
                inputs.push((path.display().to_string(), data));
            }
        }
    }
    assert!(inputs.len() > 100, "parser fixtures not found");
    inputs
}

/// Runs `entry` on each input, collecting the failures so one run names them all. A finding
/// that was a timeout fails by taking too long: not a timing test (machines vary, and this is
/// a debug build), the super-linear cases found so far take minutes.
pub fn replay(target: &str, entry: fn(&[u8]), inputs: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, data) in inputs {
        let started = Instant::now();
        if catch_unwind(AssertUnwindSafe(|| entry(data))).is_err() {
            failures.push(format!("{target}: {name}"));
        }
        let elapsed = started.elapsed();
        if elapsed > Duration::from_secs(20) {
            failures.push(format!("{target}: {name} took {elapsed:?}"));
        }
    }
    failures
}
