//! What a model is told when its call fails, so it can correct itself (seed 001).
//!
//! A bare "invalid arguments" teaches a model nothing; the conversations that recover are the
//! ones where the error says what to do next: the names it could have meant, the failing paths
//! with the part of the schema they break, how long a tool may take. Each suggestion is one
//! short paragraph appended to the error the model sees (and shown beside it on screen).

use serde_json::Value;

use crate::naming::closest_names;
use toolscope_protocol::request::{Diagnostic, Severity};
use toolscope_protocol::result::{ErrorKind, ToolExecutionResult};

/// How many near names an unknown-name suggestion offers.
const NEAR_NAMES: usize = 3;
/// With no near name, the whole tool list is offered when it is this short.
const LISTED_NAMES: usize = 12;
/// A schema fragment longer than this is cut (the model has the full schema already).
const MAX_FRAGMENT: usize = 600;

/// The suggestion for a failed result, if its kind has one. `offered` are the names the model
/// was given; `schema` is the called method's parameter schema when it is known.
pub fn for_result(
    result: &ToolExecutionResult,
    offered: &[String],
    schema: Option<&Value>,
) -> Option<String> {
    let error = result.error.as_ref()?;
    let text = match error.kind {
        ErrorKind::InvalidName | ErrorKind::ToolNotFound | ErrorKind::MethodNotFound => {
            unknown_name(&result.tool_name, offered)
        }
        ErrorKind::InvalidArgs => {
            let mut text = String::from("Call it again with arguments that match its schema");
            let fragments: Vec<String> = error
                .issues
                .iter()
                .filter_map(|issue| {
                    let fragment = schema.and_then(|s| fragment_at(s, &issue.path))?;
                    Some(format!("{}: {}", display_path(&issue.path), fragment))
                })
                .collect();
            if error.issues.is_empty() {
                // The arguments could not be read at all: what to send, not the whole schema.
                text = "Send the call again with its arguments as one complete JSON object".to_owned();
                if let Some(outline) = schema.and_then(|s| fragment_at(s, "/")) {
                    text.push_str(" (");
                    text.push_str(&outline);
                    text.push(')');
                }
            } else if fragments.is_empty() {
                if let Some(schema) = schema {
                    text.push_str(": ");
                    text.push_str(&compact(schema));
                }
            } else {
                text.push_str(". Where it failed, the schema says:\n");
                text.push_str(&fragments.join("\n"));
            }
            text.push('.');
            text
        }
        ErrorKind::NotAgentCallable => {
            "This method is not for models to call; use another tool or answer without it."
                .to_owned()
        }
        ErrorKind::Denied => {
            "The user did not allow this call. Do not repeat it; continue without it or ask the user."
                .to_owned()
        }
        ErrorKind::Timeout => {
            "The tool ran out of time and was stopped. Retry once with a smaller or simpler request, or continue without this result."
                .to_owned()
        }
        ErrorKind::OutputTooLarge => {
            "The result was larger than the output limit. Ask for less (a narrower query, fewer items)."
                .to_owned()
        }
        ErrorKind::MemoryLimit => {
            "The tool ran out of the memory it is allowed. Retry with a smaller input, or continue without this result."
                .to_owned()
        }
        ErrorKind::Transport => {
            "The tool's server could not be reached. Retry later or continue without it.".to_owned()
        }
        ErrorKind::ToolError => {
            "The tool reported an error. Check the arguments against its description before retrying."
                .to_owned()
        }
        ErrorKind::Cancelled => return None,
    };
    Some(text)
}

/// Said when a reply held a call that could not be read and nothing ran.
pub fn for_parse_errors(diagnostics: &[Diagnostic], format_label: &str) -> Option<String> {
    let errors: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    if errors.is_empty() {
        return None;
    }
    Some(format!(
        "Your last reply tried to call a tool, but the call could not be read: {}. Write the call again, exactly in the {format_label} format the system prompt describes.",
        errors.join("; ")
    ))
}

/// Said when a native reply ended because the model's call was malformed (Gemini's
/// `MALFORMED_FUNCTION_CALL`): nothing arrived to run, but the model did try to call.
pub fn for_malformed_call(finish_reason: Option<&str>) -> Option<String> {
    (finish_reason == Some("MALFORMED_FUNCTION_CALL")).then(|| {
        "Your last function call was malformed and could not be read. Call the function again, with its arguments as one JSON object matching its parameters.".to_owned()
    })
}

fn unknown_name(name: &str, offered: &[String]) -> String {
    let near = closest_names(name, offered.iter().map(String::as_str), NEAR_NAMES);
    if !near.is_empty() {
        return format!(
            "There is no tool named '{name}'. Did you mean: {}?",
            near.join(", ")
        );
    }
    if offered.is_empty() {
        return format!("There is no tool named '{name}', and no tools are available.");
    }
    if offered.len() <= LISTED_NAMES {
        return format!(
            "There is no tool named '{name}'. The tools are: {}.",
            offered.join(", ")
        );
    }
    format!("There is no tool named '{name}'. Use one of the tools listed in the request.")
}

/// The part of `schema` that governs the value at JSON pointer `path` (`/a/0/b`), following
/// `properties` and `items`; for the object itself, its `required` and property names.
fn fragment_at(schema: &Value, path: &str) -> Option<String> {
    let mut node = schema;
    for segment in path.split('/').skip(1).filter(|s| !s.is_empty()) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        node = match node.get("properties").and_then(|p| p.get(&segment)) {
            Some(child) => child,
            None => match node.get("items") {
                Some(items) if segment.parse::<usize>().is_ok() => items,
                _ => return None,
            },
        };
    }
    if std::ptr::eq(node, schema) {
        let required = schema.get("required").map(compact);
        let properties: Vec<&str> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        return Some(format!(
            "required {}, properties [{}]",
            required.as_deref().unwrap_or("[]"),
            properties.join(", ")
        ));
    }
    Some(compact(node))
}

fn display_path(path: &str) -> &str {
    if path.is_empty() || path == "/" {
        "the arguments"
    } else {
        path
    }
}

fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= MAX_FRAGMENT {
        return text;
    }
    let mut end = MAX_FRAGMENT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolscope_protocol::request::{DiagnosticCode, Span};
    use toolscope_protocol::result::{ArgumentIssue, ExecutionError, ExecutionStatus};

    use super::*;

    fn failed(name: &str, kind: ErrorKind, issues: Vec<ArgumentIssue>) -> ToolExecutionResult {
        ToolExecutionResult {
            request_id: "r1".to_owned(),
            tool_name: name.to_owned(),
            status: ExecutionStatus::Error,
            result: "failed".to_owned(),
            duration_ms: 1.0,
            error: Some(ExecutionError {
                kind,
                message: "failed".to_owned(),
                issues,
            }),
            truncated: None,
        }
    }

    #[test]
    fn unknown_names_get_the_nearest_names_or_the_list() {
        let offered = vec![
            "weather_current".to_owned(),
            "calculator_evaluate".to_owned(),
        ];
        let near = for_result(
            &failed("weather_curent", ErrorKind::ToolNotFound, vec![]),
            &offered,
            None,
        );
        assert_eq!(
            near.as_deref(),
            Some("There is no tool named 'weather_curent'. Did you mean: weather_current?")
        );
        let none = for_result(
            &failed("translate", ErrorKind::MethodNotFound, vec![]),
            &offered,
            None,
        );
        assert!(
            none.is_some_and(|s| s.contains("The tools are: weather_current, calculator_evaluate"))
        );
    }

    #[test]
    fn invalid_arguments_show_the_schema_where_they_failed() {
        let schema = json!({
            "type": "object",
            "required": ["city"],
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
            }
        });
        let issues = vec![
            ArgumentIssue {
                path: "/days".to_owned(),
                message: "9 > 7".to_owned(),
            },
            ArgumentIssue {
                path: "/tags/0".to_owned(),
                message: "not in enum".to_owned(),
            },
            ArgumentIssue {
                path: "/".to_owned(),
                message: "city is required".to_owned(),
            },
        ];
        let text = for_result(
            &failed("w_f", ErrorKind::InvalidArgs, issues),
            &[],
            Some(&schema),
        )
        .expect("a suggestion");
        assert!(
            text.contains(r#"/days: {"type":"integer","minimum":1,"maximum":7}"#),
            "{text}"
        );
        assert!(
            text.contains(r#"/tags/0: {"type":"string","enum":["a","b"]}"#),
            "{text}"
        );
        assert!(
            text.contains(r#"the arguments: required ["city"], properties [city, days, tags]"#),
            "{text}"
        );
    }

    #[test]
    fn unreadable_calls_are_explained_and_warnings_are_not() {
        let diagnostic = |severity| Diagnostic {
            severity,
            code: DiagnosticCode::InvalidJson,
            message: "expected ',' at line 1".to_owned(),
            span: Span::new(0, 1),
        };
        assert!(for_parse_errors(&[diagnostic(Severity::Warning)], "Hermes").is_none());
        let text = for_parse_errors(&[diagnostic(Severity::Error)], "Hermes").expect("said");
        assert!(
            text.contains("expected ',' at line 1") && text.contains("Hermes"),
            "{text}"
        );
    }
}
