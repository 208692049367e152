//! The HTTP client under every OAuth request rmcp makes for a server (discovery, registration,
//! token exchange, refresh), plugged in through rmcp's `OAuthHttpClient` hook for three reasons:
//! - each exchange becomes a step of the server's [`SignInTrace`], which rmcp has no other way
//!   to show;
//! - what the answers showed is noted as [`Findings`], which tell apart the failures rmcp
//!   reports as flattened text;
//! - the addresses it connects to are checked, as rmcp's own client does (its checker is
//!   private to it): the metadata a server publishes decides where the client goes next, so a
//!   hostile server could point it at the person's router or a cloud metadata address. Public
//!   addresses are always allowed; loopback and private ones only when the MCP server's own URL
//!   is of that kind; link-local, unspecified, multicast and reserved ones never. Names are
//!   checked after resolution, in the resolver reqwest connects with, so a name cannot be
//!   rebound between the check and the connection.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};
use url::Url;

use super::error::Findings;
use super::trace::{http_text, SignInTrace, StepOutcome};

/// rmcp's own limits for OAuth requests.
const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_BODY_BYTES: usize = 1024 * 1024;
const MAX_REDIRECTS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AddressKind {
    Public,
    Loopback,
    Private,
    Never,
}

fn kind_of(ip: IpAddr) -> AddressKind {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            if v4.is_loopback() {
                AddressKind::Loopback
            } else if v4.is_private() || (a == 100 && (64..=127).contains(&b)) {
                AddressKind::Private
            } else if v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || a >= 240
            {
                AddressKind::Never
            } else {
                AddressKind::Public
            }
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            if v6.is_loopback() {
                AddressKind::Loopback
            } else if first & 0xfe00 == 0xfc00 {
                AddressKind::Private
            } else if v6.is_unspecified() || v6.is_multicast() || first & 0xffc0 == 0xfe80 {
                AddressKind::Never
            } else {
                AddressKind::Public
            }
        }
    }
}

/// Which addresses the OAuth requests for one MCP server may reach.
#[derive(Debug, Clone)]
struct AddressPolicy {
    allowed: Vec<AddressKind>,
}

impl AddressPolicy {
    fn for_server(server: &Url) -> Self {
        let own = match server.host() {
            Some(url::Host::Ipv4(ip)) => Some(kind_of(IpAddr::V4(ip))),
            Some(url::Host::Ipv6(ip)) => Some(kind_of(IpAddr::V6(ip))),
            Some(url::Host::Domain(name)) if name.eq_ignore_ascii_case("localhost") => {
                Some(AddressKind::Loopback)
            }
            _ => None,
        };
        let mut allowed = vec![AddressKind::Public];
        allowed.extend(own.filter(|kind| *kind != AddressKind::Never));
        Self { allowed }
    }

    fn allows(&self, ip: IpAddr) -> bool {
        self.allowed.contains(&kind_of(ip))
    }

    /// A URL naming an IP literal is connected to without resolving: check it here.
    fn allows_url(&self, url: &Url) -> bool {
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.allows(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.allows(IpAddr::V6(ip)),
            _ => true,
        }
    }
}

impl reqwest::dns::Resolve for AddressPolicy {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|addr| policy.allows(addr.ip()))
                .collect();
            if allowed.is_empty() {
                return Err(format!(
                    "'{host}' resolves only to addresses a sign-in for this server may not \
                     reach ({})",
                    describe_addresses(&found)
                )
                .into());
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

fn describe_addresses(found: &[SocketAddr]) -> String {
    let list: Vec<String> = found.iter().map(|a| a.ip().to_string()).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// The OAuth client of one MCP server: address-checked, and traced.
pub struct TracedHttpClient {
    follow: reqwest::Client,
    stop: reqwest::Client,
    policy: Arc<AddressPolicy>,
    trace: Arc<SignInTrace>,
    /// What the answers showed, to classify the errors rmcp flattens (see `error`).
    findings: Arc<Findings>,
    server: Url,
}

impl TracedHttpClient {
    pub fn new(
        server: &Url,
        trace: Arc<SignInTrace>,
        findings: Arc<Findings>,
    ) -> Result<Self, String> {
        let policy = Arc::new(AddressPolicy::for_server(server));
        let redirects = Arc::clone(&policy);
        let follow_policy = reqwest::redirect::Policy::custom(move |attempt| {
            if !redirects.allows_url(attempt.url()) {
                let refused = format!("redirect to {} refused", attempt.url());
                attempt.error(refused)
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        });
        let build = |redirect| {
            reqwest::Client::builder()
                .timeout(TIMEOUT)
                .redirect(redirect)
                .dns_resolver(Arc::clone(&policy))
                .build()
                .map_err(|e| e.to_string())
        };
        Ok(Self {
            follow: build(follow_policy)?,
            stop: build(reqwest::redirect::Policy::none())?,
            policy: Arc::clone(&policy),
            trace,
            findings,
            server: server.clone(),
        })
    }

    async fn send(
        &self,
        request: reqwest::Request,
        redirect: OAuthHttpRedirectPolicy,
    ) -> Result<(http::StatusCode, http::HeaderMap, Vec<u8>), String> {
        // Metadata, registration and token requests carry codes, secrets and tokens.
        super::require_tls_off_loopback(request.url().as_str(), "an OAuth endpoint")
            .map_err(|e| e.to_string())?;
        if !self.policy.allows_url(request.url()) {
            return Err(format!(
                "{} is an address a sign-in for this server may not reach",
                request.url()
            ));
        }
        let client = match redirect {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let response = client.execute(request).await.map_err(|e| describe(&e))?;
        let status = response.status();
        let headers = response.headers().clone();
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| describe(&e))?;
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(format!("the answer is larger than {MAX_BODY_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((status, headers, body))
    }
}

/// reqwest's top-level text says little ("error sending request"); its sources say why.
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

impl OAuthHttpClient for TracedHttpClient {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let redirect = request.redirect_policy;
            let request = request.request;
            let title = title_of(&request, &self.server);
            let sent_to = Url::parse(&request.uri().to_string()).ok();
            let for_token = String::from_utf8_lossy(request.body()).contains("grant_type=");
            let sent = http_text(
                &format!("{} {}", request.method(), request.uri()),
                request.headers(),
                request.body(),
            );
            let request = reqwest::Request::try_from(request)
                .map_err(|e| Box::new(e) as OAuthHttpClientError)?;
            match self.send(request, redirect).await {
                Ok((status, headers, body)) => {
                    if let Some(sent_to) = &sent_to {
                        let stopped = redirect == OAuthHttpRedirectPolicy::Stop;
                        self.findings
                            .note(sent_to, stopped, for_token, status, &headers);
                    }
                    let (outcome, note) = judge(&title, status, &headers);
                    let answer = http_text(&status.to_string(), &headers, &body);
                    self.trace
                        .push(title, outcome, Some(sent), Some(answer), note);
                    let mut response = http::Response::builder().status(status);
                    for (name, value) in &headers {
                        response = response.header(name, value);
                    }
                    response
                        .body(body)
                        .map_err(|e| Box::new(e) as OAuthHttpClientError)
                }
                Err(reason) => {
                    self.trace.push(
                        title,
                        StepOutcome::Failed,
                        Some(sent),
                        None,
                        Some(format!("no answer: {reason}")),
                    );
                    Err(reason.into())
                }
            }
        })
    }
}

/// What an OAuth request is for, from where it goes and what it carries.
fn title_of(request: &http::Request<Vec<u8>>, server: &Url) -> String {
    let path = request.uri().path();
    let body = String::from_utf8_lossy(request.body());
    let title = if path.contains("/.well-known/oauth-protected-resource") {
        "Protected resource metadata (RFC 9728)"
    } else if path.contains("/.well-known/oauth-authorization-server") {
        "Authorization server metadata (RFC 8414)"
    } else if path.contains("/.well-known/openid-configuration") {
        "OpenID Connect discovery"
    } else if body.contains("grant_type=authorization_code") {
        "Token request (authorization code)"
    } else if body.contains("grant_type=refresh_token") {
        "Token refresh"
    } else if body.contains("redirect_uris") {
        "Client registration (RFC 7591)"
    } else if request.uri() == server.as_str() {
        "The MCP endpoint, for its challenge"
    } else {
        "Request"
    };
    title.to_owned()
}

/// Whether an answer let the flow go on, and what to tell the person when it did not.
fn judge(
    title: &str,
    status: http::StatusCode,
    headers: &http::HeaderMap,
) -> (StepOutcome, Option<String>) {
    let discovery = title.contains("metadata") || title.contains("discovery");
    let json = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    if status.is_success() {
        if !json && title != "The MCP endpoint, for its challenge" {
            return (
                StepOutcome::Failed,
                Some("the answer is not JSON, which OAuth endpoints must answer".into()),
            );
        }
        return (StepOutcome::Done, None);
    }
    if status.is_redirection() {
        let to = headers
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nowhere named");
        return (
            StepOutcome::Info,
            Some(format!(
                "redirected to {to}; followed only within the same site"
            )),
        );
    }
    if discovery && status == http::StatusCode::NOT_FOUND {
        return (
            StepOutcome::Skipped,
            Some("not published here; the next well-known location is tried".into()),
        );
    }
    if status == http::StatusCode::UNAUTHORIZED && !discovery && !title.starts_with("Token") {
        return (
            StepOutcome::Info,
            Some("refused without a token, as expected: its challenge seeds discovery".into()),
        );
    }
    (
        StepOutcome::Failed,
        Some(format!("the server answered {status}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn policy(server: &str) -> AddressPolicy {
        AddressPolicy::for_server(&Url::parse(server).expect("a URL"))
    }

    #[test]
    fn reaches_internal_addresses_only_from_a_server_that_is_itself_internal() {
        let public = policy("https://mcp.example.com/mcp");
        let metadata_service = ip("169.254.169.254");
        let router = ip("192.168.1.1");
        let loopback = ip("127.0.0.1");
        let elsewhere = ip("93.184.216.34");
        assert!(public.allows(elsewhere));
        assert!(!public.allows(metadata_service));
        assert!(!public.allows(router));
        assert!(!public.allows(loopback));
        assert!(!public.allows(ip("::ffff:127.0.0.1")));

        let local = policy("http://127.0.0.1:8080/mcp");
        assert!(local.allows(loopback) && local.allows(elsewhere));
        assert!(!local.allows(router) && !local.allows(metadata_service));
        assert!(policy("http://localhost:1/mcp").allows(loopback));
        let intranet = policy("https://10.0.0.5/mcp");
        assert!(intranet.allows(ip("10.1.2.3")));
        assert!(!intranet.allows(metadata_service));
    }

    #[tokio::test]
    async fn refuses_plain_http_to_an_oauth_endpoint_off_loopback() {
        let server = Url::parse("https://mcp.example.com/mcp").expect("a URL");
        let trace = Arc::new(SignInTrace::default());
        let client =
            TracedHttpClient::new(&server, Arc::clone(&trace), Arc::default()).expect("a client");
        let request = reqwest::Request::new(
            http::Method::GET,
            Url::parse("http://auth.example.com/.well-known/oauth-authorization-server")
                .expect("a URL"),
        );
        let refused = client
            .send(request, OAuthHttpRedirectPolicy::Follow)
            .await
            .expect_err("plain HTTP off loopback");
        assert!(refused.contains("unencrypted"), "{refused}");
    }

    #[test]
    fn names_each_request_by_what_it_is_for() {
        let server = Url::parse("https://mcp.example.com/mcp").expect("a URL");
        let request = |uri: &str, body: &str| {
            http::Request::post(uri)
                .body(body.as_bytes().to_vec())
                .expect("a request")
        };
        let cases = [
            (
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "",
                "Protected resource metadata (RFC 9728)",
            ),
            (
                "https://auth.example.com/token",
                "grant_type=refresh_token&refresh_token=x",
                "Token refresh",
            ),
            (
                "https://auth.example.com/register",
                r#"{"redirect_uris":["http://127.0.0.1:1/callback"]}"#,
                "Client registration (RFC 7591)",
            ),
            (
                "https://mcp.example.com/mcp",
                "",
                "The MCP endpoint, for its challenge",
            ),
        ];
        for (uri, body, title) in cases {
            assert_eq!(title_of(&request(uri, body), &server), title, "{uri}");
        }
    }

    #[test]
    fn a_token_endpoint_answering_html_stops_the_flow_with_a_reason() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/html"),
        );
        let (outcome, note) = judge(
            "Token request (authorization code)",
            http::StatusCode::OK,
            &headers,
        );
        assert_eq!(outcome, StepOutcome::Failed);
        assert!(note.unwrap_or_default().contains("not JSON"));
    }
}
