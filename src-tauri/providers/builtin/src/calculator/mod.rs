//! The built-in calculator tool.
//!
//! It exists so Toolscope always has a tool that works with no configuration and is safe to call
//! at any time: deterministic, offline, read-only (so the executor may run it in parallel), with
//! precise errors. Its schemas are deliberately rich (enums, defaults, ranges, a nested object,
//! arrays) because they drive the generated argument forms and show whether a model fills typed
//! arguments correctly. The expression language lives in [`expr`].

pub mod expr;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use toolscope_protocol::request::json_kind;

pub use expr::format_significant;
use expr::{AngleUnit, EvalOptions};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::{Annotations, MethodMetadata, ProtocolConfig};

pub const TOOL_ID: &str = "calculator";
/// Significant digits of `formatted` when `precision` is not given.
pub const DEFAULT_PRECISION: u32 = 10;
pub const MAX_PRECISION: u32 = 15;
/// Most numbers `statistics` accepts in one call.
pub const MAX_NUMBERS: usize = 10_000;
/// Every measure `statistics` knows, in output order.
pub const MEASURES: [&str; 8] = [
    "count", "sum", "mean", "median", "min", "max", "variance", "stddev",
];

/// The calculator tool: methods `evaluate` and `statistics`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CalculatorTool;

impl CalculatorTool {
    pub const fn new() -> Self {
        Self
    }
}

fn read_only() -> Annotations {
    Annotations {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    }
}

fn evaluate_metadata() -> MethodMetadata {
    MethodMetadata {
        name: "evaluate".into(),
        description:
            "Evaluates an arithmetic expression and returns its exact value plus a rounded \
            display string. Operators: + - * / % ^ (or **, right-associative, binds tighter than \
            unary minus: -2^2 = -4), postfix ! (factorial), parentheses. Constants: pi, e, tau. \
            Functions: sqrt, cbrt, abs, sin, cos, tan, asin, acos, atan, atan2(y, x), ln, log10, \
            log(x[, base]) (base 10 by default), exp, floor, ceil, round(x[, digits]), trunc, \
            min(...), max(...), hypot(x, y, ...), fact(n). Names in 'variables' can be used \
            directly, e.g. \"2*x + 1\"."
                .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "expression": {
                    "type": "string",
                    "title": "Expression",
                    "description": "The expression to evaluate, e.g. \"sqrt(2)^2 + sin(pi/6)\".",
                    "minLength": 1,
                    "maxLength": expr::MAX_EXPRESSION_CHARS,
                    "examples": ["(1 + 2) * 3", "2^10 / 4", "atan2(1, 1)", "5! / fact(3)"]
                },
                "angleUnit": {
                    "type": "string",
                    "title": "Angle unit",
                    "description": "Unit of the angles trigonometric functions take and return.",
                    "enum": ["radians", "degrees"],
                    "default": "radians"
                },
                "precision": {
                    "type": "integer",
                    "title": "Precision",
                    "description": "Significant digits of the formatted result; 0 shows the full value. The numeric value is never rounded.",
                    "minimum": 0,
                    "maximum": MAX_PRECISION,
                    "default": DEFAULT_PRECISION
                },
                "variables": {
                    "type": "object",
                    "title": "Variables",
                    "description": "Values for names used in the expression, e.g. {\"x\": 2, \"rate\": 0.05}. Names are case-sensitive and may not reuse a built-in constant or function.",
                    "propertyNames": { "pattern": "^[A-Za-z_][A-Za-z0-9_]*$" },
                    "additionalProperties": { "type": "number" },
                    "default": {}
                }
            },
            "required": ["expression"],
            "additionalProperties": false
        }),
        agent_callable: true,
        protocol_config: Some(ProtocolConfig {
            vcp_command: Some("Calculate".into()),
        }),
        annotations: read_only(),
        output_schema: Some(json!({
            "type": "object",
            "properties": {
                "expression": { "type": "string" },
                "value": { "type": "number" },
                "formatted": { "type": "string" }
            },
            "required": ["expression", "value", "formatted"]
        })),
    }
}

fn statistics_metadata() -> MethodMetadata {
    let measure_props: Map<String, Value> = MEASURES
        .iter()
        .map(|m| {
            let kind = if *m == "count" { "integer" } else { "number" };
            ((*m).to_owned(), json!({ "type": kind }))
        })
        .collect();
    MethodMetadata {
        name: "statistics".into(),
        description: "Computes descriptive statistics of a list of numbers: count, sum, mean, \
            median, min, max, variance and standard deviation (population by default, sample \
            with sample=true). Returns an object with the requested measures."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "numbers": {
                    "type": "array",
                    "title": "Numbers",
                    "description": "The data set.",
                    "items": { "type": "number" },
                    "minItems": 1,
                    "maxItems": MAX_NUMBERS
                },
                "measures": {
                    "type": "array",
                    "title": "Measures",
                    "description": "Which measures to return; all of them by default.",
                    "items": { "type": "string", "enum": MEASURES },
                    "minItems": 1,
                    "uniqueItems": true,
                    "default": MEASURES
                },
                "sample": {
                    "type": "boolean",
                    "title": "Sample",
                    "description": "Use the sample variance (divide by n - 1) instead of the population variance (divide by n).",
                    "default": false
                }
            },
            "required": ["numbers"],
            "additionalProperties": false
        }),
        agent_callable: true,
        protocol_config: None,
        annotations: read_only(),
        output_schema: Some(json!({ "type": "object", "properties": measure_props })),
    }
}

impl Tool for CalculatorTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: TOOL_ID.into(),
            name: "Calculator".into(),
            description: "Evaluates arithmetic expressions and computes descriptive statistics. \
                Deterministic, offline, no side effects."
                .into(),
            source: ToolSource::Builtin,
            methods: vec![evaluate_metadata(), statistics_metadata()],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            match method {
                "evaluate" => evaluate(&args),
                "statistics" => statistics(&args),
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

/// An argument, with `null` treated as absent.
fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).filter(|v| !v.is_null())
}

fn fail(message: impl Into<String>) -> ToolFailure {
    ToolFailure::Failed(message.into())
}

/// A JSON number: integral values within 2^53 become JSON integers (so 3, not 3.0).
pub fn number_json(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

fn evaluate(args: &Map<String, Value>) -> Result<Value, ToolFailure> {
    let expression = match arg(args, "expression") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(fail(format!(
                "'expression' must be a string, got {}",
                json_kind(other)
            )))
        }
        None => return Err(fail("missing required argument 'expression'")),
    };
    let angle_unit = match arg(args, "angleUnit") {
        None => AngleUnit::Radians,
        Some(Value::String(s)) if s == "radians" => AngleUnit::Radians,
        Some(Value::String(s)) if s == "degrees" => AngleUnit::Degrees,
        Some(other) => {
            return Err(fail(format!(
                "'angleUnit' must be \"radians\" or \"degrees\", got {other}"
            )))
        }
    };
    let precision = match arg(args, "precision") {
        None => DEFAULT_PRECISION,
        Some(value) => match value.as_f64() {
            Some(p) if p.fract() == 0.0 && (0.0..=f64::from(MAX_PRECISION)).contains(&p) => {
                p as u32
            }
            _ => {
                return Err(fail(format!(
                    "'precision' must be an integer from 0 to {MAX_PRECISION}, got {value}"
                )))
            }
        },
    };
    let variables = match arg(args, "variables") {
        None => BTreeMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value.as_f64() {
                Some(v) => Ok((name.clone(), v)),
                None => Err(fail(format!(
                    "variable '{name}' must be a number, got {}",
                    json_kind(value)
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(fail(format!(
                "'variables' must be an object mapping names to numbers, e.g. {{\"x\": 2}}, got {}",
                json_kind(other)
            )))
        }
    };
    let options = EvalOptions {
        angle_unit,
        variables,
    };
    let value = expr::evaluate(expression, &options).map_err(|e| fail(e.message))?;
    Ok(json!({
        "expression": expression,
        "value": number_json(value),
        "formatted": format_significant(value, precision),
    }))
}

/// Neumaier's compensated sum: exact enough that `[0.1; 10]` sums to 1.
fn compensated_sum(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut compensation) = (0.0_f64, 0.0_f64);
    for x in values {
        let t = sum + x;
        compensation += if sum.abs() >= x.abs() {
            (sum - t) + x
        } else {
            (x - t) + sum
        };
        sum = t;
    }
    sum + compensation
}

fn statistics(args: &Map<String, Value>) -> Result<Value, ToolFailure> {
    let items = match arg(args, "numbers") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(fail(format!(
                "'numbers' must be an array of numbers, got {}",
                json_kind(other)
            )))
        }
        None => return Err(fail("missing required argument 'numbers'")),
    };
    if items.is_empty() {
        return Err(fail("'numbers' must contain at least one number"));
    }
    if items.len() > MAX_NUMBERS {
        return Err(fail(format!(
            "'numbers' has {} items (maximum {MAX_NUMBERS})",
            items.len()
        )));
    }
    let xs = items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_f64().ok_or_else(|| {
                fail(format!(
                    "'numbers[{i}]' must be a number, got {}",
                    json_kind(v)
                ))
            })
        })
        .collect::<Result<Vec<f64>, _>>()?;
    let wanted: Vec<&str> = match arg(args, "measures") {
        None => MEASURES.to_vec(),
        Some(Value::Array(list)) if !list.is_empty() => {
            let mut wanted = Vec::with_capacity(list.len());
            for (i, v) in list.iter().enumerate() {
                match v.as_str().and_then(|s| MEASURES.iter().find(|m| **m == s)) {
                    Some(m) => wanted.push(*m),
                    None => {
                        return Err(fail(format!(
                            "unknown measure {v} at 'measures[{i}]' (expected one of: {})",
                            MEASURES.join(", ")
                        )))
                    }
                }
            }
            wanted
        }
        Some(other) => {
            return Err(fail(format!(
                "'measures' must be a non-empty array of measure names, got {other}"
            )))
        }
    };
    let sample = match arg(args, "sample") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(fail(format!(
                "'sample' must be a boolean, got {}",
                json_kind(other)
            )))
        }
    };

    let n = xs.len() as f64;
    let sum = compensated_sum(xs.iter().copied());
    let mean = if sum.is_finite() {
        sum / n
    } else {
        compensated_sum(xs.iter().map(|x| x / n))
    };
    let mut out = Map::new();
    for measure in MEASURES.iter().filter(|m| wanted.contains(m)) {
        let value = match *measure {
            "count" => {
                out.insert("count".into(), json!(xs.len()));
                continue;
            }
            "sum" => sum,
            "mean" => mean,
            "median" => {
                let mut sorted = xs.clone();
                sorted.sort_by(f64::total_cmp);
                let mid = sorted.len() / 2;
                match (
                    sorted.get(mid),
                    mid.checked_sub(1).and_then(|i| sorted.get(i)),
                ) {
                    (Some(hi), Some(lo)) if sorted.len() % 2 == 0 => lo / 2.0 + hi / 2.0,
                    (Some(hi), _) => *hi,
                    (None, _) => f64::NAN,
                }
            }
            "min" => xs.iter().copied().fold(f64::INFINITY, f64::min),
            "max" => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => {
                if sample && xs.len() < 2 {
                    return Err(fail(format!(
                        "the sample {measure} needs at least 2 numbers, got 1 (use sample=false)"
                    )));
                }
                let squares = compensated_sum(xs.iter().map(|x| (x - mean) * (x - mean)));
                let variance = squares / if sample { n - 1.0 } else { n };
                if *measure == "variance" {
                    variance
                } else {
                    variance.sqrt()
                }
            }
        };
        if !value.is_finite() {
            return Err(fail(format!(
                "{measure} is not a finite number (the numbers are too large)"
            )));
        }
        out.insert((*measure).into(), number_json(value));
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests;
