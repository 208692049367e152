//! One HTTP call of an endpoint: arguments into a request (URL, query or JSON body, headers,
//! auth), the exchange under the endpoint timeout and the call's cancellation, and the outcome
//! as a result or a classified [`ToolFailure`] with every secret of the call redacted.

use std::time::Duration;

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use serde_json::{Map, Value};
use toolscope_engine::{CallContext, ToolFailure};

use crate::definition::{AuthDefinition, EndpointSpec};
use crate::response::{read_capped, read_excerpt, shape_body, BodyError};
use crate::secrets::{EnvSource, Redactor};
use crate::stream::StreamProgress;
use crate::template::{scalar_text, COMPONENT};

/// Most redirects followed (same origin only, see [`client_builder`]).
const MAX_REDIRECTS: usize = 5;

/// A client builder with the policies HTTP tools rely on: redirects are followed only within
/// the same origin (so an API key header never reaches another server) and at most
/// [`MAX_REDIRECTS`] times. Add settings (a proxy, `no_proxy`) before `build()`.
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
            }
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if same_origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }))
        .user_agent(concat!("toolscope/", env!("CARGO_PKG_VERSION")))
}

/// Runs `endpoint` with `args`, stopping when `ctx` is cancelled and reporting a streamable
/// body's pieces to `ctx`. Errors, results and progress never contain the call's secrets.
pub(crate) async fn call_endpoint(
    client: &reqwest::Client,
    endpoint: &EndpointSpec,
    args: Map<String, Value>,
    env: &EnvSource,
    ctx: &CallContext,
) -> Result<Value, ToolFailure> {
    let mut redactor = Redactor::default();
    let outcome = run(client, endpoint, args, env, ctx, &mut redactor).await;
    outcome
        .map(|value| redactor.redact_value(value))
        .map_err(|failure| redactor.redact_failure(failure))
}

async fn run(
    client: &reqwest::Client,
    endpoint: &EndpointSpec,
    args: Map<String, Value>,
    env: &EnvSource,
    ctx: &CallContext,
    redactor: &mut Redactor,
) -> Result<Value, ToolFailure> {
    let request = prepare(client, endpoint, args, env, redactor)?;
    let label = format!(
        "{} {}",
        endpoint.http_method.as_str(),
        redactor.redact(request.url().as_str())
    );
    let progress = endpoint.streamable.then_some((ctx, &*redactor));
    let exchange = exchange(client, request, endpoint, &label, progress);
    let bounded = async {
        match endpoint.timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .unwrap_or_else(|_| Err(timed_out(&label, limit))),
            None => exchange.await,
        }
    };
    tokio::select! {
        biased;
        () = ctx.cancel.cancelled() => Err(ToolFailure::failed(format!("{label} was cancelled"))),
        outcome = bounded => outcome,
    }
}

fn timed_out(label: &str, limit: Duration) -> ToolFailure {
    ToolFailure::Transport(format!(
        "{label} timed out after {} ms (the endpoint's timeout_ms)",
        limit.as_millis()
    ))
}

/// Builds the request; every secret it reads goes into `redactor` first.
pub(crate) fn prepare(
    client: &reqwest::Client,
    endpoint: &EndpointSpec,
    mut args: Map<String, Value>,
    env: &EnvSource,
    redactor: &mut Redactor,
) -> Result<reqwest::Request, ToolFailure> {
    let mut url = endpoint.url.expand(&args).map_err(ToolFailure::Failed)?;
    for name in endpoint.url.placeholders() {
        // Keeps the other arguments in the order they were given (query and body order).
        args.shift_remove(name);
    }
    let mut headers = HeaderMap::new();
    for (name, template) in &endpoint.headers {
        let (value, secrets) = template
            .render(|var| env.require(var, &format!("header {name}")))
            .map_err(ToolFailure::Failed)?;
        for secret in &secrets {
            redactor.add(secret);
        }
        headers.insert(
            name.clone(),
            header_value(name, &value, !secrets.is_empty())?,
        );
    }
    let mut query: Vec<(String, String)> = Vec::new();
    apply_auth(&endpoint.auth, env, redactor, &mut headers, &mut query)?;
    let body = if endpoint.http_method.sends_body() {
        Some(Value::Object(args))
    } else {
        let mut pairs = Vec::new();
        for (name, value) in args {
            query_pairs(name, &value, &mut pairs);
        }
        pairs.append(&mut query);
        query = pairs;
        None
    };
    if !query.is_empty() {
        url.push(if endpoint.url.has_query() { '&' } else { '?' });
        let encoded: Vec<String> = query
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    percent_encoding::utf8_percent_encode(k, COMPONENT),
                    percent_encoding::utf8_percent_encode(v, COMPONENT)
                )
            })
            .collect();
        url.push_str(&encoded.join("&"));
    }
    let url = url::Url::parse(&url).map_err(|e| {
        ToolFailure::failed(format!("the URL built from the arguments is invalid: {e}"))
    })?;
    let method = match endpoint.http_method {
        crate::definition::HttpMethod::Get => reqwest::Method::GET,
        crate::definition::HttpMethod::Post => reqwest::Method::POST,
        crate::definition::HttpMethod::Put => reqwest::Method::PUT,
        crate::definition::HttpMethod::Patch => reqwest::Method::PATCH,
        crate::definition::HttpMethod::Delete => reqwest::Method::DELETE,
    };
    let mut builder = client.request(method, url).headers(headers);
    if let Some(body) = body {
        builder = builder.json(&body);
    }
    builder
        .build()
        .map_err(|e| ToolFailure::failed(format!("cannot build the request: {}", e.without_url())))
}

fn apply_auth(
    auth: &AuthDefinition,
    env: &EnvSource,
    redactor: &mut Redactor,
    headers: &mut HeaderMap,
    query: &mut Vec<(String, String)>,
) -> Result<(), ToolFailure> {
    match auth {
        AuthDefinition::None => {}
        AuthDefinition::Bearer { token_env } => {
            let token = env
                .require(token_env, "auth.token_env")
                .map_err(ToolFailure::Failed)?;
            redactor.add(&token);
            headers.insert(
                AUTHORIZATION,
                header_value(&AUTHORIZATION, &format!("Bearer {token}"), true)?,
            );
        }
        AuthDefinition::ApiKey {
            key_env,
            header,
            query: query_name,
        } => {
            let key = env
                .require(key_env, "auth.key_env")
                .map_err(ToolFailure::Failed)?;
            redactor.add(&key);
            if let Some(name) = header {
                let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                    ToolFailure::failed(format!("'{name}' is not a valid header name"))
                })?;
                let value = header_value(&name, &key, true)?;
                headers.insert(name, value);
            }
            if let Some(name) = query_name {
                query.push((name.clone(), key));
            }
        }
        AuthDefinition::Basic {
            username,
            username_env,
            password_env,
        } => {
            let user = basic_user(username.as_deref(), username_env.as_deref(), env)?;
            let password = env
                .require(password_env, "auth.password_env")
                .map_err(ToolFailure::Failed)?;
            redactor.add(&password);
            let credentials =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            redactor.add(&credentials);
            headers.insert(
                AUTHORIZATION,
                header_value(&AUTHORIZATION, &format!("Basic {credentials}"), true)?,
            );
        }
    }
    Ok(())
}

/// The Basic auth user name: literal, else from the environment, else empty.
pub(crate) fn basic_user(
    username: Option<&str>,
    username_env: Option<&str>,
    env: &EnvSource,
) -> Result<String, ToolFailure> {
    match (username, username_env) {
        (Some(literal), _) => Ok(literal.to_owned()),
        (None, Some(var)) => env
            .require(var, "auth.username_env")
            .map_err(ToolFailure::Failed),
        (None, None) => Ok(String::new()),
    }
}

fn header_value(
    name: &HeaderName,
    value: &str,
    sensitive: bool,
) -> Result<HeaderValue, ToolFailure> {
    let mut value = HeaderValue::from_str(value).map_err(|_| {
        ToolFailure::failed(format!(
            "header {name}: the value (from the environment) has characters a header cannot \
             carry"
        ))
    })?;
    value.set_sensitive(sensitive);
    Ok(value)
}

/// Query pairs for an argument the URL template did not use: scalars as text, arrays as one
/// pair per item, objects as JSON text; null is left out.
fn query_pairs(name: String, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Null => {}
        Value::Array(items) => {
            for item in items {
                let text = scalar_text(item).unwrap_or_else(|| item.to_string());
                out.push((name.clone(), text));
            }
        }
        Value::Object(_) => out.push((name, value.to_string())),
        scalar => out.push((name, scalar_text(scalar).unwrap_or_default())),
    }
}

/// Sends the request and reads the answer; with `progress`, a successful body's pieces are
/// reported as they arrive (a streamable endpoint).
async fn exchange(
    client: &reqwest::Client,
    request: reqwest::Request,
    endpoint: &EndpointSpec,
    label: &str,
    progress: Option<(&CallContext, &Redactor)>,
) -> Result<Value, ToolFailure> {
    let mut response = client
        .execute(request)
        .await
        .map_err(|e| transport_failure(label, e))?;
    let status = response.status();
    if !status.is_success() {
        let redirect = if status.is_redirection() {
            let target = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("(no Location)");
            format!(" (a redirect to {target}, not followed: only same-origin redirects are)")
        } else {
            String::new()
        };
        let excerpt = read_excerpt(&mut response).await;
        let excerpt = if excerpt.is_empty() {
            String::new()
        } else {
            format!(": {excerpt}")
        };
        return Err(ToolFailure::failed(format!(
            "{label} returned HTTP {status}{redirect}{excerpt}"
        )));
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut stream = progress
        .map(|(ctx, redactor)| StreamProgress::new(ctx, redactor, response.content_length()));
    let body = read_capped(&mut response, endpoint.response.max_bytes, |piece| {
        if let Some(stream) = stream.as_mut() {
            stream.piece(piece);
        }
    })
    .await
    .map_err(|e| match e {
        BodyError::TooLarge { cap, declared } => ToolFailure::failed(format!(
            "{label}: response larger than {cap} bytes (the endpoint's response.max_bytes){}",
            declared.map_or(String::new(), |d| format!(
                "; the server announced {d} bytes"
            ))
        )),
        BodyError::Read(e) => transport_failure(label, e),
    })?;
    if let Some(stream) = stream {
        stream.finish();
    }
    if body.is_empty() {
        return Ok(Value::String(format!("HTTP {status} (empty body)")));
    }
    shape_body(&body, content_type.as_deref(), &endpoint.response)
        .map_err(|m| ToolFailure::failed(format!("{label}: {m}")))
}

/// A reqwest error as a failure: the URL is dropped from its text (the label carries a redacted
/// one) and the causes are spelled out (`connection refused`, ...).
fn transport_failure(label: &str, error: reqwest::Error) -> ToolFailure {
    let error = error.without_url();
    let is_policy = error.is_redirect() || error.is_builder();
    let mut message = format!("{label} failed: {error}");
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if is_policy {
        ToolFailure::Failed(message)
    } else {
        ToolFailure::Transport(message)
    }
}
