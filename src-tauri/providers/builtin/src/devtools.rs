//! Developer tools: deliberately slow, failing and flooding methods, so timeouts,
//! cancellation, error classification and the output cap can be seen with no setup; plus one
//! method a model may not call, to see the agent-callable gate refuse it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::{arg_u64, method, read_only};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::Annotations;

#[derive(Debug, Default)]
pub struct DevTools {
    calls: AtomicU64,
    started: std::sync::OnceLock<Instant>,
}

impl Tool for DevTools {
    fn info(&self) -> ToolInfo {
        let mut stats = method(
            "stats",
            "Internal counters of this tool. Not agent-callable: only a person may run it.",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            read_only(),
        );
        stats.agent_callable = false;
        ToolInfo {
            id: "devtools".into(),
            name: "Developer tools".into(),
            description: "Slow, failing and flooding methods for trying timeouts, cancellation and limits.".into(),
            source: ToolSource::Builtin,
            methods: vec![
                method(
                    "sleep",
                    "Waits, in steps, then reports how long it slept. Use it to see timeouts and cancellation.",
                    json!({
                        "type": "object",
                        "properties": {
                            "durationMs": {"type": "integer", "minimum": 0, "maximum": 3_600_000, "default": 5000},
                            "steps": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
                        },
                        "additionalProperties": false
                    }),
                    read_only(),
                ),
                method(
                    "fail",
                    "Always fails, with the chosen error class.",
                    json!({
                        "type": "object",
                        "properties": {
                            "message": {"type": "string", "default": "deliberate failure"},
                            "kind": {"type": "string", "enum": ["tool_error", "transport"], "default": "tool_error"}
                        },
                        "additionalProperties": false
                    }),
                    read_only(),
                ),
                method(
                    "generate",
                    "Returns a text of the requested size, to see the output cap at work.",
                    json!({
                        "type": "object",
                        "properties": {
                            "bytes": {"type": "integer", "minimum": 0, "maximum": 50_000_000, "default": 100_000},
                            "pattern": {"type": "string", "minLength": 1, "maxLength": 256, "default": "0123456789"}
                        },
                        "additionalProperties": false
                    }),
                    Annotations { read_only: Some(true), destructive: Some(false), idempotent: Some(true), open_world: Some(false) },
                ),
                stats,
            ],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        let started = *self.started.get_or_init(Instant::now);
        let count = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        Box::pin(async move {
            match method {
                "sleep" => sleep(&args, &ctx).await,
                "fail" => {
                    let message = args
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("deliberate failure")
                        .to_owned();
                    match args.get("kind").and_then(Value::as_str) {
                        Some("transport") => Err(ToolFailure::Transport(message)),
                        _ => Err(ToolFailure::Failed(message)),
                    }
                }
                "generate" => generate(&args),
                "stats" => Ok(json!({
                    "calls": count,
                    "uptime_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                })),
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

async fn sleep(args: &Map<String, Value>, ctx: &CallContext) -> Result<Value, ToolFailure> {
    let total = arg_u64(args, "durationMs", 5000)?.min(3_600_000);
    let steps = arg_u64(args, "steps", 10)?.clamp(1, 100);
    let started = Instant::now();
    for step in 0..steps {
        let slice = Duration::from_millis(total / steps + u64::from(step < total % steps));
        tokio::select! {
            () = tokio::time::sleep(slice) => {}
            () = ctx.cancel.cancelled() => return Err(ToolFailure::failed("cancelled while sleeping")),
        }
    }
    Ok(json!({
        "slept_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "steps": steps,
    }))
}

fn generate(args: &Map<String, Value>) -> Result<Value, ToolFailure> {
    let bytes = usize::try_from(arg_u64(args, "bytes", 100_000)?.min(50_000_000))
        .map_err(|_| ToolFailure::failed("'bytes' is too large for this machine"))?;
    let pattern = args
        .get("pattern")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .unwrap_or("0123456789");
    let mut text = pattern.repeat(bytes / pattern.len() + 1);
    let mut cut = bytes.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    Ok(Value::String(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[tokio::test]
    async fn generate_sizes_and_failures() {
        let tools = DevTools::default();
        let out = tools
            .call(
                "generate",
                args(json!({"bytes": 25, "pattern": "abc"})),
                CallContext::default(),
            )
            .await
            .expect("generates");
        assert_eq!(out.as_str().map(str::len), Some(25));
        let out = tools
            .call(
                "generate",
                args(json!({"bytes": 5, "pattern": "éé"})),
                CallContext::default(),
            )
            .await
            .expect("generates");
        assert_eq!(out, json!("éé"), "cut back to a char boundary");
        let failed = tools
            .call(
                "fail",
                args(json!({"kind": "transport"})),
                CallContext::default(),
            )
            .await;
        assert!(matches!(failed, Err(ToolFailure::Transport(_))));
        let stats = tools
            .call("stats", Map::new(), CallContext::default())
            .await
            .expect("stats");
        assert_eq!(stats["calls"], json!(4));
    }

    #[tokio::test]
    async fn sleep_stops_when_cancelled() {
        let ctx = CallContext::default();
        ctx.cancel.cancel();
        let out = DevTools::default()
            .call("sleep", args(json!({"durationMs": 60_000})), ctx)
            .await;
        assert!(matches!(out, Err(ToolFailure::Failed(m)) if m.contains("cancelled")));
        let out = DevTools::default()
            .call(
                "sleep",
                args(json!({"durationMs": 3, "steps": 3})),
                CallContext::default(),
            )
            .await
            .expect("short sleep");
        assert_eq!(out["steps"], json!(3));
    }
}
