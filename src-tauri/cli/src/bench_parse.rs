//! `toolscope bench-parse DIR`: parser speed and correctness on a directory of replies.
//!
//! Anyone can rerun the comparison with other parsers on the same inputs: for every input of
//! the directory's `manifest.json` whose format the engine knows, it prints the median and the
//! best parse time (the best shows the code's cost when the machine is noisy), throughput, the
//! auto-detect time (and which format it picked), the time to stream the reply in 4-character
//! deltas, and expected-vs-got call counts, checking the calls themselves against the
//! `calls_file` (untyped values typed from `tools.json` when present).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;
use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::stream::{deltas, StreamEvent, ToolCallStream};
use toolscope_protocol::ProtocolSet;

use crate::output::outln;
use crate::render;
use crate::setup::SetupError;
use crate::{exit, GlobalArgs};

#[derive(Debug, Args)]
pub struct BenchParseArgs {
    /// Directory with manifest.json, the inputs, their *.calls.json and tools.json.
    dir: PathBuf,
    /// Only inputs whose name contains this text.
    #[arg(long)]
    only: Option<String>,
    /// Time budget per measurement, in milliseconds (at least 3 runs each).
    #[arg(long, default_value_t = 300)]
    budget_ms: u64,
    /// Delta size for the streaming measurement, in bytes (0 skips it).
    #[arg(long, default_value_t = 4)]
    delta: usize,
}

#[derive(Debug, Serialize)]
struct Row {
    input: String,
    format: String,
    bytes: usize,
    parse_ms: f64,
    /// The fastest run: what parsing costs with no interference from the rest of the machine.
    best_ms: f64,
    mb_per_s: f64,
    auto_ms: f64,
    auto_format: String,
    stream_ms: Option<f64>,
    expected_calls: usize,
    got_calls: usize,
    calls_match: bool,
    problem: Option<String>,
}

fn read_json(path: &Path) -> Result<Value, SetupError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SetupError::usage(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| SetupError::usage(format!("{} is not valid JSON: {e}", path.display())))
}

/// Wall times of `run` over as many runs as fit in `budget` (at least 3).
struct Timing {
    median_ms: f64,
    best_ms: f64,
}

fn time_runs(budget: Duration, mut run: impl FnMut()) -> Timing {
    let started = Instant::now();
    let mut samples = Vec::new();
    while samples.len() < 3 || (started.elapsed() < budget && samples.len() < 1000) {
        let t = Instant::now();
        run();
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    samples.sort_by(f64::total_cmp);
    Timing {
        median_ms: samples[samples.len() / 2],
        best_ms: samples[0],
    }
}

fn schemas(dir: &Path) -> HashMap<String, Value> {
    let Ok(Value::Array(tools)) = read_json(&dir.join("tools.json")) else {
        return HashMap::new();
    };
    tools
        .iter()
        .filter_map(|tool| {
            let function = tool.get("function").unwrap_or(tool);
            Some((
                function.get("name")?.as_str()?.to_owned(),
                function.get("parameters")?.clone(),
            ))
        })
        .collect()
}

fn calls(report: &ParseReport, schemas: &HashMap<String, Value>) -> Vec<Value> {
    let mut report = report.clone();
    parser::type_arguments(&mut report, |name| schemas.get(name).cloned());
    report
        .requests
        .iter()
        .map(|r| serde_json::json!({"name": r.tool_name, "arguments": r.args}))
        .collect()
}

fn stream_ms(
    protocols: &ProtocolSet,
    format: &str,
    text: &str,
    delta: usize,
    budget: Duration,
) -> Option<f64> {
    let protocol = protocols.get(format)?;
    if delta == 0 || !ToolCallStream::new(protocol.clone()).is_incremental() {
        return None;
    }
    let mut events: Vec<StreamEvent> = Vec::new();
    Some(
        time_runs(budget, || {
            let mut stream = ToolCallStream::new(protocol.clone());
            for piece in deltas(text, || delta) {
                stream.push(piece, &mut events);
                events.clear();
            }
            stream.finish(&mut events);
            events.clear();
        })
        .median_ms,
    )
}

pub fn bench_parse(global: &GlobalArgs, args: BenchParseArgs) -> Result<u8, SetupError> {
    let manifest = read_json(&args.dir.join("manifest.json"))?;
    let Some(inputs) = manifest.get("inputs").and_then(Value::as_object) else {
        return Err(SetupError::usage(format!(
            "{}: manifest.json has no \"inputs\" object",
            args.dir.display()
        )));
    };
    let protocols = crate::setup::protocols(global);
    let schemas = schemas(&args.dir);
    let budget = Duration::from_millis(args.budget_ms);
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for (name, entry) in inputs {
        if args
            .only
            .as_deref()
            .is_some_and(|only| !name.contains(only))
        {
            continue;
        }
        let format = entry
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (Some(file), Some(_)) = (
            entry.get("file").and_then(Value::as_str),
            protocols.get(format),
        ) else {
            skipped.push(format!("{name} ({format})"));
            continue;
        };
        let path = args.dir.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SetupError::usage(format!("cannot read {}: {e}", path.display())))?;
        let expected = match entry.get("calls_file").and_then(Value::as_str) {
            Some(calls_file) => read_json(&args.dir.join(calls_file))?
                .as_array()
                .cloned()
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let named = parser::parse(&protocols, &text, Some(format))
            .map_err(|e| SetupError::usage(e.to_string()))?;
        let auto =
            parser::parse(&protocols, &text, None).map_err(|e| SetupError::usage(e.to_string()))?;
        let got = calls(&named, &schemas);
        let problem = if got.len() != expected.len() {
            Some(format!("{} calls, expected {}", got.len(), expected.len()))
        } else if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
            Some(format!(
                "call {i} differs: got {} expected {}",
                got[i], expected[i]
            ))
        } else if auto.format != format {
            Some(format!("auto-detect chose {}", auto.format))
        } else {
            None
        };
        let parse = time_runs(budget, || {
            std::hint::black_box(parser::parse(&protocols, &text, Some(format)).ok());
        });
        let parse_ms = parse.median_ms;
        let auto_ms = time_runs(budget, || {
            std::hint::black_box(parser::parse(&protocols, &text, None).ok());
        })
        .median_ms;
        rows.push(Row {
            input: name.clone(),
            format: format.to_owned(),
            bytes: text.len(),
            parse_ms,
            best_ms: parse.best_ms,
            #[allow(clippy::cast_precision_loss)] // byte counts far below 2^52
            mb_per_s: text.len() as f64 / 1e6 / (parse_ms / 1000.0),
            auto_ms,
            auto_format: auto.format.clone(),
            stream_ms: stream_ms(&protocols, format, &text, args.delta, budget),
            expected_calls: expected.len(),
            got_calls: got.len(),
            calls_match: problem.is_none(),
            problem,
        });
    }
    let failed = rows.iter().filter(|r| !r.calls_match).count();
    if global.json {
        render::json(&serde_json::json!({"rows": rows, "skipped": skipped}));
    } else {
        outln!(
            "{:<22} {:>9} {:>10} {:>9} {:>9} {:>10} {:>12} {:>11}  calls (expected/got)",
            "input",
            "bytes",
            "parse ms",
            "best ms",
            "MB/s",
            "auto ms",
            "auto format",
            "stream ms"
        );
        for r in &rows {
            outln!(
                "{:<22} {:>9} {:>10.3} {:>9.3} {:>9.1} {:>10.3} {:>12} {:>11}  {}/{} {}",
                r.input,
                r.bytes,
                r.parse_ms,
                r.best_ms,
                r.mb_per_s,
                r.auto_ms,
                r.auto_format,
                r.stream_ms.map_or("-".to_owned(), |ms| format!("{ms:.3}")),
                r.expected_calls,
                r.got_calls,
                r.problem
                    .as_deref()
                    .map_or("ok".to_owned(), |p| format!("MISMATCH: {p}")),
            );
        }
        if !skipped.is_empty() {
            outln!(
                "skipped (format not known to this build): {}",
                skipped.join(", ")
            );
        }
        outln!("{} inputs, {} mismatched", rows.len(), failed);
    }
    Ok(if failed > 0 {
        exit::TOOL_FAILED
    } else {
        exit::OK
    })
}
