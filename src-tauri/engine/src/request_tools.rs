//! Checking a parsed reply against the tools its request carried, as a serving stack would.
//!
//! A person debugging their agent has the request that produced a reply: its `tools`, under the
//! names the model was shown (`get_weather`, not a routing name). Those tools, not the registry,
//! then decide what a call means: a value of a text format (XML-style parameters, VCP) is typed
//! from the request's schema, the arguments are validated against it, and a call to a tool the
//! request does not define stays visible with an `unknown_tool` warning (never dropped), with the
//! closest names the request does define. When the tools come from an imported set, each also
//! knows the routing name of its method, so the checked calls can be run against the set's mocks.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::request::{Diagnostic, DiagnosticCode, ParsedToolRequest, Severity};
use toolscope_protocol::result::{ErrorKind, ExecutionError};

use crate::executor::suggest;
use crate::executor::validate::{format_issues, validate_args};
use crate::naming::closest_names;
use crate::registry::compile_schema;

/// Whether a parsed request would run: `None` when its tool is known and its arguments valid.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RequestCheck {
    pub request_id: String,
    pub error: Option<ExecutionError>,
    /// The registry method a call to a request tool runs as (an imported set's), when it is
    /// not the call's own name.
    pub routing_name: Option<String>,
}

/// One tool of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestTool {
    /// The name the model was given and calls.
    pub name: String,
    /// Its argument schema (JSON Schema).
    pub parameters: Value,
    /// The registry method it stands for (an imported set's), when calls to it can run.
    pub routing_name: Option<String>,
}

struct Entry {
    tool: RequestTool,
    validator: OnceLock<Result<Arc<jsonschema::Validator>, String>>,
}

/// The tools of one request, by the names the model sees.
pub struct RequestTools {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

impl std::fmt::Debug for RequestTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// How many near names an unknown-tool message offers.
const SUGGESTIONS: usize = 3;

impl RequestTools {
    /// The first definition of a name wins; later ones with the same name are ignored.
    pub fn new(tools: impl IntoIterator<Item = RequestTool>) -> Self {
        let mut entries = Vec::new();
        let mut by_name = HashMap::new();
        for tool in tools {
            if by_name.contains_key(&tool.name) {
                continue;
            }
            by_name.insert(tool.name.clone(), entries.len());
            entries.push(Entry {
                tool,
                validator: OnceLock::new(),
            });
        }
        Self { entries, by_name }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&RequestTool> {
        self.by_name.get(name).map(|&i| &self.entries[i].tool)
    }

    /// The argument schema of the tool `name`, as [`crate::Registry::parameters_of`] gives a
    /// method's.
    pub fn parameters_of(&self, name: &str) -> Option<Value> {
        self.get(name).map(|tool| tool.parameters.clone())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.tool.name.as_str())
    }

    /// Types the report's text values from the request's schemas, adds an `unknown_tool`
    /// warning for each call to a tool the request does not define, and says of each request
    /// whether it is valid.
    pub fn check(&self, report: &mut ParseReport) -> Vec<RequestCheck> {
        parser::type_arguments(report, |name| self.parameters_of(name));
        let mut unknown = Vec::new();
        let checks = report
            .requests
            .iter()
            .map(|request| {
                let error = match self.by_name.get(&request.tool_name) {
                    Some(&index) => self.validate(&self.entries[index], request),
                    None => {
                        let message = self.unknown_message(&request.tool_name);
                        unknown.push(Diagnostic {
                            severity: Severity::Warning,
                            code: DiagnosticCode::UnknownTool,
                            message: format!(
                                "{message}; kept here so you see it, though a serving stack \
                                 may drop it (SGLang does by default; strict parsing does too)"
                            ),
                            span: request.span,
                        });
                        Some(
                            ExecutionError::new(ErrorKind::ToolNotFound, message).with_suggestion(
                                Some(suggest::unknown_name(&request.tool_name, self.names())),
                            ),
                        )
                    }
                };
                RequestCheck {
                    request_id: request.request_id.clone(),
                    error,
                    routing_name: self
                        .get(&request.tool_name)
                        .and_then(|tool| tool.routing_name.clone()),
                }
            })
            .collect();
        report.diagnostics.extend(unknown);
        report.diagnostics.sort_by_key(|d| d.span.start);
        checks
    }

    /// [`RequestTools::check`] after strict parsing ([`crate::strict`]): calls cut off or to
    /// tools the request does not define are dropped, each with an error where it was.
    pub fn check_strict(&self, report: &mut ParseReport) -> Vec<RequestCheck> {
        crate::strict::apply(report, |name| match self.by_name.contains_key(name) {
            true => Ok(()),
            false => Err(self.unknown_message(name)),
        });
        self.check(report)
    }

    /// The request addressed to the registry method its tool stands for, when there is one.
    pub fn routed(&self, request: &ParsedToolRequest) -> Option<ParsedToolRequest> {
        let routing = self.get(&request.tool_name)?.routing_name.as_ref()?;
        let mut routed = request.clone();
        routed.tool_name.clone_from(routing);
        Some(routed)
    }

    fn validate(&self, entry: &Entry, request: &ParsedToolRequest) -> Option<ExecutionError> {
        let validator = entry.validator.get_or_init(|| {
            compile_schema(&entry.tool.parameters)
                .map(Arc::new)
                .map_err(|e| {
                    format!(
                        "the request's schema of '{}' is invalid: {e}",
                        entry.tool.name
                    )
                })
        });
        let validator = match validator {
            Ok(validator) => validator,
            Err(message) => {
                return Some(
                    ExecutionError::new(ErrorKind::InvalidArgs, message.clone()).with_suggestion(
                        Some(
                            "The request's own schema for this tool does not compile: fix the \
                             tool definition in the request."
                                .to_owned(),
                        ),
                    ),
                )
            }
        };
        let issues = validate_args(validator, &Value::Object(request.args.clone()));
        (!issues.is_empty()).then(|| ExecutionError {
            kind: ErrorKind::InvalidArgs,
            message: format_issues(&issues),
            suggestion: Some(suggest::invalid_args(&issues, Some(&entry.tool.parameters))),
            issues,
        })
    }

    fn unknown_message(&self, name: &str) -> String {
        let count = self.entries.len();
        let mut message = if count == 0 {
            format!("'{name}' is not a tool of the request, which defines none")
        } else {
            format!("'{name}' is not among the request's {count} tool(s)")
        };
        let closest = closest_names(name, self.names(), SUGGESTIONS);
        if !closest.is_empty() {
            message.push_str(&format!("; closest: {}", closest.join(", ")));
        }
        message
    }
}

#[cfg(test)]
mod tests;
