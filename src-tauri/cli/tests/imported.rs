//! `toolscope import` / `imported`: a person's definitions become callable with mocks, bad
//! input is refused with its path, and every other command sees the set.

mod support;

use support::{repo_path, routing_names, stderr, Sandbox};

#[test]
fn import_mock_and_call_an_openai_tools_array() {
    let sandbox = Sandbox::new();
    let file = repo_path("tests/fixtures/imports/bad_entries.json");
    let (code, report) = sandbox.json(&["--json", "import", &file, "--name", "Billing API"]);
    assert_eq!(code, 0);
    assert_eq!(report["set"]["id"], "Billing-API");
    assert_eq!(report["set"]["definitions"], 2);
    let refused: Vec<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["level"] == "error")
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(refused, vec!["/1/function", "/2/function/parameters", "/3"]);

    let (_, tools) = sandbox.json(&["--json", "list", "--source", "imported"]);
    assert_eq!(
        routing_names(&tools),
        vec![
            "Billing-API_get-invoice",
            "Billing-API_send-invoice-reminder"
        ]
    );

    // Without a mock: a tool error that says so, exit 1.
    let output = sandbox.run(&[
        "call",
        "Billing-API_get-invoice",
        "--args",
        r#"{"invoice_number": "7"}"#,
        "--yes",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no implementation"));

    let output = sandbox.run(&[
        "imported",
        "mock",
        "Billing API",
        "get_invoice",
        "--template",
        r#"{"invoice": "{{invoice_number}}", "paid": false}"#,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (code, result) = sandbox.json(&[
        "--json",
        "call",
        "Billing-API_get-invoice",
        "--args",
        r#"{"invoice_number": "7"}"#,
        "--yes",
    ]);
    assert_eq!(code, 0, "{result}");
    assert_eq!(result["status"], "success");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(result["result"].as_str().unwrap_or_default())
            .ok(),
        Some(serde_json::json!({"invoice": "7", "paid": false}))
    );

    let (_, sets) = sandbox.json(&["--json", "imported", "list"]);
    assert_eq!(sets[0]["mocked"], 1);
    let output = sandbox.run(&["imported", "remove", "Billing API"]);
    assert_eq!(output.status.code(), Some(0));
    let (_, tools) = sandbox.json(&["--json", "list", "--source", "imported"]);
    assert!(routing_names(&tools).is_empty());
}

#[test]
fn bad_imports_exit_2_with_the_reason() {
    let sandbox = Sandbox::new();
    for (fixture, expected) in [
        ("bad_invalid_json.json", "not JSON"),
        ("bad_not_tools.json", "no tool definitions found"),
    ] {
        let file = repo_path(&format!("tests/fixtures/imports/{fixture}"));
        let output = sandbox.run(&["import", &file, "--name", "x"]);
        assert_eq!(output.status.code(), Some(2), "{fixture}");
        assert!(
            stderr(&output).contains(expected),
            "{fixture}: {}",
            stderr(&output)
        );
    }
    let file = repo_path("tests/fixtures/imports/anthropic_tools.json");
    let output = sandbox.run(&["import", &file, "--name", "calculator"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("taken by the built-in tool"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.run(&["imported", "mock", "nope", "f", "--echo"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no imported set is named 'nope'"));
}
