//! Fault injection: per tool, while the proxy runs, a person makes a call slow, fail, or return
//! a mock result, to see how their agent copes. The plan is a small JSON file beside the
//! server's sessions (`<data dir>/proxy/<name>/faults.json`), written by `toolscope proxy fault`
//! (or by hand, or by the app) and read again by the running proxy when it changes, so nothing
//! has to restart.
//!
//! ```json
//! {"tools": {
//!   "search":  {"delay_ms": 1500},
//!   "get-sum": {"error": {"kind": "timeout"}},
//!   "fetch":   {"error": {"kind": "tool_error", "message": "upstream API down"}},
//!   "weather": {"mock": {"content": [{"type": "text", "text": "sunny, 21 °C"}]}},
//!   "lookup":  {"imported": {"set": "Shop", "definition": "lookup",
//!               "mock": {"reply": {"type": "template", "template": {"sku": "{{sku}}"}}, "latency_ms": 40}}}
//! }}
//! ```
//!
//! An `imported` fault is the mock a person gave a tool of an imported set (see
//! `toolscope_imported::Mock`), copied into the plan when it is set: it answers after the mock's
//! latency with its value (a template filled from the call's arguments), as a tool result.
//!
//! A delayed call is forwarded after its delay (other messages go on meanwhile). An error or a
//! mock is answered by the proxy and never reaches the server. Every fault applied is recorded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use toolscope_engine::files::write_atomically;
use toolscope_engine::ToolFailure;
use toolscope_imported::Mock;

/// The file name of a server's plan.
pub const FILE: &str = "faults.json";
/// How often the running proxy looks at the file (a stat, then a read only when it changed).
const RECHECK: Duration = Duration::from_millis(200);

/// The faults of one server, by tool name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct FaultPlan {
    #[serde(default)]
    pub tools: BTreeMap<String, Fault>,
}

/// What happens to a call of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    DelayMs(u64),
    Error(InjectedError),
    Mock(Value),
    Imported(ImportedMock),
}

/// An imported tool's mock, as it was when the fault was set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct ImportedMock {
    /// The imported set and the definition the mock belongs to (what the person is told).
    pub set: String,
    pub definition: String,
    pub mock: Mock,
}

/// An error the proxy answers a call with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct InjectedError {
    pub kind: InjectedErrorKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The kinds of failure an agent meets in practice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum InjectedErrorKind {
    /// JSON-RPC -32001, what MCP SDKs answer a request that timed out.
    Timeout,
    /// JSON-RPC -32603 internal error.
    ServerError,
    /// JSON-RPC -32602 invalid params.
    InvalidParams,
    /// A result with `isError: true`: the tool ran and failed.
    ToolError,
}

impl InjectedErrorKind {
    pub const ALL: [&'static str; 4] = ["timeout", "server_error", "invalid_params", "tool_error"];

    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_value(Value::String(text.to_owned())).ok()
    }
}

impl FaultPlan {
    pub fn path(server_dir: &Path) -> PathBuf {
        server_dir.join(FILE)
    }

    /// Reads a plan; a missing file is an empty plan.
    pub fn load(path: &Path) -> Result<Self, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| format!("{} is not a fault plan: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the plan whole (the engine's atomic write: the proxy never reads half a plan).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomically(path, format!("{text}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// When a fault's answer is sent: a mock of an imported tool takes the mock's latency.
pub fn answer_delay(fault: &Fault) -> Duration {
    match fault {
        Fault::Imported(imported) => imported.mock.latency(),
        _ => Duration::ZERO,
    }
}

/// The answer a fault gives a call with `id` and `arguments`, as a JSON-RPC line (without its
/// newline); none for a delay, which forwards the call.
pub fn answer(
    id: &(impl Serialize + ?Sized),
    tool: &str,
    arguments: &Value,
    fault: &Fault,
) -> Option<String> {
    let said = |error: &InjectedError, default: &str| {
        error
            .message
            .clone()
            .unwrap_or_else(|| format!("{default} (injected by the Toolscope proxy for '{tool}')"))
    };
    let body = match fault {
        Fault::DelayMs(_) => return None,
        Fault::Mock(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Fault::Imported(imported) => {
            let args = arguments.as_object().cloned().unwrap_or_default();
            match imported.mock.reply(args) {
                Ok(value) => json!({"jsonrpc": "2.0", "id": id, "result": tool_result(&value)}),
                Err(ToolFailure::Transport(message)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}})
                }
                Err(failure) => {
                    json!({"jsonrpc": "2.0", "id": id, "result": failed_result(&failure.to_string())})
                }
            }
        }
        Fault::Error(error) => match error.kind {
            InjectedErrorKind::ToolError => json!({"jsonrpc": "2.0", "id": id,
                "result": failed_result(&said(error, "the tool failed"))}),
            kind => {
                let (code, default) = match kind {
                    InjectedErrorKind::Timeout => (-32001, "Request timed out"),
                    InjectedErrorKind::InvalidParams => (-32602, "Invalid params"),
                    _ => (-32603, "Internal error"),
                };
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": said(error, default)}})
            }
        },
    };
    Some(body.to_string())
}

/// A `CallToolResult` of a tool that ran and failed, saying `text`.
fn failed_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A tool's value as an MCP `CallToolResult`: text as it is, anything else as its JSON text, an
/// object also as `structuredContent` (what MCP servers written with the SDKs return).
fn tool_result(value: &Value) -> Value {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut result = json!({"content": [{"type": "text", "text": text}]});
    if value.is_object() {
        result["structuredContent"] = value.clone();
    }
    result
}

/// The running proxy's view of the plan file, read again when it changes.
#[derive(Debug)]
pub struct FaultWatch {
    path: Option<PathBuf>,
    checked: Option<Instant>,
    modified: Option<SystemTime>,
    plan: FaultPlan,
}

impl FaultWatch {
    /// Watches `server_dir/faults.json`; `None` watches nothing (in-process tests).
    pub fn new(server_dir: Option<&Path>) -> Self {
        Self {
            path: server_dir.map(FaultPlan::path),
            checked: None,
            modified: None,
            plan: FaultPlan::default(),
        }
    }

    /// Whether the plan has no faults (read again if the file changed): the common case costs a
    /// stat every 200 ms and no parsing of messages.
    pub fn is_empty(&mut self) -> bool {
        self.refresh();
        self.plan.tools.is_empty()
    }

    /// The fault for a call of `tool`, with the plan read again if the file changed.
    pub fn for_tool(&mut self, tool: &str) -> Option<Fault> {
        self.refresh();
        self.plan.tools.get(tool).cloned()
    }

    fn refresh(&mut self) {
        let Some(path) = &self.path else { return };
        if self.checked.is_some_and(|at| at.elapsed() < RECHECK) {
            return;
        }
        self.checked = Some(Instant::now());
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if modified == self.modified {
            return;
        }
        self.modified = modified;
        match FaultPlan::load(path) {
            Ok(plan) => self.plan = plan,
            // A plan being edited by hand may be broken for a moment: the last good one stays.
            Err(error) => eprintln!("toolscope proxy: {error} (keeping the previous faults)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_reads_writes_and_answers_each_kind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = FaultPlan::path(dir.path());
        assert_eq!(FaultPlan::load(&path), Ok(FaultPlan::default()));
        let mut plan = FaultPlan::default();
        plan.tools.insert("slow".into(), Fault::DelayMs(250));
        plan.tools.insert(
            "down".into(),
            Fault::Error(InjectedError {
                kind: InjectedErrorKind::Timeout,
                message: None,
            }),
        );
        plan.tools.insert(
            "mocked".into(),
            Fault::Mock(json!({"content": [{"type": "text", "text": "m"}]})),
        );
        plan.save(&path).expect("saved");
        assert_eq!(FaultPlan::load(&path).expect("loaded"), plan);

        let timeout: Value = serde_json::from_str(
            &answer(&json!(7), "down", &Value::Null, &plan.tools["down"]).expect("answer"),
        )
        .expect("json");
        assert_eq!(timeout["error"]["code"], -32001);
        assert_eq!(timeout["id"], 7);
        let tool_error = Fault::Error(InjectedError {
            kind: InjectedErrorKind::ToolError,
            message: Some("API down".into()),
        });
        let failed: Value = serde_json::from_str(
            &answer(&json!("a"), "t", &Value::Null, &tool_error).expect("answer"),
        )
        .expect("json");
        assert_eq!(failed["result"]["isError"], true);
        assert_eq!(failed["result"]["content"][0]["text"], "API down");
        assert!(answer(&json!(1), "slow", &Value::Null, &plan.tools["slow"]).is_none());

        let mut watch = FaultWatch::new(Some(dir.path()));
        assert_eq!(watch.for_tool("slow"), Some(Fault::DelayMs(250)));
        assert_eq!(watch.for_tool("other"), None);
        assert!(FaultPlan::load(&path.with_file_name("x.json"))
            .expect("missing")
            .tools
            .is_empty());
        std::fs::write(&path, "{\"tools\": {\"slow\": {\"bogus\": 1}}}").expect("write");
        assert!(
            FaultPlan::load(&path).is_err(),
            "unknown fields are refused"
        );
    }

    #[test]
    fn an_imported_mock_answers_as_a_tool_result_after_its_latency() {
        use toolscope_imported::{MockErrorKind, MockReply};
        let imported = |reply: MockReply, latency_ms: u32| {
            Fault::Imported(ImportedMock {
                set: "Shop".into(),
                definition: "lookup".into(),
                mock: Mock { reply, latency_ms },
            })
        };
        let template = imported(
            MockReply::Template {
                template: json!({"sku": "{{sku}}", "note": "for {{sku}}"}),
            },
            40,
        );
        assert_eq!(answer_delay(&template), Duration::from_millis(40));
        let line = answer(&json!(3), "lookup", &json!({"sku": "A-1"}), &template).expect("answer");
        let answered: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(
            answered["result"]["structuredContent"],
            json!({"sku": "A-1", "note": "for A-1"})
        );
        let text = answered["result"]["content"][0]["text"]
            .as_str()
            .expect("text");
        assert_eq!(
            serde_json::from_str::<Value>(text).expect("json text"),
            json!({"sku": "A-1", "note": "for A-1"})
        );

        let plain = imported(
            MockReply::Fixed {
                value: json!("sunny"),
            },
            0,
        );
        assert_eq!(answer_delay(&plain), Duration::ZERO);
        let answered: Value =
            serde_json::from_str(&answer(&json!(4), "w", &Value::Null, &plain).expect("answer"))
                .expect("json");
        assert_eq!(
            answered["result"],
            json!({"content": [{"type": "text", "text": "sunny"}]})
        );

        let failing = |kind| {
            imported(
                MockReply::Error {
                    kind,
                    message: "quota".into(),
                },
                0,
            )
        };
        let tool_error: Value = serde_json::from_str(
            &answer(
                &json!(5),
                "t",
                &Value::Null,
                &failing(MockErrorKind::ToolError),
            )
            .expect("answer"),
        )
        .expect("json");
        assert_eq!(tool_error["result"]["isError"], true);
        assert_eq!(tool_error["result"]["content"][0]["text"], "quota");
        let transport: Value = serde_json::from_str(
            &answer(
                &json!(6),
                "t",
                &Value::Null,
                &failing(MockErrorKind::Transport),
            )
            .expect("answer"),
        )
        .expect("json");
        assert_eq!(transport["error"]["code"], -32603);

        let dir = tempfile::tempdir().expect("tempdir");
        let mut plan = FaultPlan::default();
        plan.tools.insert("lookup".into(), template);
        let path = FaultPlan::path(dir.path());
        plan.save(&path).expect("saved");
        assert_eq!(FaultPlan::load(&path).expect("loaded"), plan);
    }
}
