//! The time tool: current time, differences and shifts, with real parsing errors to look at.

use chrono::{DateTime, Duration, FixedOffset, Local, SecondsFormat, Utc};
use serde_json::{json, Map, Value};

use super::{arg_str, method, read_only};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};

#[derive(Debug, Default)]
pub struct ClockTool;

const DATE_TIME: &str = "An RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z.";

impl Tool for ClockTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "time".into(),
            name: "Time and date".into(),
            description: "Current time, differences between instants and date arithmetic.".into(),
            source: ToolSource::Builtin,
            methods: vec![
                method(
                    "now",
                    "The current date and time.",
                    json!({
                        "type": "object",
                        "properties": {
                            "timezone": {"type": "string", "enum": ["utc", "local"], "default": "utc"},
                            "precision": {"type": "string", "enum": ["seconds", "millis"], "default": "seconds"}
                        },
                        "additionalProperties": false
                    }),
                    read_only(),
                ),
                method(
                    "diff",
                    "The time between two instants, in a chosen unit.",
                    json!({
                        "type": "object",
                        "properties": {
                            "from": {"type": "string", "description": DATE_TIME, "examples": ["2026-01-01T00:00:00Z"]},
                            "to": {"type": "string", "description": "Defaults to now. ".to_owned() + DATE_TIME},
                            "unit": {"type": "string", "enum": ["seconds", "minutes", "hours", "days"], "default": "seconds"}
                        },
                        "required": ["from"],
                        "additionalProperties": false
                    }),
                    read_only(),
                ),
                method(
                    "shift",
                    "Adds an offset (negative values subtract) to an instant.",
                    json!({
                        "type": "object",
                        "properties": {
                            "at": {"type": "string", "description": DATE_TIME, "examples": ["2026-01-31T12:00:00Z"]},
                            "offset": {
                                "type": "object",
                                "description": "Amounts to add.",
                                "properties": {
                                    "weeks": {"type": "integer", "default": 0},
                                    "days": {"type": "integer", "default": 0},
                                    "hours": {"type": "integer", "default": 0},
                                    "minutes": {"type": "integer", "default": 0},
                                    "seconds": {"type": "integer", "default": 0}
                                },
                                "additionalProperties": false
                            }
                        },
                        "required": ["at", "offset"],
                        "additionalProperties": false
                    }),
                    read_only(),
                ),
            ],
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
                "now" => Ok(now(&args)),
                "diff" => diff(&args),
                "shift" => shift(&args),
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

fn now(args: &Map<String, Value>) -> Value {
    let format = match args.get("precision").and_then(Value::as_str) {
        Some("millis") => SecondsFormat::Millis,
        _ => SecondsFormat::Secs,
    };
    let utc = Utc::now();
    let (iso, zone) = match args.get("timezone").and_then(Value::as_str) {
        Some("local") => (
            utc.with_timezone(&Local).to_rfc3339_opts(format, true),
            "local",
        ),
        _ => (utc.to_rfc3339_opts(format, true), "utc"),
    };
    json!({"iso": iso, "timezone": zone, "unix": utc.timestamp(), "unix_ms": utc.timestamp_millis()})
}

fn parse_instant(
    args: &Map<String, Value>,
    key: &str,
) -> Result<DateTime<FixedOffset>, ToolFailure> {
    let text = arg_str(args, key)?;
    DateTime::parse_from_rfc3339(text.trim()).map_err(|e| {
        ToolFailure::failed(format!(
            "'{key}' is not an RFC 3339 date-time ({e}): '{text}'"
        ))
    })
}

fn diff(args: &Map<String, Value>) -> Result<Value, ToolFailure> {
    let from = parse_instant(args, "from")?;
    let to = if args.contains_key("to") {
        parse_instant(args, "to")?
    } else {
        Utc::now().fixed_offset()
    };
    let seconds = (to - from).num_milliseconds() as f64 / 1000.0;
    let unit = args
        .get("unit")
        .and_then(Value::as_str)
        .unwrap_or("seconds");
    let divisor = match unit {
        "minutes" => 60.0,
        "hours" => 3600.0,
        "days" => 86_400.0,
        _ => 1.0,
    };
    Ok(json!({
        "from": from.to_rfc3339(),
        "to": to.to_rfc3339(),
        "difference": seconds / divisor,
        "unit": unit,
    }))
}

fn shift(args: &Map<String, Value>) -> Result<Value, ToolFailure> {
    let at = parse_instant(args, "at")?;
    let offset = args
        .get("offset")
        .and_then(Value::as_object)
        .ok_or_else(|| ToolFailure::failed("'offset' must be an object"))?;
    let amount = |key: &str| offset.get(key).and_then(Value::as_i64).unwrap_or(0);
    let total = [
        ("weeks", Duration::try_weeks(amount("weeks"))),
        ("days", Duration::try_days(amount("days"))),
        ("hours", Duration::try_hours(amount("hours"))),
        ("minutes", Duration::try_minutes(amount("minutes"))),
        ("seconds", Duration::try_seconds(amount("seconds"))),
    ]
    .into_iter()
    .try_fold(Duration::zero(), |sum, (name, part)| {
        part.and_then(|p| sum.checked_add(&p))
            .ok_or_else(|| ToolFailure::failed(format!("offset '{name}' is out of range")))
    })?;
    let shifted = at
        .checked_add_signed(total)
        .ok_or_else(|| ToolFailure::failed("the shifted date is out of range"))?;
    Ok(json!({"at": at.to_rfc3339(), "result": shifted.to_rfc3339()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn call(method: &str, args: Value) -> Result<Value, ToolFailure> {
        let Value::Object(args) = args else {
            unreachable!("test args are objects")
        };
        ClockTool.call(method, args, CallContext::default()).await
    }

    #[tokio::test]
    async fn diff_and_shift() {
        let out = call("diff", json!({"from": "2026-01-01T00:00:00Z", "to": "2026-01-02T12:00:00+00:00", "unit": "hours"}))
            .await
            .expect("valid dates");
        assert_eq!(out["difference"], json!(36.0));
        let out = call(
            "shift",
            json!({"at": "2026-01-31T12:00:00Z", "offset": {"days": 1, "hours": -13}}),
        )
        .await
        .expect("valid shift");
        assert_eq!(out["result"], json!("2026-01-31T23:00:00+00:00"));
        let bad = call("diff", json!({"from": "yesterday"})).await;
        assert!(matches!(bad, Err(ToolFailure::Failed(m)) if m.contains("RFC 3339")));
        let huge = call(
            "shift",
            json!({"at": "2026-01-31T12:00:00Z", "offset": {"weeks": i64::MAX}}),
        )
        .await;
        assert!(matches!(huge, Err(ToolFailure::Failed(m)) if m.contains("out of range")));
    }

    #[tokio::test]
    async fn now_reports_unix_and_iso() {
        let out = call("now", json!({"precision": "millis"}))
            .await
            .expect("now");
        assert!(out["iso"].as_str().is_some_and(|s| s.ends_with('Z')));
        assert!(out["unix"].as_i64().is_some_and(|u| u > 1_700_000_000));
    }
}
