//! HTTP tools against a real server on 127.0.0.1: auth, URL encoding, argument placement,
//! response shaping, error statuses, and the whole path registry → executor → result with the
//! fixture definitions. Limits and safety (timeouts, cancellation, the body cap, redaction,
//! redirects) are in `http_limits.rs`.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use support::calls::*;
use support::{client, Reply, TestServer};
use tokio_util::sync::CancellationToken;
use toolscope_engine::executor::{ApproveAll, Executor, ExecutorOptions};
use toolscope_engine::{Registry, ToolFailure};
use toolscope_http::{EnvSource, HttpToolSet};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

/// Answers 200 with the received request when `check` passes, 401 otherwise.
async fn guarded(check: fn(&support::Recorded) -> bool) -> TestServer {
    TestServer::start(move |r| {
        if check(r) {
            Reply::json(200, json!({"ok": true, "path": r.path()}))
        } else {
            Reply::unauthorized()
        }
    })
    .await
}

#[tokio::test]
async fn every_auth_type_reaches_the_server_and_wrong_credentials_get_401() {
    let server = guarded(|r| {
        r.header("authorization") == Some(&format!("Bearer {TOKEN}"))
            || r.header("x-api-key") == Some(API_KEY)
            || r.query_param("api_key") == Some("key%26with%3Dodd%20chars%2F42")
            || r.header("authorization") == Some(&basic("ada", PASSWORD))
            || r.header("authorization") == Some(&basic("literal-user", PASSWORD))
    })
    .await;
    let schema = json!({"type": "object"});
    for auth in [
        json!({"type": "bearer", "token_env": "TEST_TOKEN"}),
        json!({"type": "api_key", "key_env": "TEST_KEY", "header": "X-Api-Key"}),
        json!({"type": "api_key", "key_env": "TEST_KEY", "query": "api_key"}),
        json!({"type": "basic", "username_env": "TEST_USER", "password_env": "TEST_PASSWORD"}),
        json!({"type": "basic", "username": "literal-user", "password_env": "TEST_PASSWORD"}),
    ] {
        let t = tool(
            &server.base,
            json!({"url": "/secure", "auth": auth}),
            schema.clone(),
        );
        assert_eq!(
            call(&t, json!({})).await,
            Ok(json!({"ok": true, "path": "/secure"})),
            "{auth}"
        );
    }
    let none = tool(&server.base, json!({"url": "/secure"}), schema.clone());
    let text = failure_text(call(&none, json!({})).await);
    assert!(text.contains("HTTP 401 Unauthorized"), "{text}");
    assert!(text.contains("missing or wrong credentials"), "{text}");
    // Headers may carry ${VAR} references too.
    let header = tool(
        &server.base,
        json!({"url": "/secure", "headers": {"X-Api-Key": "${TEST_KEY}"}}),
        schema,
    );
    assert!(call(&header, json!({})).await.is_ok());
}

#[tokio::test]
async fn placeholders_are_percent_encoded_for_path_and_query() {
    let server = TestServer::start(|_| Reply::json(200, json!({}))).await;
    let t = tool(
        &server.base,
        json!({"url": "/files/{name}/raw?q={q}&fixed=1"}),
        json!({"type": "object"}),
    );
    call(
        &t,
        json!({"name": "a b/c&d ü.txt", "q": "x&y=z é+1", "extra": "v w"}),
    )
    .await
    .expect("succeeds");
    assert_eq!(
        server.last_request().target,
        "/files/a%20b%2Fc%26d%20%C3%BC.txt/raw?q=x%26y%3Dz%20%C3%A9%2B1&fixed=1&extra=v%20w"
    );
    let missing = failure_text(call(&t, json!({"q": "x"})).await);
    assert!(
        missing.contains("no argument 'name' for the URL placeholder {name}"),
        "{missing}"
    );
    let traversal = failure_text(call(&t, json!({"name": "..", "q": "x"})).await);
    assert!(traversal.contains("change the URL's path"), "{traversal}");
}

#[tokio::test]
async fn unused_arguments_go_to_the_query_or_a_json_body_by_method() {
    let server = TestServer::start(|_| Reply::json(200, json!({"done": true}))).await;
    let schema = json!({"type": "object"});
    let extra = json!({"id": 7, "tags": ["a", "b c"], "flag": true, "none": null,
                       "meta": {"k": 1}});
    for method in ["GET", "DELETE"] {
        let t = tool(
            &server.base,
            json!({"url": "/items/{id}", "method": method}),
            schema.clone(),
        );
        call(&t, extra.clone()).await.expect("succeeds");
        let request = server.last_request();
        assert_eq!(request.method, method);
        assert_eq!(
            request.target,
            "/items/7?tags=a&tags=b%20c&flag=true&meta=%7B%22k%22%3A1%7D"
        );
        assert!(request.body.is_empty());
    }
    for method in ["POST", "PUT", "PATCH"] {
        let t = tool(
            &server.base,
            json!({"url": "/items/{id}", "method": method}),
            schema.clone(),
        );
        call(&t, extra.clone()).await.expect("succeeds");
        let request = server.last_request();
        assert_eq!(request.method, method);
        assert_eq!(request.target, "/items/7");
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(
            request.json(),
            json!({"tags": ["a", "b c"], "flag": true, "none": null, "meta": {"k": 1}})
        );
    }
}

#[tokio::test]
async fn responses_are_shaped_by_pointer_and_fields() {
    let server = TestServer::start(|r| match r.path() {
        "/list" => Reply::json(
            200,
            json!({"data": {"items": [
                {"id": 1, "name": "one", "owner": {"login": "ada", "id": 9}, "noise": "x"},
                {"id": 2, "name": "two", "owner": {"login": "bob"}}
            ]}}),
        ),
        "/text" => Reply::text(200, "plain words"),
        _ => Reply::Full {
            status: 204,
            headers: vec![],
            body: vec![],
        },
    })
    .await;
    let schema = json!({"type": "object"});
    let shaped = tool(
        &server.base,
        json!({"url": "/list", "response": {"pointer": "/data/items",
                                            "fields": ["id", "owner.login"]}}),
        schema.clone(),
    );
    assert_eq!(
        call(&shaped, json!({})).await,
        Ok(json!([{"id": 1, "owner": {"login": "ada"}}, {"id": 2, "owner": {"login": "bob"}}]))
    );
    let first = tool(
        &server.base,
        json!({"url": "/list", "response": {"pointer": "/data/items/1/name"}}),
        schema.clone(),
    );
    assert_eq!(call(&first, json!({})).await, Ok(json!("two")));
    let wrong = tool(
        &server.base,
        json!({"url": "/list", "response": {"pointer": "/data/rows"}}),
        schema.clone(),
    );
    let text = failure_text(call(&wrong, json!({})).await);
    assert!(
        text.contains("nothing at JSON pointer '/data/rows'") && text.contains("keys: items"),
        "{text}"
    );
    let plain = tool(&server.base, json!({"url": "/text"}), schema.clone());
    assert_eq!(call(&plain, json!({})).await, Ok(json!("plain words")));
    let empty = tool(&server.base, json!({"url": "/empty"}), schema);
    assert_eq!(
        call(&empty, json!({})).await,
        Ok(json!("HTTP 204 No Content (empty body)"))
    );
}

#[tokio::test]
async fn error_statuses_fail_with_the_status_line_and_a_bounded_excerpt() {
    let long = "E".repeat(20_000);
    let server = TestServer::start(move |r| match r.path() {
        "/missing" => Reply::text(404, "no such item: 42"),
        _ => Reply::text(500, &long),
    })
    .await;
    let schema = json!({"type": "object"});
    let missing = tool(&server.base, json!({"url": "/missing"}), schema.clone());
    let result = call(&missing, json!({})).await;
    assert!(matches!(result, Err(ToolFailure::Failed(_))), "{result:?}");
    let text = failure_text(result);
    assert_eq!(
        text,
        format!(
            "GET {}/missing returned HTTP 404 Not Found: no such item: 42",
            server.base
        )
    );
    let broken = tool(&server.base, json!({"url": "/broken"}), schema);
    let text = failure_text(call(&broken, json!({})).await);
    assert!(
        text.contains("HTTP 500 Internal Server Error: EEEE"),
        "{text}"
    );
    assert!(text.ends_with("…[truncated]"), "{text}");
    assert!(
        text.len() < 1_500,
        "excerpt is bounded: {} bytes",
        text.len()
    );
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/http_tools")
}

/// Copies the fixture definitions into `dir`, pointing their hosts at `base`.
fn copy_fixtures(dir: &Path, base: &str) {
    for entry in std::fs::read_dir(fixtures_dir()).expect("fixtures exist") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            let text = std::fs::read_to_string(&path).expect("readable");
            let text = text
                .replace("https://api.weather.example", base)
                .replace("https://api.tracker.example", base)
                .replace("https://api.rates.example", base);
            std::fs::write(dir.join(path.file_name().expect("name")), text).expect("writable");
        }
    }
}

#[tokio::test]
async fn fixture_tools_run_through_the_registry_and_the_executor() {
    let server = TestServer::start(|r| {
        let key_ok = r.query_param("appid") == Some("key%26with%3Dodd%20chars%2F42");
        let bearer_ok = r.header("authorization") == Some(&format!("Bearer {TOKEN}"));
        match (r.method.as_str(), r.path()) {
            ("GET", "/v1/current/S%C3%A3o%20Paulo") if key_ok => Reply::json(
                200,
                json!({"location": "São Paulo", "current": {"temp": 24.5, "summary": "sunny",
                       "humidity": 61, "wind": {"speed": 3.2, "dir": "NE"},
                       "units": r.query_param("units")}}),
            ),
            ("POST", "/v1/projects/core%2Fapi/issues") if bearer_ok => Reply::json(
                201,
                json!({"number": 12, "title": r.json()["title"], "url": "https://t/12",
                       "created_by": "bot"}),
            ),
            ("GET", "/convert") if r.header("authorization").is_some() => {
                Reply::json(200, json!({"result": 9.2, "query": r.query()}))
            }
            _ => Reply::unauthorized(),
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    copy_fixtures(dir.path(), &server.base);
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::with_client(dir.path(), Arc::clone(&registry), client()).with_env(
        EnvSource::from_map([
            ("WEATHER_API_KEY".to_owned(), API_KEY.to_owned()),
            ("TRACKER_TOKEN".to_owned(), TOKEN.to_owned()),
            ("RATES_PASSWORD".to_owned(), PASSWORD.to_owned()),
        ]),
    );
    let report = set.reload();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.added, ["currency_convert", "issues", "weather"]);

    let executor = Executor::new(Arc::clone(&registry), ExecutorOptions::default())
        .with_confirmation(Arc::new(ApproveAll));
    let cancel = CancellationToken::new();
    let request = ParsedToolRequest::manual("weather_current", args(json!({"city": "São Paulo"})));
    let result = executor.execute(&request, &cancel).await;
    assert!(result.is_success(), "{}", result.result);
    assert_eq!(
        result.result,
        r#"{"temp":24.5,"summary":"sunny","wind":{"speed":3.2}}"#
    );
    assert_eq!(server.last_request().query_param("units"), Some("metric"));

    let create = ParsedToolRequest::manual(
        "issues_create",
        args(json!({"project": "core/api", "title": "It broke", "labels": ["bug"]})),
    );
    let result = executor.execute(&create, &cancel).await;
    assert!(result.is_success(), "{}", result.result);
    assert_eq!(
        result.result,
        r#"{"number":12,"url":"https://t/12","title":"It broke"}"#
    );
    assert_eq!(
        server.last_request().json(),
        json!({"title": "It broke", "labels": ["bug"]})
    );

    let convert = ParsedToolRequest::manual(
        "currency_convert_call",
        args(json!({"from": "EUR", "to": "USD", "amount": 10})),
    );
    let result = executor.execute(&convert, &cancel).await;
    assert_eq!(result.result, "9.2");
    assert_eq!(
        server.last_request().header("authorization"),
        Some(basic("toolscope", PASSWORD).as_str())
    );

    // Invalid arguments never reach the server; a server-side 401 is a tool error.
    let before = server.requests().len();
    let invalid = ParsedToolRequest::manual("weather_current", args(json!({"town": "x"})));
    let result = executor.execute(&invalid, &cancel).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::InvalidArgs));
    assert_eq!(server.requests().len(), before);
    let unknown_city = ParsedToolRequest::manual("weather_current", args(json!({"city": "Lima"})));
    let result = executor.execute(&unknown_city, &cancel).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::ToolError));
    assert!(result.result.contains("appid=***"), "{}", result.result);
}

#[test]
fn calls_copy_as_curl_with_secrets_as_variable_references() {
    use toolscope_engine::export::{export_call, CallToExport, ExportKind};
    let dir = tempfile::tempdir().expect("temp dir");
    copy_fixtures(dir.path(), "https://api.example");
    let registry = Arc::new(Registry::new());
    let set = HttpToolSet::with_client(dir.path(), Arc::clone(&registry), client()).with_env(
        EnvSource::from_map([("TRACKER_TOKEN".to_owned(), TOKEN.to_owned())]),
    );
    assert!(set.reload().problems.is_empty());
    let curl = |tool_name: &str, arguments: serde_json::Value| {
        let call = CallToExport {
            request_id: "r1".into(),
            tool_name: tool_name.into(),
            args: args(arguments),
        };
        let protocols = toolscope_protocol::ProtocolSet::standard();
        export_call(&registry, &protocols, &ExportKind::Curl, &call, None).expect("a command")
    };
    let weather = curl(
        "weather_current",
        json!({"city": "São Paulo", "units": "metric"}),
    );
    assert_eq!(
        weather,
        "curl \\\n  'https://api.example/v1/current/S%C3%A3o%20Paulo?units=metric' \\\n  --url-query 'appid='\"${WEATHER_API_KEY}\" \\\n  -H 'accept: application/json'"
    );
    let issue = curl(
        "issues_create",
        json!({"project": "core/api", "title": "It's broken", "labels": ["bug"]}),
    );
    assert!(
        issue.starts_with(
            "curl \\\n  -X POST \\\n  'https://api.example/v1/projects/core%2Fapi/issues'"
        ),
        "{issue}"
    );
    assert!(
        issue.contains("-H 'authorization: Bearer '\"${TRACKER_TOKEN}\""),
        "{issue}"
    );
    assert!(!issue.contains(TOKEN), "the token's value never appears");
    assert!(
        issue.contains(r#"--data-raw '{"title":"It'\''s broken","labels":["bug"]}'"#),
        "{issue}"
    );
    let rates = curl(
        "currency_convert_call",
        json!({"from": "USD", "to": "EUR", "amount": 10}),
    );
    assert!(
        rates.contains("-u 'toolscope:'\"${RATES_PASSWORD}\""),
        "{rates}"
    );
    assert!(!rates.contains("authorization: Basic"), "{rates}");
}
