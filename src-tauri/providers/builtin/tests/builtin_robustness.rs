//! Hostile arguments against every built-in method through the real executor: whatever a model
//! sends, each call ends in a classified result and no tool panics.

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use toolscope_builtin::{register_all, BuiltinOptions};
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

/// devtools methods sleep and allocate on purpose; their limits are schema-checked elsewhere.
const SKIPPED_TOOLS: &[&str] = &["devtools"];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        prop_oneof![
            Just(".."),
            Just("/etc/passwd"),
            Just("a/../../x"),
            Just("1e309"),
            Just("sqrt(-1)")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value shaped by `schema` most of the time (so calls get past validation and reach the
/// tool), anything at all otherwise.
fn value_for(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let shaped: BoxedStrategy<Value> = if let Some(options) = schema["enum"].as_array() {
        prop::sample::select(options.clone()).boxed()
    } else {
        match schema["type"].as_str().unwrap_or("") {
            "string" => prop_oneof![
                "\\PC{0,16}",
                "[a-z]{1,6}(/[a-z]{1,6}){0,2}(\\.txt)?",
                Just("..".to_owned()),
                Just("a/../../x".to_owned()),
                Just("2026-01-31T12:00:00Z".to_owned()),
                Just("1 + 2 * sqrt(16) - 3!".to_owned()),
                Just("9^9^9".to_owned()),
            ]
            .prop_map(Value::from)
            .boxed(),
            "integer" => prop_oneof![0i64..20, any::<i64>(), Just(i64::MAX), Just(-1)]
                .prop_map(Value::from)
                .boxed(),
            "number" => prop_oneof![
                any::<f64>().prop_filter("finite", |f| f.is_finite()),
                -1e6f64..1e6
            ]
            .prop_map(Value::from)
            .boxed(),
            "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
            "array" if depth < 3 => {
                let items = value_for(&schema["items"], depth + 1);
                prop::collection::vec(items, 0..6)
                    .prop_map(Value::Array)
                    .boxed()
            }
            "object" if depth < 3 => object_for(schema, depth + 1)
                .prop_map(Value::Object)
                .boxed(),
            _ => json_value().boxed(),
        }
    };
    prop_oneof![9 => shaped, 1 => json_value()].boxed()
}

/// An object with the schema's required properties and some of its optional ones.
fn object_for(schema: &Value, depth: u32) -> BoxedStrategy<Map<String, Value>> {
    let Some(properties) = schema["properties"].as_object() else {
        return prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..3)
            .prop_map(|m| m.into_iter().collect())
            .boxed();
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let entries: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .iter()
        .map(|(name, prop)| {
            let is_required = required.contains(&name.as_str());
            let name = name.clone();
            let value = value_for(prop, depth).prop_map(move |v| (name.clone(), v));
            if is_required {
                prop_oneof![19 => value.prop_map(Some), 1 => Just(None)].boxed()
            } else {
                prop::option::of(value).boxed()
            }
        })
        .collect();
    entries
        .prop_map(|pairs| pairs.into_iter().flatten().collect())
        .boxed()
}

fn setup() -> (tempfile::TempDir, Executor, Vec<(String, Value)>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let registry = Arc::new(Registry::new());
    register_all(
        &registry,
        &BuiltinOptions {
            workspace_root: dir.path().join("ws"),
        },
    )
    .expect("builtins");
    let methods = registry
        .tools()
        .iter()
        .filter(|t| !SKIPPED_TOOLS.contains(&t.id.as_str()))
        .flat_map(|t| t.methods.clone())
        .map(|m| (m.routing_name.clone(), m.meta.parameters.clone()))
        .collect();
    let executor = Executor::new(
        registry,
        ExecutorOptions {
            timeout: Duration::from_secs(5),
            ..Default::default()
        },
    )
    .with_confirmation(Arc::new(ApproveAll));
    (dir, executor, methods)
}

/// Returns whether the call got past validation, i.e. the tool itself ran.
fn check(
    executor: &Executor,
    runtime: &tokio::runtime::Runtime,
    request: &ParsedToolRequest,
) -> bool {
    let result = runtime.block_on(executor.execute(request, &CancellationToken::new()));
    if let Some(error) = &result.error {
        assert!(
            !error.message.contains("panicked"),
            "{} panicked on {:?}: {}",
            request.tool_name,
            request.args,
            error.message
        );
        assert_ne!(error.kind, ErrorKind::Timeout, "{} hung", request.tool_name);
    }
    result.error_kind() != Some(ErrorKind::InvalidArgs)
}

#[test]
fn builtins_survive_arbitrary_arguments() {
    let (_dir, executor, methods) = setup();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut reached = std::collections::BTreeMap::new();
    for (name, schema) in methods {
        let reached_tool = std::cell::Cell::new(0u32);
        // A runner per method: a runner counts its cases across `run` calls.
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 48,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        runner
            .run(
                &(object_for(&schema, 0), any::<bool>()),
                |(args, untyped)| {
                    let mut request = ParsedToolRequest::manual(&name, args.clone());
                    if untyped {
                        // The text form a VCP reply would carry.
                        request.args = args
                            .into_iter()
                            .map(|(k, v)| {
                                let text = match v {
                                    Value::String(s) => s,
                                    other => other.to_string(),
                                };
                                (k, Value::String(text))
                            })
                            .collect();
                        request.untyped_args = true;
                    }
                    if check(&executor, &runtime, &request) {
                        reached_tool.set(reached_tool.get() + 1);
                    }
                    Ok(())
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        reached.insert(name, reached_tool.get());
    }
    // The inputs must get past validation often enough to exercise the tools themselves.
    eprintln!("calls that reached the tool, per method: {reached:?}");
    let reached_methods = reached.values().filter(|&&n| n > 0).count();
    assert!(
        reached_methods * 2 >= reached.len(),
        "too few methods reached: {reached:?}"
    );
}
