use std::sync::Arc;

use serde_json::json;
use toolscope_protocol::result::{ExecutionStatus, ToolExecutionResult};

use super::*;
use crate::registry::tests::{fixture, method};
use crate::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use crate::types::{ToolInfo, ToolSource};

/// A tool with a wire: its calls are JSON-RPC requests naming the method in upper case.
struct Wired;

impl Tool for Wired {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "remote".into(),
            name: "Remote".into(),
            description: String::new(),
            source: ToolSource::Mcp,
            methods: vec![method("get", true)],
        }
    }

    fn call<'a>(
        &'a self,
        _: &'a str,
        _: Map<String, Value>,
        _: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async { Ok(Value::Null) })
    }

    fn wire_call(
        &self,
        method: &str,
        args: &Map<String, Value>,
    ) -> Result<Option<WireCall>, ToolFailure> {
        Ok(Some(WireCall::JsonRpc {
            message: json!({"method": method.to_uppercase(), "params": args}),
        }))
    }
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register(Arc::new(Wired)).expect("registers");
    registry
        .register(fixture("local", vec![method("run", true)]))
        .expect("registers");
    registry
}

fn call(tool_name: &str) -> CallToExport {
    CallToExport {
        request_id: "call_1".into(),
        tool_name: tool_name.into(),
        args: json!({"q": "x"}).as_object().cloned().unwrap_or_default(),
    }
}

fn result(status: ExecutionStatus) -> ToolExecutionResult {
    ToolExecutionResult {
        request_id: "call_1".into(),
        tool_name: "remote_get".into(),
        status,
        result: "42".into(),
        duration_ms: 1.0,
        error: None,
        truncated: None,
    }
}

#[test]
fn a_wired_tool_gives_its_wire_form_and_others_say_why_not() {
    let registry = registry();
    let protocols = ProtocolSet::standard();
    let text = export_call(
        &registry,
        &protocols,
        &ExportKind::JsonRpc,
        &call("remote_get"),
        None,
    )
    .expect("json-rpc");
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("json"),
        json!({"method": "GET", "params": {"q": "x"}})
    );
    let curl = export_call(
        &registry,
        &protocols,
        &ExportKind::Curl,
        &call("remote_get"),
        None,
    );
    assert_eq!(
        curl.map_err(|e| e.to_string()),
        Err("the tool 'remote' (MCP) sends no HTTP request: only HTTP tools have one".into())
    );
    let local = export_call(
        &registry,
        &protocols,
        &ExportKind::JsonRpc,
        &call("local_run"),
        None,
    );
    assert!(
        matches!(local, Err(ExportError::NoWireForm { .. })),
        "{local:?}"
    );
    let unknown = export_call(
        &registry,
        &protocols,
        &ExportKind::Curl,
        &call("nope_run"),
        None,
    );
    assert!(
        matches!(unknown, Err(ExportError::Resolve(_))),
        "{unknown:?}"
    );
}

#[test]
fn results_become_the_tool_result_message_of_any_format() {
    let registry = registry();
    let protocols = ProtocolSet::standard();
    let success = result(ExecutionStatus::Success);
    let message = |format: &str, result: Option<&ToolExecutionResult>| {
        export_call(
            &registry,
            &protocols,
            &ExportKind::Result {
                format: format.into(),
            },
            &call("remote_get"),
            result,
        )
    };
    let openai: Value =
        serde_json::from_str(&message("openai_chat", Some(&success)).expect("openai"))
            .expect("json");
    assert_eq!(openai[0]["role"], "tool");
    assert_eq!(openai[0]["tool_call_id"], "call_1");
    let anthropic: Value =
        serde_json::from_str(&message("anthropic", Some(&success)).expect("anthropic"))
            .expect("json");
    assert_eq!(anthropic["content"][0]["type"], "tool_result");
    assert_eq!(anthropic["content"][0]["is_error"], false);
    assert_eq!(message("openai_chat", None), Err(ExportError::NoResult));
    assert!(matches!(
        message("klingon", Some(&success)),
        Err(ExportError::UnknownFormat(_))
    ));
}

#[test]
fn a_run_reply_becomes_a_case_eval_agrees_with() {
    let reply = r#"<tool_call>{"name": "local_run", "arguments": {"n": 1}}</tool_call>"#;
    let parse =
        toolscope_protocol::parser::parse(&ProtocolSet::standard(), reply, None).expect("auto");
    let outcome = CycleOutcome {
        cycle_id: "c1".into(),
        has_tool_requests: true,
        parse,
        results: vec![result(ExecutionStatus::Success)],
        formatted_results: String::new(),
        history_errors: Vec::new(),
    };
    let case = test_case(reply, &outcome, &Registry::new(), None);
    assert_eq!(case.format.as_deref(), Some("hermes"));
    assert_eq!(case.expected[0].name, "local_run");
    assert_eq!(
        case.results.as_ref().map(|r| r[0]["result"].clone()),
        Some(json!("42"))
    );
    let line = serde_json::to_string(&case).expect("serialises");
    let replayed: EvalCase = serde_json::from_str(&line).expect("a case again");
    let verdict = crate::eval::evaluate_case(
        &replayed,
        "exported".into(),
        &ProtocolSet::standard(),
        None,
        None,
    )
    .expect("known format");
    assert!(verdict.agrees, "{:?}", verdict.reasons);
}

#[test]
fn text_values_are_exported_as_they_were_typed_with_their_schemas() {
    // Qwen3-Coder values are text: "12345" is a string for a string property, 3 a number.
    let reply = "<tool_call>\n<function=local_run>\n<parameter=id>\n12345\n</parameter>\n\
                 <parameter=n>\n3\n</parameter>\n</function>\n</tool_call>";
    let parse =
        toolscope_protocol::parser::parse(&ProtocolSet::standard(), reply, None).expect("auto");
    let outcome = CycleOutcome {
        cycle_id: "c2".into(),
        has_tool_requests: true,
        parse,
        results: Vec::new(),
        formatted_results: String::new(),
        history_errors: Vec::new(),
    };
    let schema = json!({"type": "object", "properties": {
        "id": {"type": "string"}, "n": {"type": "integer"}
    }});
    let ran_against =
        crate::request_tools::RequestTools::new([crate::request_tools::RequestTool {
            name: "local_run".into(),
            parameters: schema,
            routing_name: None,
        }]);
    let case = test_case(reply, &outcome, &Registry::new(), Some(&ran_against));
    assert_eq!(
        Value::Object(case.expected[0].arguments.clone()),
        json!({"id": "12345", "n": 3})
    );
    let line = serde_json::to_string(&case).expect("serialises");
    let replayed: EvalCase = serde_json::from_str(&line).expect("a case again");
    let tools = replayed
        .tools
        .clone()
        .expect("the schemas travel with the case");
    assert_eq!(tools[0]["function"]["name"], "local_run");
    // eval reads the case's tools with the import reader (the CLI's job); here, the same schema.
    let request_tools =
        crate::request_tools::RequestTools::new([crate::request_tools::RequestTool {
            name: "local_run".into(),
            parameters: tools[0]["function"]["parameters"].clone(),
            routing_name: None,
        }]);
    let verdict = crate::eval::evaluate_case(
        &replayed,
        "exported".into(),
        &ProtocolSet::standard(),
        None,
        Some(&request_tools),
    )
    .expect("known format");
    assert!(verdict.agrees, "{:?}", verdict.reasons);
}
