//! The door of a proxy that listens: loopback only, a random token the agent must present, and
//! `Host` / `Origin` checked against DNS rebinding. A web page the person visits can reach
//! 127.0.0.1 too (MCP Inspector's CVE-2025-49596 was an unauthenticated local proxy), so a
//! request is refused unless it names this listener as its host, comes from no foreign origin,
//! and knows the token.
//!
//! The token travels in the path (`/t/<token>/...`): the agent's base URL is then the only
//! thing that changes in its configuration, and its own API key passes through untouched.

use std::net::SocketAddr;

/// The path segment that introduces the token.
const TOKEN_PREFIX: &str = "/t/";

/// Why a request was turned away at the door; each is answered with its status and message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("this proxy only answers requests addressed to {expected}, not to host '{got}'")]
    ForeignHost { got: String, expected: String },
    #[error("requests from the web origin '{0}' are refused (this proxy is for local agents)")]
    ForeignOrigin(String),
    #[error(
        "the proxy token is missing or wrong: use the base URL the proxy printed when it started"
    )]
    BadToken,
}

impl Refusal {
    pub fn status(&self) -> u16 {
        match self {
            Self::ForeignHost { .. } | Self::ForeignOrigin(_) => 403,
            Self::BadToken => 401,
        }
    }
}

/// A request header's value as text (what the door and the routes read); none when absent or
/// not visible ASCII.
pub fn header(headers: &hyper::HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A fresh random token: 244 random bits, URL-safe.
pub fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Refuses any address but a loopback one: the proxy is never reachable from another machine.
pub fn check_loopback(address: SocketAddr) -> Result<(), String> {
    if address.ip().is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "{address} is not a loopback address: the proxy only listens on 127.0.0.1 or [::1]"
        ))
    }
}

/// The checks for one bound listener.
#[derive(Debug, Clone)]
pub struct Door {
    token: String,
    port: u16,
}

impl Door {
    pub fn new(token: impl Into<String>, port: u16) -> Self {
        Self {
            token: token.into(),
            port,
        }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The path prefix an agent's base URL carries.
    pub fn path_prefix(&self) -> String {
        format!("{TOKEN_PREFIX}{}", self.token)
    }

    /// Checks `Host`, `Origin` and the token, and returns the path with the token taken off.
    pub fn admit<'a>(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        path: &'a str,
    ) -> Result<&'a str, Refusal> {
        self.check_host(host)?;
        if let Some(origin) = origin.filter(|o| !self.is_own_origin(o)) {
            return Err(Refusal::ForeignOrigin(origin.to_owned()));
        }
        let rest = path.strip_prefix(TOKEN_PREFIX).ok_or(Refusal::BadToken)?;
        let (given, rest) = match rest.find('/') {
            Some(slash) => rest.split_at(slash),
            None => (rest, ""),
        };
        if !same_secret(given.as_bytes(), self.token.as_bytes()) {
            return Err(Refusal::BadToken);
        }
        Ok(rest)
    }

    /// Checks `Host`, `Origin` and an `Authorization: Bearer <token>` header (the MCP proxy's
    /// `--listen`: MCP clients are configured with headers, not a path).
    pub fn admit_bearer(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<(), Refusal> {
        self.check_host(host)?;
        if let Some(origin) = origin.filter(|o| !self.is_own_origin(o)) {
            return Err(Refusal::ForeignOrigin(origin.to_owned()));
        }
        let given = authorization
            .and_then(|value| {
                value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
            })
            .unwrap_or_default()
            .trim();
        if same_secret(given.as_bytes(), self.token.as_bytes()) {
            Ok(())
        } else {
            Err(Refusal::BadToken)
        }
    }

    fn check_host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let expected = || format!("127.0.0.1:{0}, localhost:{0} or [::1]:{0}", self.port);
        let host = host.unwrap_or_default().trim();
        if self
            .loopback_authorities()
            .any(|a| a.eq_ignore_ascii_case(host))
        {
            Ok(())
        } else {
            Err(Refusal::ForeignHost {
                got: host.to_owned(),
                expected: expected(),
            })
        }
    }

    fn is_own_origin(&self, origin: &str) -> bool {
        let origin = origin.trim();
        // A sandboxed or local file page sends `null`: it is not a site, but not an agent either.
        self.loopback_authorities()
            .any(|a| origin.eq_ignore_ascii_case(&format!("http://{a}")))
    }

    fn loopback_authorities(&self) -> impl Iterator<Item = String> + '_ {
        ["127.0.0.1", "localhost", "[::1]"]
            .into_iter()
            .map(move |host| format!("{host}:{}", self.port))
    }
}

/// Compares in time independent of where the first difference is.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    given
        .iter()
        .zip(expected)
        .fold(0_u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn door() -> Door {
        Door::new("abc123", 4000)
    }

    #[test]
    fn a_request_with_host_and_token_is_admitted_and_loses_its_token() {
        let admitted = door().admit(
            Some("127.0.0.1:4000"),
            None,
            "/t/abc123/v1/chat/completions",
        );
        assert_eq!(admitted, Ok("/v1/chat/completions"));
        let local = door().admit(
            Some("localhost:4000"),
            Some("http://localhost:4000"),
            "/t/abc123",
        );
        assert_eq!(local, Ok(""));
    }

    #[test]
    fn a_rebound_host_a_foreign_origin_and_a_wrong_token_are_refused() {
        let rebound = door().admit(Some("evil.example:4000"), None, "/t/abc123/v1/models");
        assert!(matches!(rebound, Err(Refusal::ForeignHost { .. })));
        assert_eq!(rebound.expect_err("refused").status(), 403);
        let other_port = door().admit(Some("127.0.0.1:4001"), None, "/t/abc123/v1/models");
        assert!(matches!(other_port, Err(Refusal::ForeignHost { .. })));
        let origin = door().admit(
            Some("127.0.0.1:4000"),
            Some("https://evil.example"),
            "/t/abc123/v1/models",
        );
        assert_eq!(
            origin,
            Err(Refusal::ForeignOrigin("https://evil.example".to_owned()))
        );
        for path in ["/v1/models", "/t/abc124/v1/models", "/t/abc1234/v1", "/t/"] {
            let refused = door().admit(Some("127.0.0.1:4000"), None, path);
            assert_eq!(refused, Err(Refusal::BadToken), "{path}");
        }
    }

    #[test]
    fn only_loopback_addresses_may_be_listened_on() {
        assert!(check_loopback("127.0.0.1:0".parse().expect("addr")).is_ok());
        assert!(check_loopback("[::1]:0".parse().expect("addr")).is_ok());
        assert!(check_loopback("0.0.0.0:8080".parse().expect("addr")).is_err());
        assert!(check_loopback("192.168.1.2:8080".parse().expect("addr")).is_err());
    }
}
