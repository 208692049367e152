//! Replays every input the fuzzer ever broke argument coercion or validation with, as a
//! normal test: `tests/fixtures/fuzz/coerce_validate/<name>` goes through the entry point the
//! cargo-fuzz target calls ([`fuzz_entry`]), with the same replay as the wire formats'
//! findings (`toolscope-protocol`'s `fuzz_regressions`, whose helpers this includes).

mod fuzz_entry;
#[path = "../../protocol/tests/fuzz_replay/mod.rs"]
mod fuzz_replay;

use fuzz_replay::{findings, parser_fixture_inputs, replay};

#[test]
fn every_coerce_validate_finding_replays_without_failing() {
    let mut failures = Vec::new();
    for (target, entry) in fuzz_entry::TARGETS {
        failures.extend(replay(target, *entry, &findings(target)));
    }
    assert!(failures.is_empty(), "failing fuzz fixtures: {failures:#?}");
}

/// The parser fixtures (the seed corpus) through the entry point, as the formats' harness does
/// with them: its assertions hold on any bytes, so a failure in the fuzzer is a real finding.
#[test]
fn the_coerce_validate_harness_accepts_every_parser_fixture() {
    let inputs = parser_fixture_inputs();
    let mut failures = Vec::new();
    for (target, entry) in fuzz_entry::TARGETS {
        failures.extend(replay(target, *entry, &inputs));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
