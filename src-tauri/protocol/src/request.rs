//! What a wire format extracts from a reply: tool calls with their spans, and diagnostics.
//!
//! These cross every boundary above the formats (executor, history, CLI JSON, IPC), so they are
//! plain serde structs with stable snake_case field names.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Byte range `[start, end)` into the text a request or diagnostic came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
}

/// One tool call extracted from a model reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParsedToolRequest {
    pub request_id: String,
    /// Routing name `{toolId}_{methodName}`.
    pub tool_name: String,
    pub args: Map<String, Value>,
    pub raw_block: String,
    pub span: Span,
    /// Id of the protocol that produced this request.
    pub format: String,
    /// True when the wire format carries every value as text (VCP): the executor then coerces
    /// values to the schema's types before validating.
    #[serde(default)]
    pub untyped_args: bool,
    /// The block this call came from was cut off (the reply ended, or the model hit its token
    /// limit, before the call closed): its arguments may be partial. Strict parsing drops it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub incomplete: bool,
    /// Text values were read without a schema (the tool is unknown to whoever checked the
    /// reply): JSON literals became values, the rest stayed text.
    #[serde(default, skip_serializing_if = "is_false")]
    pub typed_without_schema: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

#[cfg(test)]
mod request_id_tests {
    #[test]
    fn request_ids_are_unique_and_shaped_like_before() {
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| super::new_request_id()).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 37 && id.starts_with("call_")));
    }
}

impl ParsedToolRequest {
    /// A request typed by hand (executor pane, `toolscope call`): typed JSON arguments.
    pub fn manual(tool_name: impl Into<String>, args: Map<String, Value>) -> Self {
        Self {
            request_id: new_request_id(),
            tool_name: tool_name.into(),
            args,
            raw_block: String::new(),
            span: Span::new(0, 0),
            format: "manual".to_owned(),
            untyped_args: false,
            incomplete: false,
            typed_without_schema: false,
        }
    }
}

/// A fresh unique request id, used when the reply did not carry one.
///
/// One random 128-bit base per process, stepped by an odd constant per id: a bijection on
/// 128-bit numbers, so ids never repeat within a process and still look unrelated, while a
/// 1 MB reply with 2,000 calls does not make 2,000 trips to the kernel's random source.
pub fn new_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static BASE: OnceLock<u128> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    const STEP: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835;
    let base = *BASE.get_or_init(|| uuid::Uuid::new_v4().as_u128());
    let n = u128::from(COUNTER.fetch_add(1, Ordering::Relaxed));
    let bits = base.wrapping_add(n.wrapping_mul(STEP));
    // Written by hand: `format!` of a u128 was a few percent of parsing a reply with many calls.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = *b"call_00000000000000000000000000000000";
    for (i, digit) in id[5..].iter_mut().enumerate() {
        let shift = 4 * (31 - i);
        *digit = HEX[((bits >> shift) & 0xF) as usize];
    }
    String::from_utf8_lossy(&id).into_owned()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

/// Why part of a reply could not be turned into a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticCode {
    UnclosedBlock,
    UnclosedValue,
    MissingToolName,
    DuplicateKey,
    StrayText,
    InvalidJson,
    UnknownKey,
    /// The routing name does not resolve (reported at parse time with `strict_unknown_tool`).
    UnknownTool,
    InternalError,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: DiagnosticCode,
    pub message: String,
    pub span: Span,
}

/// What a protocol extracted from one reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParseOutput {
    pub requests: Vec<ParsedToolRequest>,
    pub diagnostics: Vec<Diagnostic>,
    /// The reply's prose: what is left without call blocks, reasoning and format tokens.
    #[serde(default)]
    pub content: String,
}

impl ParseOutput {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Moves every span `by` bytes on: the output of a part of a reply parsed on its own (the
    /// body of a tag around other tags), placed back where that part stands.
    pub fn shift(&mut self, by: usize) {
        let shifted = |span: Span| Span::new(span.start + by, span.end + by);
        for request in &mut self.requests {
            request.span = shifted(request.span);
        }
        for diagnostic in &mut self.diagnostics {
            diagnostic.span = shifted(diagnostic.span);
        }
    }
}

/// "a string", "an object", ...: how messages name the kind of a JSON value.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
