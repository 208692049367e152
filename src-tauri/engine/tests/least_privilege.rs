//! Least privilege in the engine, through the real executor:
//!
//! * a JSON Schema that points at the network (`$ref`, `$schema`, a relative `$ref` under a
//!   remote `$id`) or at a local file never makes the engine fetch or read it: a real loopback
//!   server counts zero requests, and the call fails with a clear, classified error;
//! * the workspace file tool stays inside its root against symbolic-link tricks beyond the
//!   unit tests' (relative links climbing out, chains, loops, links to `/` and to the root's
//!   parent), in every method, and nothing outside changes;
//! * destructive and unannotated methods never run without a confirmation, only the ones that
//!   say they are safe do.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_builtin::{register_all, BuiltinOptions};
use toolscope_engine::executor::{
    ConfirmationHook, ConfirmationRequest, Executor, ExecutorOptions,
};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_engine::{BoxFuture, CallContext, Registry, Tool, ToolFailure};
use toolscope_protocol::method::{Annotations, MethodMetadata};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ToolExecutionResult};

/// A tool whose methods carry the given schemas and annotations and count their calls.
struct Probe {
    methods: Vec<(String, Value, Annotations)>,
    calls: AtomicUsize,
}

impl Tool for Probe {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "probe".into(),
            name: "Probe".into(),
            description: String::new(),
            source: ToolSource::Mcp,
            methods: self
                .methods
                .iter()
                .map(|(name, parameters, annotations)| MethodMetadata {
                    name: name.clone(),
                    description: String::new(),
                    parameters: parameters.clone(),
                    agent_callable: true,
                    protocol_config: None,
                    annotations: annotations.clone(),
                    output_schema: None,
                })
                .collect(),
        }
    }

    fn call<'a>(
        &'a self,
        _method: &'a str,
        _args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(json!("ran")) })
    }
}

fn probe(methods: Vec<(&str, Value, Annotations)>) -> (Arc<Registry>, Arc<Probe>) {
    let registry = Arc::new(Registry::new());
    let probe = Arc::new(Probe {
        methods: methods
            .into_iter()
            .map(|(n, s, a)| (n.to_owned(), s, a))
            .collect(),
        calls: AtomicUsize::new(0),
    });
    registry.register(probe.clone()).expect("probe registers");
    (registry, probe)
}

async fn run(executor: &Executor, name: &str, args: Value) -> ToolExecutionResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    executor
        .execute(
            &ParsedToolRequest::manual(name, args),
            &CancellationToken::new(),
        )
        .await
}

/// A loopback HTTP server that answers every request with a schema `{"type": "string"}` and
/// counts the connections it accepted.
fn schema_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    // Detached: it blocks in accept until the test process exits.
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            // Counted before answering: a client that got an answer was counted.
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let body = r#"{"type": "string"}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/schema+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, hits)
}

#[tokio::test]
async fn schemas_pointing_at_the_network_or_a_file_are_never_fetched() {
    let (base, hits) = schema_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let local = dir.path().join("string.json");
    std::fs::write(&local, r#"{"type": "string"}"#).expect("write schema file");
    let file_url = format!("file://{}", local.display());
    let none = Annotations {
        read_only: Some(true),
        ..Annotations::default()
    };
    let (registry, probe) = probe(vec![
        (
            "remote-ref",
            json!({"type": "object", "properties": {"x": {"$ref": format!("{base}/schema.json")}}}),
            none.clone(),
        ),
        (
            "remote-id",
            json!({"$id": format!("{base}/root.json"), "type": "object",
                   "properties": {"x": {"$ref": "other.json"}}}),
            none.clone(),
        ),
        (
            "remote-meta",
            json!({"$schema": format!("{base}/meta.json"), "type": "object"}),
            none.clone(),
        ),
        (
            "file-ref",
            json!({"type": "object", "properties": {"x": {"$ref": file_url}}}),
            none,
        ),
    ]);
    let executor = Executor::new(registry, ExecutorOptions::default());
    for method in ["remote-ref", "remote-id", "remote-meta", "file-ref"] {
        let result = run(&executor, &format!("probe_{method}"), json!({"x": 5})).await;
        // Had the schema been fetched, `{"type": "string"}` would reject 5 as invalid_args.
        assert_eq!(
            result.error_kind(),
            Some(ErrorKind::ToolError),
            "{method}: {result:?}"
        );
        assert!(
            result.result.contains("parameter schema is invalid"),
            "{method}: {}",
            result.result
        );
        let refused = result.result.contains("never fetches a schema");
        assert_eq!(
            refused,
            method != "remote-meta",
            "{method}: {}",
            result.result
        );
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the schema server was contacted"
    );
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        0,
        "no call ran unvalidated"
    );
}

/// Answers confirmations with a fixed answer and remembers what was asked.
struct Answer {
    approve: bool,
    asked: Mutex<Vec<String>>,
}

impl ConfirmationHook for Answer {
    fn confirm<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.routing_name.clone());
        Box::pin(async move { self.approve })
    }
}

#[tokio::test]
async fn only_methods_that_say_they_are_safe_run_without_confirmation() {
    let any = json!({"type": "object"});
    let hints = |read_only: Option<bool>, destructive: Option<bool>| Annotations {
        read_only,
        destructive,
        ..Annotations::default()
    };
    let (registry, probe) = probe(vec![
        ("unannotated", any.clone(), Annotations::default()),
        ("destructive", any.clone(), hints(None, Some(true))),
        ("not-read-only", any.clone(), hints(Some(false), None)),
        (
            "idempotent-only",
            any.clone(),
            Annotations {
                idempotent: Some(true),
                ..Annotations::default()
            },
        ),
        ("read-only", any.clone(), hints(Some(true), None)),
        ("not-destructive", any, hints(None, Some(false))),
    ]);
    let nobody = Executor::new(Arc::clone(&registry), ExecutorOptions::default());
    let refusing = Arc::new(Answer {
        approve: false,
        asked: Mutex::default(),
    });
    let asking = nobody.clone().with_confirmation(refusing.clone());
    let guarded = [
        "unannotated",
        "destructive",
        "not-read-only",
        "idempotent-only",
    ];
    for method in guarded {
        let name = format!("probe_{method}");
        for executor in [&nobody, &asking] {
            let result = run(executor, &name, json!({})).await;
            assert_eq!(result.error_kind(), Some(ErrorKind::Denied), "{method}");
        }
    }
    assert_eq!(
        probe.calls.load(Ordering::SeqCst),
        0,
        "a guarded method ran"
    );
    let asked = refusing.asked.lock().expect("asked").clone();
    assert_eq!(asked, guarded.map(|m| format!("probe_{m}")));
    for method in ["read-only", "not-destructive"] {
        let result = run(&nobody, &format!("probe_{method}"), json!({})).await;
        assert!(result.is_success(), "{method}: {result:?}");
    }
    assert_eq!(probe.calls.load(Ordering::SeqCst), 2);
}

#[cfg(unix)]
#[tokio::test]
async fn workspace_symlink_tricks_never_reach_outside_the_root() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::fs::write(outside.join("secret.txt"), "top secret\n").expect("secret");
    let registry = Arc::new(Registry::new());
    register_all(
        &registry,
        &BuiltinOptions {
            workspace_root: root.clone(),
        },
    )
    .expect("builtins");
    // Relative links that climb out, a chain whose last hop leaves, a loop, and links to the
    // filesystem root and to the workspace's parent.
    std::fs::create_dir_all(root.join("inner")).expect("inner");
    symlink("../outside", root.join("up")).expect("link");
    symlink("../../outside", root.join("inner/up2")).expect("link");
    symlink(&outside, root.join("hop2")).expect("link");
    symlink("hop2", root.join("hop1")).expect("link");
    symlink("inner/../hop1", root.join("hop0")).expect("link");
    symlink("loop-b", root.join("loop-a")).expect("link");
    symlink("loop-a", root.join("loop-b")).expect("link");
    symlink("/", root.join("slash")).expect("link");
    symlink("..", root.join("parent")).expect("link");
    let approve_all = Arc::new(Answer {
        approve: true,
        asked: Mutex::default(),
    });
    let executor =
        Executor::new(registry, ExecutorOptions::default()).with_confirmation(approve_all);

    let targets = [
        "up/secret.txt",
        "inner/up2/secret.txt",
        "hop0/secret.txt",
        "hop1/secret.txt",
        "loop-a/x.txt",
        "slash/etc/hostname",
        "parent/outside/secret.txt",
    ];
    for path in targets {
        for (method, args) in [
            ("workspace_read", json!({"path": path})),
            (
                "workspace_list",
                json!({"path": path.rsplit_once('/').map_or(path, |p| p.0)}),
            ),
            (
                "workspace_write",
                json!({"path": path, "content": "pwned", "mode": "overwrite", "createDirs": true}),
            ),
            (
                "workspace_write",
                json!({"path": path, "content": "pwned", "mode": "append"}),
            ),
            ("workspace_delete", json!({"path": path, "recursive": true})),
        ] {
            let result = run(&executor, method, args).await;
            assert_eq!(
                result.error_kind(),
                Some(ErrorKind::ToolError),
                "{method} {path}: {result:?}"
            );
            assert!(
                result.result.contains("symbolic link"),
                "{method} {path}: {}",
                result.result
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).expect("intact"),
        "top secret\n"
    );
    let outside_now: Vec<_> = std::fs::read_dir(&outside)
        .expect("list outside")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(outside_now, ["secret.txt"], "something appeared outside");
    // Deleting a link removes the link, never what it points to.
    let result = run(&executor, "workspace_delete", json!({"path": "slash"})).await;
    assert!(result.is_success(), "{result:?}");
    assert!(std::path::Path::new("/etc").is_dir());
}
