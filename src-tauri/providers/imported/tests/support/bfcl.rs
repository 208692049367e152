//! The large real definition corpus the scale test and the benchmark import: BFCL's data files
//! (shared by `tests/bfcl_scale.rs` and `benches/imports.rs`).
//!
//! `scripts/setup.sh --test` puts the `bfcl-eval` wheel's `data/` folder (Apache-2.0, from the
//! Python package registry) under `target/bfcl/`; `TOOLSCOPE_BFCL_DATA` points elsewhere.
//! Every JSON Lines file whose records carry a `function` array is read, concatenated as one
//! input, as a person would import the whole data set.

use std::path::{Path, PathBuf};

/// Where the BFCL data files are, if they are there.
pub fn bfcl_data_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLSCOPE_BFCL_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../target/bfcl/bfcl_eval/data")
        });
    dir.is_dir().then_some(dir)
}

/// Every BFCL record with function definitions, one per line, from the data directory.
pub fn bfcl_corpus(dir: &Path) -> std::io::Result<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("BFCL_") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    let mut corpus = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        for line in text.lines() {
            // Multi-turn and memory records name classes, not functions; the format
            // sensitivity file is one pretty-printed object.
            if line.starts_with('{') && line.contains("\"function\"") {
                corpus.push_str(line);
                corpus.push('\n');
            }
        }
    }
    Ok(corpus)
}
