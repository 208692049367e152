//! The single-endpoint form of seed 004 (`url_template`, `timeout` in seconds,
//! `response_transform`), kept so definitions written for that design load unchanged.
//!
//! A flat file becomes a [`ToolDefinition`] with one method named [`FLAT_METHOD_NAME`], so the
//! routing name is `{id}_call`. Error field paths are translated back to the flat spelling.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;

use super::{
    object_schema, AnnotationsDefinition, AuthDefinition, EndpointDefinition, HttpMethod,
    MethodDefinition, RateLimitDefinition, ResponseDefinition, ToolDefinition, ToolKind,
};

/// The method name a flat definition's single endpoint gets.
pub const FLAT_METHOD_NAME: &str = "call";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlatToolDefinition {
    /// Tool id; the `name` when absent (seed 004 uses `name` as the unique machine name).
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    description: String,
    /// `invokable` (default) or `streamable`; `null` (a nullable column) is the default.
    #[serde(default, rename = "type")]
    kind: Option<ToolKind>,
    /// `null` (the seed's nullable JSONB column) means no limit.
    #[serde(default)]
    rate_limit: Option<RateLimitDefinition>,
    /// Seed fields accepted so a row of its `tools` table loads as it is, and not used: the
    /// registry has no place for a category, version or tags, and the timestamps are the
    /// database's bookkeeping.
    #[serde(default, rename = "category")]
    _category: Option<IgnoredAny>,
    #[serde(default, rename = "version")]
    _version: Option<IgnoredAny>,
    #[serde(default, rename = "tags")]
    _tags: Option<IgnoredAny>,
    #[serde(default, rename = "created_at")]
    _created_at: Option<IgnoredAny>,
    #[serde(default, rename = "updated_at")]
    _updated_at: Option<IgnoredAny>,
    endpoint: FlatEndpoint,
    #[serde(default = "object_schema")]
    parameters: Value,
    #[serde(default)]
    response_transform: Option<ResponseDefinition>,
    #[serde(default)]
    annotations: Option<AnnotationsDefinition>,
    #[serde(default = "yes")]
    enabled: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FlatEndpoint {
    url_template: String,
    #[serde(default)]
    method: HttpMethod,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `null` is accepted (the seed's pointer field) and means no auth.
    #[serde(default)]
    auth: Option<AuthDefinition>,
    /// Seconds, as the seed's integer `timeout`.
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

fn yes() -> bool {
    true
}

impl FlatToolDefinition {
    pub fn into_tool_definition(self) -> ToolDefinition {
        let timeout_ms = self
            .endpoint
            .timeout_ms
            .or_else(|| self.endpoint.timeout.map(|s| s.saturating_mul(1000)));
        ToolDefinition {
            id: self.id.unwrap_or_else(|| self.name.clone()),
            name: self.display_name.unwrap_or(self.name),
            description: self.description.clone(),
            enabled: self.enabled,
            rate_limit: self.rate_limit,
            methods: vec![MethodDefinition {
                name: FLAT_METHOD_NAME.to_owned(),
                description: self.description,
                parameters: self.parameters,
                annotations: self.annotations,
                agent_callable: true,
                kind: self.kind.unwrap_or_default(),
                endpoint: EndpointDefinition {
                    url: self.endpoint.url_template,
                    method: self.endpoint.method,
                    headers: self.endpoint.headers,
                    auth: self.endpoint.auth.unwrap_or_default(),
                    timeout_ms,
                    response: self.response_transform.unwrap_or_default(),
                },
            }],
        }
    }
}

/// Maps a field path of the converted definition back to where it is in the flat file.
pub fn flat_field_path(path: &str) -> String {
    const PREFIX: &str = "methods[0].";
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return path.to_owned();
    };
    for (converted, flat) in [
        ("endpoint.url", "endpoint.url_template"),
        ("endpoint.timeout_ms", "endpoint.timeout"),
        ("endpoint.response", "response_transform"),
    ] {
        if let Some(tail) = rest.strip_prefix(converted) {
            return format!("{flat}{tail}");
        }
    }
    rest.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_field_paths_back_to_the_flat_spelling() {
        assert_eq!(
            flat_field_path("methods[0].endpoint.url"),
            "endpoint.url_template"
        );
        assert_eq!(
            flat_field_path("methods[0].endpoint.response.pointer"),
            "response_transform.pointer"
        );
        assert_eq!(flat_field_path("methods[0].endpoint.auth"), "endpoint.auth");
        assert_eq!(flat_field_path("methods[0].parameters"), "parameters");
        assert_eq!(flat_field_path("id"), "id");
    }
}
