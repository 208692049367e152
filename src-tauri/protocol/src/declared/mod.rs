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
use crate::request::ParseOutput;
use crate::result::ToolExecutionResult;
use crate::{Protocol, ToolDefinitionInput};

mod body;
mod intern;
pub mod spec;
mod template;

/// The prompt of a description that does not write its own.
const DEFAULT_PROMPT: &str =
    "# Tools\n\nYou may call one or more of these functions. Write each call as:\n{example}\n\n{each}";

use spec::Spec;
pub use spec::{Encoding, SpecError};

/// A format read from a description.
#[derive(Debug, Clone)]
pub struct DeclaredFormat {
    id: &'static str,
    label: &'static str,
    framing: Framing,
    /// Index of the first call rule in the framing; the call rules follow one another.
    first_call_rule: usize,
    /// How diagnostics name each call rule's block ("the <tool_call> block").
    call_blocks: Vec<&'static str>,
    spec: Arc<Spec>,
}

/// Built-in formats that are only markers around JSON: described like a person's own, so there is
/// one way to describe a format (`src-tauri/protocol/formats/`).
const BUILTIN: [&str; 8] = [
    include_str!("../../formats/jamba.toml"),
    include_str!("../../formats/lmstudio.toml"),
    include_str!("../../formats/longcat.toml"),
    include_str!("../../formats/granite_20b_fc.toml"),
    include_str!("../../formats/hunyuan.toml"),
    include_str!("../../formats/internlm2.toml"),
    include_str!("../../formats/granite.toml"),
    include_str!("../../formats/functionary_v31.toml"),
];

/// The built-in described format `id`, read once per process.
///
/// # Panics
/// When `id` is not one of [`BUILTIN`] or its description is invalid: both are fixed at compile
/// time and checked by this module's tests.
pub fn builtin(id: &str) -> Arc<dyn Protocol> {
    static FORMATS: std::sync::OnceLock<Vec<Arc<dyn Protocol>>> = std::sync::OnceLock::new();
    let formats = FORMATS.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|source| {
                let format = DeclaredFormat::from_toml(source)
                    .unwrap_or_else(|e| panic!("a built-in format description is invalid: {e}"));
                Arc::new(format) as Arc<dyn Protocol>
            })
            .collect()
    });
    formats
        .iter()
        .find(|format| format.id() == id)
        .cloned()
        .unwrap_or_else(|| panic!("no built-in format description '{id}'"))
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
        let first_call_rule = rules.len();
        let mut calls: Vec<(Rule, String)> = std::iter::once(&spec.start)
            .chain(&spec.also_start)
            .map(|start| {
                let rule = Rule::call(intern::string(start), close);
                (rule, format!("the {start} block"))
            })
            .collect();
        if let Some(prefix) = &spec.bare_value {
            let rule = Rule::at_text_start(intern::string(prefix), close);
            calls.push((rule, "the JSON the reply starts with".to_owned()));
        }
        let mut call_blocks = Vec::with_capacity(calls.len());
        for (rule, what) in calls {
            let rule = rule.lenient();
            rules.push(match spec.separator {
                // One ASCII byte, so its one-character text is that byte.
                Some(byte) => {
                    rule.separated_by(intern::string(&char::from(byte).to_string()).as_bytes())
                }
                None => rule,
            });
            call_blocks.push(intern::string(&what));
        }
        rules.extend(spec.tokens.iter().map(|t| Rule::token(intern::string(t))));
        Ok(Self {
            id: intern::string(&spec.id),
            label: intern::string(&spec.label),
            framing: Framing {
                rules: intern::rules(rules),
            },
            first_call_rule,
            call_blocks,
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
        let prompt = &self.spec.prompt;
        let template = prompt.template.as_deref().unwrap_or(DEFAULT_PROMPT);
        // The example is ours, not the person's text: put it in before the tools go in.
        let example = self.call_example();
        let template = template::render(template, |name| {
            (name == "example").then(|| example.clone())
        });
        template::prompt(
            &template,
            prompt.each.as_deref().unwrap_or("{definition}\n"),
            tools,
        )
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let spec = &self.spec.results;
        template::results(
            spec.template.as_deref().unwrap_or("{each}"),
            spec.each
                .as_deref()
                .unwrap_or("<tool_response>\n{result}\n</tool_response>\n"),
            results,
        )
    }

    fn framing(&self) -> Option<Framing> {
        Some(self.framing)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        let what = block
            .rule
            .checked_sub(self.first_call_rule)
            .and_then(|i| self.call_blocks.get(i));
        if let Some(what) = what {
            body::decode(&self.spec, self.id, what, text, block.body, block.span, out);
        }
    }

    /// Only `start` is evidence: `also_start` markers and a bare value are other formats' too
    /// (hermes' `<tool_call>`, xLAM's bare list), which keep those replies in auto-detect.
    fn signature(&self) -> crate::detect::Signature {
        crate::detect::Signature {
            markers: self
                .framing
                .rules
                .get(self.first_call_rule)
                .map(|rule| rule.open.text())
                .into_iter()
                .collect(),
            prefixes: Vec::new(),
            call_ids: Vec::new(),
            before_value: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
