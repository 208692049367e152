//! Fuzz target: every registered format's batch parse, stream and auto-detect on a reply of
//! 512 KiB made by repeating the input, so super-linear work shows up as a timeout.
//! The entry point and its assertions live in the engine's tests (`fuzz_entry`), so every
//! finding replays there as a normal test (`tests/fixtures/fuzz/large_reply/`).
#![no_main]

#[path = "../../src-tauri/protocol/tests/fuzz_entry/mod.rs"]
mod fuzz_entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_entry::large_reply(data));
