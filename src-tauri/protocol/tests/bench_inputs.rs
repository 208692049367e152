//! The shared benchmark inputs (`../shared/bench/parser-inputs/`): every input of a format the
//! engine knows must parse, by name and by auto-detect, to exactly the expected calls.
//! Untyped values (XML-style formats) are typed from the inputs' `tools.json` first, as the
//! app does with the registry's schemas.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::ProtocolSet;

fn inputs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/parser-inputs")
}

fn read_json(name: &str) -> Value {
    let path = inputs_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the benchmark inputs live in shared/bench beside the repository)",
            path.display()
        )
    });
    serde_json::from_str(&text).expect("valid JSON")
}

fn schemas() -> HashMap<String, Value> {
    read_json("tools.json")
        .as_array()
        .expect("tools.json is a list")
        .iter()
        .filter_map(|tool| {
            let function = tool.get("function")?;
            Some((
                function.get("name")?.as_str()?.to_owned(),
                function.get("parameters")?.clone(),
            ))
        })
        .collect()
}

fn calls_of(report: &ParseReport, schemas: &HashMap<String, Value>) -> Vec<Value> {
    let mut report = report.clone();
    parser::type_arguments(&mut report, |name| schemas.get(name).cloned());
    report
        .requests
        .iter()
        .map(|r| serde_json::json!({"name": r.tool_name, "arguments": r.args}))
        .collect()
}

#[test]
fn every_known_format_parses_its_inputs_exactly() {
    let manifest = read_json("manifest.json");
    let inputs = manifest["inputs"].as_object().expect("inputs");
    let protocols = ProtocolSet::standard();
    let schemas = schemas();
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for (name, entry) in inputs {
        let format = entry["format"].as_str().expect("format");
        if protocols.get(format).is_none() {
            continue;
        }
        let text =
            std::fs::read_to_string(inputs_dir().join(entry["file"].as_str().expect("file")))
                .expect("input readable");
        let expected = read_json(entry["calls_file"].as_str().expect("calls_file"));
        let expected = expected.as_array().expect("calls list");
        let named = parser::parse(&protocols, &text, Some(format)).expect("known format");
        let got = calls_of(&named, &schemas);
        if got.len() != expected.len() {
            failures.push(format!(
                "{name}: {} calls, expected {}",
                got.len(),
                expected.len()
            ));
        } else if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
            failures.push(format!(
                "{name}: call {i} is {}, expected {}",
                got[i], expected[i]
            ));
        }
        if named.has_errors() {
            failures.push(format!("{name}: diagnostics {:?}", named.diagnostics));
        }
        let auto = parser::parse(&protocols, &text, None).expect("auto");
        if auto.format != format || calls_of(&auto, &schemas) != got {
            failures.push(format!("{name}: auto-detect chose {}", auto.format));
        }
        checked.push(name.clone());
    }
    assert!(
        checked.len() >= 12,
        "only {} inputs checked: {checked:?}",
        checked.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
