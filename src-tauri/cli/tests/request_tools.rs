//! `parse --tools` / `--tool-set` and `eval`: a reply checked against the tools of the request
//! that produced it, and a corpus of replies scored against the calls they mean.

mod support;

use support::{repo_path, stderr, Sandbox};

const SHOP_TOOLS: &str = "tests/fixtures/imports/openai_chat_tools.json";

/// One valid call, one whose order id breaks the schema's pattern, one to a tool the request
/// does not define; values are text (Qwen3-Coder), so the request's schema types them.
const REPLY: &str = "<tool_call>\n<function=create_return>\n<parameter=order_id>\nORD-2024-88412\n</parameter>\n\
<parameter=items>\n[{\"sku\": \"B-1\", \"quantity\": 2, \"reason\": \"damaged\"}]\n</parameter>\n</function>\n</tool_call>\n\
<tool_call>\n<function=lookup_order>\n<parameter=order_id>\n88412\n</parameter>\n\
<parameter=customer_email>\nnull\n</parameter>\n</function>\n</tool_call>\n\
<tool_call>\n<function=lookup_ordr>\n<parameter=order_id>\n42\n</parameter>\n</function>\n</tool_call>";

#[test]
fn parse_checks_calls_against_the_request_tools() {
    let sandbox = Sandbox::new();
    let reply = sandbox.write("reply.txt", REPLY);
    let tools = repo_path(SHOP_TOOLS);
    let (code, report) = sandbox.json(&["parse", &reply, "--tools", &tools, "--json"]);
    assert_eq!(code, 0, "an unknown tool is a warning, not a parse error");
    assert_eq!(report["format"], "qwen3_coder");
    let requests = report["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 3, "the unknown call stays visible");
    assert_eq!(
        requests[0]["args"]["items"][0]["quantity"], 2,
        "typed from the schema"
    );
    assert_eq!(
        requests[1]["args"]["order_id"], "88412",
        "a string property stays text"
    );
    assert!(requests[1]["args"]["customer_email"].is_null());
    let kinds: Vec<&str> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["error"]["kind"].as_str().unwrap_or("valid"))
        .collect();
    assert_eq!(kinds, vec!["valid", "invalid_args", "tool_not_found"]);
    assert_eq!(
        report["checks"][1]["error"]["issues"][0]["path"],
        "/order_id"
    );
    let unknown = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == "unknown_tool")
        .expect("an unknown_tool diagnostic");
    assert_eq!(unknown["severity"], "warning");
    assert!(
        unknown["message"]
            .as_str()
            .is_some_and(|m| m.contains("not among the request's 4 tool(s); closest: lookup_order")),
        "{unknown}"
    );

    let text = sandbox.run(&["parse", &reply, "--tools", &tools]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("valid against the request's tools"),
        "{stdout}"
    );
    assert!(
        stdout.contains("invalid_args: Validation failed:"),
        "{stdout}"
    );
}

#[test]
fn without_tools_values_are_read_as_the_reference_parser_reads_them() {
    let sandbox = Sandbox::new();
    let reply = sandbox.write("reply.txt", REPLY);
    let (code, report) = sandbox.json(&["parse", &reply, "--json"]);
    assert_eq!(code, 0);
    // vLLM's Qwen3-Coder parser keeps untyped text as text, except `null`.
    assert_eq!(report["requests"][1]["args"]["order_id"], "88412");
    assert_eq!(
        report["requests"][1]["args"]["customer_email"],
        serde_json::Value::Null
    );
    assert_eq!(report["requests"][2]["args"]["order_id"], "42");
    assert!(report.get("checks").is_none());
    let text = sandbox.run(&["parse", &reply]);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("no schema types them"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
}

#[test]
fn strict_drops_unknown_and_cut_off_calls_as_a_serving_stack_would() {
    let sandbox = Sandbox::new();
    // The three calls, then a fourth the reply ends in (generation stopped inside it).
    let cut = format!(
        "{REPLY}\n<tool_call>\n<function=lookup_order>\n<parameter=order_id>\nORD-1\n</parameter>\n</function>"
    );
    let reply = sandbox.write("reply.txt", &cut);
    let tools = repo_path(SHOP_TOOLS);
    let (_, lenient) = sandbox.json(&["parse", &reply, "--tools", &tools, "--json"]);
    let lenient = lenient["requests"].as_array().expect("requests").clone();
    assert_eq!(lenient.len(), 4, "every call stays visible by default");
    assert_eq!(lenient[3]["incomplete"], true);

    let (code, strict) = sandbox.json(&["parse", &reply, "--tools", &tools, "--strict", "--json"]);
    assert_eq!(code, 3, "a dropped call is an error (exit 3)");
    let names: Vec<&str> = strict["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter_map(|r| r["tool_name"].as_str())
        .collect();
    assert_eq!(names, ["create_return", "lookup_order"]);
    let dropped: Vec<&str> = strict["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert!(
        dropped[0].contains("'lookup_ordr' is dropped"),
        "{dropped:?}"
    );
    assert!(dropped[1].contains("cut off"), "{dropped:?}");
}

#[test]
fn an_imported_set_serves_as_the_request_tools() {
    let sandbox = Sandbox::new();
    let tools = repo_path(SHOP_TOOLS);
    let output = sandbox.run(&["import", &tools, "--name", "Shop"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Every protocol's prompt shows the set's tools under their routing names.
    let prompt = sandbox.run(&["prompt", "--protocol", "hermes"]);
    assert!(
        String::from_utf8_lossy(&prompt.stdout).contains("Shop_create-return"),
        "{}",
        String::from_utf8_lossy(&prompt.stdout)
    );
    let reply = sandbox.write("reply.txt", REPLY);
    let (_, report) = sandbox.json(&["parse", &reply, "--tool-set", "Shop", "--json"]);
    assert_eq!(report["checks"][0]["error"], serde_json::Value::Null);
    assert_eq!(report["checks"][2]["error"]["kind"], "tool_not_found");
    let missing = sandbox.run(&["parse", &reply, "--tool-set", "Nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no imported set 'Nope' (imported: Shop)"));
}

#[test]
fn eval_scores_a_corpus_per_format_and_fails_below_the_minimum() {
    let sandbox = Sandbox::new();
    let cases = repo_path("tests/fixtures/eval/cases.jsonl");
    let tools = repo_path(SHOP_TOOLS);
    let output = sandbox.run(&["eval", &cases, "--tools", &tools, "--min", "100%"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", stderr(&output));
    assert!(stdout.contains("overall 6/6 (100.0%)"), "{stdout}");
    assert!(stdout.contains("hermes"), "{stdout}");

    let mut corpus = std::fs::read_to_string(&cases).expect("cases");
    corpus.push_str(
        r#"{"id": "wrong-argument", "format": "hermes", "reply": "<tool_call>{\"name\": \"get_store_hours\", \"arguments\": {\"day\": 1}}</tool_call>", "expected": [{"name": "get_store_hours", "arguments": {}}]}"#,
    );
    corpus.push('\n');
    let with_miss = sandbox.write("cases.jsonl", &corpus);
    let output = sandbox.run(&["eval", &with_miss, "--tools", &tools, "--min", "0.95"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("✗ wrong-argument [hermes]"), "{stdout}");
    assert!(stdout.contains("below the minimum 95.0%"), "{stdout}");
    let (code, report) = sandbox.json(&["eval", &with_miss, "--tools", &tools, "--json"]);
    assert_eq!(code, 0, "no --min: the figures, not a verdict");
    assert_eq!(report["overall"]["cases"], 7);
    assert_eq!(report["overall"]["agreed"], 6);
    assert_eq!(report["by_format"]["hermes"]["cases"], 3);

    let broken = sandbox.write("broken.jsonl", "{\"reply\": 1}\n");
    let output = sandbox.run(&["eval", &broken]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("line 1: not a case"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.run(&["eval", &cases, "--min", "150%"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `toolscope eval` agrees with every case of the corpus at `path` (`--min 100%` and no
/// mismatch in the JSON report), which holds at least `min_cases` cases over `min_formats`
/// formats.
fn assert_corpus_agrees(path: &str, min_cases: u64, min_formats: usize) {
    let sandbox = Sandbox::new();
    let cases = repo_path(path);
    let output = sandbox.run(&["eval", &cases, "--min", "100%"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", stderr(&output));
    let (code, report) = sandbox.json(&["eval", &cases, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(report["mismatches"], serde_json::json!([]), "{report:#}");
    let total = report["overall"]["cases"].as_u64().unwrap_or_default();
    assert!(total >= min_cases, "the corpus shrank to {total} cases");
    assert_eq!(report["overall"]["agreed"], report["overall"]["cases"]);
    let formats = report["by_format"].as_object().map_or(0, |f| f.len());
    assert!(formats >= min_formats, "only {formats} formats covered");
}

/// The reference corpus (`tests/fixtures/eval/reference_cases.jsonl`): model outputs from the
/// reference parsers' test suites and the models' chat templates, each case carrying its own
/// tools where typing needs them. Every case must agree, auto-detected ones included.
#[test]
fn eval_agrees_with_every_reference_case() {
    assert_corpus_agrees("tests/fixtures/eval/reference_cases.jsonl", 250, 15);
}

/// The corpus of real model outputs (`tests/fixtures/eval/real_outputs.jsonl`): replies quoted in
/// bug reports, logs and captures, many with their special tokens stripped or their wrapper
/// renamed, most without a format (auto-detect must find it). Every case must agree; the
/// expectations and the deliberate differences are in `tests/fixtures/eval/README.md`.
#[test]
fn eval_agrees_with_every_real_output() {
    assert_corpus_agrees("tests/fixtures/eval/real_outputs.jsonl", 60, 10);
}

#[test]
fn run_with_an_imported_set_answers_the_model_names_from_the_mocks() {
    let sandbox = Sandbox::new();
    let tools = repo_path(SHOP_TOOLS);
    assert_eq!(
        sandbox
            .run(&["import", &tools, "--name", "Shop"])
            .status
            .code(),
        Some(0)
    );
    let mocked = sandbox.run(&[
        "imported",
        "mock",
        "Shop",
        "get_store_hours",
        "--fixed",
        r#"{"open": "9-17"}"#,
    ]);
    assert_eq!(mocked.status.code(), Some(0), "{}", stderr(&mocked));
    let reply = sandbox.write(
        "reply.txt",
        "<tool_call>\n{\"name\": \"get_store_hours\", \"arguments\": {}}\n</tool_call>\n\
         <tool_call>\n{\"name\": \"lookup_order\", \"arguments\": {\"order_id\": \"ORD-2024-88412\", \"customer_email\": null}}\n</tool_call>",
    );
    let cases = sandbox.path().join("cases.jsonl");
    let cases = cases.to_string_lossy();
    let (code, outcome) = sandbox.json(&[
        "run",
        &reply,
        "--tool-set",
        "Shop",
        "--yes",
        "--json",
        "--no-history",
        "--export-case",
        &cases,
    ]);
    assert_eq!(code, 1, "the unmocked call fails");
    assert_eq!(outcome["results"][0]["tool_name"], "get_store_hours");
    assert_eq!(outcome["results"][0]["result"], r#"{"open":"9-17"}"#);
    assert!(outcome["results"][1]["result"]
        .as_str()
        .is_some_and(|r| r.contains("no implementation")));
    assert!(outcome["formatted_results"]
        .as_str()
        .is_some_and(|text| text.contains("get_store_hours")));

    // The exported case replays: its calls are the ones the reply made.
    let (code, report) = sandbox.json(&["eval", &cases, "--tool-set", "Shop", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(report["overall"]["agreed"], 1);
    assert_eq!(report["by_format"]["hermes"]["cases"], 1);
}
