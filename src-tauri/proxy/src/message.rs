//! One line of the stream, read for what it means without touching its bytes: the proxy
//! forwards the line as it came and records the same JSON text, so nothing here re-encodes.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The JSON-RPC fields the observer looks at, borrowed from the line.
#[derive(Debug, Default, Deserialize)]
pub struct Envelope<'a> {
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

impl Envelope<'_> {
    /// A request expects an answer: it has both a method and an id.
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// A response answers a request: an id, no method.
    pub fn is_response(&self) -> bool {
        self.method.is_none() && self.id.is_some()
    }

    /// The id as a map key: its JSON text (`1` and `"1"` stay different, as JSON-RPC says).
    pub fn id_key(&self) -> Option<&str> {
        self.id.map(RawValue::get)
    }
}

/// A line split into its JSON text and JSON-RPC messages (several for a batch).
#[derive(Debug)]
pub enum Parsed<'a> {
    /// Valid JSON. `messages` is empty when it is JSON but not a JSON-RPC object.
    Json {
        raw: &'a RawValue,
        messages: Vec<Envelope<'a>>,
    },
    /// Not JSON (or not UTF-8): forwarded all the same and recorded as text.
    NotJson,
}

/// The line without its line terminator (`\n` or `\r\n`).
pub fn content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Reads one line (with or without its terminator).
pub fn parse(line: &[u8]) -> Parsed<'_> {
    let Ok(text) = std::str::from_utf8(content(line)) else {
        return Parsed::NotJson;
    };
    let Ok(raw) = serde_json::from_str::<&RawValue>(text) else {
        return Parsed::NotJson;
    };
    let json = raw.get();
    let messages = if json.starts_with('[') {
        serde_json::from_str::<Vec<Envelope<'_>>>(json).unwrap_or_default()
    } else if json.starts_with('{') {
        serde_json::from_str::<Envelope<'_>>(json)
            .map(|e| vec![e])
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Parsed::Json { raw, messages }
}

/// `raw` as one line for stdio, where a message takes exactly one: line breaks inside JSON are
/// whitespace, so a message that has some is re-encoded from `parsed` without them, and any
/// other goes through as it came.
pub fn on_one_line(raw: &[u8], parsed: &serde_json::Value) -> Vec<u8> {
    if raw.contains(&b'\n') || raw.contains(&b'\r') {
        parsed.to_string().into_bytes()
    } else {
        raw.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_exact_text_and_reads_the_fields() {
        let line = b"{ \"jsonrpc\":\"2.0\", \"id\": 7, \"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\r\n";
        let Parsed::Json { raw, messages } = parse(line) else {
            panic!("valid JSON")
        };
        assert!(raw.get().starts_with("{ \"jsonrpc\":\"2.0\", \"id\": 7"));
        assert_eq!(messages.len(), 1);
        assert!(messages[0].is_request());
        assert_eq!(messages[0].id_key(), Some("7"));
        assert_eq!(messages[0].method.as_deref(), Some("tools/call"));
    }

    #[test]
    fn text_batches_and_bare_values() {
        assert!(matches!(parse(b"not json\n"), Parsed::NotJson));
        assert!(matches!(parse(b"\xff\xfe\n"), Parsed::NotJson));
        let Parsed::Json { messages, .. } = parse(br#"[{"id":"a","result":{}},{"method":"x"}]"#)
        else {
            panic!("batch")
        };
        assert!(messages[0].is_response() && messages[0].id_key() == Some("\"a\""));
        assert!(!messages[1].is_request());
        let Parsed::Json { messages, .. } = parse(b"42\n") else {
            panic!("a bare number is JSON")
        };
        assert!(messages.is_empty());
    }
}
