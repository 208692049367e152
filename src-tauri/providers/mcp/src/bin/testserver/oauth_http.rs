//! `--http-oauth`: the test server as an OAuth-protected MCP server over streamable HTTP, as
//! the MCP authorization spec (2025-06-18, 2025-11-25) describes one. The client's sign-in
//! (`src/oauth/`) is tested against it as a separate process, so what passes is what a real
//! server would accept.
//!
//! One process plays both parts: the protected resource at `/mcp` (rmcp's streamable HTTP
//! service behind a bearer-token check, with its RFC 9728 metadata) and its authorization
//! server ([`crate::oauth_server`]). `admin_op` needs a scope the first sign-in does not ask
//! for, so the step-up path (403 `insufficient_scope`) is exercised too; `whoami` and
//! `GET /stats` let a test see what the server saw. `--oauth-fault` makes it misbehave
//! ([`crate::oauth_server::Fault`]).
//!
//! It prints `listening http://127.0.0.1:PORT/mcp` on stdout and logs to stderr; it ends when
//! killed or when its stdin closes, so a test that drops its handle leaves nothing behind.

use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::oauth_server::{AuthServer, Fault, ELSEWHERE, LINK_LOCAL_SERVER, SCOPES};
use crate::{schema, TestServer};

pub type Reply = Response<BoxBody<Bytes, Infallible>>;

/// Far above any request the tests send; a larger body is refused before it is buffered.
const MAX_BODY_BYTES: usize = 4 << 20;

pub fn json_reply(status: StatusCode, value: &Value) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *reply.status_mut() = status;
    let headers = reply.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // RFC 6749 §5.1: token responses must not be cached; nothing here should be.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    reply
}

pub fn plain(status: StatusCode, text: &str) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *reply.status_mut() = status;
    reply
}

pub fn redirect(location: &str) -> Reply {
    let mut reply = plain(StatusCode::FOUND, "");
    match location.parse() {
        Ok(value) => {
            reply.headers_mut().insert(header::LOCATION, value);
            reply
        }
        Err(_) => plain(
            StatusCode::BAD_REQUEST,
            "the redirect target is not a valid header",
        ),
    }
}

/// The scopes of the token a request to `/mcp` carried, for `whoami` (rmcp hands the
/// request's `http::request::Parts` to the handler).
#[derive(Clone)]
struct Grant(Vec<String>);

struct Front {
    auth: Arc<AuthServer>,
    mcp: StreamableHttpService<Protected, LocalSessionManager>,
}

pub async fn run(token_lifetime: Duration, fault: Option<Fault>) -> std::io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let issuer = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    let resource = format!("{issuer}/mcp");
    let auth = Arc::new(AuthServer::new(
        issuer,
        resource.clone(),
        token_lifetime,
        fault,
    ));
    let handler_auth = Arc::clone(&auth);
    let mcp = StreamableHttpService::new(
        move || {
            Ok(Protected {
                inner: TestServer::default(),
                auth: Arc::clone(&handler_auth),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let front = Arc::new(Front { auth, mcp });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening {resource}")?;
    stdout.flush()?;
    drop(stdout);
    eprintln!("toolscope-mcp-testserver: OAuth-protected MCP at {resource}");
    tokio::spawn(async {
        let mut sink = Vec::new();
        let _ = tokio::io::stdin().read_to_end(&mut sink).await;
        std::process::exit(0);
    });
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("accept failed: {e}");
                continue;
            }
        };
        let front = Arc::clone(&front);
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let front = Arc::clone(&front);
                async move { Ok::<_, Infallible>(front.route(request).await) }
            });
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                eprintln!("connection ended: {e}");
            }
        });
    }
}

/// The request body, whole; `Err` is the answer when it cannot be read.
async fn read_body(body: Incoming) -> Result<Bytes, Reply> {
    match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => Err(plain(StatusCode::PAYLOAD_TOO_LARGE, &e.to_string())),
    }
}

impl Front {
    async fn route(&self, request: Request<Incoming>) -> Reply {
        let method = request.method().clone();
        let path = request.uri().path().to_owned();
        let reply = match (&method, path.as_str()) {
            (_, "/mcp") => self.mcp(request).await,
            (&Method::GET, "/.well-known/oauth-protected-resource")
            | (&Method::GET, "/.well-known/oauth-protected-resource/mcp") => {
                self.resource_metadata()
            }
            (&Method::GET, "/.well-known/oauth-authorization-server") => {
                json_reply(StatusCode::OK, &self.auth.metadata())
            }
            (&Method::GET, "/authorize") => {
                self.auth.authorize(request.uri().query().unwrap_or(""))
            }
            (&Method::POST, "/register") => match read_body(request.into_body()).await {
                Ok(body) => self.auth.register(&body),
                Err(reply) => reply,
            },
            (&Method::POST, "/token") => {
                let (parts, body) = request.into_parts();
                match read_body(body).await {
                    Ok(body) => self.auth.token(&parts.headers, &body),
                    Err(reply) => reply,
                }
            }
            (&Method::GET, "/stats") => match serde_json::to_value(self.auth.stats()) {
                Ok(stats) => json_reply(StatusCode::OK, &stats),
                Err(e) => plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            },
            _ => plain(StatusCode::NOT_FOUND, "not found"),
        };
        eprintln!("{method} {path} -> {}", reply.status().as_u16());
        reply
    }

    /// RFC 9728 metadata, or the fault that replaces it.
    fn resource_metadata(&self) -> Reply {
        let server = match self.auth.fault {
            Some(Fault::RedirectElsewhere) => return redirect(ELSEWHERE),
            Some(Fault::AuthServerElsewhere) => LINK_LOCAL_SERVER,
            _ => self.auth.issuer.as_str(),
        };
        json_reply(
            StatusCode::OK,
            &json!({
                "resource": self.auth.resource,
                "authorization_servers": [server],
                "scopes_supported": SCOPES,
                "bearer_methods_supported": ["header"],
            }),
        )
    }

    /// RFC 6750 §3 / RFC 9728 §5.1: where to find out how to get a token, and what to ask for.
    fn challenge(&self, status: StatusCode, error: Option<&str>, scope: &str) -> Reply {
        let metadata = format!(
            "{}/.well-known/oauth-protected-resource/mcp",
            self.auth.issuer
        );
        let value = match error {
            Some(error) => format!(
                "Bearer error=\"{error}\", scope=\"{scope}\", resource_metadata=\"{metadata}\""
            ),
            None => format!("Bearer resource_metadata=\"{metadata}\", scope=\"{scope}\""),
        };
        let mut reply = plain(status, "");
        match value.parse() {
            Ok(value) => {
                reply.headers_mut().insert(header::WWW_AUTHENTICATE, value);
                reply
            }
            Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "bad challenge"),
        }
    }

    /// The bearer check in front of rmcp, then rmcp.
    async fn mcp(&self, request: Request<Incoming>) -> Reply {
        let Some(scopes) = bearer(request.headers()).and_then(|t| self.auth.scopes_of(t)) else {
            return self.challenge(StatusCode::UNAUTHORIZED, None, "mcp");
        };
        if !scopes.iter().any(|s| s == "mcp") {
            return self.challenge(StatusCode::FORBIDDEN, Some("insufficient_scope"), "mcp");
        }
        let (mut parts, body) = request.into_parts();
        let body = match read_body(body).await {
            Ok(body) => body,
            Err(reply) => return reply,
        };
        // The scope check has to happen before rmcp answers, since only the HTTP status can
        // say "step up"; so the body is read here and handed on whole.
        if parts.method == Method::POST
            && calls_admin_op(&body)
            && !scopes.iter().any(|s| s == "admin")
        {
            return self.challenge(
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "mcp admin",
            );
        }
        parts.extensions.insert(Grant(scopes));
        self.mcp
            .handle(Request::from_parts(parts, Full::new(body)))
            .await
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether a JSON-RPC message (or batch) calls `admin_op`; a body that is not JSON is rmcp's
/// to refuse.
fn calls_admin_op(body: &[u8]) -> bool {
    let is_call = |message: &Value| {
        message.get("method").and_then(Value::as_str) == Some("tools/call")
            && message.pointer("/params/name").and_then(Value::as_str) == Some("admin_op")
    };
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(batch)) => batch.iter().any(is_call),
        Ok(message) => is_call(&message),
        Err(_) => false,
    }
}

/// The stdio server's tools plus the two only this mode has.
#[derive(Clone)]
struct Protected {
    inner: TestServer,
    auth: Arc<AuthServer>,
}

fn extra_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "admin_op",
            "Needs the 'admin' scope; answers 'admin done'.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "whoami",
            "The caller's token (echoed, as a careless server would), its scopes and the authorization server's counters.",
            schema(json!({"type": "object"})),
        ),
    ]
}

impl ServerHandler for Protected {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut page = self.inner.list_tools(request, ctx).await?;
        if page.next_cursor.is_none() {
            page.tools.extend(extra_tools());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "admin_op" => {
                Ok(CallToolResult::success(vec![ContentBlock::text("admin done")]).into())
            }
            "whoami" => {
                let parts = ctx.extensions.get::<http::request::Parts>();
                let scopes = parts
                    .and_then(|parts| parts.extensions.get::<Grant>())
                    .map(|grant| grant.0.clone())
                    .unwrap_or_default();
                // Echoed so a test can see the client keep a refreshed token out of results.
                let token = parts
                    .and_then(|parts| parts.headers.get(header::AUTHORIZATION))
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| value.strip_prefix("Bearer "))
                    .unwrap_or_default();
                let answer = json!({"token": token, "scopes": scopes, "stats": self.auth.stats()});
                Ok(CallToolResult::success(vec![ContentBlock::text(answer.to_string())]).into())
            }
            _ => self.inner.call_tool(request, ctx).await,
        }
    }
}
