//! Shape recognition on small inputs; the vendor fixtures are in `tests/import_fixtures.rs`.

use super::*;
use serde_json::json;

fn names(import: &Import) -> Vec<(&str, Shape)> {
    import
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.shape))
        .collect()
}

#[test]
fn one_pasted_definition_of_each_shape_is_read() {
    let cases = [
        (
            json!({"type": "function", "function": {"name": "a"}}),
            Shape::OpenaiChat,
        ),
        (
            json!({"type": "function", "name": "a", "parameters": {"type": "object"}}),
            Shape::OpenaiResponses,
        ),
        (
            json!({"name": "a", "input_schema": {"type": "object"}}),
            Shape::Anthropic,
        ),
        (
            json!({"name": "a", "inputSchema": {"type": "object"}}),
            Shape::Mcp,
        ),
        (
            json!({"name": "a", "parameters": {"type": "OBJECT"}}),
            Shape::Gemini,
        ),
        (
            json!({"name": "a", "parameters": {"type": "dict", "properties": {}}}),
            Shape::Bfcl,
        ),
        (
            json!({"name": "a", "description": "d"}),
            Shape::OpenaiFunctions,
        ),
    ];
    for (input, shape) in cases {
        let import = read_definitions(&input.to_string()).expect("reads");
        assert_eq!(names(&import), vec![("a", shape)], "{input}");
        assert_eq!(
            import.definitions[0].parameters["type"], "object",
            "{input}"
        );
    }
}

#[test]
fn a_json_rpc_tools_list_response_and_its_error_are_told_apart() {
    let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}});
    let import = read_definitions(&ok.to_string()).expect("reads");
    assert_eq!(names(&import), vec![("x", Shape::Mcp)]);
    let failed = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
    let error = read_definitions(&failed.to_string()).expect_err("an error response");
    assert!(
        error.to_string().contains("JSON-RPC error response"),
        "{error}"
    );
}

#[test]
fn json_lines_paths_name_the_line() {
    let text = "{\"function\": [{\"name\": \"f\", \"parameters\": {\"type\": \"dict\", \"properties\": {}}}]}\n\n{\"function\": [{\"parameters\": {}}]}\n";
    let import = read_definitions(text).expect("reads");
    assert_eq!(names(&import), vec![("f", Shape::Bfcl)]);
    let errors: Vec<&Finding> = import
        .findings
        .iter()
        .filter(|f| f.level == FindingLevel::Error)
        .collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path, "line 3 /function/0");
}

#[test]
fn gemini_built_in_tools_and_vendor_tools_are_skipped_not_refused() {
    let body = json!({"tools": [
        {"googleSearch": {}},
        {"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT", "properties": {"q": {"type": "STRING"}}}}]},
        {"type": "code_interpreter", "container": {"type": "auto"}}
    ]});
    let import = read_definitions(&body.to_string()).expect("reads");
    assert_eq!(names(&import), vec![("f", Shape::Gemini)]);
    assert_eq!(import.errors(), 0);
    let skipped: Vec<&str> = import
        .findings
        .iter()
        .filter(|f| f.message.starts_with("skipped"))
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(skipped, vec!["/tools/0", "/tools/2"]);
    assert_eq!(
        import.definitions[0].parameters["properties"]["q"]["type"],
        "string"
    );
}

#[test]
fn a_root_schema_that_is_not_an_object_or_not_valid_is_refused_with_its_path() {
    let tools = json!([
        {"name": "scalar", "parameters": {"type": "string"}},
        {"name": "broken", "parameters": {"type": "object", "properties": {"x": {"type": 5}}}},
        {"name": "fine", "parameters": {"properties": {"x": {"type": "integer"}}}}
    ]);
    let import = read_definitions(&tools.to_string()).expect("reads");
    assert_eq!(names(&import), vec![("fine", Shape::OpenaiFunctions)]);
    let paths: Vec<&str> = import.findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["/0/parameters", "/1/parameters"]);
    assert!(import.findings[0]
        .message
        .contains("must be of type \"object\""));
    assert!(import.findings[1]
        .message
        .contains("not a valid JSON Schema"));
}

#[test]
fn an_empty_or_foreign_input_says_what_it_found() {
    assert!(matches!(
        read_definitions("[]"),
        Err(ReadError::NoDefinitions { .. })
    ));
    let error = read_definitions("42").expect_err("a number");
    assert_eq!(error.to_string(), "no tool definitions found: a number");
    let error = read_definitions("{\"tools\": [").expect_err("truncated");
    assert!(
        matches!(error, ReadError::InvalidJson { line: 1, .. }),
        "{error}"
    );
}

#[test]
fn a_name_defined_differently_on_another_line_is_kept_as_a_variant() {
    let text = [
        json!({"function": [{"name": "area", "parameters": {"type": "dict", "properties": {"r": {"type": "float"}}}}]}),
        json!({"function": [{"name": "area", "parameters": {"type": "dict", "properties": {"w": {"type": "float"}}}}]}),
        json!({"function": [{"name": "area", "parameters": {"type": "dict", "properties": {"w": {"type": "float"}}}}]}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    let import = read_definitions(&text).expect("reads");
    assert_eq!(
        names(&import),
        vec![("area", Shape::Bfcl), ("area#2", Shape::Bfcl)]
    );
    assert_eq!(import.repeats_merged, 1);
    let warning = import
        .findings
        .iter()
        .find(|f| f.level == FindingLevel::Warning)
        .expect("the variant is reported");
    assert_eq!(warning.path, "line 2 /function/0");
    assert!(
        warning.message.contains("kept as 'area#2'"),
        "{}",
        warning.message
    );
}
