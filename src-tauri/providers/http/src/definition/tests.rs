//! Parsing and checking definition files: both formats, the flat seed-004 form, and the
//! precision of every error (file, field path, what is wrong).

use std::path::Path;

use serde_json::json;
use toolscope_engine::types::ToolSource;

use super::*;

fn json_error(text: &str) -> DefinitionError {
    match parse(Path::new("tools/x.json"), FileFormat::Json, text) {
        Ok(spec) => panic!("expected an error, got {spec:?}"),
        Err(error) => error,
    }
}

fn method_with(endpoint: serde_json::Value) -> String {
    json!({"id": "t", "methods": [{"name": "get", "endpoint": endpoint}]}).to_string()
}

#[test]
fn reads_a_toml_tool_with_defaults() {
    let text = r#"
id = "weather"
name = "Weather"
description = "Current weather"

[[methods]]
name = "current"
description = "Weather now in a city"
parameters = { type = "object", properties = { city = { type = "string" } }, required = ["city"] }
annotations = { read_only = true, open_world = true }
endpoint = { url = "https://api.weather.test/v1/current/{city}", response = { pointer = "/current" } }
"#;
    let spec = parse(Path::new("w.toml"), FileFormat::Toml, text).expect("valid");
    assert_eq!(spec.info.id, "weather");
    assert_eq!(spec.info.source, ToolSource::Http);
    assert!(spec.enabled);
    let method = &spec.info.methods[0];
    assert_eq!(method.name, "current");
    assert!(method.agent_callable);
    assert!(method.annotations.is_read_only());
    let endpoint = spec.endpoint("current").expect("endpoint");
    assert_eq!(endpoint.http_method, HttpMethod::Get);
    assert_eq!(endpoint.response.max_bytes, DEFAULT_MAX_RESPONSE_BYTES);
    assert_eq!(endpoint.timeout, None);
}

#[test]
fn reads_the_flat_seed_form_as_one_call_method() {
    let text = json!({
        "name": "get_weather",
        "display_name": "Weather",
        "type": "invokable",
        "category": "custom",
        "description": "Weather by city",
        "endpoint": {
            "url_template": "https://api.weather.test/{city}",
            "method": "get",
            "headers": {"Accept": "application/json"},
            "auth": null,
            "timeout": 5
        },
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        "response_transform": {"pointer": "/data"},
        "enabled": true
    })
    .to_string();
    let spec = parse(Path::new("f.json"), FileFormat::Json, &text).expect("valid");
    assert_eq!(spec.info.id, "get_weather");
    assert_eq!(spec.info.name, "Weather");
    assert_eq!(spec.info.methods[0].name, flat::FLAT_METHOD_NAME);
    let endpoint = spec.endpoint("call").expect("endpoint");
    assert_eq!(endpoint.timeout, Some(std::time::Duration::from_secs(5)));
    assert_eq!(endpoint.response.pointer.as_deref(), Some("/data"));
}

#[test]
fn flat_form_errors_use_flat_field_names() {
    let text = json!({"name": "w", "endpoint": {"url_template": "https://{host}/"}}).to_string();
    let error = json_error(&text);
    assert_eq!(error.field(), Some("endpoint.url_template"), "{error}");
    let text = json!({"name": "w", "endpoint": {"url_template": "https://h.test/", "timeot": 1}})
        .to_string();
    let error = json_error(&text);
    assert_eq!(error.field(), Some("endpoint.timeot"), "{error}");
    assert!(error.to_string().contains("timeot"), "{error}");
}

#[test]
fn errors_name_the_file_the_field_and_the_problem() {
    let cases = [
        (
            method_with(json!({"url": "https://h.test/", "method": "FETCH"})),
            "methods[0].endpoint.method",
            "unknown variant `FETCH`",
        ),
        (
            method_with(json!({"url": "https://h.test/", "timeout": 5})),
            "methods[0].endpoint.timeout",
            "unknown field `timeout`, expected one of",
        ),
        (
            method_with(json!({"url": "https://h.test/", "auth": {"type": "bearer", "token": "abc"}})),
            "methods[0].endpoint.auth",
            "environment variable",
        ),
        (
            method_with(json!({"url": "https://h.test/", "auth": {"type": "api_key", "key_env": "K"}})),
            "methods[0].endpoint.auth",
            "exactly one of `header`",
        ),
        (
            method_with(json!({"url": "https://h.test/", "auth": {"type": "basic", "password_env": "P"}})),
            "methods[0].endpoint.auth",
            "exactly one of `username`",
        ),
        (
            method_with(json!({"url": "https://h.test/", "auth": {"type": "bearer", "token_env": "MY-TOKEN"}})),
            "methods[0].endpoint.auth.token_env",
            "not an environment variable name",
        ),
        (
            method_with(json!({"url": "https://h.test/", "auth": {"type": "oauth"}})),
            "methods[0].endpoint.auth.type",
            "unknown variant `oauth`",
        ),
        (
            method_with(json!({"url": "https://h.test/", "headers": {"X-A": "${UNCLOSED"}})),
            "methods[0].endpoint.headers.X-A",
            "no closing",
        ),
        (
            method_with(json!({"url": "https://h.test/", "headers": {"Bad Name": "x"}})),
            "methods[0].endpoint.headers.Bad Name",
            "not a valid header name",
        ),
        (
            method_with(json!({"url": "https://h.test/", "response": {"pointer": "data"}})),
            "methods[0].endpoint.response.pointer",
            "must start with '/'",
        ),
        (
            method_with(json!({"url": "https://h.test/", "response": {"fields": ["a..b"]}})),
            "methods[0].endpoint.response.fields[0]",
            "not a field path",
        ),
        (
            method_with(json!({"url": "https://h.test/", "timeout_ms": 0})),
            "methods[0].endpoint.timeout_ms",
            "more than 0",
        ),
        (
            json!({"id": "t", "methods": [{"name": "get_all", "endpoint": {"url": "https://h.test/"}}]})
                .to_string(),
            "methods[0].name",
            "routing names",
        ),
        (
            json!({"id": "t", "methods": [{"name": "get", "parameters": {"properties": {"q": {}}},
                   "endpoint": {"url": "https://h.test/{city}"}}]})
            .to_string(),
            "methods[0].endpoint.url",
            "placeholder {city} is not a parameter",
        ),
        (
            json!({"id": "t", "methods": [{"name": "get", "parameters": "object",
                   "endpoint": {"url": "https://h.test/"}}]})
            .to_string(),
            "methods[0].parameters",
            "JSON Schema object",
        ),
        (
            json!({"id": "t", "methods": [{"name": "a", "endpoint": {"url": "https://h.test/"}},
                                          {"name": "a", "endpoint": {"url": "https://h.test/"}}]})
            .to_string(),
            "methods[1].name",
            "already the name of methods[0]",
        ),
        (
            json!({"id": "bad id", "methods": [{"name": "a", "endpoint": {"url": "https://h.test/"}}]})
                .to_string(),
            "id",
            "not a tool id",
        ),
        (json!({"id": "t", "methods": []}).to_string(), "methods", "at least one"),
        (json!({"id": "t"}).to_string(), "(top level)", "missing `methods`"),
        (
            json!({"id": "t", "methods": [], "endpoint": {}}).to_string(),
            "(top level)",
            "both",
        ),
        (json!([1]).to_string(), "(top level)", "an array"),
        (
            json!({"id": "t", "methods": [{"name": "a", "endpoint": {"url": "https://h.test/"}}],
                   "enabeld": false})
            .to_string(),
            "enabeld",
            "unknown field `enabeld`",
        ),
        (
            json!({"id": "t", "methods": [{"name": "a", "annotations": {"readonly": true},
                   "endpoint": {"url": "https://h.test/"}}]})
            .to_string(),
            "methods[0].annotations.readonly",
            "unknown field `readonly`",
        ),
    ];
    for (text, field, needle) in cases {
        let error = json_error(&text);
        let shown = error.to_string();
        assert_eq!(error.field(), Some(field), "{shown}");
        assert!(shown.starts_with("tools/x.json: "), "{shown}");
        assert!(shown.contains(needle), "expected '{needle}' in: {shown}");
    }
}

#[test]
fn syntax_errors_give_a_position() {
    let error = json_error("{\"id\": \"t\",\n  \"methods\": [,]}");
    assert!(matches!(error, DefinitionError::Syntax { .. }), "{error}");
    assert!(error.to_string().contains("line 2"), "{error}");
    let toml = parse(
        Path::new("x.toml"),
        FileFormat::Toml,
        "id = \"t\"\nmethods = [\n",
    )
    .expect_err("bad toml");
    assert!(
        toml.to_string().starts_with("x.toml: invalid TOML"),
        "{toml}"
    );
    assert!(toml.to_string().contains("line 2"), "{toml}");
}

#[test]
fn rate_limit_and_streamable_methods_are_read_in_both_forms() {
    let text = r#"
id = "research"
rate_limit = { requests = 3, window_seconds = 60 }

[[methods]]
name = "report"
type = "streamable"
endpoint = { url = "https://h.test/report" }

[[methods]]
name = "status"
endpoint = { url = "https://h.test/status" }
"#;
    let spec = parse(Path::new("r.toml"), FileFormat::Toml, text).expect("valid");
    let limit = spec.rate_limit.expect("limited");
    assert_eq!((limit.requests(), limit.window().as_secs()), (3, 60));
    assert!(spec.endpoint("report").expect("report").streamable);
    assert!(!spec.endpoint("status").expect("status").streamable);

    // A whole row of seed 004's `tools` table, nullable columns null.
    let row = json!({
        "id": "row-1", "name": "report", "type": "streamable", "display_name": "Report",
        "description": "d", "category": "custom",
        "endpoint": {"url_template": "https://h.test/", "method": "POST", "headers": {},
                     "auth": null, "timeout": 60},
        "parameters": {"type": "object"}, "response_transform": null, "rate_limit": null,
        "enabled": true, "version": "1.0.0", "tags": ["a"],
        "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z"
    });
    let spec = parse(Path::new("row.json"), FileFormat::Json, &row.to_string()).expect("valid");
    assert!(spec.rate_limit.is_none());
    assert!(spec.endpoint("call").expect("call").streamable);
    let mut limited = row.clone();
    limited["rate_limit"] = json!({"requests": 1, "window_seconds": 1});
    limited["type"] = json!(null);
    let spec = parse(
        Path::new("row.json"),
        FileFormat::Json,
        &limited.to_string(),
    )
    .expect("valid");
    assert!(spec.rate_limit.is_some());
    assert!(
        !spec.endpoint("call").expect("call").streamable,
        "null type is invokable"
    );
}

#[test]
fn rate_limit_and_type_errors_name_their_field() {
    let tool = |extra: serde_json::Value| {
        let mut text = json!({"id": "t", "methods": [{"name": "a",
                              "endpoint": {"url": "https://h.test/"}}]});
        if let (Some(top), Some(extra)) = (text.as_object_mut(), extra.as_object()) {
            top.extend(extra.clone());
        }
        text.to_string()
    };
    let cases = [
        (
            tool(json!({"rate_limit": {"requests": 0, "window_seconds": 1}})),
            "rate_limit.requests",
            "at least 1",
        ),
        (
            tool(json!({"rate_limit": {"requests": 1, "window_seconds": 90000}})),
            "rate_limit.window_seconds",
            "from 1 to 86400",
        ),
        (
            tool(json!({"rate_limit": {"requests": 1}})),
            "rate_limit",
            "missing field `window_seconds`",
        ),
        (
            tool(json!({"rate_limit": {"requests": -1, "window_seconds": 1}})),
            "rate_limit.requests",
            "invalid value",
        ),
        (
            json!({"id": "t", "methods": [{"name": "a", "type": "streaming",
                   "endpoint": {"url": "https://h.test/"}}]})
            .to_string(),
            "methods[0].type",
            "unknown variant `streaming`",
        ),
        (
            json!({"name": "t", "type": "async", "endpoint": {"url_template": "https://h.test/"}})
                .to_string(),
            "type",
            "unknown variant `async`",
        ),
    ];
    for (text, field, needle) in cases {
        let error = json_error(&text);
        let shown = error.to_string();
        assert_eq!(error.field(), Some(field), "{shown}");
        assert!(shown.contains(needle), "expected '{needle}' in: {shown}");
    }
}
