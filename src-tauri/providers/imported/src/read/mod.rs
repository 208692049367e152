//! Reading tool definitions out of whatever JSON a person has: the shape is recognised, not
//! declared.
//!
//! Accepted, alone or inside what usually carries them:
//! - OpenAI Chat Completions `tools` (`{"type": "function", "function": {...}}`), the Responses
//!   API's flat form (`{"type": "function", "name", ...}`), the legacy `functions` array;
//! - Anthropic `tools` (`input_schema`), with server tools (`web_search_20250305`) skipped;
//! - Gemini `functionDeclarations` / `function_declarations` (`parameters` in the OpenAPI subset,
//!   or `parametersJsonSchema`);
//! - an MCP `tools/list` result (`inputSchema`, `outputSchema`, `annotations`), bare or in its
//!   JSON-RPC response;
//! - BFCL data files: JSON Lines whose `function` arrays hold `{"type": "dict"}` schemas;
//! - and a whole captured request body (its `tools` / `functions`).
//!
//! Each entry is read on its own, so one array may mix shapes (a Responses `tools` array holds
//! built-in tools beside functions). A bad entry becomes a [`Finding`] with its JSON path and
//! never stops the others. Identical definitions met again (BFCL repeats them across lines) are
//! merged. A second, different definition of a name in the same request is refused, as the
//! vendors' APIs refuse a request with both; on another line of JSON Lines (another request) it
//! is kept as a variant `name#2`.

mod entry;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolscope_protocol::method::Annotations;

/// The largest input read at once.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Whose format an entry was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    OpenaiChat,
    OpenaiResponses,
    OpenaiFunctions,
    Anthropic,
    Gemini,
    Mcp,
    Bfcl,
}

impl Shape {
    pub fn label(self) -> &'static str {
        match self {
            Self::OpenaiChat => "OpenAI Chat Completions tools",
            Self::OpenaiResponses => "OpenAI Responses tools",
            Self::OpenaiFunctions => "OpenAI legacy functions",
            Self::Anthropic => "Anthropic tools",
            Self::Gemini => "Gemini function declarations",
            Self::Mcp => "MCP tools/list",
            Self::Bfcl => "BFCL functions",
        }
    }
}

/// One tool definition as read, its schema already JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Definition {
    /// The name as written; what a model calls and what goes back on the wire.
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The argument schema (a JSON Schema object).
    pub parameters: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default)]
    pub annotations: Annotations,
    pub shape: Shape,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum FindingLevel {
    /// The entry was not imported.
    Error,
    /// Imported, but something about it is doubtful.
    Warning,
    /// Imported as read after a rewrite, or skipped by design (a vendor's server tool).
    Info,
}

/// Something an import has to say about one place in the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Finding {
    /// A JSON pointer into the input (`/tools/3/function/parameters`), after `line N ` for
    /// JSON Lines.
    pub path: String,
    pub level: FindingLevel,
    pub message: String,
}

/// What reading an input gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Import {
    pub definitions: Vec<Definition>,
    pub findings: Vec<Finding>,
    /// Identical definitions met again and merged into the first.
    pub repeats_merged: u32,
}

impl Import {
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.level == FindingLevel::Error)
            .count()
    }
}

/// Why an input as a whole could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("the input is not JSON: {message} at line {line}, column {column}")]
    InvalidJson {
        message: String,
        line: usize,
        column: usize,
    },
    #[error("the input is {size} bytes; at most {MAX_INPUT_BYTES} are read at once")]
    TooLarge { size: usize },
    #[error("no tool definitions found: {found}")]
    NoDefinitions { found: String },
}

/// Reads every tool definition in `text` (JSON, or JSON Lines).
pub fn read_definitions(text: &str) -> Result<Import, ReadError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ReadError::TooLarge { size: text.len() });
    }
    let mut reader = Reader::default();
    match serde_json::from_str::<Value>(text) {
        Ok(value) => reader.document(&value, "")?,
        Err(whole) => {
            let lines = json_lines(text).ok_or_else(|| ReadError::InvalidJson {
                message: whole
                    .to_string()
                    .split(" at line")
                    .next()
                    .unwrap_or("")
                    .to_owned(),
                line: whole.line(),
                column: whole.column(),
            })?;
            for (number, value) in lines {
                reader.line = number;
                reader.document(&value, &format!("line {number} "))?;
            }
        }
    }
    if reader.import.definitions.is_empty() && reader.import.findings.is_empty() {
        return Err(ReadError::NoDefinitions {
            found: "the input holds no entries".into(),
        });
    }
    Ok(reader.import)
}

/// Every non-empty line as JSON, when there are at least two and all parse (BFCL's files end
/// in `.json` but are JSON Lines).
fn json_lines(text: &str) -> Option<Vec<(usize, Value)>> {
    let lines: Vec<(usize, Value)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str(line).ok().map(|v| (i + 1, v)))
        .collect::<Option<_>>()?;
    (lines.len() >= 2).then_some(lines)
}

#[derive(Default)]
struct Reader {
    import: Import,
    /// Each name's definitions (index, path, line), to merge repeats and refuse conflicts.
    seen: HashMap<String, Vec<(usize, String, usize)>>,
    /// The JSON Lines line being read (0 for a single document).
    line: usize,
}

impl Reader {
    /// A whole JSON value: an array of entries, or an object that holds them.
    fn document(&mut self, value: &Value, at: &str) -> Result<(), ReadError> {
        match value {
            Value::Array(entries) => {
                self.entries(entries, at, "", None);
                Ok(())
            }
            Value::Object(object) => {
                if let Some(result) = object
                    .get("result")
                    .filter(|_| object.contains_key("jsonrpc"))
                {
                    return self.document(result, &format!("{at}/result"));
                }
                if let Some(error) = object
                    .get("error")
                    .filter(|_| object.contains_key("jsonrpc"))
                {
                    return Err(ReadError::NoDefinitions {
                        found: format!("a JSON-RPC error response: {error}"),
                    });
                }
                let mut found = false;
                for (key, hint) in [
                    ("tools", None),
                    ("functions", Some(Shape::OpenaiFunctions)),
                    ("functionDeclarations", Some(Shape::Gemini)),
                    ("function_declarations", Some(Shape::Gemini)),
                    ("function", Some(Shape::Bfcl)),
                ] {
                    if let Some(Value::Array(entries)) = object.get(key) {
                        self.entries(entries, at, &format!("/{key}"), hint);
                        found = true;
                    }
                }
                if found {
                    return Ok(());
                }
                if entry::looks_like_definition(object) {
                    self.entry(value, at, "", None);
                    return Ok(());
                }
                let keys: Vec<&str> = object.keys().map(String::as_str).take(12).collect();
                Err(ReadError::NoDefinitions {
                    found: format!(
                        "{}an object with keys {} and no `tools`, `functions`, `functionDeclarations` or `function` array",
                        if at.is_empty() { String::new() } else { format!("{}: ", at.trim()) },
                        keys.join(", ")
                    ),
                })
            }
            other => Err(ReadError::NoDefinitions {
                found: format!(
                    "{}{}",
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", at.trim())
                    },
                    toolscope_protocol::request::json_kind(other)
                ),
            }),
        }
    }

    fn entries(&mut self, entries: &[Value], at: &str, key: &str, hint: Option<Shape>) {
        for (i, value) in entries.iter().enumerate() {
            self.entry(value, at, &format!("{key}/{i}"), hint);
        }
    }

    fn entry(&mut self, value: &Value, at: &str, pointer: &str, hint: Option<Shape>) {
        let path = format!("{at}{pointer}");
        match entry::read_entry(value, &path, hint) {
            entry::Read::Definition(definition, findings, schema_path) => {
                self.import.findings.extend(findings);
                self.add(*definition, path, &schema_path);
            }
            entry::Read::Group(declarations) => {
                self.entries(
                    declarations,
                    at,
                    &format!("{pointer}/{}", declarations_key(value)),
                    Some(Shape::Gemini),
                );
            }
            entry::Read::Finding(finding) => self.import.findings.push(finding),
        }
    }

    fn add(&mut self, mut definition: Definition, path: String, schema_path: &str) {
        let Some(variants) = self.seen.get(&definition.name) else {
            if !self.compiles(&definition, schema_path) {
                return;
            }
            self.seen.insert(
                definition.name.clone(),
                vec![(self.import.definitions.len(), path, self.line)],
            );
            self.import.definitions.push(definition);
            return;
        };
        let same = |other: &Definition| {
            other.description == definition.description
                && other.parameters == definition.parameters
                && other.output_schema == definition.output_schema
        };
        if variants
            .iter()
            .any(|(index, _, _)| same(&self.import.definitions[*index]))
        {
            self.import.repeats_merged += 1;
            return;
        }
        let (_, first_path, first_line) = &variants[0];
        if *first_line == self.line {
            self.import.findings.push(Finding {
                path,
                level: FindingLevel::Error,
                message: format!(
                    "'{}' is defined again, differently (first at {first_path}); this one is skipped, as an API refuses a request with both",
                    definition.name
                ),
            });
            return;
        }
        let variant = format!("{}#{}", definition.name, variants.len() + 1);
        let first_path = first_path.clone();
        if !self.compiles(&definition, schema_path) {
            return;
        }
        // Separate requests (JSON Lines) may each define a tool of that name their own way:
        // keep each as a variant, named so it cannot pass for a name a model was shown.
        let original = definition.name.clone();
        self.import.findings.push(Finding {
            path: path.clone(),
            level: FindingLevel::Warning,
            message: format!(
                "another line defines '{original}' differently (first at {first_path}); this one is kept as '{variant}'"
            ),
        });
        definition.name = variant;
        let index = self.import.definitions.len();
        self.import.definitions.push(definition);
        if let Some(variants) = self.seen.get_mut(&original) {
            variants.push((index, path, self.line));
        }
    }
}

impl Reader {
    /// Refuses (with a finding) a definition whose argument schema the validator rejects.
    fn compiles(&mut self, definition: &Definition, schema_path: &str) -> bool {
        match entry::compile(&definition.parameters) {
            Ok(()) => true,
            Err(message) => {
                self.import.findings.push(Finding {
                    path: schema_path.to_owned(),
                    level: FindingLevel::Error,
                    message,
                });
                false
            }
        }
    }
}

fn declarations_key(value: &Value) -> &'static str {
    if value.get("functionDeclarations").is_some() {
        "functionDeclarations"
    } else {
        "function_declarations"
    }
}

#[cfg(test)]
mod tests;
