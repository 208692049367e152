//! Fuzz target: every registered format's batch parse. The input names its format
//! (`<format id>\n<reply>`, how the seed corpus is written) or its first byte picks one.
//! The entry point and its assertions live in the engine's tests (`fuzz_entry`), so every
//! finding replays there as a normal test (`tests/fixtures/fuzz/parse_format/`).
//!
//! Run with `TOOLSCOPE_FUZZ_DICT=FILE`, it writes the libFuzzer dictionary of every format's
//! markers to FILE and exits: `scripts/fuzz.sh` makes the dictionary that way, from the
//! engine's own list of formats.
#![no_main]

#[path = "../../src-tauri/protocol/tests/fuzz_entry/mod.rs"]
mod fuzz_entry;

fn write_dictionary_if_asked() {
    if let Some(path) = std::env::var_os("TOOLSCOPE_FUZZ_DICT") {
        std::fs::write(&path, fuzz_entry::dictionary()).expect("dictionary file is writable");
        std::process::exit(0);
    }
}

libfuzzer_sys::fuzz_target!(init: write_dictionary_if_asked(), |data: &[u8]| {
    fuzz_entry::parse_format(data)
});
