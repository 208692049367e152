//! Checks a [`ToolDefinition`] and turns it into an [`HttpToolSpec`]: parsed templates, header
//! names, the engine's metadata. Everything that can be wrong with a file short of a missing
//! environment variable is found here, at load time, with the path of the offending field.

use std::time::Duration;

use serde_json::Value;
use toolscope_engine::file_tools::document::{check_method_name, check_tool_id};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::MethodMetadata;
use toolscope_protocol::request::json_kind;

use super::{
    AuthDefinition, HttpMethod, RateLimitDefinition, ResponseDefinition, ToolDefinition, ToolKind,
    DEFAULT_MAX_RESPONSE_BYTES,
};
use crate::rate_limit::{RateLimit, MAX_WINDOW_SECONDS};
use crate::template::{is_env_name, HeaderTemplate, UrlTemplate};

/// A definition problem at a field path (shared with other tool-file formats).
pub use toolscope_engine::file_tools::document::FieldError;

fn field_error(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError::new(field, message)
}

/// A checked tool, ready to register and call.
#[derive(Debug, Clone)]
pub struct HttpToolSpec {
    /// What the registry shows (source [`ToolSource::Http`]).
    pub info: ToolInfo,
    pub enabled: bool,
    /// Shared by all the tool's methods and concurrent calls.
    pub rate_limit: Option<RateLimit>,
    /// One per method, in the order of `info.methods`.
    pub(crate) endpoints: Vec<EndpointSpec>,
}

impl HttpToolSpec {
    pub fn id(&self) -> &str {
        &self.info.id
    }

    pub(crate) fn endpoint(&self, method: &str) -> Option<&EndpointSpec> {
        self.endpoints.iter().find(|e| e.method_name == method)
    }
}

/// A checked endpoint.
#[derive(Debug, Clone)]
pub struct EndpointSpec {
    pub(crate) method_name: String,
    pub(crate) http_method: HttpMethod,
    pub(crate) url: UrlTemplate,
    pub(crate) headers: Vec<(reqwest::header::HeaderName, HeaderTemplate)>,
    pub(crate) auth: AuthDefinition,
    pub(crate) timeout: Option<Duration>,
    pub(crate) response: ResponseSpec,
    /// Seed 004's `streamable`: the body is reported as progress while it arrives.
    pub(crate) streamable: bool,
}

/// What is kept of a response, with field paths split once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResponseSpec {
    pub pointer: Option<String>,
    pub fields: Option<Vec<Vec<String>>>,
    pub max_bytes: u64,
}

/// Checks everything and builds the spec.
pub fn compile(definition: &ToolDefinition) -> Result<HttpToolSpec, FieldError> {
    check_tool_id(&definition.id)?;
    let rate_limit = definition.rate_limit.map(check_rate_limit).transpose()?;
    if definition.methods.is_empty() {
        return Err(field_error("methods", "a tool needs at least one method"));
    }
    let mut methods = Vec::with_capacity(definition.methods.len());
    let mut endpoints = Vec::with_capacity(definition.methods.len());
    for (index, method) in definition.methods.iter().enumerate() {
        let at = format!("methods[{index}]");
        check_method_name(&format!("{at}.name"), &method.name)?;
        if let Some(first) = definition.methods[..index]
            .iter()
            .position(|m| m.name == method.name)
        {
            return Err(field_error(
                format!("{at}.name"),
                format!("'{}' is already the name of methods[{first}]", method.name),
            ));
        }
        if !method.parameters.is_object() {
            return Err(field_error(
                format!("{at}.parameters"),
                format!(
                    "must be a JSON Schema object such as {{\"type\": \"object\"}}, got {}",
                    json_kind(&method.parameters)
                ),
            ));
        }
        let endpoint = &method.endpoint;
        let url = UrlTemplate::parse(&endpoint.url)
            .map_err(|m| field_error(format!("{at}.endpoint.url"), m))?;
        check_placeholders_are_parameters(&at, &url, &method.parameters)?;
        let mut headers = Vec::with_capacity(endpoint.headers.len());
        for (name, value) in &endpoint.headers {
            let field = format!("{at}.endpoint.headers.{name}");
            let header_name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| field_error(&field, format!("'{name}' is not a valid header name")))?;
            let template = HeaderTemplate::parse(value).map_err(|m| field_error(&field, m))?;
            reqwest::header::HeaderValue::from_str(&template.sample()).map_err(|_| {
                field_error(
                    &field,
                    "the value has characters a header cannot carry (control characters or \
                     non-ASCII text)",
                )
            })?;
            headers.push((header_name, template));
        }
        check_auth(&format!("{at}.endpoint.auth"), &endpoint.auth)?;
        let timeout = match endpoint.timeout_ms {
            Some(0) => {
                return Err(field_error(
                    format!("{at}.endpoint.timeout_ms"),
                    "must be more than 0 (leave it out for no endpoint timeout)",
                ))
            }
            other => other.map(Duration::from_millis),
        };
        let response = compile_response(&format!("{at}.endpoint.response"), &endpoint.response)?;
        methods.push(MethodMetadata {
            name: method.name.clone(),
            description: method.description.clone(),
            parameters: method.parameters.clone(),
            agent_callable: method.agent_callable,
            protocol_config: None,
            annotations: method
                .annotations
                .clone()
                .map(Into::into)
                .unwrap_or_default(),
            output_schema: None,
        });
        endpoints.push(EndpointSpec {
            method_name: method.name.clone(),
            http_method: endpoint.method,
            url,
            headers,
            auth: endpoint.auth.clone(),
            timeout,
            response,
            streamable: method.kind == ToolKind::Streamable,
        });
    }
    Ok(HttpToolSpec {
        info: ToolInfo {
            id: definition.id.clone(),
            name: if definition.name.is_empty() {
                definition.id.clone()
            } else {
                definition.name.clone()
            },
            description: definition.description.clone(),
            source: ToolSource::Http,
            methods,
        },
        enabled: definition.enabled,
        rate_limit,
        endpoints,
    })
}

fn check_rate_limit(limit: RateLimitDefinition) -> Result<RateLimit, FieldError> {
    if limit.requests == 0 {
        return Err(field_error(
            "rate_limit.requests",
            "must be at least 1 (leave rate_limit out for no limit)",
        ));
    }
    if !(1..=MAX_WINDOW_SECONDS).contains(&limit.window_seconds) {
        return Err(field_error(
            "rate_limit.window_seconds",
            format!(
                "must be from 1 to {MAX_WINDOW_SECONDS} (a day), got {}",
                limit.window_seconds
            ),
        ));
    }
    RateLimit::new(limit.requests, Duration::from_secs(limit.window_seconds))
        .ok_or_else(|| field_error("rate_limit", "is not a valid limit"))
}

/// When the schema lists `properties`, every placeholder must be one of them (catches typos).
fn check_placeholders_are_parameters(
    at: &str,
    url: &UrlTemplate,
    parameters: &Value,
) -> Result<(), FieldError> {
    let Some(properties) = parameters.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for name in url.placeholders() {
        if !properties.contains_key(name) {
            return Err(field_error(
                format!("{at}.endpoint.url"),
                format!(
                    "placeholder {{{name}}} is not a parameter: parameters.properties has {}",
                    if properties.is_empty() {
                        "none".to_owned()
                    } else {
                        properties.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

fn check_auth(field: &str, auth: &AuthDefinition) -> Result<(), FieldError> {
    let env = |name: &str, key: &str| {
        if is_env_name(name) {
            Ok(())
        } else {
            Err(field_error(
                format!("{field}.{key}"),
                format!("'{name}' is not an environment variable name (letters, digits, '_')"),
            ))
        }
    };
    match auth {
        AuthDefinition::None => Ok(()),
        AuthDefinition::Bearer { token_env } => env(token_env, "token_env"),
        AuthDefinition::ApiKey {
            key_env,
            header,
            query,
        } => {
            env(key_env, "key_env")?;
            match (header, query) {
                (Some(name), None) => reqwest::header::HeaderName::from_bytes(name.as_bytes())
                    .map(|_| ())
                    .map_err(|_| {
                        field_error(
                            format!("{field}.header"),
                            format!("'{name}' is not a valid header name"),
                        )
                    }),
                (None, Some(name)) if !name.is_empty() => Ok(()),
                (None, Some(_)) => Err(field_error(
                    format!("{field}.query"),
                    "the query parameter name is empty",
                )),
                _ => Err(field_error(
                    field,
                    "api_key needs exactly one of `header` (e.g. \"X-Api-Key\") or `query` \
                     (e.g. \"api_key\")",
                )),
            }
        }
        AuthDefinition::Basic {
            username,
            username_env,
            password_env,
        } => {
            env(password_env, "password_env")?;
            match (username, username_env) {
                (Some(_), None) => Ok(()),
                (None, Some(name)) => env(name, "username_env"),
                _ => Err(field_error(
                    field,
                    "basic needs exactly one of `username` (literal) or `username_env`",
                )),
            }
        }
    }
}

fn compile_response(
    field: &str,
    response: &ResponseDefinition,
) -> Result<ResponseSpec, FieldError> {
    if let Some(pointer) = &response.pointer {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(field_error(
                format!("{field}.pointer"),
                format!(
                    "'{pointer}' is not a JSON pointer: it must start with '/', e.g. /data/items"
                ),
            ));
        }
    }
    let fields = match &response.fields {
        None => None,
        Some(list) if list.is_empty() => {
            return Err(field_error(
                format!("{field}.fields"),
                "is empty: list the fields to keep, or leave it out to keep everything",
            ))
        }
        Some(list) => {
            let mut paths = Vec::with_capacity(list.len());
            for (i, path) in list.iter().enumerate() {
                let segments: Vec<String> = path.split('.').map(str::to_owned).collect();
                if segments.iter().any(String::is_empty) {
                    return Err(field_error(
                        format!("{field}.fields[{i}]"),
                        format!("'{path}' is not a field path such as 'name' or 'owner.login'"),
                    ));
                }
                paths.push(segments);
            }
            Some(paths)
        }
    };
    let max_bytes = match response.max_bytes {
        Some(0) => {
            return Err(field_error(
                format!("{field}.max_bytes"),
                "must be more than 0",
            ))
        }
        Some(n) => n,
        None => DEFAULT_MAX_RESPONSE_BYTES,
    };
    Ok(ResponseSpec {
        pointer: response.pointer.clone(),
        fields,
        max_bytes,
    })
}
