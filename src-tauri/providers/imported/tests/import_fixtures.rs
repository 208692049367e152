//! Every import shape in `tests/fixtures/imports/` read against its golden summary.
//! `UPDATE_GOLDENS=1 cargo test -p toolscope-imported --test import_fixtures` rewrites the
//! goldens; review the diff.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolscope_imported::read_definitions;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/imports")
}

/// What a golden pins: every definition in full, every finding, the repeats merged, or the
/// error that refused the whole input.
fn summary(text: &str) -> Value {
    match read_definitions(text) {
        Ok(import) => json!({
            "definitions": import.definitions,
            "findings": import.findings,
            "repeats_merged": import.repeats_merged,
        }),
        Err(error) => json!({ "error": error.to_string() }),
    }
}

#[test]
fn every_fixture_matches_its_golden() {
    let update = std::env::var_os("UPDATE_GOLDENS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("the imports fixture folder exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            (name.ends_with(".json") || name.ends_with(".jsonl"))
                && !name.ends_with(".expected.json")
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 15, "fixtures missing: {inputs:?}");
    let mut failures = Vec::new();
    for input in inputs {
        let text = std::fs::read_to_string(&input).expect("fixture is readable");
        let got = summary(&text);
        let golden = input.with_extension("expected.json");
        if update {
            let pretty = serde_json::to_string_pretty(&got).expect("serialises") + "\n";
            std::fs::write(&golden, pretty).expect("golden is writable");
            continue;
        }
        let expected: Value = match std::fs::read_to_string(&golden) {
            Ok(text) => serde_json::from_str(&text).expect("golden is JSON"),
            Err(_) => {
                failures.push(format!(
                    "{}: no golden (run with UPDATE_GOLDENS=1)",
                    input.display()
                ));
                continue;
            }
        };
        if got != expected {
            failures.push(format!(
                "{}: got\n{}",
                input.display(),
                serde_json::to_string_pretty(&got).unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
