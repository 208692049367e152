//! Every classified error the executor writes carries a suggestion a model or a person can act
//! on; one test per kind, through [`Executor::execute`] and [`Executor::check`] where the
//! executor is what knows the context.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::executor::{
    ConfirmationHook, ConfirmationRequest, Executor, ExecutorOptions, OversizePolicy,
};
use crate::registry::Registry;
use crate::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use crate::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::{Annotations, MethodMetadata};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ExecutionError, ExecutionStatus, ToolExecutionResult};

struct Weather;

fn method(name: &str, annotations: Annotations, parameters: Value) -> MethodMetadata {
    MethodMetadata {
        name: name.into(),
        description: String::new(),
        parameters,
        agent_callable: name != "internal",
        protocol_config: None,
        annotations,
        output_schema: None,
    }
}

impl Tool for Weather {
    fn info(&self) -> ToolInfo {
        let safe = Annotations {
            read_only: Some(true),
            destructive: Some(false),
            ..Default::default()
        };
        let any = json!({"type": "object"});
        ToolInfo {
            id: "weather".into(),
            name: "Weather".into(),
            description: String::new(),
            source: ToolSource::Builtin,
            methods: vec![
                method(
                    "current",
                    safe.clone(),
                    json!({
                        "type": "object",
                        "required": ["city"],
                        "properties": {
                            "city": {"type": "string"},
                            "unit": {"enum": ["celsius", "fahrenheit"]},
                            "days": {"type": "integer", "minimum": 1, "maximum": 7},
                            "at": {"type": "string", "format": "date-time"}
                        },
                        "additionalProperties": false
                    }),
                ),
                method("forecast", safe.clone(), any.clone()),
                method("slow", safe.clone(), any.clone()),
                method("missing", safe.clone(), any.clone()),
                method("huge", safe.clone(), any.clone()),
                method("limited", safe.clone(), any.clone()),
                method("internal", safe, any.clone()),
                method("reset", Annotations::default(), any),
            ],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        _args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            match method {
                // Says how much of the executor's deadline it was given.
                "limited" => Err(ToolFailure::RateLimited {
                    message: format!(
                        "limit reached; deadline in {:?}",
                        ctx.deadline.map(|d| d - tokio::time::Instant::now())
                    ),
                    retry_after: Duration::from_millis(2_001),
                }),
                "slow" => {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok(json!("late"))
                }
                "missing" => Err(ToolFailure::failed(
                    "ENOENT: no such file or directory, open './missing.json'",
                )),
                "huge" => Ok(json!("x".repeat(100))),
                _ => Ok(json!("ok")),
            }
        })
    }
}

struct Refuse;

impl ConfirmationHook for Refuse {
    fn confirm<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
}

/// A terminal with no one at it: never asked.
struct NoOneThere;

impl ConfirmationHook for NoOneThere {
    fn confirm<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, bool> {
        panic!("asked though no one can answer")
    }

    fn can_ask(&self) -> bool {
        false
    }
}

fn executor(options: ExecutorOptions) -> Executor {
    let registry = Arc::new(Registry::new());
    registry.register(Arc::new(Weather)).expect("registers");
    Executor::new(registry, options)
}

async fn run(executor: &Executor, name: &str, args: Value) -> ToolExecutionResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let request = ParsedToolRequest::manual(name, args);
    executor.execute(&request, &CancellationToken::new()).await
}

fn suggestion(result: &ToolExecutionResult) -> &str {
    assert_eq!(result.status, ExecutionStatus::Error, "{}", result.result);
    result
        .suggestion()
        .expect("every classified error has a suggestion")
}

#[tokio::test]
async fn an_unknown_name_lists_the_closest_callable_names() {
    let executor = executor(ExecutorOptions::default());
    // Nearest first (names of one tool share their prefix, so its other methods may follow).
    for name in ["weather_curent", "wether_current", "weathercurrent"] {
        let result = run(&executor, name, json!({})).await;
        let text = suggestion(&result);
        let expected = format!("There is no tool named '{name}'. Did you mean: weather_current");
        assert!(text.starts_with(&expected), "{text}");
    }
    // Nothing near: the (short) list, without the methods a model may not call.
    let far = run(&executor, "translate_text", json!({})).await;
    let text = suggestion(&far);
    assert!(
        text.contains("The tools are: weather_current, weather_forecast"),
        "{text}"
    );
    assert!(!text.contains("internal"), "{text}");
    // Many names and none near: no list, but how a name is spelled.
    let many: Vec<String> = (0..20).map(|i| format!("tool{i}_run")).collect();
    assert_eq!(
        unknown_name("translate", many.iter().map(String::as_str)),
        "There is no tool named 'translate', and no name is close to it. Use a tool exactly as listed ({toolId}_{methodName})."
    );
    // check() says the same before anything runs.
    let request = ParsedToolRequest::manual("weather_curent", Map::new());
    let checked = executor.check(&request).expect("fails");
    assert_eq!(
        checked.suggestion.as_deref(),
        Some(suggestion(
            &run(&executor, "weather_curent", json!({})).await
        ))
    );
}

#[test]
fn a_reply_is_checked_with_each_unknown_name_searched_once_and_in_order() {
    let executor = executor(ExecutorOptions::default());
    let request = |name: &str| ParsedToolRequest::manual(name, Map::new());
    let requests = [
        request("weather_curent"),
        request("weather_forecast"),
        request("weather_curent"),
        request("weather_current"),
    ];
    let checks = executor.check_all(&requests);
    let one: Vec<Option<ExecutionError>> = requests.iter().map(|r| executor.check(r)).collect();
    assert_eq!(checks, one);
    assert!(checks[1].is_none());
    assert_eq!(
        checks[3].as_ref().map(|e| e.kind),
        Some(ErrorKind::InvalidArgs)
    );
    assert!(checks[2]
        .as_ref()
        .and_then(|e| e.suggestion.as_deref())
        .is_some_and(|s| s.contains("Did you mean: weather_current")));
}

#[tokio::test]
async fn invalid_arguments_show_the_paths_the_schema_and_a_valid_example() {
    let executor = executor(ExecutorOptions::default());
    let result = run(
        &executor,
        "weather_current",
        json!({"unit": "kelvin", "days": 9, "at": 5, "extra": true}),
    )
    .await;
    let text = suggestion(&result);
    assert!(text.starts_with("Call it again with arguments that match its schema. Where it failed, the schema says:\n"), "{text}");
    assert!(
        text.contains(r#"/unit: {"enum":["celsius","fahrenheit"]}; e.g. "celsius""#),
        "{text}"
    );
    assert!(
        text.contains(r#"/days: {"type":"integer","minimum":1,"maximum":7}; e.g. 1"#),
        "{text}"
    );
    assert!(text.contains(r#"e.g. "2025-01-31T12:00:00Z""#), "{text}");
    // The missing `city` and the unknown key are root issues: the outline, once, with an example.
    assert_eq!(text.matches("the arguments:").count(), 1, "{text}");
    assert!(
        text.contains(r#"the arguments: required ["city"], properties [city, unit, days, at]; e.g. {"city":"text"}"#),
        "{text}"
    );
    // The message itself stays the seed's `- /path: message` list.
    assert!(
        result.result.starts_with("Validation failed:\n- "),
        "{}",
        result.result
    );
}

#[tokio::test]
async fn a_timeout_says_the_limit_and_how_to_raise_it() {
    let executor = executor(ExecutorOptions {
        timeout: Duration::from_millis(40),
        ..Default::default()
    });
    let result = run(&executor, "weather_slow", json!({})).await;
    let text = suggestion(&result);
    assert!(text.contains("after 40 ms"), "{text}");
    for way in [
        "`timeout_ms` setting",
        "`--timeout-ms`",
        "Executor's Timeout field",
    ] {
        assert!(text.contains(way), "{way} in {text}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_rate_limited_call_sees_its_deadline_and_is_told_when_to_retry() {
    let executor = executor(ExecutorOptions {
        timeout: Duration::from_secs(5),
        ..Default::default()
    });
    let result = run(&executor, "weather_limited", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::RateLimited));
    assert!(
        result.result.ends_with("deadline in Some(5s)"),
        "{}",
        result.result
    );
    let text = suggestion(&result);
    assert!(text.contains("Wait 3 s, then retry"), "{text}");
    assert!(text.contains("`rate_limit`"), "{text}");
    assert_eq!(whole_seconds_up(Duration::from_secs(4)), 4);
    assert_eq!(whole_seconds_up(Duration::ZERO), 1);
}

#[tokio::test]
async fn a_denied_call_says_why() {
    let executor = executor(ExecutorOptions::default());
    let nobody = run(&executor, "weather_reset", json!({})).await;
    let text = suggestion(&nobody);
    assert!(
        text.contains("destructive or not annotated as read-only"),
        "{text}"
    );
    assert!(text.contains("no one was there to confirm it"), "{text}");
    let absent = executor.clone().with_confirmation(Arc::new(NoOneThere));
    let unasked = run(&absent, "weather_reset", json!({})).await;
    assert!(
        suggestion(&unasked).contains("`--yes` approves"),
        "{}",
        suggestion(&unasked)
    );
    let refused = executor.with_confirmation(Arc::new(Refuse));
    let declined = run(&refused, "weather_reset", json!({})).await;
    let text = suggestion(&declined);
    assert!(
        text.starts_with(
            "The user did not allow this call (asked because the method is destructive"
        ),
        "{text}"
    );
    assert!(text.contains("Do not repeat it"), "{text}");

    let every = self::executor(ExecutorOptions {
        require_confirmation: true,
        ..Default::default()
    });
    let text = suggestion(&run(&every, "weather_forecast", json!({})).await).to_owned();
    assert!(text.contains("`require_confirmation`"), "{text}");
}

#[tokio::test]
async fn the_other_kinds_say_what_to_do() {
    let executor = executor(ExecutorOptions {
        max_output_bytes: 10,
        oversize: OversizePolicy::Fail,
        ..Default::default()
    });
    let hidden = run(&executor, "weather_internal", json!({})).await;
    assert!(suggestion(&hidden).contains("not for models to call"));
    let missing = run(&executor, "weather_missing", json!({})).await;
    assert!(
        suggestion(&missing).contains("Check the path"),
        "{}",
        suggestion(&missing)
    );
    let huge = run(&executor, "weather_huge", json!({})).await;
    let text = suggestion(&huge);
    assert!(
        text.contains("output limit of 10 bytes") && text.contains("`max_tool_output_bytes`"),
        "{text}"
    );
    let cancel = CancellationToken::new();
    cancel.cancel();
    let request = ParsedToolRequest::manual("weather_forecast", Map::new());
    let cancelled = executor.execute(&request, &cancel).await;
    assert!(suggestion(&cancelled).contains("run it again"));
    for kind in [
        ErrorKind::Transport,
        ErrorKind::MemoryLimit,
        ErrorKind::RateLimited,
        ErrorKind::ToolError,
        ErrorKind::InvalidName,
    ] {
        assert!(for_kind(kind, "").is_some_and(|s| !s.is_empty()), "{kind}");
    }
    assert!(for_kind(ErrorKind::ToolError, "EACCES: permission denied")
        .is_some_and(|s| s.starts_with("Permission was denied")));
}

#[test]
fn a_conversation_suggests_among_the_names_it_offered() {
    let mut result = ToolExecutionResult {
        request_id: "r1".to_owned(),
        tool_name: "weather_curent".to_owned(),
        status: ExecutionStatus::Error,
        result: "no".to_owned(),
        duration_ms: 0.0,
        error: Some(
            ExecutionError::new(ErrorKind::MethodNotFound, "no")
                .with_suggestion(Some("from the registry".to_owned())),
        ),
        truncated: None,
    };
    let offered = vec![
        "weather_current".to_owned(),
        "calculator_evaluate".to_owned(),
    ];
    assert_eq!(
        for_result(&result, &offered, None).as_deref(),
        Some("There is no tool named 'weather_curent'. Did you mean: weather_current?")
    );
    assert!(for_result(&result, &[], None).is_some_and(|s| s.contains("no tools are available")));
    // Any other kind keeps the executor's words.
    if let Some(error) = result.error.as_mut() {
        error.kind = ErrorKind::Timeout;
    }
    assert_eq!(
        for_result(&result, &offered, None).as_deref(),
        Some("from the registry")
    );
}

#[test]
fn unreadable_arguments_get_the_outline_and_an_example() {
    let schema = json!({
        "type": "object",
        "required": ["expression"],
        "properties": {"expression": {"type": "string"}}
    });
    assert_eq!(
        invalid_args(&[], Some(&schema)),
        r#"Send the call again with its arguments as one complete JSON object (required ["expression"], properties [expression]; e.g. {"expression":"text"})."#
    );
    let issue = ArgumentIssue {
        path: "/nowhere/deep".to_owned(),
        message: "?".to_owned(),
    };
    // A path the schema does not describe: the whole schema instead.
    assert!(invalid_args(&[issue], Some(&schema)).ends_with(&format!(": {}.", compact(&schema))));
}
