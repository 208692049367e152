//! One task of the test server's task front ([`crate::task_front`]): its status, the tool's
//! answer once it came, and its JSON in the spec's shape (2025-11-25 `Task`).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::task_front::RELATED_TASK;

/// Suggested to clients: short, so the tests move on quickly.
const POLL_INTERVAL_MS: u64 = 100;
const TTL_MS: u64 = 60_000;

pub struct Task {
    pub status: &'static str,
    pub message: Option<String>,
    pub created: String,
    pub updated: String,
    /// The progress token of the client's `tools/call`, which stays valid for the task.
    pub client_token: Option<Value>,
    /// The tool's answer: `Ok(result)` or `Err(error object)`.
    pub outcome: Option<Result<Value, Value>>,
    /// Ids of `tasks/result` requests waiting for the task to end.
    pub waiting: Vec<Value>,
}

impl Task {
    pub fn is_final(&self) -> bool {
        matches!(self.status, "completed" | "failed" | "cancelled")
    }

    pub fn set(&mut self, status: &'static str, message: Option<String>) {
        self.status = status;
        if message.is_some() {
            self.message = message;
        }
        self.updated = now();
    }

    pub fn json(&self, id: &str) -> Value {
        let mut task = json!({
            "taskId": id, "status": self.status, "createdAt": self.created,
            "lastUpdatedAt": self.updated, "ttl": TTL_MS, "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(message) = &self.message {
            task["statusMessage"] = json!(message);
        }
        task
    }

    /// The answer to `tasks/result` for an ended task: the tool's own, with related-task `_meta`.
    pub fn result(&self, id: &str) -> Value {
        match &self.outcome {
            Some(Ok(result)) => {
                let mut result = result.clone();
                if let Some(object) = result.as_object_mut() {
                    let meta = object.entry("_meta").or_insert_with(|| json!({}));
                    meta[RELATED_TASK] = json!({"taskId": id});
                }
                json!({"result": result})
            }
            Some(Err(error)) => json!({"error": error}),
            None => {
                json!({"error": {"code": -32603, "message": format!("task {id} was cancelled")}})
            }
        }
    }
}

/// ISO 8601 in UTC, from the system clock (no date crate for one timestamp format).
pub fn now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (
        i64::try_from(seconds / 86_400).unwrap_or(0),
        seconds % 86_400,
    );
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let (day, month) = (
        doy - (153 * mp + 2) / 5 + 1,
        if mp < 10 { mp + 3 } else { mp - 9 },
    );
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
}
