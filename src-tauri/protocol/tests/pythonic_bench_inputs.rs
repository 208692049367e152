//! The pythonic benchmark inputs (`shared/bench/parser-inputs/pythonic_*.txt`, beside the
//! repository) must parse to exactly their expected calls: same names, same order, same
//! argument values, with JSON integers and floats kept apart (`3` is not `3.0`). The Python
//! parser of a major LLM server returns 0 of the 2,000 calls in the large one.
//!
//! Also prints the parse time of each input (a figure to read, not a timed assertion; run with
//! `cargo test --release --test pythonic_bench_inputs -- --nocapture` for a meaningful one).

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;
use toolscope_protocol::pythonic::Pythonic;
use toolscope_protocol::Protocol;

fn inputs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/parser-inputs")
}

fn read(name: &str) -> String {
    let path = inputs_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the benchmark inputs live in shared/bench/parser-inputs beside the \
             repository; without them this test cannot check anything)",
            path.display()
        )
    })
}

/// Strict equality that also tells integers from floats at any depth (serde_json's `==`
/// already does, but saying so here keeps the requirement visible and the message precise).
fn same(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() != y.is_f64() {
                return Err(format!("{path}: {x} vs {y} (integer vs float)"));
            }
            if x != y {
                return Err(format!("{path}: {x} vs {y}"));
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: {} vs {} items", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(i, (x, y))| same(x, y, &format!("{path}/{i}")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let xk: Vec<&String> = x.keys().collect();
            let yk: Vec<&String> = y.keys().collect();
            if xk != yk {
                return Err(format!("{path}: keys {xk:?} vs {yk:?}"));
            }
            x.iter()
                .try_for_each(|(k, v)| same(v, &y[k.as_str()], &format!("{path}/{k}")))
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} vs {b}")),
    }
}

#[test]
fn pythonic_inputs_parse_to_exactly_the_expected_calls() {
    let mut failures = Vec::new();
    for size in ["small", "medium", "large"] {
        let text = read(&format!("pythonic_{size}.txt"));
        let expected: Value =
            serde_json::from_str(&read(&format!("{size}.calls.json"))).expect("calls are JSON");
        let expected = expected.as_array().expect("a list of calls");

        // Warm once, then take the best of a few runs: the figure of interest is the parse.
        let _ = Pythonic.parse_tool_requests(&text);
        let mut best = f64::INFINITY;
        let mut out = None;
        for _ in 0..5 {
            let started = Instant::now();
            let parsed = Pythonic.parse_tool_requests(&text);
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
            out = Some(parsed);
        }
        let out = out.expect("parsed");
        println!(
            "pythonic_{size}: {} bytes, {} calls, best parse {best:.3} ms",
            text.len(),
            out.requests.len()
        );

        if !out.diagnostics.is_empty() {
            failures.push(format!("{size}: diagnostics {:?}", out.diagnostics));
        }
        if out.requests.len() != expected.len() {
            failures.push(format!(
                "{size}: {} calls, expected {}",
                out.requests.len(),
                expected.len()
            ));
            continue;
        }
        for (i, (request, want)) in out.requests.iter().zip(expected).enumerate() {
            if Some(request.tool_name.as_str()) != want["name"].as_str() {
                failures.push(format!(
                    "{size}: call {i} is {}, expected {}",
                    request.tool_name, want["name"]
                ));
                continue;
            }
            let got = Value::Object(request.args.clone());
            if let Err(why) = same(&got, &want["arguments"], &format!("{size}: call {i}")) {
                failures.push(why);
            }
            if text.get(request.span.start..request.span.end) != Some(request.raw_block.as_str()) {
                failures.push(format!(
                    "{size}: call {i}: raw_block is not the text at its span"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
