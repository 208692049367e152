//! Where secrets come from (environment variables, looked up at call time) and how they are
//! kept out of everything a call returns.
//!
//! A call collects every secret it used in a [`Redactor`]; its errors and results pass through
//! it before leaving the crate, so a token echoed by a server, or an API key inside a URL that a
//! connection error prints, comes back as `***`.

use std::collections::BTreeMap;
use std::sync::Arc;

use percent_encoding::utf8_percent_encode;
use serde_json::{Map, Value};

use crate::template::COMPONENT;

/// The text secrets are replaced with.
pub const REDACTED: &str = "***";

/// Looks up environment variables. The process environment by default; tests and hosts that
/// keep secrets elsewhere (an OS keyring) supply their own.
#[derive(Clone)]
pub struct EnvSource(Arc<EnvLookup>);

/// The function behind an [`EnvSource`]: a variable's value, or `None` when it is not set.
type EnvLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

impl EnvSource {
    /// The process environment.
    pub fn process() -> Self {
        Self(Arc::new(|name| std::env::var(name).ok()))
    }

    /// A fixed set of variables (tests, or secrets read from a keyring at startup).
    pub fn from_map(variables: impl IntoIterator<Item = (String, String)>) -> Self {
        let map: BTreeMap<String, String> = variables.into_iter().collect();
        Self(Arc::new(move |name| map.get(name).cloned()))
    }

    /// Any lookup function.
    pub fn from_fn(lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(lookup))
    }

    /// The value of `name`; a missing or empty variable is an error that names the variable
    /// and what needs it, never a value.
    pub fn require(&self, name: &str, needed_by: &str) -> Result<String, String> {
        match (self.0)(name) {
            Some(value) if !value.is_empty() => Ok(value),
            Some(_) => Err(format!(
                "environment variable {name} (needed by {needed_by}) is set but empty"
            )),
            None => Err(format!(
                "environment variable {name} (needed by {needed_by}) is not set"
            )),
        }
    }
}

impl Default for EnvSource {
    fn default() -> Self {
        Self::process()
    }
}

impl std::fmt::Debug for EnvSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnvSource")
    }
}

/// The secrets one call used, and the means to scrub them from text.
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
        let encoded = utf8_percent_encode(secret, COMPONENT).to_string();
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
    fn names_missing_variables_not_values() {
        let env = EnvSource::from_map([("EMPTY".to_owned(), String::new())]);
        let err = env.require("NOPE", "auth.token_env").expect_err("missing");
        assert_eq!(
            err,
            "environment variable NOPE (needed by auth.token_env) is not set"
        );
        assert!(env
            .require("EMPTY", "x")
            .expect_err("empty")
            .contains("empty"));
    }

    #[test]
    fn the_default_source_is_the_process_environment() {
        let from_std = std::env::var("PATH").ok().filter(|v| !v.is_empty());
        assert_eq!(EnvSource::default().require("PATH", "test").ok(), from_std);
    }
}
