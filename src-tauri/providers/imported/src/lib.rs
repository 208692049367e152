//! A person's own tool definitions as a tool source.
//!
//! Agent developers already have their tools as JSON: the `tools` of an OpenAI or Anthropic
//! request, Gemini declarations, an MCP `tools/list` result, a BFCL data file. [`read`]
//! recognises those shapes and turns each entry into a [`Definition`] with a JSON Schema (the
//! [`schema`] dialects rewritten), reporting every bad entry with its JSON path. A named
//! [`ToolSet`] of definitions becomes one tool in the registry ([`ImportedTool`]); its methods
//! have no backend, so each answers from its [`Mock`] or with a clear "no implementation" error,
//! never a made-up success. [`ImportedSets`] keeps the sets in the data directory.

pub mod mock;
pub mod read;
pub mod schema;
pub mod set;
pub mod store;

pub use mock::{Mock, MockErrorKind, MockReply};
pub use read::{read_definitions, Definition, Finding, FindingLevel, Import, ReadError, Shape};
pub use set::{read_request_tools, request_tools, ImportedTool, RequestToolsError, ToolSet};
pub use store::{ImportedSets, SetError, SetImportReport, SetSummary};
