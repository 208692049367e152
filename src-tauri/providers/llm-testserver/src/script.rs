//! The script a test server plays: what each incoming model request is answered with.
//!
//! A script is data (JSON), not code, so the same conversation can drive the Rust tests, the
//! CLI and the app's end-to-end tests, and one script renders on every wire: the renderers in
//! [`crate::wire`] turn a [`Reply`] into each vendor's events. Everything that can go wrong in
//! a script is found when it is loaded ([`Script::from_json`]), not when a request arrives.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("could not read the script {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the script is not valid: {0}")]
    Parse(#[from] serde_json::Error),
    #[error("turn {turn} of the script: {problem}")]
    Turn { turn: usize, problem: String },
}

/// An ordered list of turns and the settings every turn shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Each model request consumes the next turn (a `repeat` turn is never used up).
    pub turns: Vec<Turn>,
    /// When set, requests must carry it (`Authorization: Bearer …` on the OpenAI wires,
    /// `x-api-key` on Anthropic's, `x-goog-api-key` or `?key=` on Gemini) or are refused (401;
    /// Gemini: 403 without a key, 400 `API_KEY_INVALID` with a wrong one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The model ids `GET /v1/models` and `GET /v1beta/models` list.
    #[serde(default = "default_models")]
    pub models: Vec<String>,
    /// Pause between two SSE events, in milliseconds (each event is flushed on its own).
    #[serde(default = "default_delay_ms")]
    pub delay_ms: u64,
}

fn default_models() -> Vec<String> {
    vec!["toolscope-test".to_owned()]
}

const fn default_delay_ms() -> u64 {
    1
}

/// One answer: a reply (possibly with a fault) or an HTTP error, exactly one of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReply>,
    /// What the request answered by this turn must contain; otherwise it gets a 400 that says
    /// what was missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// Answer every further request with this turn (a model that loops forever).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
}

/// A streamed reply: reasoning, then text, then native calls, in that order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<Call>,
    /// The wire's finish reason; by default `tool_calls`/`stop` (Chat), `tool_use`/`end_turn`
    /// (Anthropic), `completed` (Responses; anything else ends with `response.incomplete`),
    /// `STOP` (Gemini; `MALFORMED_FUNCTION_CALL` when a call's arguments are not an object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    /// Reported token counts; estimated from the text when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Characters per delta: absent splits at awkward places (3 to 7 characters, through
    /// escapes and between the characters of a grapheme), `0` sends each string whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_chars: Option<usize>,
    /// Something that goes wrong after some events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// How the body is framed; by default `close` for a `cut_after` fault, else `chunked`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<Framing>,
}

/// A native tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// Generated (`call_T_I`, `toolu_T_I`) when absent; Gemini then sends no id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    /// A string is the exact arguments text to stream (it may be invalid or cut JSON); any
    /// other JSON value is sent as its compact serialization.
    pub arguments: Value,
}

impl Call {
    /// The arguments' text as it is streamed.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

/// Token counts a reply reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// What goes wrong mid-stream, after `N` SSE events of the wire's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Close the connection without the remaining events.
    CutAfter(usize),
    /// Keep the connection open and send nothing more.
    StallAfter(usize),
    /// Send `data: {not json` and end the body.
    InvalidChunkAfter(usize),
}

/// How a streamed body is delimited on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    /// `transfer-encoding: chunked`, as the vendors send it; a cut leaves out the last chunk,
    /// which HTTP clients report as a broken body.
    Chunked,
    /// No length, `connection: close`: the body ends when the connection closes, so a cut
    /// looks like a clean end of stream to the client.
    Close,
}

/// An HTTP refusal in the vendor's error shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorReply {
    pub status: u16,
    /// Defaults to a message that names the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The error's `type` (defaults by status and wire, e.g. `rate_limit_error`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// OpenAI's `code` (e.g. `context_length_exceeded`); on Gemini an `ErrorInfo` detail's
    /// `reason` (e.g. `API_KEY_INVALID`); Anthropic bodies have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Sent as the `retry-after` header (on Gemini also as a `RetryInfo` detail in the body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<String>,
    /// The exact body to send instead of the vendor's shape (e.g. a proxy's HTML page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// Conditions on the request a turn answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Each must occur in the raw body or in one of the body's JSON string values (so a tool
    /// result can be written unescaped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
    /// JSON pointer (`/messages/0/role`) to the value that must be there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pointers: BTreeMap<String, Value>,
}

impl Expect {
    /// What the body lacks, in words, or `None` when it meets every condition.
    pub fn missing(&self, raw: &str, body: &Value) -> Option<String> {
        let mut missing = Vec::new();
        for needle in &self.contains {
            if !raw.contains(needle.as_str()) && !any_string_contains(body, needle) {
                missing.push(format!("the text {needle:?}"));
            }
        }
        for (pointer, expected) in &self.pointers {
            match body.pointer(pointer) {
                Some(found) if found == expected => {}
                Some(found) => missing.push(format!("{pointer} = {expected} (found {found})")),
                None => missing.push(format!("{pointer} = {expected} (nothing there)")),
            }
        }
        (!missing.is_empty()).then(|| missing.join("; "))
    }
}

fn any_string_contains(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(text) => text.contains(needle),
        Value::Array(items) => items.iter().any(|v| any_string_contains(v, needle)),
        Value::Object(map) => map.values().any(|v| any_string_contains(v, needle)),
        _ => false,
    }
}

impl Script {
    /// A script of these turns with the default settings.
    pub fn new(turns: Vec<Turn>) -> Self {
        Self {
            turns,
            api_key: None,
            models: default_models(),
            delay_ms: default_delay_ms(),
        }
    }

    /// Parses and checks a script.
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let script: Self = serde_json::from_str(text)?;
        script.check()?;
        Ok(script)
    }

    /// Reads, parses and checks a script file.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json(&text)
    }

    /// Each turn is exactly one of a reply or an error; statuses are errors.
    pub fn check(&self) -> Result<(), ScriptError> {
        for (index, turn) in self.turns.iter().enumerate() {
            let problem = |problem: &str| ScriptError::Turn {
                turn: index,
                problem: problem.to_owned(),
            };
            match (&turn.reply, &turn.error) {
                (Some(_), Some(_)) => return Err(problem("has both a reply and an error")),
                (None, None) => return Err(problem("needs a reply or an error")),
                (None, Some(error)) if !(400..=599).contains(&error.status) => {
                    return Err(problem("an error's status must be 400 to 599"))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Turn {
    /// A turn that answers with `reply`.
    pub fn reply(reply: Reply) -> Self {
        Self {
            reply: Some(reply),
            ..Self::default()
        }
    }

    /// A turn that refuses with `error`.
    pub fn error(error: ErrorReply) -> Self {
        Self {
            error: Some(error),
            ..Self::default()
        }
    }
}

/// The cycle of delta sizes used when a reply sets no `chunk_chars`.
const AWKWARD: [usize; 5] = [3, 7, 4, 6, 5];

/// Splits `text` into deltas of whole characters (never invalid UTF-8).
pub fn split(text: &str, chunk_chars: Option<usize>) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut step = 0;
    while start < chars.len() {
        let size = match chunk_chars {
            Some(0) => chars.len(),
            Some(size) => size,
            None => AWKWARD[step % AWKWARD.len()],
        };
        let end = (start + size).min(chars.len());
        pieces.push(chars[start..end].iter().collect());
        start = end;
        step += 1;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_splits_keep_every_character_and_cut_escapes() {
        let text = "{\"city\": \"Z\\u00fcrich \u{1F1E8}\u{1F1ED}\"}";
        let pieces = split(text, None);
        assert_eq!(pieces.concat(), text);
        // The escape `\u00fc` is cut after `\u0`.
        assert_eq!(pieces[2], "Z\\u0", "{pieces:?}");
        assert_eq!(split("abcdef", Some(4)), ["abcd", "ef"]);
        assert_eq!(split("abcdef", Some(0)), ["abcdef"]);
        assert!(split("", None).is_empty());
    }

    #[test]
    fn a_turn_is_a_reply_or_an_error() {
        let both = r#"{"turns": [{"reply": {"text": "hi"}, "error": {"status": 500}}]}"#;
        assert!(Script::from_json(both)
            .expect_err("both")
            .to_string()
            .contains("turn 0"));
        let unknown = r#"{"turns": [{"reply": {"txt": "hi"}}]}"#;
        assert!(Script::from_json(unknown).is_err());
        let script = Script::from_json(
            r#"{"turns": [{"reply": {"calls": [{"name": "f", "arguments": {"a": 1}}], "fault": {"cut_after": 3}}}]}"#,
        )
        .expect("valid");
        let reply = script.turns[0].reply.as_ref().expect("reply");
        assert_eq!(reply.calls[0].arguments_text(), "{\"a\":1}");
        assert_eq!(reply.fault, Some(Fault::CutAfter(3)));
        assert_eq!(script.delay_ms, 1);
    }

    #[test]
    fn expect_names_what_is_missing() {
        let expect = Expect {
            contains: vec!["12 °C".to_owned(), "Oslo".to_owned()],
            pointers: BTreeMap::from([("/messages/0/role".to_owned(), Value::from("user"))]),
        };
        let body =
            serde_json::json!({"messages": [{"role": "user", "content": "{\"t\": \"12 °C\"}"}]});
        let raw = body.to_string();
        assert_eq!(
            expect.missing(&raw, &body).as_deref(),
            Some("the text \"Oslo\"")
        );
    }
}
