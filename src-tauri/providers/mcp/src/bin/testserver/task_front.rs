//! MCP 2025-11-25 tasks (SEP-1686) in front of rmcp's server, so the tests have a task server
//! whose every step they control.
//!
//! rmcp 3.x implements the later tasks extension and drops the fields of this one while
//! parsing (`task` in `tools/call`, `execution` of a tool, the `tasks` capability), so the
//! front works on the JSON lines between stdio and rmcp: a `tools/call` with `task` is
//! answered at once with the task and passed on to rmcp as a plain call under an id and a
//! progress token of its own; its progress messages become the task's status message; a
//! request the tool sends with related-task `_meta` (an elicitation) puts the task in
//! `input_required` until the client answers; `tasks/get`, `tasks/result` (held until the task
//! ends), `tasks/list` and `tasks/cancel` are answered here, and a cancel reaches the tool as
//! `notifications/cancelled`. Tools ask for task support with a `_meta` marker the front
//! turns into `execution.taskSupport`; the `initialize` result gains the `tasks` capability.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::task_state::{now, Task};

/// The `_meta` key a tool sets to declare its `execution.taskSupport`.
pub const TASK_SUPPORT_MARKER: &str = "toolscope.test/taskSupport";
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Lines the tests can read back through the `task_journal` tool.
pub type Journal = Arc<Mutex<Vec<String>>>;

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Front {
    to_client: UnboundedSender<String>,
    to_server: UnboundedSender<String>,
    journal: Journal,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    tasks: HashMap<String, Task>,
    order: Vec<String>,
    /// Client request ids whose answers get rewritten, by method.
    rewrite: HashMap<String, &'static str>,
    /// Requests a task sent to the client, by id: answered, the task works again.
    asked: HashMap<String, String>,
}

fn reply(id: &Value, body: Value) -> String {
    let mut message = json!({"jsonrpc": "2.0", "id": id});
    if let (Some(message), Some(body)) = (message.as_object_mut(), body.as_object()) {
        message.extend(body.clone());
    }
    message.to_string()
}

fn error(code: i64, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

impl Front {
    pub fn new(
        to_client: UnboundedSender<String>,
        to_server: UnboundedSender<String>,
        journal: Journal,
    ) -> Self {
        Self {
            to_client,
            to_server,
            journal,
            state: Mutex::default(),
        }
    }

    fn client(&self, line: String) {
        let _ = self.to_client.send(line);
    }

    fn server(&self, line: String) {
        let _ = self.to_server.send(line);
    }

    /// A line the client sent.
    pub fn on_client_line(&self, line: String) {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            return self.server(line);
        };
        let id = message.get("id").cloned();
        let method = message.get("method").and_then(Value::as_str);
        let task_id = || {
            message
                .pointer("/params/taskId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        match (method, id) {
            (Some("tools/call"), Some(id)) if message.pointer("/params/task").is_some() => {
                self.create(&id, message)
            }
            (Some("tasks/get"), Some(id)) => self.get(&id, &task_id()),
            (Some("tasks/result"), Some(id)) => self.result(id, &task_id()),
            (Some("tasks/cancel"), Some(id)) => self.cancel(&id, &task_id()),
            (Some("tasks/list"), Some(id)) => {
                let state = lock(&self.state);
                let tasks: Vec<Value> = state
                    .order
                    .iter()
                    .filter_map(|t| state.tasks.get(t).map(|task| task.json(t)))
                    .collect();
                self.client(reply(&id, json!({"result": {"tasks": tasks}})));
            }
            (Some(method @ ("initialize" | "tools/list")), Some(id)) => {
                let method = if method == "initialize" {
                    "initialize"
                } else {
                    "tools/list"
                };
                lock(&self.state).rewrite.insert(id.to_string(), method);
                self.server(line);
            }
            (None, Some(id)) => {
                let mut state = lock(&self.state);
                if let Some(task_id) = state.asked.remove(&id.to_string()) {
                    if let Some(task) = state.tasks.get_mut(&task_id) {
                        if task.status == "input_required" {
                            task.set("working", Some("input received".into()));
                        }
                    }
                }
                drop(state);
                self.server(line);
            }
            _ => self.server(line),
        }
    }

    fn create(&self, id: &Value, message: Value) {
        let mut params = message
            .get("params")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        params.remove("task");
        let mut meta = params
            .remove("_meta")
            .and_then(|m| m.as_object().cloned())
            .unwrap_or_default();
        let client_token = meta.remove("progressToken");
        let task_id = {
            let mut state = lock(&self.state);
            let task_id = format!("task-{}", state.order.len() + 1);
            let created = now();
            state.tasks.insert(
                task_id.clone(),
                Task {
                    status: "working",
                    message: Some("accepted".into()),
                    updated: created.clone(),
                    created,
                    client_token,
                    outcome: None,
                    waiting: Vec::new(),
                },
            );
            state.order.push(task_id.clone());
            let task = state.tasks[&task_id].json(&task_id);
            self.client(reply(id, json!({"result": {"task": task}})));
            task_id
        };
        meta.insert("progressToken".into(), json!(task_id));
        meta.insert(RELATED_TASK.into(), json!({"taskId": task_id}));
        params.insert("_meta".into(), Value::Object(meta));
        self.server(
            json!({"jsonrpc": "2.0", "id": task_id, "method": "tools/call", "params": params})
                .to_string(),
        );
    }

    fn get(&self, id: &Value, task_id: &str) {
        let state = lock(&self.state);
        let body = match state.tasks.get(task_id) {
            Some(task) => json!({"result": task.json(task_id)}),
            None => error(-32602, &format!("no task {task_id}")),
        };
        self.client(reply(id, body));
    }

    fn result(&self, id: Value, task_id: &str) {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(task_id) else {
            return self.client(reply(&id, error(-32602, &format!("no task {task_id}"))));
        };
        if task.is_final() {
            let body = task.result(task_id);
            self.client(reply(&id, body));
        } else {
            task.waiting.push(id);
        }
    }

    fn cancel(&self, id: &Value, task_id: &str) {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(task_id) else {
            return self.client(reply(id, error(-32602, &format!("no task {task_id}"))));
        };
        if task.is_final() {
            let why = format!("task {task_id} is already {}", task.status);
            return self.client(reply(id, error(-32602, &why)));
        }
        task.set("cancelled", Some("cancelled by request".into()));
        lock(&self.journal).push(format!("cancelled {task_id}"));
        self.client(reply(id, json!({"result": task.json(task_id)})));
        self.release(task_id, task);
        self.server(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": task_id, "reason": "tasks/cancel"}})
            .to_string(),
        );
    }

    /// Answers the `tasks/result` requests waiting for an ended task.
    fn release(&self, task_id: &str, task: &mut Task) {
        for id in std::mem::take(&mut task.waiting) {
            self.client(reply(&id, task.result(task_id)));
        }
    }

    /// A line rmcp's server wrote.
    pub fn on_server_line(&self, line: String) {
        let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
            return self.client(line);
        };
        let id = message.get("id").cloned();
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut state = lock(&self.state);
        // The tool's answer to a call the front made for a task.
        if let (Some(Value::String(task_id)), None) = (&id, &method) {
            if let Some(task) = state.tasks.get_mut(task_id) {
                if task.status != "cancelled" {
                    let outcome = match message.get("error") {
                        Some(error) => Err(error.clone()),
                        None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                    };
                    let status = if outcome.is_ok() {
                        "completed"
                    } else {
                        "failed"
                    };
                    task.outcome = Some(outcome);
                    task.set(status, None);
                    lock(&self.journal).push(format!("{status} {task_id}"));
                    let task_id = task_id.clone();
                    self.release(&task_id, task);
                }
                return;
            }
        }
        if method.as_deref() == Some("notifications/progress") {
            let token = message.pointer("/params/progressToken").cloned();
            if let Some(task) = token
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|t| state.tasks.get_mut(t))
            {
                let text = message.pointer("/params/message").and_then(Value::as_str);
                if let Some(text) = text {
                    task.message = Some(text.to_owned());
                }
                let Some(client_token) = task.client_token.clone() else {
                    return;
                };
                message["params"]["progressToken"] = client_token;
                return self.client(message.to_string());
            }
        }
        if let (Some(id), Some(_)) = (&id, &method) {
            let related = message
                .pointer(&format!(
                    "/params/_meta/{}/taskId",
                    RELATED_TASK.replace('/', "~1")
                ))
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(task_id) = related {
                if let Some(task) = state.tasks.get_mut(&task_id) {
                    task.set(
                        "input_required",
                        Some("waiting for the client's answer".into()),
                    );
                    state.asked.insert(id.to_string(), task_id);
                }
            }
        }
        if let Some(id) = &id {
            match state.rewrite.remove(&id.to_string()) {
                Some("initialize") => {
                    if let Some(capabilities) = message.pointer_mut("/result/capabilities") {
                        capabilities["tasks"] =
                            json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
                    }
                }
                Some(_) => mark_task_tools(&mut message),
                None => {}
            }
        }
        drop(state);
        self.client(message.to_string());
    }
}

/// Turns each tool's `_meta` marker into `execution.taskSupport`.
fn mark_task_tools(message: &mut Value) {
    let Some(tools) = message
        .pointer_mut("/result/tools")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for tool in tools {
        let support = tool
            .get_mut("_meta")
            .and_then(Value::as_object_mut)
            .and_then(|meta| meta.remove(TASK_SUPPORT_MARKER));
        if let Some(support) = support {
            if tool
                .get("_meta")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
            {
                if let Some(tool) = tool.as_object_mut() {
                    tool.remove("_meta");
                }
            }
            tool["execution"] = json!({"taskSupport": support});
        }
    }
}
