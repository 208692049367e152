//! Scrubbing secrets out of text before it is shown, recorded or logged.
//!
//! Why in the engine: every provider that holds secrets (an HTTP tool's token from the
//! environment, an MCP server's `${VAR}`-expanded env and headers) must keep them out of what
//! a call returns, because results and errors go to the model, the history file and the UI.
//! One [`Redactor`] collects the secrets in every spelling they can take in a message and
//! replaces them with [`REDACTED`].

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{Map, Value};

use crate::tool::ToolFailure;

/// The text secrets are replaced with.
pub const REDACTED: &str = "***";

/// What percent-encoding leaves alone in a URL path segment or query value: RFC 3986's
/// unreserved characters. HTTP tools encode values with it, so a secret placed in a URL has
/// exactly the spelling the redactor looks for.
pub const URL_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The secrets a call or a connection used, and the means to scrub them from text.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    /// Every spelling of every secret, longest first.
    needles: Vec<String>,
}

impl Redactor {
    /// Adds a secret in the spellings it can take in a message: as is, percent-encoded (in a
    /// URL) and form-encoded (`+` for spaces).
    pub fn add(&mut self, secret: &str) {
        if secret.is_empty() {
            return;
        }
        let encoded = utf8_percent_encode(secret, URL_COMPONENT).to_string();
        let form = encoded.replace("%20", "+");
        for needle in [secret.to_owned(), encoded, form] {
            if !self.needles.contains(&needle) {
                self.needles.push(needle);
            }
        }
        self.needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    }

    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = out.replace(needle.as_str(), REDACTED);
            }
        }
        out
    }

    /// Redacts the message of a tool's failure.
    pub fn redact_failure(&self, failure: ToolFailure) -> ToolFailure {
        match failure {
            ToolFailure::Failed(message) => ToolFailure::Failed(self.redact(&message)),
            ToolFailure::Transport(message) => ToolFailure::Transport(self.redact(&message)),
            ToolFailure::OutputTooLarge(message) => {
                ToolFailure::OutputTooLarge(self.redact(&message))
            }
            ToolFailure::MemoryLimit(message) => ToolFailure::MemoryLimit(self.redact(&message)),
            other @ ToolFailure::UnknownMethod(_) => other,
        }
    }

    /// Redacts every string and key of a JSON value.
    pub fn redact_value(&self, value: Value) -> Value {
        if self.is_empty() {
            return value;
        }
        match value {
            Value::String(s) => Value::String(self.redact(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.redact_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (self.redact(&k), self.redact_value(v)))
                    .collect::<Map<String, Value>>(),
            ),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_every_spelling() {
        let mut r = Redactor::default();
        r.add("s3cr3t key/&");
        let text = "a s3cr3t key/& b s3cr3t%20key%2F%26 c s3cr3t+key%2F%26";
        assert_eq!(r.redact(text), "a *** b *** c ***");
        let v = r.redact_value(json!({"s3cr3t key/&": ["x s3cr3t key/&", 1]}));
        assert_eq!(v, json!({"***": ["x ***", 1]}));
    }
}
