//! Formats a person describes in a file instead of code: teams fine-tune models with their own
//! call syntax and should not have to patch a serving stack to see those calls parsed.
//!
//! A description (TOML, see [`spec`]) names the markers around a call, optionally a regex with
//! `name` / `arguments` / `id` groups applied inside each block, the arguments' encoding (JSON,
//! `key=value` lines, or `<parameter=…>` elements), reasoning blocks and structural tokens to
//! skip, and how results go back. It becomes a [`Framing`] for the shared scanner, so a declared
//! format streams, is auto-detected by its markers, reports unclosed blocks and is fuzzed and
//! benchmarked exactly like a built-in one. Problems in the file are reported by line.
//!
//! Reading files, watching them and choosing where they live is the caller's business (this
//! crate does no I/O): hand [`DeclaredFormat::from_toml`] the text.

use std::sync::Arc;

use crate::framing::{Block, Close, Framing, Rule};
use crate::prompt::{function_definitions, result_value};
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

mod body;
mod intern;
pub mod spec;

use spec::Spec;
pub use spec::{Encoding, SpecError};

/// A format read from a description.
#[derive(Debug, Clone)]
pub struct DeclaredFormat {
    id: &'static str,
    label: &'static str,
    framing: Framing,
    /// Index of the call rule in the framing.
    call_rule: usize,
    spec: Arc<Spec>,
}

/// The example descriptions shipped in `examples/formats/`, built in so the tests, the fuzz
/// targets and the benches cover declared formats like the built-in ones.
pub const EXAMPLES: [(&str, &str); 2] = [
    (
        "react_action.toml",
        include_str!("../../../../examples/formats/react_action.toml"),
    ),
    (
        "acme_xml.toml",
        include_str!("../../../../examples/formats/acme_xml.toml"),
    ),
];

/// The examples as formats (each is valid: a test says so).
pub fn examples() -> Vec<Arc<dyn Protocol>> {
    EXAMPLES
        .iter()
        .filter_map(|(_, source)| DeclaredFormat::from_toml(source).ok())
        .map(|format| Arc::new(format) as Arc<dyn Protocol>)
        .collect()
}

impl DeclaredFormat {
    pub fn from_toml(source: &str) -> Result<Self, SpecError> {
        let spec = Spec::from_toml(source)?;
        let mut rules: Vec<Rule> = spec
            .reasoning
            .iter()
            .map(|(open, close)| Rule::reasoning(intern::string(open), intern::string(close)))
            .collect();
        let close = match (&spec.end, &spec.json_after) {
            (Some(end), _) => Close::Marker(intern::string(end)),
            (None, Some(after)) => Close::Balanced {
                after: intern::string(after),
                syntax: crate::balanced::Syntax::Json,
            },
            (None, None) => Close::UntilNext,
        };
        let call_rule = rules.len();
        rules.push(Rule::call(intern::string(&spec.start), close).lenient());
        rules.extend(spec.tokens.iter().map(|t| Rule::token(intern::string(t))));
        Ok(Self {
            id: intern::string(&spec.id),
            label: intern::string(&spec.label),
            framing: Framing {
                rules: intern::rules(rules),
            },
            call_rule,
            spec: Arc::new(spec),
        })
    }

    /// How the format writes its arguments.
    pub fn encoding(&self) -> Encoding {
        self.spec.encoding
    }

    fn call_example(&self) -> String {
        let end = self.spec.end.as_deref().unwrap_or("");
        let body = match (self.spec.encoding, self.spec.regex.is_some()) {
            (Encoding::Json, false) => {
                "{\"name\": <function-name>, \"arguments\": <args-json-object>}".to_owned()
            }
            (Encoding::Json, true) => {
                "<function-name> and its arguments as a JSON object".to_owned()
            }
            (Encoding::KeyValue, _) => format!(
                "<function-name>, then one argument per line as key{}value",
                self.spec.assignment
            ),
            (Encoding::XmlParameters, _) => format!(
                "<function-name>, then each argument as {}key>value{}",
                self.spec.parameter_open, self.spec.parameter_close
            ),
        };
        format!("{}{body}{end}", self.spec.start)
    }
}

impl Protocol for DeclaredFormat {
    fn id(&self) -> &'static str {
        self.id
    }

    fn label(&self) -> &'static str {
        self.label
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = match &self.spec.prompt.preamble {
            Some(preamble) => format!("{}\n\n", preamble.trim_end()),
            None => format!(
                "# Tools\n\nYou may call one or more of these functions. Write each call as:\n{}\n\n",
                self.call_example()
            ),
        };
        for definition in function_definitions(tools) {
            out.push_str(&definition.to_string());
            out.push('\n');
        }
        out
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let start = self
            .spec
            .results
            .start
            .as_deref()
            .unwrap_or("<tool_response>\n");
        let end = self
            .spec
            .results
            .end
            .as_deref()
            .unwrap_or("\n</tool_response>\n");
        let mut out = String::new();
        for result in results {
            let body = serde_json::json!({
                "name": result.tool_name,
                "tool_call_id": result.request_id,
                "content": result_value(result),
            });
            out.push_str(start);
            out.push_str(&body.to_string());
            out.push_str(end);
        }
        out
    }

    fn framing(&self) -> Option<Framing> {
        Some(self.framing)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        if block.rule == self.call_rule {
            body::decode(&self.spec, self.id, text, block.body, block.span, out);
        }
    }
}

#[cfg(test)]
mod tests;
