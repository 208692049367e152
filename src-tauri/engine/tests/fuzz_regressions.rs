//! Replays every input the fuzzer ever broke argument coercion or validation with, as a
//! normal test: `tests/fixtures/fuzz/coerce_validate/<name>` goes through the entry point the
//! cargo-fuzz target calls ([`fuzz_entry`]). The wire formats' findings replay in
//! `toolscope-protocol`'s `fuzz_regressions`.

mod fuzz_entry;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

#[test]
fn every_coerce_validate_finding_replays_without_failing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fuzz");
    let mut failures = Vec::new();
    for (target, entry) in fuzz_entry::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for path in entries.map(|e| e.expect("readable fixture directory").path()) {
            let data = std::fs::read(&path).expect("readable fixture");
            if catch_unwind(AssertUnwindSafe(|| entry(&data))).is_err() {
                failures.push(path.display().to_string());
            }
        }
    }
    assert!(failures.is_empty(), "failing fuzz fixtures: {failures:#?}");
}

/// The parser fixtures (`<format id>\n<reply>`, the seed corpus) through the entry point, as
/// the formats' harness does with them: its assertions hold on any bytes, so a failure in the
/// fuzzer is a real finding.
#[test]
fn the_coerce_validate_harness_accepts_every_parser_fixture() {
    let parser = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/parser");
    let mut count = 0;
    for dir in std::fs::read_dir(parser).expect("parser fixtures") {
        let dir = dir.expect("readable directory").path();
        let Some(format) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in files.map(|e| e.expect("readable fixture").path()) {
            if path.extension().is_some_and(|ext| ext == "txt") {
                let mut data = format!("{format}\n").into_bytes();
                data.extend(std::fs::read(&path).expect("readable fixture"));
                for (_, entry) in fuzz_entry::TARGETS {
                    entry(&data);
                }
                count += 1;
            }
        }
    }
    assert!(count > 100, "parser fixtures not found");
}
