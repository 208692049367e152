//! Reading an elicitation's requested schema: its fields and choices as a person should see
//! them, an answer made of the schema's own defaults, and the check every answer passes before
//! it is sent.
//!
//! The schema is MCP's restricted form (a flat object of strings, numbers, booleans and enums).
//! Defaults follow SEP-1034: a field left out takes the schema's `default`. Enums follow
//! SEP-1330, which gives four shapes a front end must show with the right labels: a plain
//! `enum`, the legacy `enum` + `enumNames`, `oneOf` of `{const, title}` (titled single select),
//! and an `array` whose `items` carry `enum` or `anyOf` of `{const, title}` (multi select).
//! The CLI uses this to describe and to answer with `--yes`; the app's form reads the same
//! shapes in TypeScript and the answer is checked here again.

use serde_json::{Map, Value};
use toolscope_engine::executor::validate::validate_args;
use toolscope_engine::registry::compile_schema;

use crate::interaction::ElicitationRequest;

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<Value>,
    pub kind: FieldKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// `format` is one of `email`, `uri`, `date`, `date-time` when given.
    Text {
        format: Option<String>,
    },
    Number {
        integer: bool,
    },
    Boolean,
    /// One of these values.
    Choice {
        options: Vec<Choice>,
    },
    /// Any number of these values (within `minItems` / `maxItems` when given).
    MultiChoice {
        options: Vec<Choice>,
    },
    /// A type the restricted schema does not allow; shown as JSON.
    Other,
}

/// A value the person can pick, with the label the schema gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: Value,
    pub title: Option<String>,
}

/// The fields in the order the server listed them.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            title: text(property, "title"),
            description: text(property, "description"),
            required: required.contains(&name.as_str()),
            default: property.get("default").cloned(),
            kind: kind(property),
        })
        .collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn kind(property: &Value) -> FieldKind {
    if let Some(options) = choices(property) {
        return FieldKind::Choice { options };
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string") => FieldKind::Text {
            format: text(property, "format"),
        },
        Some("number") => FieldKind::Number { integer: false },
        Some("integer") => FieldKind::Number { integer: true },
        Some("boolean") => FieldKind::Boolean,
        Some("array") => match property.get("items").and_then(choices) {
            Some(options) => FieldKind::MultiChoice { options },
            None => FieldKind::Other,
        },
        _ => FieldKind::Other,
    }
}

/// The options of an enum in any of SEP-1330's shapes, or `None` if this is not one.
fn choices(schema: &Value) -> Option<Vec<Choice>> {
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = schema.get(key).and_then(Value::as_array) {
            return Some(
                variants
                    .iter()
                    .filter_map(|variant| {
                        Some(Choice {
                            value: variant.get("const")?.clone(),
                            title: text(variant, "title"),
                        })
                    })
                    .collect(),
            );
        }
    }
    let values = schema.get("enum").and_then(Value::as_array)?;
    let names = schema.get("enumNames").and_then(Value::as_array);
    Some(
        values
            .iter()
            .enumerate()
            .map(|(i, value)| Choice {
                value: value.clone(),
                title: names
                    .and_then(|names| names.get(i))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
            .collect(),
    )
}

/// Why an answer could not be made or would not be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("{}", unfillable(.0))]
    Unfillable(Vec<String>),
    #[error("the answer does not match the requested schema: {}", .0.join("; "))]
    Invalid(Vec<String>),
    #[error("the requested schema cannot be checked: {0}")]
    Schema(String),
}

fn unfillable(names: &[String]) -> String {
    let quoted = names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() == 1 {
        format!("the required field {quoted} has no default to fill it")
    } else {
        format!("the required fields {quoted} have no default to fill them")
    }
}

/// The answer a person who accepts everything as offered gives (SEP-1034): every field with a
/// default takes it, the others are left out. Fails if a required field has no default, or if
/// the defaults themselves do not satisfy the schema.
pub fn defaults_answer(schema: &Value) -> Result<Map<String, Value>, AnswerError> {
    let fields = fields(schema);
    let missing: Vec<String> = fields
        .iter()
        .filter(|f| f.required && f.default.is_none())
        .map(|f| f.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(AnswerError::Unfillable(missing));
    }
    let content: Map<String, Value> = fields
        .into_iter()
        .filter_map(|f| Some((f.name, f.default?)))
        .collect();
    check_answer(schema, &content)?;
    Ok(content)
}

/// Checks `content` against the requested schema (the spec's "what is sent validates").
pub fn check_answer(schema: &Value, content: &Map<String, Value>) -> Result<(), AnswerError> {
    let validator = compile_schema(schema).map_err(AnswerError::Schema)?;
    let issues = validate_args(&validator, &Value::Object(content.clone()));
    if issues.is_empty() {
        return Ok(());
    }
    Err(AnswerError::Invalid(
        issues
            .into_iter()
            .map(|issue| format!("{}: {}", issue.path, issue.message))
            .collect(),
    ))
}

/// The request in a few lines for a terminal: who asks, what, and each field with its type,
/// choices (with their labels) and default.
pub fn describe(request: &ElicitationRequest) -> String {
    let mut out = format!(
        "MCP server '{}' asks: {}",
        request.server,
        request.message.trim()
    );
    for field in fields(&request.requested_schema) {
        let label = match &field.title {
            Some(title) if title != &field.name => format!("{} ({title})", field.name),
            _ => field.name.clone(),
        };
        let kind = match &field.kind {
            FieldKind::Text { format: Some(f) } => format!("text, {f}"),
            FieldKind::Text { format: None } => "text".to_owned(),
            FieldKind::Number { integer: true } => "integer".to_owned(),
            FieldKind::Number { integer: false } => "number".to_owned(),
            FieldKind::Boolean => "yes/no".to_owned(),
            FieldKind::Choice { options } => format!("one of {}", show_choices(options)),
            FieldKind::MultiChoice { options } => format!("any of {}", show_choices(options)),
            FieldKind::Other => "JSON".to_owned(),
        };
        let required = if field.required { ", required" } else { "" };
        let default = field
            .default
            .as_ref()
            .map(|d| format!(", default {d}"))
            .unwrap_or_default();
        out.push_str(&format!("\n  - {label}: {kind}{required}{default}"));
    }
    out
}

fn show_choices(options: &[Choice]) -> String {
    options
        .iter()
        .map(|choice| match &choice.title {
            Some(title) => format!("{} ({title})", choice.value),
            None => choice.value.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shapes server-everything's `trigger-elicitation-request` sends.
    fn everything_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "String", "default": "Ada"},
                "check": {"type": "boolean"},
                "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
                "untitled": {"type": "string", "enum": ["Monica", "Rachel"], "default": "Monica"},
                "multi": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": ["Guitar", "Piano"]}, "default": ["Guitar"]},
                "titled": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Green Lantern"}], "default": "hero-2"},
                "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}]}, "default": ["fish-1"]},
                "legacy": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"], "default": "pet-1"}
            },
            "required": ["name"]
        })
    }

    #[test]
    fn every_sep_1330_enum_shape_keeps_its_labels() {
        let fields = fields(&everything_schema());
        let by_name = |name: &str| {
            fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| f.kind.clone())
                .expect("listed")
        };
        let titled = |value: &str, title: &str| Choice {
            value: json!(value),
            title: Some(title.into()),
        };
        assert_eq!(
            by_name("titled"),
            FieldKind::Choice {
                options: vec![
                    titled("hero-1", "Superman"),
                    titled("hero-2", "Green Lantern")
                ]
            }
        );
        assert_eq!(
            by_name("legacy"),
            FieldKind::Choice {
                options: vec![titled("pet-1", "Cats"), titled("pet-2", "Dogs")]
            }
        );
        assert_eq!(
            by_name("titledMulti"),
            FieldKind::MultiChoice {
                options: vec![titled("fish-1", "Tuna")]
            }
        );
        assert!(
            matches!(by_name("multi"), FieldKind::MultiChoice { options } if options.len() == 2 && options[0].title.is_none())
        );
        assert_eq!(by_name("check"), FieldKind::Boolean);
        assert_eq!(fields[0].name, "name", "the server's order is kept");
        assert!(fields[0].required);
    }

    #[test]
    fn defaults_fill_the_answer_and_validate() {
        let answer = defaults_answer(&everything_schema()).expect("fillable");
        assert_eq!(answer["name"], "Ada");
        assert_eq!(answer["titled"], "hero-2");
        assert_eq!(answer["multi"], json!(["Guitar"]));
        assert!(
            !answer.contains_key("check"),
            "no default, not required: left out"
        );
    }

    #[test]
    fn a_required_field_without_default_cannot_be_filled() {
        let schema = json!({"type": "object", "properties": {
            "interpretation": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
            "other": {"type": "string"}
        }, "required": ["interpretation", "other"]});
        let error = defaults_answer(&schema).expect_err("unfillable");
        assert_eq!(
            error.to_string(),
            "the required fields 'interpretation', 'other' have no default to fill them"
        );
    }

    #[test]
    fn answers_are_checked_against_the_schema_including_the_servers_own_defaults() {
        let schema = everything_schema();
        let mut content = Map::new();
        content.insert("name".into(), json!("Ada"));
        content.insert("integer".into(), json!(500));
        content.insert("titled".into(), json!("hero-9"));
        let Err(AnswerError::Invalid(issues)) = check_answer(&schema, &content) else {
            panic!("must fail");
        };
        assert_eq!(issues.len(), 2, "{issues:?}");
        assert!(issues[0].starts_with("/integer"), "{issues:?}");
        let broken =
            json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}});
        assert!(matches!(
            defaults_answer(&broken),
            Err(AnswerError::Invalid(_))
        ));
    }

    #[test]
    fn the_description_names_fields_choices_and_defaults() {
        let request = ElicitationRequest {
            server: "everything".into(),
            message: "Please provide inputs".into(),
            requested_schema: everything_schema(),
            task_id: None,
        };
        let text = describe(&request);
        assert!(
            text.starts_with("MCP server 'everything' asks: Please provide inputs"),
            "{text}"
        );
        assert!(
            text.contains("\n  - name (String): text, required, default \"Ada\""),
            "{text}"
        );
        assert!(
            text.contains("one of \"hero-1\" (Superman), \"hero-2\" (Green Lantern)"),
            "{text}"
        );
        assert!(text.contains("\"pet-1\" (Cats)"), "{text}");
    }
}
