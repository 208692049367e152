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

    /// How much of `text` can be shown now when more text may still follow it (a streamed
    /// body shown piece by piece): the longest prefix that cuts no secret in two and stops
    /// where the end of `text` could be the start of a secret still arriving. What is left
    /// goes in front of the next piece; redacting each shown prefix then hides every secret,
    /// wherever the pieces were cut.
    pub fn safe_prefix_len(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        // The longest end of `text` that begins some secret is held back.
        let mut cut = text.len();
        for needle in &self.needles {
            let needle = needle.as_bytes();
            let longest = needle.len().saturating_sub(1).min(bytes.len());
            if let Some(held) = (1..=longest).rev().find(|&k| bytes.ends_with(&needle[..k])) {
                cut = cut.min(bytes.len() - held);
            }
        }
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        // Every occurrence starting before `cut` is complete in `text`: step back over any
        // that the cut would split (again and again, as occurrences may overlap).
        loop {
            let split = self.needles.iter().find_map(|needle| {
                text.match_indices(needle.as_str())
                    .map(|(start, found)| (start, start + found.len()))
                    .find(|&(start, end)| start < cut && cut < end)
            });
            match split {
                Some((start, _)) => cut = start,
                None => return cut,
            }
        }
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
            ToolFailure::RateLimited {
                message,
                retry_after,
            } => ToolFailure::RateLimited {
                message: self.redact(&message),
                retry_after,
            },
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

    #[test]
    fn text_shown_piece_by_piece_never_shows_part_of_a_secret() {
        let mut r = Redactor::default();
        r.add("tok-42");
        let body = "a tok-42 b tok-42tok-42 c ü tok-4";
        // Every way of cutting the body into two pieces.
        for split in (0..=body.len()).filter(|&i| body.is_char_boundary(i)) {
            let mut shown = String::new();
            let mut pending = String::new();
            for piece in [&body[..split], &body[split..]] {
                pending.push_str(piece);
                let cut = r.safe_prefix_len(&pending);
                shown.push_str(&r.redact(&pending[..cut]));
                pending.drain(..cut);
            }
            shown.push_str(&r.redact(&pending));
            assert_eq!(shown, "a *** b ****** c ü tok-4", "cut at {split}");
        }
        assert_eq!(Redactor::default().safe_prefix_len("all of it"), 9);
        // Only an end that could begin a secret waits.
        assert_eq!(r.safe_prefix_len("line\n"), 5);
        assert_eq!(r.safe_prefix_len("line to"), 5);
    }
}
