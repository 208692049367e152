//! An endpoint call as a cURL command, for a person to replay it in a shell.
//!
//! The request is built by the same code a call uses (URL template, query or JSON body,
//! headers, auth), with every environment variable standing in as a marker instead of its
//! value; the markers become `"${VAR}"` expansions in the command, so the command carries no
//! secret and works wherever the variables are set. The markers are random per export and only
//! variables the request asked for expand, so text in an argument cannot forge one. Everything else is single-quoted, so no
//! argument text is ever expanded by the shell. Basic auth becomes `-u` (its header would be
//! the base64 of the markers). A query value from the environment goes in `--url-query`
//! (curl 7.87 or later), which percent-encodes it as the call does.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use reqwest::header::AUTHORIZATION;
use serde_json::{Map, Value};
use toolscope_engine::ToolFailure;

use crate::definition::{AuthDefinition, EndpointSpec};
use crate::request::{basic_user, prepare};
use crate::secrets::{EnvSource, Redactor};

/// How variable references are marked inside built text for one export: letters and digits
/// only (neither percent-encoding nor a header value changes them), with a random part, so no
/// argument or definition text can forge a marker and smuggle shell syntax into an expansion.
struct Markers {
    open: String,
    close: String,
    /// The variables the request asked for: only these become expansions.
    asked: Mutex<BTreeSet<String>>,
}

impl Markers {
    fn new() -> Self {
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        Self {
            open: format!("ZQ{nonce}V"),
            close: format!("ZQ{nonce}E"),
            asked: Mutex::new(BTreeSet::new()),
        }
    }

    fn marker(&self, name: &str) -> String {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_owned());
        format!("{}{name}{}", self.open, self.close)
    }

    fn was_asked(&self, name: &str) -> bool {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
    }
}

/// A shell variable name: what `${...}` may hold without being shell syntax.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The cURL command of `endpoint` called with `args`.
pub(crate) fn curl_command(
    client: &reqwest::Client,
    endpoint: &EndpointSpec,
    args: Map<String, Value>,
) -> Result<String, ToolFailure> {
    let marks = Arc::new(Markers::new());
    let asking = Arc::clone(&marks);
    let markers = EnvSource::from_fn(move |name| Some(asking.marker(name)));
    let request = prepare(client, endpoint, args, &markers, &mut Redactor::default())?;
    let mut parts = vec!["curl".to_owned()];
    if request.method() != reqwest::Method::GET {
        parts.push(format!("-X {}", request.method()));
    }
    // A query value from the environment (an API key) must be percent-encoded as the call
    // encodes it; a shell expansion inside the URL would land raw, so curl encodes it instead.
    let mut url = request.url().clone();
    let (kept, from_env): (Vec<&str>, Vec<&str>) = request
        .url()
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|piece| !piece.is_empty())
        .partition(|piece| !piece.contains(&marks.open));
    url.set_query((!kept.is_empty()).then(|| kept.join("&")).as_deref());
    parts.push(shell_word(&marks, url.as_str()));
    for piece in from_env {
        parts.push(format!("--url-query {}", shell_word(&marks, piece)));
    }
    let basic = match &endpoint.auth {
        AuthDefinition::Basic {
            username,
            username_env,
            password_env,
        } => {
            let user = basic_user(username.as_deref(), username_env.as_deref(), &markers)?;
            Some(format!("{user}:{}", marks.marker(password_env)))
        }
        _ => None,
    };
    for (name, value) in request.headers() {
        if basic.is_some() && name == AUTHORIZATION {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes());
        parts.push(format!(
            "-H {}",
            shell_word(&marks, &format!("{name}: {value}"))
        ));
    }
    if let Some(credentials) = basic {
        parts.push(format!("-u {}", shell_word(&marks, &credentials)));
    }
    if let Some(body) = request.body().and_then(reqwest::Body::as_bytes) {
        parts.push(format!(
            "--data-raw {}",
            shell_word(&marks, &String::from_utf8_lossy(body))
        ));
    }
    Ok(parts.join(" \\\n  "))
}

/// `text` as one shell word: literal runs single-quoted, the markers of asked-for variables as
/// `"${VAR}"`; anything else that looks like a marker stays literal text.
fn shell_word(marks: &Markers, text: &str) -> String {
    let mut word = String::new();
    let mut literal_start = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find(&marks.open) {
        let start = search + found;
        let name_start = start + marks.open.len();
        let Some(length) = text[name_start..].find(&marks.close) else {
            break;
        };
        let name = &text[name_start..name_start + length];
        let end = name_start + length + marks.close.len();
        if is_variable_name(name) && marks.was_asked(name) {
            push_literal(&mut word, &text[literal_start..start]);
            word.push_str(&format!("\"${{{name}}}\""));
            literal_start = end;
        }
        search = end;
    }
    push_literal(&mut word, &text[literal_start..]);
    if word.is_empty() {
        word.push_str("''");
    }
    word
}

fn push_literal(word: &mut String, literal: &str) {
    if !literal.is_empty() {
        word.push('\'');
        word.push_str(&literal.replace('\'', r"'\''"));
        word.push('\'');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_single_quoted_and_asked_markers_expand() {
        let marks = Markers::new();
        assert_eq!(shell_word(&marks, "it's"), r"'it'\''s'");
        let token = marks.marker("TOKEN");
        assert_eq!(
            shell_word(&marks, &format!("Bearer {token}")),
            "'Bearer '\"${TOKEN}\""
        );
        assert_eq!(shell_word(&marks, &marks.marker("A")), "\"${A}\"");
        assert_eq!(shell_word(&marks, ""), "''");
        assert_eq!(shell_word(&marks, "$HOME `x`"), "'$HOME `x`'");
    }

    #[test]
    fn forged_or_unasked_markers_stay_literal() {
        let marks = Markers::new();
        let _ = marks.marker("KEY");
        // Text shaped like a marker but naming shell syntax, or a variable nobody asked for,
        // is argument text: single-quoted, never expanded.
        let forged = format!("{}X:-$(touch pwned){}", marks.open, marks.close);
        assert_eq!(shell_word(&marks, &forged), format!("'{forged}'"));
        let unasked = format!("{}HOME{}", marks.open, marks.close);
        assert_eq!(shell_word(&marks, &unasked), format!("'{unasked}'"));
        // Another export's markers mean nothing here.
        let other = Markers::new();
        let elsewhere = other.marker("KEY");
        assert_eq!(shell_word(&marks, &elsewhere), format!("'{elsewhere}'"));
    }
}
