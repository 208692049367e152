//! The tools the agent was given (from the `tools/list` results it received) and the check of
//! a `tools/call` against them, with the engine's schema compiler and validator so the
//! messages read like the rest of Toolscope's.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use toolscope_engine::executor::validate::validate_args;
use toolscope_engine::registry::compile_schema;
use toolscope_protocol::result::ArgumentIssue;

#[derive(Debug, Deserialize)]
struct ListResult {
    #[serde(default)]
    tools: Vec<Listed>,
}

#[derive(Debug, Deserialize)]
struct Listed {
    name: String,
    #[serde(rename = "inputSchema", default)]
    input_schema: Option<Value>,
}

#[derive(Debug)]
struct Schema {
    schema: Option<Value>,
    /// Compiled on the first call of the tool; `None` inside when the schema does not compile
    /// (the call is then not judged: the fault is the server's, not the call's).
    compiled: Option<Option<jsonschema::Validator>>,
}

/// What the check of one call found.
#[derive(Debug, Clone, PartialEq)]
pub struct CallCheck {
    /// The tool was not in the last listing.
    pub unknown_tool: bool,
    pub issues: Vec<ArgumentIssue>,
}

/// The latest tool listing the agent received.
#[derive(Debug, Default)]
pub struct ToolSchemas {
    /// False until a `tools/list` result arrives: nothing to check calls against.
    known: bool,
    tools: HashMap<String, Schema>,
}

impl ToolSchemas {
    /// Takes in a `tools/list` result; a first page replaces the listing, a follow-up page
    /// (`page`) adds to it. Returns the names it listed.
    pub fn listed(&mut self, result: &str, page: bool) -> Vec<String> {
        let Ok(list) = serde_json::from_str::<ListResult>(result) else {
            return Vec::new();
        };
        if !page {
            self.tools.clear();
        }
        self.known = true;
        list.tools
            .into_iter()
            .map(|tool| {
                let name = tool.name;
                self.tools.insert(
                    name.clone(),
                    Schema {
                        schema: tool.input_schema,
                        compiled: None,
                    },
                );
                name
            })
            .collect()
    }

    /// Checks `args` (absent = `{}`) of a call to `tool`; `None` when there is nothing to
    /// report (valid, or no listing to judge by).
    pub fn check(&mut self, tool: &str, args: Option<&Value>) -> Option<CallCheck> {
        if !self.known {
            return None;
        }
        let Some(entry) = self.tools.get_mut(tool) else {
            return Some(CallCheck {
                unknown_tool: true,
                issues: vec![ArgumentIssue {
                    path: "/".to_owned(),
                    message: format!(
                        "tool '{tool}' is not in the tools/list result the agent received"
                    ),
                }],
            });
        };
        let validator = entry
            .compiled
            .get_or_insert_with(|| entry.schema.as_ref().and_then(|s| compile_schema(s).ok()))
            .as_ref()?;
        let empty = Value::Object(Default::default());
        let issues = validate_args(validator, args.unwrap_or(&empty));
        (!issues.is_empty()).then_some(CallCheck {
            unknown_tool: false,
            issues,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_against_the_latest_listing_and_its_pages() {
        let mut tools = ToolSchemas::default();
        assert_eq!(tools.check("sum", Some(&json!({}))), None, "no listing yet");
        let names = tools.listed(
            r#"{"tools":[{"name":"sum","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}}]}"#,
            false,
        );
        assert_eq!(names, ["sum"]);
        assert_eq!(tools.check("sum", Some(&json!({"a": 1}))), None);
        let bad = tools
            .check("sum", Some(&json!({"a": "one"})))
            .expect("invalid");
        assert!(!bad.unknown_tool);
        assert_eq!(bad.issues[0].path, "/a");
        assert!(tools.check("sum", None).is_some(), "missing required a");
        assert!(tools.check("other", None).expect("unknown").unknown_tool);
        tools.listed(
            r#"{"tools":[{"name":"other","inputSchema":{"type":"object"}}]}"#,
            true,
        );
        assert_eq!(tools.check("other", None), None, "a page adds");
        assert!(tools.check("sum", Some(&json!({"a": 1}))).is_none());
        tools.listed(r#"{"tools":[]}"#, false);
        assert!(tools.check("sum", None).expect("gone").unknown_tool);
    }
}
