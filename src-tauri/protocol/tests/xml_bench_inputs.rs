//! The qwen3_coder and deepseek_v3 benchmark inputs (`shared/bench/parser-inputs/`, beside the
//! repository) must parse to exactly their expected calls: same names, same order, same
//! argument values (integers and floats kept apart). Qwen3-Coder values are text: they are
//! typed with the inputs' `tools.json` schemas first, as the engine does with the registry's.
//! The deepseek_v3 inputs are also rewritten into DeepSeek V3.1's grammar and parsed as
//! deepseek_v31.
//!
//! Also prints the parse time of each input (a figure to read, not a timed assertion; run with
//! `cargo test --release --test xml_bench_inputs -- --nocapture` for a meaningful one).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;
use toolscope_protocol::coerce::coerce_untyped;
use toolscope_protocol::deepseek_v3::{CALL_BEGIN, CALL_END, SEP};
use toolscope_protocol::parser;
use toolscope_protocol::request::ParseOutput;
use toolscope_protocol::{Protocol, ProtocolSet};

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

fn schemas() -> HashMap<String, Value> {
    let tools: Value = serde_json::from_str(&read("tools.json")).expect("tools.json is JSON");
    tools
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

/// Strict equality that also tells integers from floats at any depth.
fn same(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() != y.is_f64() || x != y {
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
            let mut xk: Vec<&String> = x.keys().collect();
            let mut yk: Vec<&String> = y.keys().collect();
            xk.sort();
            yk.sort();
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

/// The calls as `{"name", "arguments"}`, text values typed from the schemas.
fn typed_calls(out: &ParseOutput, schemas: &HashMap<String, Value>) -> Vec<Value> {
    out.requests
        .iter()
        .map(|request| {
            let mut args = request.args.clone();
            if request.untyped_args {
                if let Some(schema) = schemas.get(&request.tool_name) {
                    coerce_untyped(&mut args, schema);
                }
            }
            serde_json::json!({"name": request.tool_name, "arguments": args})
        })
        .collect()
}

/// A DeepSeek V3 reply in V3.1's grammar: `function<｜tool▁sep｜>NAME\n```json\nARGS\n```` →
/// `NAME<｜tool▁sep｜>ARGS`.
fn to_v31(v3: &str) -> String {
    let mut parts = v3.split(CALL_BEGIN);
    let mut out = parts.next().unwrap_or_default().to_owned();
    for part in parts {
        let (call, rest) = part.split_once(CALL_END).expect("every call is closed");
        let call = call.strip_prefix("function").expect("typed call");
        let call = call.strip_prefix(SEP).expect("separator");
        let (name, args) = call.split_once("\n```json\n").expect("fenced arguments");
        let args = args.strip_suffix("\n```").expect("closed fence");
        out.push_str(&format!("{CALL_BEGIN}{name}{SEP}{args}{CALL_END}{rest}"));
    }
    out
}

/// Parses `text` a few times and returns the last output with the best time in milliseconds.
fn timed(protocol: &dyn Protocol, text: &str) -> (ParseOutput, f64) {
    let mut best = f64::INFINITY;
    let mut out = protocol.parse_tool_requests(text); // warm-up
    for _ in 0..7 {
        let started = Instant::now();
        let parsed = protocol.parse_tool_requests(text);
        best = best.min(started.elapsed().as_secs_f64() * 1e3);
        out = parsed; // the previous output is freed outside the timed part
    }
    (out, best)
}

#[test]
fn xml_and_deepseek_inputs_parse_to_exactly_the_expected_calls() {
    let protocols = ProtocolSet::standard();
    let schemas = schemas();
    let mut failures = Vec::new();
    let mut checked = 0;
    for size in ["small", "medium", "large"] {
        let expected: Value =
            serde_json::from_str(&read(&format!("{size}.calls.json"))).expect("calls are JSON");
        let expected = expected.as_array().expect("a list of calls");
        let v3 = read(&format!("deepseek_v3_{size}.txt"));
        let inputs = [
            ("qwen3_coder", read(&format!("qwen3_coder_{size}.txt"))),
            ("deepseek_v31", to_v31(&v3)),
            ("deepseek_v3", v3),
        ];
        for (format, text) in inputs {
            let protocol = protocols
                .get(format)
                .unwrap_or_else(|| panic!("{format} is registered"));
            let (out, ms) = timed(protocol.as_ref(), &text);
            println!(
                "{format}_{size}: {} bytes, {} calls, best of 7: {ms:.3} ms",
                text.len(),
                out.requests.len()
            );
            let name = format!("{format}_{size}");
            if !out.diagnostics.is_empty() {
                failures.push(format!("{name}: diagnostics {:?}", out.diagnostics));
            }
            let got = typed_calls(&out, &schemas);
            if got.len() != expected.len() {
                failures.push(format!(
                    "{name}: {} calls, expected {}",
                    got.len(),
                    expected.len()
                ));
            } else if let Some(problem) = got
                .iter()
                .zip(expected)
                .enumerate()
                .find_map(|(i, (g, e))| same(g, e, &format!("call {i}")).err())
            {
                failures.push(format!("{name}: {problem}"));
            }
            if format == "qwen3_coder" && !out.requests.iter().all(|r| r.untyped_args) {
                failures.push(format!("{name}: requests must be marked untyped"));
            }
            let auto = parser::parse(&protocols, &text, None).expect("auto-detect answers");
            if auto.format != format || auto.requests.len() != expected.len() {
                failures.push(format!(
                    "{name}: auto-detect chose {} with {} calls",
                    auto.format,
                    auto.requests.len()
                ));
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
