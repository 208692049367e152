//! Helpers for calling one-method HTTP tools built from inline definitions, with a fixed
//! set of secrets in their environment.

use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Map, Value};
use toolscope_engine::{CallContext, Tool, ToolFailure};
use toolscope_http::definition::{parse, FileFormat};
use toolscope_http::{EnvSource, HttpTool};

use super::client;

pub const TOKEN: &str = "tok-3f9a.secret";
pub const API_KEY: &str = "key&with=odd chars/42";
pub const PASSWORD: &str = "pa55:word";

pub fn env() -> EnvSource {
    EnvSource::from_map([
        ("TEST_TOKEN".to_owned(), TOKEN.to_owned()),
        ("TEST_KEY".to_owned(), API_KEY.to_owned()),
        ("TEST_PASSWORD".to_owned(), PASSWORD.to_owned()),
        ("TEST_USER".to_owned(), "ada".to_owned()),
    ])
}

/// A one-method tool `t` (method `m`) with `endpoint` (the URL relative to `base`).
pub fn tool(base: &str, mut endpoint: Value, parameters: Value) -> HttpTool {
    let url = format!("{base}{}", endpoint["url"].as_str().unwrap_or_default());
    endpoint["url"] = json!(url);
    let text = json!({"id": "t", "methods": [{"name": "m", "parameters": parameters,
                                             "endpoint": endpoint}]})
    .to_string();
    let spec = parse(Path::new("test.json"), FileFormat::Json, &text).expect("valid definition");
    HttpTool::new(spec, client(), env())
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub async fn call(tool: &HttpTool, value: Value) -> Result<Value, ToolFailure> {
    tool.call("m", args(value), CallContext::default()).await
}

pub fn failure_text(result: Result<Value, ToolFailure>) -> String {
    match result {
        Ok(value) => panic!("expected a failure, got {value}"),
        Err(failure) => failure.to_string(),
    }
}

pub fn basic(user: &str, password: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {encoded}")
}
