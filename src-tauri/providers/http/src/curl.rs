//! An endpoint call as a cURL command, for a person to replay it in a shell.
//!
//! The request is built by the same code a call uses (URL template, query or JSON body,
//! headers, auth), with every environment variable standing in as a marker instead of its
//! value; the markers become `"${VAR}"` expansions in the command, so the command carries no
//! secret and works wherever the variables are set. Everything else is single-quoted, so no
//! argument text is ever expanded by the shell. Basic auth becomes `-u` (its header would be
//! the base64 of the markers).

use reqwest::header::AUTHORIZATION;
use serde_json::{Map, Value};
use toolscope_engine::ToolFailure;

use crate::definition::{AuthDefinition, EndpointSpec};
use crate::request::{basic_user, prepare};
use crate::secrets::{EnvSource, Redactor};

/// Marks a variable reference inside built text: letters only, so neither percent-encoding
/// nor a header value changes it.
const OPEN: &str = "ZQTSVARQZ";
const CLOSE: &str = "ZQTSENDQZ";

fn marker(name: &str) -> String {
    format!("{OPEN}{name}{CLOSE}")
}

/// The cURL command of `endpoint` called with `args`.
pub(crate) fn curl_command(
    client: &reqwest::Client,
    endpoint: &EndpointSpec,
    args: Map<String, Value>,
) -> Result<String, ToolFailure> {
    let markers = EnvSource::from_fn(|name| Some(marker(name)));
    let request = prepare(client, endpoint, args, &markers, &mut Redactor::default())?;
    let mut parts = vec!["curl".to_owned()];
    if request.method() != reqwest::Method::GET {
        parts.push(format!("-X {}", request.method()));
    }
    parts.push(shell_word(request.url().as_str()));
    let basic = match &endpoint.auth {
        AuthDefinition::Basic {
            username,
            username_env,
            password_env,
        } => {
            let user = basic_user(username.as_deref(), username_env.as_deref(), &markers)?;
            Some(format!("{user}:{}", marker(password_env)))
        }
        _ => None,
    };
    for (name, value) in request.headers() {
        if basic.is_some() && name == AUTHORIZATION {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes());
        parts.push(format!("-H {}", shell_word(&format!("{name}: {value}"))));
    }
    if let Some(credentials) = basic {
        parts.push(format!("-u {}", shell_word(&credentials)));
    }
    if let Some(body) = request.body().and_then(reqwest::Body::as_bytes) {
        parts.push(format!(
            "--data-raw {}",
            shell_word(&String::from_utf8_lossy(body))
        ));
    }
    Ok(parts.join(" \\\n  "))
}

/// `text` as one shell word: literal runs single-quoted, variable markers as `"${VAR}"`.
fn shell_word(text: &str) -> String {
    let mut word = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else {
            break;
        };
        push_literal(&mut word, &rest[..start]);
        word.push_str(&format!("\"${{{}}}\"", &after[..end]));
        rest = &after[end + CLOSE.len()..];
    }
    push_literal(&mut word, rest);
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
    fn literals_are_single_quoted_and_markers_expand() {
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(
            shell_word(&format!("Bearer {}", marker("TOKEN"))),
            "'Bearer '\"${TOKEN}\""
        );
        assert_eq!(shell_word(&marker("A")), "\"${A}\"");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME `x`"), "'$HOME `x`'");
    }
}
