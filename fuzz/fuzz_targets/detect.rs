//! Fuzz target: auto-detect (the parser facade with no format named) on any reply.
//! The entry point and its assertions live in the engine's tests (`fuzz_entry`), so every
//! finding replays there as a normal test (`tests/fixtures/fuzz/detect/`).
#![no_main]

#[path = "../../src-tauri/protocol/tests/fuzz_entry/mod.rs"]
mod fuzz_entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_entry::detect(data));
