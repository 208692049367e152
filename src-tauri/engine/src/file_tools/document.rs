//! What every tool-file format shares: the two syntaxes a person may write a tool file in,
//! typed reading that names the offending field, and the checks and fragments that do not
//! depend on what the tool does (ids, method names, annotations).
//!
//! It exists so that an HTTP tool file and a WASM tool manifest reject the same mistakes with
//! the same words: a file format's own fields live in its provider, the rest lives here.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The two syntaxes a tool file may be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileFormat {
    Json,
    Toml,
}

impl FileFormat {
    /// The format a file name's extension says, if it is `.json` or `.toml` (any case).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(Self::Json),
            "toml" => Some(Self::Toml),
            _ => None,
        }
    }

    /// Syntax only: the text as a JSON value (TOML is read into the same shape), so checks
    /// that look at the document's shape before typing it work the same for both formats.
    /// The error is the parser's message.
    pub fn parse_value(self, text: &str) -> Result<Value, String> {
        match self {
            Self::Json => serde_json::from_str(text).map_err(|e| e.to_string()),
            // TOML messages end with a source excerpt and a newline; the trim keeps reports tidy.
            Self::Toml => toml::from_str(text).map_err(|e| e.to_string().trim().to_owned()),
        }
    }

    /// Parses `text` and deserialises it into `T`, with the path of the offending field when
    /// the syntax is fine but a value is not.
    pub fn read<T: DeserializeOwned>(self, text: &str) -> Result<T, DocumentError> {
        let document = self
            .parse_value(text)
            .map_err(|message| DocumentError::Syntax {
                format: self,
                message,
            })?;
        from_value(document).map_err(DocumentError::Field)
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Json => "JSON",
            Self::Toml => "TOML",
        })
    }
}

/// A problem at a field path such as `methods[0].endpoint.url` (`(top level)` for the whole
/// document).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Why [`FileFormat::read`] could not produce a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    #[error("invalid {format}: {message}")]
    Syntax { format: FileFormat, message: String },
    #[error(transparent)]
    Field(FieldError),
}

/// The field path a whole-document error is reported at.
pub const TOP_LEVEL: &str = "(top level)";

/// Deserialises a parsed document with the path of the offending field in the error, so a
/// person is told where in their file the wrong value is, not only what is wrong.
pub fn from_value<T: DeserializeOwned>(document: Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize(document).map_err(|e| {
        let field = match e.path().to_string() {
            path if path == "." || path.is_empty() => TOP_LEVEL.to_owned(),
            path => path,
        };
        FieldError::new(field, e.inner().to_string())
    })
}

/// Tool ids: letters, digits, `-`, `_`, `.`, not empty (what the registry accepts, checked at
/// load time so the file, not the registry, is blamed).
pub fn check_tool_id(id: &str) -> Result<(), FieldError> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(FieldError::new(
            "id",
            format!("'{id}' is not a tool id: use letters, digits, '-', '_' or '.', not empty"),
        ));
    }
    Ok(())
}

/// Method names: letters, digits, `-`, `.`; no `_`, because routing names
/// `{toolId}_{methodName}` split at the last `_`. `field` is where the name sits in the file.
pub fn check_method_name(field: &str, name: &str) -> Result<(), FieldError> {
    let problem = if name.is_empty() {
        "it is empty"
    } else if name.contains('_') {
        "'_' is not allowed: routing names are {toolId}_{methodName}, split at the last '_' \
         (use '-' or camelCase instead)"
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
    {
        "use letters, digits, '-' or '.'"
    } else {
        return Ok(());
    };
    Err(FieldError::new(
        field,
        format!("method name '{name}': {problem}"),
    ))
}

/// The engine's behaviour hints, with unknown keys refused (a misspelt `destructive` must not
/// pass silently).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationsDefinition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl From<AnnotationsDefinition> for toolscope_protocol::method::Annotations {
    fn from(a: AnnotationsDefinition) -> Self {
        Self {
            read_only: a.read_only,
            destructive: a.destructive,
            idempotent: a.idempotent,
            open_world: a.open_world,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[allow(dead_code)]
        id: String,
        #[serde(default)]
        annotations: Option<AnnotationsDefinition>,
    }

    #[test]
    fn formats_come_from_the_extension_in_any_case() {
        assert_eq!(
            FileFormat::from_path(Path::new("a/b.JSON")),
            Some(FileFormat::Json)
        );
        assert_eq!(
            FileFormat::from_path(Path::new("b.toml")),
            Some(FileFormat::Toml)
        );
        assert_eq!(FileFormat::from_path(Path::new("b.yaml")), None);
        assert_eq!(FileFormat::from_path(Path::new("toml")), None);
        assert_eq!(FileFormat::Toml.to_string(), "TOML");
    }

    #[test]
    fn reading_names_the_syntax_or_the_field_at_fault() {
        let doc: Doc = FileFormat::Toml
            .read("id = \"t\"\nannotations = { read_only = true }")
            .expect("valid");
        assert_eq!(
            doc.annotations
                .map(toolscope_protocol::method::Annotations::from),
            Some(toolscope_protocol::method::Annotations {
                read_only: Some(true),
                ..Default::default()
            })
        );
        let syntax = FileFormat::Json
            .read::<Doc>("{\"id\": ")
            .expect_err("broken");
        assert!(
            matches!(
                &syntax,
                DocumentError::Syntax {
                    format: FileFormat::Json,
                    ..
                }
            ),
            "{syntax:?}"
        );
        let field = FileFormat::Json
            .read::<Doc>(r#"{"id": "t", "annotations": {"destructiv": true}}"#)
            .expect_err("misspelt");
        let DocumentError::Field(field) = field else {
            panic!("expected a field error, got {field:?}");
        };
        assert_eq!(field.field, "annotations.destructiv");
        assert!(field.message.contains("destructiv"), "{}", field.message);
        let top = FileFormat::Json
            .read::<Doc>("\"a string\"")
            .expect_err("not a table");
        assert!(
            matches!(&top, DocumentError::Field(e) if e.field == TOP_LEVEL),
            "{top:?}"
        );
    }

    #[test]
    fn ids_and_method_names_follow_the_routing_rules() {
        assert!(check_tool_id("my_tool.v2-x").is_ok());
        for bad in ["", "a b", "ä"] {
            assert_eq!(check_tool_id(bad).map_err(|e| e.field), Err("id".into()));
        }
        assert!(check_method_name("m", "get-item.v2").is_ok());
        let underscore = check_method_name("methods[0].name", "get_item").expect_err("has _");
        assert_eq!(underscore.field, "methods[0].name");
        assert!(underscore.message.contains("'_' is not allowed"));
        assert!(check_method_name("m", "").is_err());
        assert!(check_method_name("m", "a/b").is_err());
    }
}
