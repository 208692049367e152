//! Imported sets end to end: import → registry → executor with mocks → saved → reopened.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::types::ToolSource;
use toolscope_engine::Registry;
use toolscope_imported::{FindingLevel, ImportedSets, Mock, MockErrorKind, MockReply, SetError};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/imports")
        .join(name);
    std::fs::read_to_string(path).expect("fixture is readable")
}

fn open(dir: &Path) -> (Arc<Registry>, ImportedSets) {
    let registry = Arc::new(Registry::new());
    let (sets, problems) = ImportedSets::open(dir, Arc::clone(&registry));
    assert!(problems.is_empty(), "{problems:?}");
    (registry, sets)
}

async fn call(
    registry: &Arc<Registry>,
    routing_name: &str,
    args: Value,
) -> toolscope_protocol::result::ToolExecutionResult {
    let options = ExecutorOptions {
        timeout: Duration::from_millis(300),
        ..ExecutorOptions::default()
    };
    let executor =
        Executor::new(Arc::clone(registry), options).with_confirmation(Arc::new(ApproveAll));
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    executor
        .execute(
            &ParsedToolRequest::manual(routing_name, args),
            &CancellationToken::new(),
        )
        .await
}

#[tokio::test]
async fn an_imported_set_answers_from_its_mocks_and_refuses_without_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, sets) = open(dir.path());
    let report = sets
        .import(
            "shop",
            &fixture("openai_chat_tools.json"),
            "openai_chat_tools.json",
        )
        .expect("imports");
    assert_eq!(report.set.definitions, 4);
    assert!(!report.replaced);
    let tool = registry.get("shop").expect("registered");
    assert_eq!(tool.source, ToolSource::Imported);
    let routing: Vec<&str> = tool
        .methods
        .iter()
        .map(|m| m.routing_name.as_str())
        .collect();
    assert!(routing.contains(&"shop_lookup-order"), "{routing:?}");

    // No mock: a clear error, never a success.
    let result = call(
        &registry,
        "shop_lookup-order",
        json!({"order_id": "ORD-2024-88412", "customer_email": null}),
    )
    .await;
    assert_eq!(result.error_kind(), Some(ErrorKind::ToolError));
    assert!(
        result.result.contains("no implementation"),
        "{}",
        result.result
    );

    sets.set_mock(
        "shop",
        "lookup_order",
        Some(Mock {
            reply: MockReply::Template {
                template: json!({"order": "{{order_id}}", "status": "shipped"}),
            },
            latency_ms: 0,
        }),
    )
    .expect("mock saved");
    let result = call(
        &registry,
        "shop_lookup-order",
        json!({"order_id": "ORD-2024-88412", "customer_email": null}),
    )
    .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&result.result).expect("json"),
        json!({"order": "ORD-2024-88412", "status": "shipped"})
    );

    // The imported schema validates: the required order id is missing.
    let result = call(&registry, "shop_lookup-order", json!({})).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::InvalidArgs),
        "{result:?}"
    );

    // A latency above the executor's timeout is a real timeout.
    sets.set_mock(
        "shop",
        "lookup_order",
        Some(Mock {
            reply: MockReply::Echo,
            latency_ms: 5_000,
        }),
    )
    .expect("mock saved");
    let result = call(
        &registry,
        "shop_lookup-order",
        json!({"order_id": "ORD-2024-88412", "customer_email": null}),
    )
    .await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout), "{result:?}");

    sets.set_mock(
        "shop",
        "lookup_order",
        Some(Mock {
            reply: MockReply::Error {
                kind: MockErrorKind::Transport,
                message: "backend down".into(),
            },
            latency_ms: 0,
        }),
    )
    .expect("mock saved");
    let result = call(
        &registry,
        "shop_lookup-order",
        json!({"order_id": "ORD-2024-88412", "customer_email": null}),
    )
    .await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::Transport),
        "{result:?}"
    );
}

#[tokio::test]
async fn sets_survive_a_restart_and_reimport_keeps_mocks_of_names_still_defined() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let (_registry, sets) = open(dir.path());
        sets.import("Billing API", &fixture("bad_entries.json"), "pasted")
            .expect("imports the good entries");
        sets.set_mock(
            "Billing API",
            "get_invoice",
            Some(Mock {
                reply: MockReply::Echo,
                latency_ms: 0,
            }),
        )
        .expect("mock");
        sets.set_mock(
            "Billing API",
            "send_invoice_reminder",
            Some(Mock {
                reply: MockReply::Echo,
                latency_ms: 0,
            }),
        )
        .expect("mock");
    }
    let (registry, sets) = open(dir.path());
    let set = sets.get("Billing API").expect("reloaded");
    assert_eq!(set.id, "Billing-API");
    assert_eq!(set.mocks.len(), 2);
    let result = call(
        &registry,
        "Billing-API_get-invoice",
        json!({"invoice_number": "7"}),
    )
    .await;
    assert!(result.is_success(), "{result:?}");

    let tools = json!([
        {"type": "function", "function": {"name": "get_invoice", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "void_invoice", "parameters": {"type": "object"}}}
    ]);
    let report = sets
        .import("Billing API", &tools.to_string(), "pasted")
        .expect("re-imports");
    assert!(report.replaced);
    assert_eq!(
        report.mocks_dropped,
        vec!["send_invoice_reminder".to_owned()]
    );
    let set = sets.get("Billing API").expect("kept");
    assert_eq!(set.mocks.keys().collect::<Vec<_>>(), vec!["get_invoice"]);
    assert!(registry.resolve("Billing-API_void-invoice").is_ok());
    assert!(registry
        .resolve("Billing-API_send-invoice-reminder")
        .is_err());
}

#[test]
fn a_refused_import_changes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, sets) = open(dir.path());
    sets.import("mine", &fixture("anthropic_tools.json"), "a.json")
        .expect("imports");
    let before = std::fs::read_to_string(dir.path().join("mine.json")).expect("saved");

    for bad in ["bad_invalid_json.json", "bad_not_tools.json"] {
        let error = sets
            .import("mine", &fixture(bad), bad)
            .expect_err("refused");
        assert!(matches!(error, SetError::Read(_)), "{error}");
    }
    let error = sets
        .import(
            "mine",
            r#"[{"type": "function", "function": {"description": "no name"}}]"#,
            "pasted",
        )
        .expect_err("nothing to import");
    assert!(
        error
            .to_string()
            .contains("/0/function: the definition has no `name`"),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine.json")).expect("kept"),
        before
    );
    assert_eq!(registry.get("mine").map(|t| t.methods.len()), Some(4));
}

#[test]
fn a_name_taken_by_another_source_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let registry = Arc::new(Registry::new());
    registry
        .register(Arc::new(
            toolscope_imported::ToolSet {
                name: "calculator".into(),
                id: "calculator".into(),
                imported_at: String::new(),
                origin: String::new(),
                definitions: Vec::new(),
                mocks: Default::default(),
            }
            .tool(),
        ))
        .expect("registered");
    let (sets, _) = ImportedSets::open(dir.path(), Arc::clone(&registry));
    let error = sets
        .import("calculator", &fixture("anthropic_tools.json"), "a.json")
        .expect_err("taken");
    assert!(matches!(error, SetError::IdTaken { .. }), "{error}");
    assert!(!dir.path().join("calculator.json").exists());
}

#[test]
fn an_unreadable_set_file_is_reported_and_left_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let broken: PathBuf = dir.path().join("broken.json");
    std::fs::write(&broken, "{ not json").expect("write");
    let registry = Arc::new(Registry::new());
    let (sets, problems) = ImportedSets::open(dir.path(), registry);
    assert_eq!(problems.len(), 1);
    assert!(problems[0].contains("left as it is"), "{problems:?}");
    assert!(sets.list().is_empty());
    assert_eq!(
        std::fs::read_to_string(&broken).expect("kept"),
        "{ not json"
    );
}

#[test]
fn edits_replace_and_remove_definitions_and_mocks_follow_renames() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, sets) = open(dir.path());
    sets.import("fs", &fixture("mcp_tools_list_result.json"), "mcp")
        .expect("imports");
    sets.set_mock(
        "fs",
        "write_file",
        Some(Mock {
            reply: MockReply::Echo,
            latency_ms: 0,
        }),
    )
    .expect("mock");
    let findings = sets
        .replace_definition(
            "fs",
            "write_file",
            &json!({"name": "write_text", "description": "Write.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}),
        )
        .expect("replaced");
    assert!(findings.iter().all(|f| f.level != FindingLevel::Error));
    let set = sets.get("fs").expect("set");
    assert!(set.mocks.contains_key("write_text"));
    assert!(registry.resolve("fs_write-text").is_ok());
    let error = sets
        .replace_definition(
            "fs",
            "write_text",
            &json!({"name": "read_text_file", "input_schema": {"type": "object"}}),
        )
        .expect_err("duplicate");
    assert!(matches!(error, SetError::DuplicateDefinition(_)), "{error}");
    sets.remove_definition("fs", "write_text").expect("removed");
    assert!(registry.resolve("fs_write-text").is_err());
    sets.remove("fs").expect("set removed");
    assert!(registry.get("fs").is_none());
    assert!(!dir.path().join("fs.json").exists());
}

#[test]
fn five_megabytes_of_definitions_import_and_an_oversized_input_is_refused_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (registry, sets) = open(dir.path());
    // 6,000 definitions with long descriptions and enums: about 5 MB of OpenAI tools.
    let tools: Vec<Value> = (0..6_000)
        .map(|i| {
            json!({"type": "function", "function": {
                "name": format!("op_{i}"),
                "description": format!("Operation {i}: {}", "does a documented thing. ".repeat(24)),
                "parameters": {"type": "object", "properties": {
                    "id": {"type": "string", "description": "x".repeat(120)},
                    "mode": {"type": "string", "enum": ["a", "b", "c", "d"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100}
                }, "required": ["id"]}
            }})
        })
        .collect();
    let text = Value::Array(tools).to_string();
    assert!(text.len() > 5_000_000, "{} bytes", text.len());
    let report = sets.import("big", &text, "big.json").expect("imports");
    assert_eq!(report.set.definitions, 6_000);
    assert_eq!(registry.get("big").map(|t| t.methods.len()), Some(6_000));

    // Over the read limit: refused with the reason, the set already imported untouched.
    let huge = format!(
        "[{}]",
        " ".repeat(toolscope_imported::read::MAX_INPUT_BYTES)
    );
    let error = sets
        .import("big", &huge, "huge.json")
        .expect_err("too large");
    assert!(error.to_string().contains("at most"), "{error}");
    assert_eq!(registry.get("big").map(|t| t.methods.len()), Some(6_000));
    let (_, reopened) = open(dir.path());
    assert_eq!(
        reopened.get("big").map(|s| s.definitions.len()),
        Some(6_000)
    );
}
