//! `toolscope eval CASES.jsonl`: how well the parsers read a team's own corpus of replies.
//!
//! Each line is a case (`toolscope_engine::eval::EvalCase`): `{"reply": "...", "expected":
//! [{"name": "...", "arguments": {...}}], "format": "hermes", "tools": [...], "id": "..."}`, only
//! `reply` and `expected` required. The agreement is printed per format and overall with every
//! miss; below `--min` the exit code is 1, so a CI job can guard a model's outputs.

use std::path::PathBuf;

use clap::Args;
use toolscope_engine::eval::{evaluate_case, EvalCase, EvalReport};

use crate::output::outln;
use crate::request_tools::{self, RequestToolsArgs};
use crate::setup::{self, SetupError};
use crate::{exit, render, GlobalArgs};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The cases, one JSON object a line (`-` or nothing: stdin).
    pub file: Option<PathBuf>,
    /// Parse every case in this format (or `auto`) instead of each case's own.
    #[arg(long, short)]
    pub format: Option<String>,
    /// Fail (exit 1) when the overall agreement is below this: a share (0.95) or a percentage
    /// (95%).
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub min: Option<f64>,
    #[command(flatten)]
    pub request_tools: RequestToolsArgs,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let (number, scale) = match text.trim().strip_suffix('%') {
        Some(percent) => (percent, 100.0),
        None => (text.trim(), 1.0),
    };
    let rate = number
        .parse::<f64>()
        .map_err(|_| format!("'{text}' is not a rate (0.95 or 95%)"))?
        / scale;
    if (0.0..=1.0).contains(&rate) {
        Ok(rate)
    } else {
        Err(format!("'{text}' is outside 0..1 (0%..100%)"))
    }
}

pub fn eval(global: &GlobalArgs, args: EvalArgs) -> Result<u8, SetupError> {
    let shared_tools = args.request_tools.load(global)?;
    let text = setup::read_input(args.file.as_deref())?;
    let protocols = setup::protocols(global);
    let mut report = EvalReport::default();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let case: EvalCase = serde_json::from_str(line)
            .map_err(|e| SetupError::usage(format!("line {number}: not a case: {e}")))?;
        let own_tools = case
            .tools
            .as_ref()
            .map(request_tools::from_value)
            .transpose()
            .map_err(|e| SetupError::usage(format!("line {number}: its tools: {e}")))?;
        let label = case.id.clone().unwrap_or_else(|| format!("line {number}"));
        let outcome = evaluate_case(
            &case,
            label,
            &protocols,
            args.format.as_deref(),
            own_tools.as_ref().or(shared_tools.as_ref()),
        )
        .map_err(|e| SetupError::usage(format!("line {number}: {e}")))?;
        report.add(outcome);
    }
    if report.overall.cases == 0 {
        return Err(SetupError::usage(
            "no cases: the file has no non-empty lines",
        ));
    }
    if global.json {
        render::json(&report);
    } else {
        render::eval_report(&report);
    }
    let below = args.min.is_some_and(|min| report.overall.rate() < min);
    if below && !global.json {
        outln!(
            "agreement {:.1}% is below the minimum {:.1}%",
            report.overall.rate() * 100.0,
            args.min.unwrap_or_default() * 100.0
        );
    }
    Ok(if below { exit::BELOW_MINIMUM } else { exit::OK })
}
