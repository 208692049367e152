//! JSON-Schema validation of arguments, reported as `- /path: message` lines (seed 001).

use serde_json::Value;

use toolscope_protocol::result::ArgumentIssue;

/// Every problem the validator finds, root problems at path `/`.
pub fn validate_args(validator: &jsonschema::Validator, args: &Value) -> Vec<ArgumentIssue> {
    validator
        .iter_errors(args)
        .map(|error| {
            let path = error.instance_path().as_str();
            ArgumentIssue {
                path: if path.is_empty() { "/" } else { path }.to_owned(),
                message: error.to_string(),
            }
        })
        .collect()
}

/// The seed's error text: a header line, then one `- /path: message` line per issue.
pub fn format_issues(issues: &[ArgumentIssue]) -> String {
    let mut text = String::from("Validation failed:");
    for issue in issues {
        text.push_str("\n- ");
        text.push_str(&issue.path);
        text.push_str(": ");
        text.push_str(&issue.message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_each_issue_with_its_pointer() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "lines": {"type": "object", "properties": {
                    "start": {"type": "integer", "minimum": 1},
                    "end": {"type": "integer", "minimum": 1}
                }}
            },
            "required": ["path", "mode"],
            "additionalProperties": false
        });
        let validator = jsonschema::validator_for(&schema).expect("valid schema");
        let issues = validate_args(
            &validator,
            &json!({"path": 123, "lines": {"start": 0, "end": -1}}),
        );
        let paths: Vec<&str> = issues.iter().map(|i| i.path.as_str()).collect();
        assert!(paths.contains(&"/path"), "{issues:?}");
        assert!(paths.contains(&"/lines/start"));
        assert!(paths.contains(&"/lines/end"));
        assert!(paths.contains(&"/"), "missing 'mode' is a root issue");
        let text = format_issues(&issues);
        assert!(text.starts_with("Validation failed:\n- "));
        assert!(
            text.contains("- /lines/start: 0 is less than the minimum of 1"),
            "{text}"
        );
        assert!(validate_args(&validator, &json!({"path": "a", "mode": 1})).len() == 1);
    }
}
