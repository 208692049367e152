//! Replays every input the fuzzer ever broke a wire format with, as a normal test.
//!
//! `tests/fixtures/fuzz/<target>/<name>` holds the raw (minimised) input of a finding of the
//! cargo-fuzz target `<target>` (see `fuzz/`, run by `scripts/fuzz.sh`); it goes through the
//! same entry point the target calls ([`fuzz_entry`]), with the same assertions, so a fixed
//! crash stays fixed without nightly Rust or cargo-fuzz. The parser fixtures also go through
//! every entry point, which keeps the harness itself honest: its assertions must hold on every
//! well-formed reply too.

mod fuzz_entry;

mod fuzz_replay;

use std::path::Path;

use fuzz_replay::{findings, fixtures, parser_fixture_inputs, replay};

#[test]
fn every_fuzz_finding_replays_without_failing() {
    let mut failures = Vec::new();
    for (target, entry) in fuzz_entry::TARGETS {
        failures.extend(replay(target, *entry, &findings(target)));
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
    let inputs = parser_fixture_inputs();
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
