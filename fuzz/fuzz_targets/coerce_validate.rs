//! Fuzz target: argument coercion (text to the schema's types), defaults and JSON-Schema
//! validation, against fuzzed, built-in and raw-JSON schemas.
//! The entry point and its assertions live in the engine's tests (`fuzz_entry`), so every
//! finding replays there as a normal test (`tests/fixtures/fuzz/coerce_validate/`).
#![no_main]

#[path = "../../src-tauri/engine/tests/fuzz_entry/mod.rs"]
mod fuzz_entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_entry::coerce_validate(data));
