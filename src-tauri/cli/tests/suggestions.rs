//! `call` and `run` print each failure's suggestion after the error (seed 001), in text and in
//! `--json`, so a person sees what to do next and a script can pass it on.

mod support;

use support::Sandbox;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn call_on_an_unknown_name_shows_the_closest_names() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&[
        "call",
        "calculator_evalute",
        "--args",
        r#"{"expression": "1"}"#,
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("error (method_not_found)"), "{text}");
    assert!(
        text.contains(
            "suggestion: There is no tool named 'calculator_evalute'. Did you mean: calculator_evaluate?"
        ),
        "{text}"
    );
    // The suggestion follows the error text.
    let error_at = text.find("has no method").unwrap_or(usize::MAX);
    let suggestion_at = text.find("suggestion:").unwrap_or(0);
    assert!(error_at < suggestion_at, "{text}");

    let (code, json) = sandbox.json(&["call", "calculatr_evaluate", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json["error"]["kind"], "tool_not_found");
    let suggestion = json["error"]["suggestion"].as_str().unwrap_or_default();
    assert!(
        suggestion.contains("Did you mean: calculator_evaluate"),
        "{json}"
    );
}

#[test]
fn call_with_invalid_arguments_or_a_timeout_says_what_to_change() {
    let sandbox = Sandbox::new();
    let invalid = stdout(&sandbox.run(&["call", "echo_echo", "--args", r#"{"repeat": 0}"#]));
    assert!(
        invalid.contains("suggestion: Call it again with arguments that match its schema. Where it failed, the schema says:\n  /repeat: "),
        "{invalid}"
    );
    assert!(invalid.contains("; e.g. "), "{invalid}");
    let late = stdout(&sandbox.run(&[
        "call",
        "devtools_sleep",
        "--args",
        r#"{"durationMs": 10000}"#,
        "--timeout-ms",
        "50",
    ]));
    assert!(
        late.contains("stopped after 50 ms") && late.contains("`--timeout-ms`"),
        "{late}"
    );
    let denied = stdout(&sandbox.run(&["call", "workspace_delete", "--args", r#"{"path": "a"}"#]));
    assert!(denied.contains("suggestion: "), "{denied}");
    assert!(denied.contains("destructive"), "{denied}");
}

#[test]
fn run_prints_the_suggestion_and_tells_it_to_the_model() {
    let sandbox = Sandbox::new();
    let reply = sandbox.write(
        "reply.txt",
        "<tool_call>{\"name\": \"calculator_evalute\", \"arguments\": {\"expression\": \"1\"}}</tool_call>",
    );
    let output = sandbox.run(&["run", &reply, "--format", "hermes"]);
    let text = stdout(&output);
    assert!(
        text.contains("suggestion: There is no tool named 'calculator_evalute'. Did you mean: calculator_evaluate?"),
        "{text}"
    );
    // The result block for the model carries it too.
    let block = text
        .split("--- results for the model")
        .nth(1)
        .unwrap_or_default();
    assert!(
        block.contains("\"suggestion\":\"There is no tool named"),
        "{block}"
    );
}
