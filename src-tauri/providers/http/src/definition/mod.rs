//! The on-disk format of an HTTP tool: one `.json` or `.toml` file defines one tool.
//!
//! This module exists so that everything a user can write in a definition file is spelled out
//! in one place, as serde types with `deny_unknown_fields` (a typo such as `timeout_sm` is an
//! error, not a silently ignored key). Parsing turns a file into a [`ToolDefinition`], checks it
//! ([`compile`]) and yields an [`HttpToolSpec`] that is ready to run. The single-endpoint form of
//! seed 004 is accepted too ([`flat`]) and becomes a tool with one method named `call`.
//! Seed 004's `rate_limit` and `type = "streamable"` are honoured in both forms.
//!
//! Secrets never live in a file: auth names the environment variables that hold them.

pub mod compile;
pub mod flat;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use compile::{EndpointSpec, HttpToolSpec};
// Shared with other tool-file formats; re-exported so these paths keep working.
pub use toolscope_engine::file_tools::document::{AnnotationsDefinition, FileFormat};

use toolscope_engine::file_tools::document::{from_value, TOP_LEVEL};

/// Default cap on the response body that is read (4 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;

/// A tool with one or more HTTP-backed methods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDefinition {
    /// Tool id: letters, digits, `-`, `_`, `.`.
    pub id: String,
    /// Display name; the id when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A disabled tool is not registered.
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// At most this many calls of the tool (all methods together) start per window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitDefinition>,
    pub methods: Vec<MethodDefinition>,
}

/// Seed 004's `rate_limit` column, whose shape the seed leaves open: `requests` calls per
/// `window_seconds` (see docs/http-tools.md for why this shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitDefinition {
    pub requests: u32,
    pub window_seconds: u64,
}

/// Seed 004's tool types: an `invokable` call returns its result at once; a `streamable`
/// one returns it incrementally, so its body is read as it arrives and shown as progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    #[default]
    Invokable,
    Streamable,
}

impl ToolKind {
    fn is_invokable(&self) -> bool {
        *self == Self::Invokable
    }
}

/// One method: metadata shown to a model plus the endpoint it calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodDefinition {
    /// Method name; no `_` (routing names `{toolId}_{methodName}` split at the last `_`).
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the arguments object.
    #[serde(default = "object_schema")]
    pub parameters: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<AnnotationsDefinition>,
    /// Whether a model may call it (default true).
    #[serde(default = "enabled_by_default")]
    pub agent_callable: bool,
    /// `streamable`: the response body is reported as progress while it arrives.
    #[serde(
        default,
        rename = "type",
        skip_serializing_if = "ToolKind::is_invokable"
    )]
    pub kind: ToolKind,
    pub endpoint: EndpointDefinition,
}

/// Where and how a method sends its request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointDefinition {
    /// URL template; `{param}` placeholders are replaced by percent-encoded arguments.
    pub url: String,
    #[serde(default)]
    pub method: HttpMethod,
    /// Literal header values; `${ENV_VAR}` is replaced from the environment at call time.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub auth: AuthDefinition,
    /// Per-endpoint timeout; the executor's own timeout applies as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub response: ResponseDefinition,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum HttpMethod {
    #[default]
    #[serde(rename = "GET", alias = "get")]
    Get,
    #[serde(rename = "POST", alias = "post")]
    Post,
    #[serde(rename = "PUT", alias = "put")]
    Put,
    #[serde(rename = "PATCH", alias = "patch")]
    Patch,
    #[serde(rename = "DELETE", alias = "delete")]
    Delete,
}

impl HttpMethod {
    /// Whether arguments not used by the URL go into a JSON body (else the query string).
    pub fn sends_body(self) -> bool {
        matches!(self, Self::Post | Self::Put | Self::Patch)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }
}

/// How a request authenticates. Every secret comes from an environment variable named here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AuthDefinition {
    #[default]
    None,
    /// `Authorization: Bearer <token>`.
    Bearer { token_env: String },
    /// The key in a header (`header = "X-Api-Key"`) or a query parameter (`query = "api_key"`).
    ApiKey {
        key_env: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        header: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        query: Option<String>,
    },
    /// HTTP Basic; the user name may be literal (`username`) or from `username_env`.
    Basic {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        username_env: Option<String>,
        password_env: String,
    },
}

/// What is kept of a response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseDefinition {
    /// JSON pointer into the response (`/data/items`); applied before `fields`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Dotted paths (`a`, `b.c`) kept from an object, or from each object of an array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Cap on the body read (default 4 MiB); a larger response fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

/// Why a definition file could not become a tool. Every variant names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    #[error("{}: cannot read the file: {message}", file.display())]
    Unreadable { file: PathBuf, message: String },
    #[error("{}: not a definition file: the name must end in .json or .toml", file.display())]
    UnsupportedExtension { file: PathBuf },
    #[error("{}: invalid {format}: {message}", file.display())]
    Syntax {
        file: PathBuf,
        format: FileFormat,
        message: String,
    },
    /// A field has the wrong type or value; `field` is a path such as `methods[0].endpoint.url`.
    #[error("{}: {field}: {message}", file.display())]
    Invalid {
        file: PathBuf,
        field: String,
        message: String,
    },
}

impl DefinitionError {
    pub fn file(&self) -> &Path {
        match self {
            Self::Unreadable { file, .. }
            | Self::UnsupportedExtension { file }
            | Self::Syntax { file, .. }
            | Self::Invalid { file, .. } => file,
        }
    }

    /// The field path for [`Self::Invalid`].
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// Reads and checks one definition file.
pub fn load_file(file: &Path) -> Result<HttpToolSpec, DefinitionError> {
    let format =
        FileFormat::from_path(file).ok_or_else(|| DefinitionError::UnsupportedExtension {
            file: file.to_owned(),
        })?;
    let text = std::fs::read_to_string(file).map_err(|e| DefinitionError::Unreadable {
        file: file.to_owned(),
        message: e.to_string(),
    })?;
    parse(file, format, &text)
}

/// Parses and checks definition text; `file` is only used in messages.
pub fn parse(file: &Path, format: FileFormat, text: &str) -> Result<HttpToolSpec, DefinitionError> {
    let document = parse_document(file, format, text)?;
    let invalid = |field: &str, message: String| DefinitionError::Invalid {
        file: file.to_owned(),
        field: field.to_owned(),
        message,
    };
    let Value::Object(top) = &document else {
        return Err(invalid(
            TOP_LEVEL,
            format!(
                "expected a table/object, got {}",
                toolscope_protocol::request::json_kind(&document)
            ),
        ));
    };
    match (top.contains_key("methods"), top.contains_key("endpoint")) {
        (true, false) => {
            let definition: ToolDefinition = typed(file, document)?;
            compile::compile(&definition).map_err(|e| invalid(&e.field, e.message))
        }
        (false, true) => {
            let definition: flat::FlatToolDefinition = typed(file, document)?;
            let converted = definition.into_tool_definition();
            compile::compile(&converted)
                .map_err(|e| invalid(&flat::flat_field_path(&e.field), e.message))
        }
        (true, true) => Err(invalid(
            TOP_LEVEL,
            "has both `methods` and `endpoint`: use `methods` (each with its own endpoint), or \
             the single-endpoint form with `endpoint` alone"
                .to_owned(),
        )),
        (false, false) => Err(invalid(
            TOP_LEVEL,
            "missing `methods` (a list of methods, each with an `endpoint`), or `endpoint` for \
             the single-endpoint form"
                .to_owned(),
        )),
    }
}

/// Syntax only: the file as a JSON value (TOML is read into the same shape).
fn parse_document(file: &Path, format: FileFormat, text: &str) -> Result<Value, DefinitionError> {
    format
        .parse_value(text)
        .map_err(|message| DefinitionError::Syntax {
            file: file.to_owned(),
            format,
            message,
        })
}

/// Deserialises with the path of the offending field in the error.
fn typed<T: serde::de::DeserializeOwned>(
    file: &Path,
    document: Value,
) -> Result<T, DefinitionError> {
    from_value(document).map_err(|e| {
        let mut message = e.message;
        if e.field.contains("auth") && message.starts_with("unknown field") {
            message.push_str(
                " (secrets are never written in the file: name the environment variable that \
                 holds them, e.g. token_env, key_env, password_env)",
            );
        }
        DefinitionError::Invalid {
            file: file.to_owned(),
            field: e.field,
            message,
        }
    })
}

fn enabled_by_default() -> bool {
    true
}

pub(crate) fn object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

#[cfg(test)]
mod tests;
