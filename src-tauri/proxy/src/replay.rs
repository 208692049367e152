//! Replaying a recorded MCP session against the server: the agent's messages of a session
//! file are sent again, in order, through a new proxy session (so the replay is recorded like
//! any other), each request waiting for its answer; the server's own requests (an elicitation,
//! a sampling request, roots) are answered with the agent's recorded answers to the same method,
//! in order. Then each answer is compared with the recorded one and the differences are named
//! by JSON path, so "the same calls, against today's server" is one command.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;
use toolscope_engine::jsonl::read_lines;

use crate::error::ProxyError;
use crate::http_upstream::{run_http, HttpOptions};
use crate::stdio::{run_stdio, StdioOptions};
use crate::tap::Tap;

/// At most this many differing paths are named per answer.
const MAX_PATHS: usize = 12;

/// What a session file holds for a replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayPlan {
    /// The command line or `["--url", URL]` the session ran with.
    pub argv: Vec<String>,
    /// The agent's messages as it sent them, in order (requests, notifications).
    pub sends: Vec<Value>,
    /// The recorded answer to each request, by its id's JSON text.
    pub answers: HashMap<String, Value>,
    /// The agent's answers to the server's requests, by method, in order.
    pub agent_answers: HashMap<String, VecDeque<Value>>,
}

impl ReplayPlan {
    pub fn load(path: &Path) -> Result<Self, String> {
        let loaded = read_lines("proxy session", path, |line| {
            serde_json::from_slice::<Value>(line).map_err(|e| e.to_string())
        })
        .map_err(|e| e.to_string())?;
        let mut plan = Self::default();
        let mut server_requests: HashMap<String, String> = HashMap::new();
        for record in &loaded.records {
            match record["type"].as_str() {
                Some("session") => {
                    plan.argv = serde_json::from_value(record["argv"].clone()).unwrap_or_default();
                }
                Some("message") if record["origin"].is_null() => {
                    let message = &record["msg"];
                    if !message.is_object() {
                        continue;
                    }
                    let id = message.get("id").map(Value::to_string);
                    let method = message["method"].as_str();
                    match (record["dir"].as_str(), id, method) {
                        (Some("agent_to_server"), _, Some(_)) => plan.sends.push(message.clone()),
                        (Some("agent_to_server"), Some(id), None) => {
                            if let Some(method) = server_requests.get(&id) {
                                plan.agent_answers
                                    .entry(method.clone())
                                    .or_default()
                                    .push_back(message.clone());
                            }
                        }
                        (Some("server_to_agent"), Some(id), Some(method)) => {
                            server_requests.insert(id, method.to_owned());
                        }
                        (Some("server_to_agent"), Some(id), None) => {
                            plan.answers.insert(id, message.clone());
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        if plan.sends.is_empty() {
            return Err(format!(
                "{} holds no messages of the agent to replay",
                path.display()
            ));
        }
        Ok(plan)
    }
}

/// How one request fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared {
    pub id: Value,
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// `same`, `different`, `no_answer` (none within the timeout) or `not_recorded` (the
    /// original session had no answer to compare with).
    pub verdict: &'static str,
    /// The JSON paths that differ (at most a dozen).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

/// The outcome of a replay.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    pub requests: Vec<Compared>,
    pub same: usize,
    pub different: usize,
    pub unanswered: usize,
}

/// Where the replay goes.
pub enum Target {
    Stdio(StdioOptions),
    Http(HttpOptions),
}

/// Replays `plan` through `tap` (a new session) against `target`; each request may take
/// `timeout` to be answered.
pub async fn replay(
    plan: ReplayPlan,
    tap: Arc<Tap>,
    target: Target,
    timeout: Duration,
) -> Result<ReplayReport, ProxyError> {
    let (lines, agent_lines) = mpsc::channel(64);
    let (agent_side, proxy_side) = tokio::io::duplex(1 << 20);
    let run = tokio::spawn(async move {
        let never = std::future::pending::<String>();
        match target {
            Target::Stdio(options) => run_stdio(tap, options, agent_lines, proxy_side, never).await,
            Target::Http(options) => run_http(tap, options, agent_lines, proxy_side, never).await,
        }
    });
    let mut incoming = BufReader::new(agent_side).lines();
    let mut agent_answers = plan.agent_answers.clone();
    let mut answered: HashMap<String, Value> = HashMap::new();
    let mut requests = Vec::new();
    for message in &plan.sends {
        let text = format!("{message}\n");
        if lines.send(text.into_bytes()).await.is_err() {
            break;
        }
        let Some(id) = message.get("id") else {
            continue;
        };
        let key = id.to_string();
        let waited = tokio::time::timeout(timeout, async {
            while !answered.contains_key(&key) {
                let Ok(Some(line)) = incoming.next_line().await else {
                    return;
                };
                let Ok(received) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                match (received.get("id"), received["method"].as_str()) {
                    (Some(server_id), Some(method)) => {
                        // The server asks: answer as the agent did, under the new id.
                        if let Some(mut answer) =
                            agent_answers.get_mut(method).and_then(VecDeque::pop_front)
                        {
                            answer["id"] = server_id.clone();
                            let _ = lines.send(format!("{answer}\n").into_bytes()).await;
                        }
                    }
                    (Some(answer_id), None) => {
                        answered.insert(answer_id.to_string(), received.clone());
                    }
                    _ => {}
                }
            }
        })
        .await;
        if waited.is_err() {
            // No answer within the timeout: the next request goes anyway, as an agent's would.
        }
        requests.push((message.clone(), answered.get(&key).cloned()));
    }
    drop(lines);
    // Whatever the server still says is read, so it never blocks on a full pipe while it exits.
    tokio::spawn(async move { while let Ok(Some(_)) = incoming.next_line().await {} });
    let _ = tokio::time::timeout(Duration::from_secs(10), run).await;
    let mut report = ReplayReport {
        requests: Vec::new(),
        same: 0,
        different: 0,
        unanswered: 0,
    };
    for (message, replayed) in requests {
        let id = message["id"].clone();
        let recorded = plan.answers.get(&id.to_string());
        let (verdict, paths) = match (recorded, &replayed) {
            (_, None) => ("no_answer", Vec::new()),
            (None, Some(_)) => ("not_recorded", Vec::new()),
            (Some(recorded), Some(replayed)) => {
                let mut paths = Vec::new();
                differences("", recorded, replayed, &mut paths);
                if paths.is_empty() {
                    ("same", paths)
                } else {
                    ("different", paths)
                }
            }
        };
        match verdict {
            "same" => report.same += 1,
            "different" => report.different += 1,
            "no_answer" => report.unanswered += 1,
            _ => {}
        }
        report.requests.push(Compared {
            id,
            method: message["method"].as_str().unwrap_or_default().to_owned(),
            tool: message["params"]["name"]
                .as_str()
                .filter(|_| message["method"] == "tools/call")
                .map(str::to_owned),
            verdict,
            paths,
        });
    }
    Ok(report)
}

/// The JSON pointers at which `a` and `b` differ, the first [`MAX_PATHS`] of them.
fn differences(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= MAX_PATHS || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                let here = format!("{path}/{escaped}");
                differences(
                    &here,
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (a, b)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}/{index}"), a, b, out);
            }
        }
        _ => out.push(if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_named_by_json_pointer() {
        let mut paths = Vec::new();
        differences(
            "",
            &json!({"result": {"content": [{"text": "4"}], "meta": {"a/b": 1}}, "id": 1}),
            &json!({"result": {"content": [{"text": "5"}], "meta": {"a/b": 2}, "extra": true}, "id": 1}),
            &mut paths,
        );
        assert_eq!(
            paths,
            [
                "/result/content/0/text",
                "/result/meta/a~1b",
                "/result/extra"
            ]
        );
    }
}
