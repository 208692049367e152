//! Where secrets come from (environment variables, looked up at call time) and how they are
//! kept out of everything a call returns.
//!
//! A call collects every secret it used in a [`Redactor`]; its errors and results pass through
//! it before leaving the crate, so a token echoed by a server, or an API key inside a URL that a
//! connection error prints, comes back as `***`.

use std::collections::BTreeMap;
use std::sync::Arc;

pub use toolscope_engine::redact::{Redactor, REDACTED};

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

#[cfg(test)]
mod tests {
    use super::*;

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
