//! Mock results: how an imported method answers when it has no backend.
//!
//! An imported definition is only a schema; the person's real tool lives in their own system.
//! A mock lets the cycle run anyway, and says so: a fixed result, a template filled from the
//! arguments, the arguments echoed, or a failure of a chosen kind, each after an optional
//! latency. A method without a mock fails with a "no implementation" error, never a made-up
//! success. A timeout is not mocked as an error: a latency above the executor's timeout makes
//! a real one, classified by the executor like any other.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolscope_engine::ToolFailure;

/// The longest latency a mock may ask for.
pub const MAX_LATENCY_MS: u64 = 10 * 60 * 1000;

/// What a mocked call answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MockReply {
    /// This value, whatever the arguments.
    Fixed { value: Value },
    /// This value with `{{path}}` placeholders filled from the arguments (`{{city}}`,
    /// `{{address.street}}`, `{{items.0}}`). A string that is exactly one placeholder becomes
    /// the argument itself, of any type; inside longer text the argument's text is spliced in.
    /// A placeholder naming no argument becomes `null` (or nothing, inside text).
    Template { template: Value },
    /// The arguments, as validated.
    Echo,
    /// A failure: the tool reports an error, or cannot be reached.
    Error {
        kind: MockErrorKind,
        message: String,
    },
}

/// The failures a tool itself can cause (the executor classifies the rest: timeouts, denials,
/// invalid arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum MockErrorKind {
    ToolError,
    Transport,
}

/// A method's mock: its reply, after `latency_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Mock {
    pub reply: MockReply,
    #[serde(default)]
    pub latency_ms: u32,
}

/// Why a mock cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MockError {
    #[error("the latency is {0} ms; at most {MAX_LATENCY_MS} ms (10 minutes)")]
    LatencyTooLong(u32),
    #[error("the error message is empty: say what the tool would report")]
    EmptyMessage,
}

impl Mock {
    pub fn check(&self) -> Result<(), MockError> {
        if u64::from(self.latency_ms) > MAX_LATENCY_MS {
            return Err(MockError::LatencyTooLong(self.latency_ms));
        }
        if let MockReply::Error { message, .. } = &self.reply {
            if message.trim().is_empty() {
                return Err(MockError::EmptyMessage);
            }
        }
        Ok(())
    }

    /// Answers a call: waits the latency (cancelled with the call), then replies.
    pub async fn answer(&self, args: Map<String, Value>) -> Result<Value, ToolFailure> {
        if self.latency_ms > 0 {
            tokio::time::sleep(self.latency()).await;
        }
        self.reply(args)
    }

    /// How long the mocked tool takes.
    pub fn latency(&self) -> Duration {
        Duration::from_millis(u64::from(self.latency_ms))
    }

    /// The reply to a call with `args`, without the latency (for callers that wait their own
    /// way, such as the proxy's fault plan).
    pub fn reply(&self, args: Map<String, Value>) -> Result<Value, ToolFailure> {
        match &self.reply {
            MockReply::Fixed { value } => Ok(value.clone()),
            MockReply::Template { template } => Ok(fill(template, &Value::Object(args))),
            MockReply::Echo => Ok(Value::Object(args)),
            MockReply::Error { kind, message } => Err(match kind {
                MockErrorKind::ToolError => ToolFailure::Failed(message.clone()),
                MockErrorKind::Transport => ToolFailure::Transport(message.clone()),
            }),
        }
    }
}

/// Fills every `{{path}}` in `template` from `args`.
pub fn fill(template: &Value, args: &Value) -> Value {
    match template {
        Value::String(text) => fill_text(text, args),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, args)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), fill(v, args)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn fill_text(text: &str, args: &Value) -> Value {
    let trimmed = text.trim();
    if let Some(path) = whole_placeholder(trimmed) {
        return lookup(args, path).cloned().unwrap_or(Value::Null);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        out.push_str(&rest[..open]);
        let path = rest[open + 2..open + 2 + close].trim();
        match lookup(args, path) {
            Some(Value::String(s)) => out.push_str(s),
            Some(Value::Null) | None => {}
            Some(other) => out.push_str(&other.to_string()),
        }
        rest = &rest[open + 2 + close + 2..];
    }
    out.push_str(rest);
    Value::String(out)
}

/// `path` when `text` is exactly `{{path}}`.
fn whole_placeholder(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then(|| inner.trim())
}

/// An argument by dotted path; numeric segments index arrays.
fn lookup<'v>(args: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(args, |value, segment| match value {
            Value::Object(fields) => fields.get(segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn templates_keep_whole_values_and_splice_text() {
        let template = json!({
            "city": "{{city}}",
            "days": "{{ days }}",
            "summary": "Weather in {{city}} for {{days}} days ({{unit}}), first {{stops.0}}",
            "missing": "{{nope.deeper}}",
            "literal": 3,
            "unclosed": "{{city"
        });
        let filled = fill(
            &template,
            &json!({"city": "Oslo", "days": 3, "stops": ["A", "B"]}),
        );
        assert_eq!(
            filled,
            json!({
                "city": "Oslo",
                "days": 3,
                "summary": "Weather in Oslo for 3 days (), first A",
                "missing": null,
                "literal": 3,
                "unclosed": "{{city"
            })
        );
    }

    #[tokio::test(start_paused = true)]
    async fn each_reply_kind_answers_after_its_latency() {
        let echo = Mock {
            reply: MockReply::Echo,
            latency_ms: 1500,
        };
        let started = tokio::time::Instant::now();
        assert_eq!(
            echo.answer(args(json!({"a": 1}))).await,
            Ok(json!({"a": 1}))
        );
        assert!(started.elapsed() >= Duration::from_millis(1500));
        let fixed = Mock {
            reply: MockReply::Fixed {
                value: json!({"ok": true}),
            },
            latency_ms: 0,
        };
        assert_eq!(fixed.answer(Map::new()).await, Ok(json!({"ok": true})));
        let down = Mock {
            reply: MockReply::Error {
                kind: MockErrorKind::Transport,
                message: "connection refused".into(),
            },
            latency_ms: 0,
        };
        assert_eq!(
            down.answer(Map::new()).await,
            Err(ToolFailure::Transport("connection refused".into()))
        );
    }

    #[test]
    fn a_mock_is_checked_before_it_is_saved() {
        let slow = Mock {
            reply: MockReply::Echo,
            latency_ms: 700_000,
        };
        assert_eq!(slow.check(), Err(MockError::LatencyTooLong(700_000)));
        let silent = Mock {
            reply: MockReply::Error {
                kind: MockErrorKind::ToolError,
                message: " ".into(),
            },
            latency_ms: 0,
        };
        assert_eq!(silent.check(), Err(MockError::EmptyMessage));
    }
}
