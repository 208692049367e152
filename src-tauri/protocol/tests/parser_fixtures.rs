//! Golden tests for every parser format: `tests/fixtures/parser/<format>/<case>.txt` is a reply,
//! `<case>.json` what the parser must extract from it. Run with `UPDATE_GOLDENS=1` to rewrite
//! the goldens after an intended change (`UPDATE_GOLDENS=hermes,xlam` for some formats only),
//! then review the diff.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/parser")
}

/// The report as a golden: generated ids replaced (they are random), raw blocks dropped (they
/// are checked against the spans instead).
fn golden_view(report: &ParseReport, text: &str) -> Value {
    for request in &report.requests {
        assert_eq!(
            text.get(request.span.start..request.span.end),
            Some(request.raw_block.as_str()),
            "raw_block must be the text at the span"
        );
    }
    let mut value = serde_json::to_value(report).expect("report serialises");
    if let Some(requests) = value["requests"].as_array_mut() {
        for request in requests {
            if let Some(object) = request.as_object_mut() {
                object.remove("raw_block");
                let id = object["request_id"].as_str().unwrap_or_default();
                if !text.contains(id) {
                    object.insert("request_id".into(), Value::from("<generated>"));
                }
            }
        }
    }
    value
}

#[test]
fn every_fixture_matches_its_golden() {
    // UPDATE_GOLDENS=1 rewrites every golden; UPDATE_GOLDENS=hermes,vcp only those formats'.
    let update_filter = std::env::var("UPDATE_GOLDENS").ok();
    let updates = |format: &str| match update_filter.as_deref() {
        None => false,
        Some("" | "1" | "all") => true,
        Some(list) => list.split(',').any(|f| f.trim() == format),
    };
    // Declared formats have fixtures too: the shipped examples.
    let protocols = ProtocolSet::standard().extended(toolscope_protocol::declared::examples());
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut formats: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .expect("fixtures directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    formats.sort();
    for dir in formats {
        let format = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 format name")
            .to_owned();
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("format directory readable")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        cases.sort();
        assert!(
            cases.len() >= 6,
            "{format}: at least 6 cases expected, found {}",
            cases.len()
        );
        for case in cases {
            let text = std::fs::read_to_string(&case).expect("fixture is utf-8");
            let report = parser::parse(&protocols, &text, Some(&format))
                .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
            let actual = golden_view(&report, &text);
            let golden_path = case.with_extension("json");
            if updates(&format) {
                let pretty = serde_json::to_string_pretty(&actual).expect("serialises") + "\n";
                std::fs::write(&golden_path, pretty).expect("golden written");
            } else {
                match std::fs::read_to_string(&golden_path) {
                    Ok(golden) => {
                        let expected: Value =
                            serde_json::from_str(&golden).expect("golden is JSON");
                        if expected != actual {
                            failures.push(format!(
                                "{}:\nexpected {expected:#}\n     got {actual:#}",
                                case.display()
                            ));
                        }
                    }
                    Err(_) => failures.push(format!(
                        "{}: no golden; run with UPDATE_GOLDENS=1",
                        golden_path.display()
                    )),
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
