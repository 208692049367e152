//! Agreement of the parsers with a corpus of replies whose calls are known.
//!
//! A team that keeps its own model's outputs with the calls it meant (a regression corpus) wants
//! one number and every miss: each case is parsed (in its own format, or auto-detected), its text
//! values typed from the request's tools when there are any, and the calls compared with the
//! expected ones by name and arguments, in order. Numbers compare by value (`1` equals `1.0`);
//! everything else must be equal as JSON. A case's extra or missing call is a miss.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolscope_protocol::parser::{self, ParseReport, ParserError};
use toolscope_protocol::request::Severity;
use toolscope_protocol::ProtocolSet;

use crate::request_tools::RequestTools;

/// One call as a case expects it, or as the parser found it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ExpectedCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// One line of a cases file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalCase {
    /// A label for the report; the line number when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The format the reply is in (a protocol id); auto-detected when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The model's reply, as it came.
    pub reply: String,
    /// The calls it means, in order.
    pub expected: Vec<ExpectedCall>,
    /// The request's tools, in any shape `toolscope import` reads (they type and validate the
    /// values); the run's `--tools` apply when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// What running the calls gave, kept by an export for the record; not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Value>,
}

/// How one case went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseOutcome {
    /// The case's id, else `line N`.
    pub label: String,
    /// The format the case was parsed in: the run's `--format`, else the case's own, else the
    /// detected one (`none` when nothing matched).
    pub format: String,
    pub agrees: bool,
    pub expected: Vec<ExpectedCall>,
    pub found: Vec<ExpectedCall>,
    /// Why it does not agree: the first differing call, and the parser's errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// Agreement of one format's cases (or of all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Agreement {
    pub cases: usize,
    pub agreed: usize,
}

impl Agreement {
    /// The share of cases that agree, 1.0 for no cases.
    pub fn rate(&self) -> f64 {
        if self.cases == 0 {
            1.0
        } else {
            #[allow(clippy::cast_precision_loss)] // case counts are far below 2^52
            let rate = self.agreed as f64 / self.cases as f64;
            rate
        }
    }

    fn add(&mut self, agrees: bool) {
        self.cases += 1;
        self.agreed += usize::from(agrees);
    }
}

/// The whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EvalReport {
    pub overall: Agreement,
    pub by_format: BTreeMap<String, Agreement>,
    /// Every case that does not agree.
    pub mismatches: Vec<CaseOutcome>,
}

impl EvalReport {
    pub fn add(&mut self, outcome: CaseOutcome) {
        self.overall.add(outcome.agrees);
        self.by_format
            .entry(outcome.format.clone())
            .or_default()
            .add(outcome.agrees);
        if !outcome.agrees {
            self.mismatches.push(outcome);
        }
    }
}

/// Parses one case (`format` overrides the case's own) and compares its calls.
pub fn evaluate_case(
    case: &EvalCase,
    label: String,
    protocols: &ProtocolSet,
    format: Option<&str>,
    tools: Option<&RequestTools>,
) -> Result<CaseOutcome, ParserError> {
    let mut report = parser::parse(protocols, &case.reply, format.or(case.format.as_deref()))?;
    match tools {
        Some(tools) => {
            tools.check(&mut report);
        }
        None => parser::type_arguments(&mut report, |_| None),
    }
    let found = found_calls(&report);
    let mut reasons = differences(&case.expected, &found);
    if !reasons.is_empty() {
        reasons.extend(
            report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| format!("parser: {}", d.message)),
        );
    }
    Ok(CaseOutcome {
        label,
        // The format the case was parsed in: the run's override, else its own, else detected.
        format: format
            .or(case.format.as_deref())
            .filter(|f| !f.eq_ignore_ascii_case("auto"))
            .map_or(report.format, str::to_owned),
        agrees: reasons.is_empty(),
        expected: case.expected.clone(),
        found,
        reasons,
    })
}

fn found_calls(report: &ParseReport) -> Vec<ExpectedCall> {
    report
        .requests
        .iter()
        .map(|r| ExpectedCall {
            name: r.tool_name.clone(),
            arguments: r.args.clone(),
        })
        .collect()
}

fn differences(expected: &[ExpectedCall], found: &[ExpectedCall]) -> Vec<String> {
    if let Some(i) = expected
        .iter()
        .zip(found)
        .position(|(e, f)| e.name != f.name || !objects_agree(&e.arguments, &f.arguments))
    {
        let (e, f) = (&expected[i], &found[i]);
        return vec![if e.name == f.name {
            format!(
                "call {}: {} arguments {} ≠ expected {}",
                i + 1,
                f.name,
                Value::Object(f.arguments.clone()),
                Value::Object(e.arguments.clone())
            )
        } else {
            format!("call {}: {} ≠ expected {}", i + 1, f.name, e.name)
        }];
    }
    if expected.len() == found.len() {
        return Vec::new();
    }
    vec![format!(
        "{} call(s) found, {} expected",
        found.len(),
        expected.len()
    )]
}

fn objects_agree(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(key, value)| b.get(key).is_some_and(|other| values_agree(value, other)))
}

/// JSON equality, except that numbers compare by value (`1` and `1.0` agree).
pub fn values_agree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(x), Some(y)) if x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| values_agree(x, y))
        }
        (Value::Object(x), Value::Object(y)) => objects_agree(x, y),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests;
