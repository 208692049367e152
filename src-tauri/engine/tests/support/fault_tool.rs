//! A tool that misbehaves on purpose, for the fault-injection and soak tests.
//!
//! The built-in `devtools` tool already covers the polite faults (a sleep that honours
//! cancellation, classified failures, 50 MB of output); this one covers what a buggy provider
//! does: panic (inside its future and before returning one), hang forever while ignoring the
//! cancellation token, sleep well past the timeout, and return a huge JSON value. Every future
//! it starts holds a [`Live`] guard, so a test can see that the executor really dropped a call
//! it gave up on instead of leaking it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::sync::Notify;
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_protocol::method::{Annotations, MethodMetadata};

/// Every panic this tool raises carries this text, so the quiet panic hook can recognise it.
pub const PANIC_MARKER: &str = "fault-injection: the tool panicked on purpose";

/// Counts the calls of this tool that are still alive (started and not yet dropped).
#[derive(Default)]
pub struct Liveness {
    count: AtomicUsize,
    dropped: Notify,
}

impl Liveness {
    pub fn live(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Waits until no call of the tool is alive any more.
    pub async fn all_dropped(&self) {
        loop {
            let dropped = self.dropped.notified();
            if self.live() == 0 {
                return;
            }
            dropped.await;
        }
    }
}

/// Held by every running call; dropping the call's future drops it.
struct Live(Arc<Liveness>);

impl Live {
    fn new(liveness: &Arc<Liveness>) -> Self {
        liveness.count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(liveness))
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.dropped.notify_waiters();
    }
}

#[derive(Default)]
pub struct FaultTool {
    pub liveness: Arc<Liveness>,
    /// Request ids whose `hang` call has started, so a test cancels a call that is running.
    started: Mutex<HashSet<String>>,
    started_changed: Notify,
}

fn method(name: &str, description: &str, parameters: Value) -> MethodMetadata {
    MethodMetadata {
        name: name.into(),
        description: description.into(),
        parameters,
        agent_callable: true,
        protocol_config: None,
        // Read-only: the faults must reach the tool, not stop at the confirmation step.
        annotations: Annotations {
            read_only: Some(true),
            destructive: Some(false),
            ..Annotations::default()
        },
        output_schema: None,
    }
}

impl FaultTool {
    /// Waits until the `hang` call with this request id is running.
    pub async fn hang_started(&self, request_id: &str) {
        loop {
            let changed = self.started_changed.notified();
            if self.started_set().contains(request_id) {
                return;
            }
            changed.await;
        }
    }

    fn started_set(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.started.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn mark_started(&self, request_id: &str) {
        self.started_set().insert(request_id.to_owned());
        self.started_changed.notify_waiters();
    }
}

fn arg_u64(args: &Map<String, Value>, name: &str, default: u64) -> u64 {
    args.get(name).and_then(Value::as_u64).unwrap_or(default)
}

impl Tool for FaultTool {
    fn info(&self) -> ToolInfo {
        let none = json!({"type": "object", "properties": {}, "additionalProperties": false});
        ToolInfo {
            id: "fault".into(),
            name: "Fault injection".into(),
            description: "Misbehaves on purpose.".into(),
            source: ToolSource::Builtin,
            methods: vec![
                method("ok", "Answers at once.", json!({"type": "object"})),
                method(
                    "panic",
                    "Panics inside its future.",
                    json!({"type": "object"}),
                ),
                method(
                    "panic-early",
                    "Panics before it returns a future.",
                    none.clone(),
                ),
                method(
                    "hang",
                    "Never finishes and ignores cancellation.",
                    none.clone(),
                ),
                method(
                    "sleep-past",
                    "Sleeps `ms` milliseconds, ignoring cancellation.",
                    json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}}),
                ),
                method(
                    "flood-json",
                    "Returns a JSON object holding `bytes` bytes of text.",
                    json!({"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 0}}}),
                ),
            ],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        if method == "panic-early" {
            panic!("{PANIC_MARKER} (before returning a future)");
        }
        let live = Live::new(&self.liveness);
        Box::pin(async move {
            let _live = live;
            match method {
                "ok" => Ok(Value::Object(args)),
                "panic" => panic!("{PANIC_MARKER}"),
                "hang" => {
                    self.mark_started(&ctx.request_id);
                    std::future::pending::<()>().await;
                    Ok(json!("unreachable"))
                }
                "sleep-past" => {
                    tokio::time::sleep(Duration::from_millis(arg_u64(&args, "ms", 1000))).await;
                    Ok(json!("woke up"))
                }
                "flood-json" => {
                    let bytes = usize::try_from(arg_u64(&args, "bytes", 0)).unwrap_or(0);
                    Ok(json!({"flood": "x".repeat(bytes)}))
                }
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

/// Keeps the expected panics of [`FaultTool`] out of the test output; any other panic is
/// reported as usual.
pub fn quiet_fault_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("");
            if !payload.contains(PANIC_MARKER) {
                default(info);
            }
        }));
    });
}

/// Resident and peak resident memory of this process in KiB (`/proc/self/status`).
pub fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
