//! Fuzz target: the streaming parser, fed in fuzzed delta sizes, against the batch parse
//! of the same reply, for every registered format.
//! The entry point and its assertions live in the engine's tests (`fuzz_entry`), so every
//! finding replays there as a normal test (`tests/fixtures/fuzz/stream/`).
#![no_main]

#[path = "../../src-tauri/protocol/tests/fuzz_entry/mod.rs"]
mod fuzz_entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_entry::stream(data));
