//! Tests of `calculator`, kept beside it so the module itself stays readable.

use super::*;
use std::sync::Arc;
use toolscope_engine::registry::Registry;

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn call(method: &str, value: Value) -> Result<Value, ToolFailure> {
    CalculatorTool::new()
        .call(method, args(value), CallContext::default())
        .await
}

fn failure(result: Result<Value, ToolFailure>) -> String {
    match result {
        Err(ToolFailure::Failed(message)) => message,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn metadata_registers_and_schemas_compile() {
    let info = CalculatorTool.info();
    assert_eq!(
        (info.id.as_str(), info.name.as_str()),
        ("calculator", "Calculator")
    );
    assert_eq!(info.source, ToolSource::Builtin);
    let names: Vec<&str> = info.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["evaluate", "statistics"]);
    for method in &info.methods {
        assert!(method.annotations.is_read_only() && !method.annotations.is_destructive());
        assert_eq!(method.annotations.open_world, Some(false));
        assert!(jsonschema::validator_for(&method.parameters).is_ok());
    }
    let vcp = info.methods.first().and_then(|m| m.protocol_config.clone());
    assert_eq!(
        vcp.and_then(|c| c.vcp_command),
        Some("Calculate".to_owned())
    );
    let registry = Registry::new();
    let registered = registry
        .register(Arc::new(CalculatorTool))
        .expect("registers");
    for method in &registered.methods {
        let validator = method.validator().expect("schema compiles");
        let example = if method.meta.name == "evaluate" {
            json!({"expression": "x + 1", "angleUnit": "degrees", "precision": 3, "variables": {"x": 2}})
        } else {
            json!({"numbers": [1, 2.5], "measures": ["mean", "stddev"], "sample": true})
        };
        assert!(validator.is_valid(&example), "{}", method.routing_name);
        assert!(!validator.is_valid(&json!({})), "{}", method.routing_name);
    }
    assert!(registry.resolve("calculator_evaluate").is_ok());
}

#[tokio::test]
async fn evaluate_through_call_applies_defaults() {
    let out = call("evaluate", json!({"expression": "0.1 + 0.2"})).await;
    assert_eq!(
        out,
        Ok(json!({"expression": "0.1 + 0.2", "value": 0.30000000000000004, "formatted": "0.3"}))
    );
    let out = call(
        "evaluate",
        json!({"expression": "2 * 3", "angleUnit": null}),
    )
    .await;
    assert_eq!(out.map(|v| v["value"].clone()), Ok(json!(6)));
}

#[tokio::test]
async fn evaluate_with_all_arguments() {
    let out = call(
        "evaluate",
        json!({"expression": "r * sin(angle)", "angleUnit": "degrees", "precision": 3.0,
               "variables": {"r": 2, "angle": 30}}),
    )
    .await
    .expect("evaluates");
    assert_eq!(out["formatted"], "1");
    let value = out["value"].as_f64().unwrap_or(f64::NAN);
    assert!((value - 1.0).abs() < 1e-12);
    let pi = call("evaluate", json!({"expression": "pi", "precision": 0})).await;
    assert_eq!(
        pi.map(|v| v["formatted"].clone()),
        Ok(json!("3.141592653589793"))
    );
}

#[tokio::test]
async fn evaluate_argument_errors() {
    let cases = [
        (json!({}), "missing required argument 'expression'"),
        (
            json!({"expression": 4}),
            "'expression' must be a string, got a number",
        ),
        (
            json!({"expression": "1", "angleUnit": "grad"}),
            "'angleUnit' must be \"radians\" or \"degrees\", got \"grad\"",
        ),
        (
            json!({"expression": "1", "precision": 16}),
            "'precision' must be an integer from 0 to 15, got 16",
        ),
        (
            json!({"expression": "1", "precision": 2.5}),
            "'precision' must be an integer from 0 to 15, got 2.5",
        ),
        (
            json!({"expression": "x", "variables": "x=2"}),
            "'variables' must be an object mapping names to numbers, e.g. {\"x\": 2}, got a string",
        ),
        (
            json!({"expression": "x", "variables": [2]}),
            "'variables' must be an object mapping names to numbers, e.g. {\"x\": 2}, got an array",
        ),
        (
            json!({"expression": "x", "variables": {"x": "2"}}),
            "variable 'x' must be a number, got a string",
        ),
        (
            json!({"expression": "1 / (2 - 2)"}),
            "division by zero at offset 2",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            failure(call("evaluate", input.clone()).await),
            expected,
            "{input}"
        );
    }
}

#[tokio::test]
async fn unknown_method() {
    let out = call("integrate", json!({})).await;
    assert_eq!(out, Err(ToolFailure::UnknownMethod("integrate".into())));
}

#[tokio::test]
async fn statistics_all_measures_by_default() {
    let out = call("statistics", json!({"numbers": [2, 4, 4, 4, 5, 5, 7, 9]})).await;
    assert_eq!(
        out,
        Ok(
            json!({"count": 8, "sum": 40, "mean": 5, "median": 4.5, "min": 2, "max": 9,
                  "variance": 4, "stddev": 2})
        )
    );
}

#[tokio::test]
async fn statistics_median_and_sample() {
    let odd = call(
        "statistics",
        json!({"numbers": [9, 1, 5], "measures": ["median"]}),
    )
    .await;
    assert_eq!(odd, Ok(json!({"median": 5})));
    let even = call(
        "statistics",
        json!({"numbers": [4, 1, 3, 2], "measures": ["median"]}),
    )
    .await;
    assert_eq!(even, Ok(json!({"median": 2.5})));
    let sample = call(
        "statistics",
        json!({"numbers": [2, 4, 4, 4, 5, 5, 7, 9], "measures": ["stddev", "variance"], "sample": true}),
    )
    .await
    .expect("computes");
    let stddev = sample["stddev"].as_f64().unwrap_or(f64::NAN);
    assert!((stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12, "{stddev}");
    assert_eq!(sample.as_object().map(Map::len), Some(2));
    let tenths = call(
        "statistics",
        json!({"numbers": vec![0.1; 10], "measures": ["sum"]}),
    )
    .await;
    assert_eq!(tenths, Ok(json!({"sum": 1})));
    let single = call("statistics", json!({"numbers": [3]})).await;
    assert_eq!(single.map(|v| v["stddev"].clone()), Ok(json!(0)));
}

#[tokio::test]
async fn statistics_errors() {
    let cases = [
        (json!({}), "missing required argument 'numbers'"),
        (json!({"numbers": 5}), "'numbers' must be an array of numbers, got a number"),
        (json!({"numbers": []}), "'numbers' must contain at least one number"),
        (json!({"numbers": [1, "2"]}), "'numbers[1]' must be a number, got a string"),
        (
            json!({"numbers": [1], "measures": ["mode"]}),
            "unknown measure \"mode\" at 'measures[0]' (expected one of: count, sum, mean, median, min, max, variance, stddev)",
        ),
        (
            json!({"numbers": [1], "measures": []}),
            "'measures' must be a non-empty array of measure names, got []",
        ),
        (json!({"numbers": [1], "sample": "yes"}), "'sample' must be a boolean, got a string"),
        (
            json!({"numbers": [1], "sample": true}),
            "the sample variance needs at least 2 numbers, got 1 (use sample=false)",
        ),
        (
            json!({"numbers": [1e308, -1e308], "measures": ["variance"]}),
            "variance is not a finite number (the numbers are too large)",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            failure(call("statistics", input.clone()).await),
            expected,
            "{input}"
        );
    }
    let too_many = vec![1; MAX_NUMBERS + 1];
    let out = call("statistics", json!({ "numbers": too_many })).await;
    assert_eq!(failure(out), "'numbers' has 10001 items (maximum 10000)");
    let big = call(
        "statistics",
        json!({"numbers": [1e308, 1e308], "measures": ["mean"]}),
    )
    .await;
    assert_eq!(big, Ok(json!({"mean": 1e308})));
}

#[test]
fn formatting() {
    assert_eq!(format_significant(0.1 + 0.2, 10), "0.3");
    assert_eq!(format_significant(0.1 + 0.2, 0), "0.30000000000000004");
    assert_eq!(format_significant(2.0 / 3.0, 3), "0.667");
    assert_eq!(format_significant(123_456.0, 2), "120000");
    assert_eq!(format_significant(1.5e20, 10), "1.5e20");
    assert_eq!(format_significant(-1.234_56e-8, 3), "-1.23e-8");
    assert_eq!(format_significant(-0.0, 10), "0");
    assert_eq!(format_significant(42.0, 1), "40");
    assert_eq!(number_json(3.0), json!(3));
    assert_eq!(number_json(-0.0), json!(0));
    assert_eq!(number_json(2.5), json!(2.5));
    assert_eq!(number_json(1e300), json!(1e300));
}

proptest::proptest! {
    #[test]
    fn evaluate_method_never_panics(s in "\\PC{0,200}", p in 0u32..20) {
        let input = args(json!({"expression": s, "precision": p}));
        let _ = evaluate(&input);
    }
}
