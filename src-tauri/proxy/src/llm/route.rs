//! Where an agent's request goes: which wire it speaks (by its path, as the SDKs build it) and
//! the upstream URL it is forwarded to.
//!
//! The upstream is given as the base URL the agent used before (`http://host:8000/v1` for an
//! OpenAI SDK, `https://host` for an Anthropic one): the agent's paths start with `/v1`, so a
//! base that already ends in `/v1` does not get a second one.

use serde_json::Value;
use toolscope_llm::client::Wire;

/// The wire of a request path (without query), `None` for paths that are only forwarded
/// (`/v1/models` and the like).
pub fn wire_of(path: &str) -> Option<Wire> {
    let path = path.trim_end_matches('/');
    let path = path.strip_prefix("/v1").unwrap_or(path);
    match path {
        "/chat/completions" => Some(Wire::OpenAiChat),
        "/responses" => Some(Wire::OpenAiResponses),
        "/messages" => Some(Wire::Anthropic),
        _ => None,
    }
}

/// The upstream base, checked once at start.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// Scheme and authority, without a trailing slash.
    origin: String,
    /// The base path without its trailing slash (and without a final `/v1`).
    prefix: String,
    with_v1: bool,
    display: String,
}

impl Upstream {
    pub fn parse(base: &str) -> Result<Self, String> {
        let url =
            url::Url::parse(base.trim()).map_err(|e| format!("'{base}' is not a URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("'{base}' is not an http(s) URL"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("'{base}': give the base URL without a query"));
        }
        let host = url
            .host_str()
            .ok_or_else(|| format!("'{base}' has no host"))?;
        let origin = match url.port() {
            Some(port) => format!("{}://{host}:{port}", url.scheme()),
            None => format!("{}://{host}", url.scheme()),
        };
        let path = url.path().trim_end_matches('/');
        let (prefix, with_v1) = match path.strip_suffix("/v1") {
            Some(prefix) => (prefix.to_owned(), true),
            None => (path.to_owned(), false),
        };
        Ok(Self {
            origin,
            prefix,
            with_v1,
            display: url.to_string().trim_end_matches('/').to_owned(),
        })
    }

    /// The URL for the agent's `path_and_query` (taken off the token already).
    pub fn url_for(&self, path_and_query: &str) -> String {
        let path = if path_and_query.starts_with("/v1/") || path_and_query == "/v1" {
            path_and_query.to_owned()
        } else if self.with_v1 {
            // An OpenAI SDK whose base URL left out /v1 on purpose keeps the upstream's /v1.
            format!("/v1{path_and_query}")
        } else {
            path_and_query.to_owned()
        };
        format!("{}{}{}", self.origin, self.prefix, path)
    }

    /// The base URL as given, for records and messages.
    pub fn as_str(&self) -> &str {
        &self.display
    }
}

/// The model a request names (Chat, Responses and Messages all say `model`).
pub fn model_of(body: &Value) -> String {
    body["model"].as_str().unwrap_or_default().to_owned()
}

/// Whether the agent asked for a stream.
pub fn streams(body: &Value) -> bool {
    body["stream"].as_bool().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_wire() {
        assert_eq!(wire_of("/v1/chat/completions"), Some(Wire::OpenAiChat));
        assert_eq!(wire_of("/chat/completions"), Some(Wire::OpenAiChat));
        assert_eq!(wire_of("/v1/responses"), Some(Wire::OpenAiResponses));
        assert_eq!(wire_of("/v1/messages"), Some(Wire::Anthropic));
        assert_eq!(wire_of("/v1/models"), None);
    }

    #[test]
    fn an_upstream_with_or_without_v1_gets_one_v1() {
        let openai = Upstream::parse("http://127.0.0.1:8000/v1/").expect("url");
        assert_eq!(
            openai.url_for("/v1/chat/completions"),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert_eq!(
            openai.url_for("/chat/completions?x=1"),
            "http://127.0.0.1:8000/v1/chat/completions?x=1"
        );
        let anthropic = Upstream::parse("https://models.example/api").expect("url");
        assert_eq!(
            anthropic.url_for("/v1/messages"),
            "https://models.example/api/v1/messages"
        );
        assert_eq!(anthropic.as_str(), "https://models.example/api");
        assert!(Upstream::parse("ftp://x").is_err());
        assert!(Upstream::parse("not a url").is_err());
    }
}
