//! Replays every input the fuzzer ever broke a wire format with, as a normal test.
//!
//! `tests/fixtures/fuzz/<target>/<name>` holds the raw (minimised) input of a finding of the
//! cargo-fuzz target `<target>` (see `fuzz/`, run by `scripts/fuzz.sh`); it goes through the
//! same entry point the target calls ([`fuzz_entry`]), with the same assertions, so a fixed
//! crash stays fixed without nightly Rust or cargo-fuzz. The parser fixtures also go through
//! every entry point, which keeps the harness itself honest: its assertions must hold on every
//! well-formed reply too.

mod fuzz_entry;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
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

/// Runs `entry` on each input, collecting the failures so one run names them all. A finding
/// that was a timeout fails by taking too long: not a timing test (machines vary, and this is
/// a debug build), the super-linear cases found so far take minutes.
fn replay(target: &str, entry: fuzz_entry::Entry, inputs: &[(String, Vec<u8>)]) -> Vec<String> {
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

#[test]
fn every_fuzz_finding_replays_without_failing() {
    let root = fixtures().join("fuzz");
    let mut failures = Vec::new();
    for (target, entry) in fuzz_entry::TARGETS {
        let inputs: Vec<(String, Vec<u8>)> = files_in(&root.join(target))
            .into_iter()
            .map(|path| {
                let data = std::fs::read(&path).expect("readable fixture");
                (path.display().to_string(), data)
            })
            .collect();
        failures.extend(replay(target, *entry, &inputs));
    }
    assert!(failures.is_empty(), "failing fuzz fixtures: {failures:#?}");
}

/// Fixture directories are replayed by the crate whose harness owns the target (this one for
/// the formats, the engine for `coerce_validate`); the cargo-fuzz crate lists them all.
#[test]
fn fuzz_fixture_directories_name_fuzz_targets() {
    let Ok(entries) = std::fs::read_dir(fixtures().join("fuzz")) else {
        return;
    };
    let fuzz_crate = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/Cargo.toml");
    let manifest = std::fs::read_to_string(fuzz_crate).expect("the cargo-fuzz crate's manifest");
    for entry in entries {
        let name = entry.expect("readable directory").file_name();
        let name = name.to_string_lossy();
        assert!(
            manifest.contains(&format!("name = \"{name}\"\n")),
            "tests/fixtures/fuzz/{name} is not a fuzz target: its inputs would never be replayed"
        );
    }
    for (target, _) in fuzz_entry::TARGETS {
        assert!(
            manifest.contains(&format!("path = \"fuzz_targets/{target}.rs\"")),
            "fuzz/Cargo.toml has no target {target}"
        );
    }
}

/// The seed corpus (`<format id>\n<reply>`) through every entry point: the harness's
/// assertions hold on well-formed replies, so a failure in the fuzzer is a real finding.
#[test]
fn the_fuzz_harness_accepts_every_parser_fixture() {
    let parser = fixtures().join("parser");
    let mut inputs = Vec::new();
    for dir in files_in_dirs(&parser) {
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
    let mut failures = Vec::new();
    // large_reply is parse_format and stream on the input repeated to 512 KiB: the same
    // assertions, too slow for 300 fixtures in a debug build.
    for (target, entry) in fuzz_entry::TARGETS {
        if *target != "large_reply" {
            failures.extend(replay(target, *entry, &inputs));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `scripts/fuzz.sh` hands this to libFuzzer: one quoted entry per line.
#[test]
fn the_fuzz_dictionary_is_well_formed() {
    let dict = fuzz_entry::dictionary();
    assert!(dict.lines().count() > 30, "{dict}");
    for line in dict.lines() {
        assert!(
            line.len() > 2 && line.starts_with('"') && line.ends_with('"'),
            "{line}"
        );
    }
    assert!(dict.contains("\"<tool_call>\"\n"), "{dict}");
}

fn files_in_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("parser fixtures")
        .map(|entry| entry.expect("readable directory").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}
