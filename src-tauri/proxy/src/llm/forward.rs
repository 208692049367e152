//! One request through the proxy: admitted at the door, sent on to the upstream with its
//! headers and body as the agent sent them, and answered with the upstream's status, headers
//! and body, each piece passed on the moment it arrives. A copy of each piece goes to the
//! turn's recorder after the agent's copy is handed over.
//!
//! Deliberate differences from a byte-exact tunnel, all hop-by-hop: the connection headers are
//! the proxy's own, `Host` names the upstream, and `Accept-Encoding` is `identity` so the
//! recorder can read what the model said (the agent then receives the same content
//! uncompressed). When the upstream cannot be reached the agent gets a 502 whose JSON body has
//! the shape its SDK reads errors in.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use toolscope_engine::agent::model::ModelErrorKind;
use toolscope_engine::agent::Record;
use toolscope_llm::client::Wire;

use super::route::wire_of;
use super::turn::{Head, Piece, TurnRecording};
use super::Shared;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub(crate) type ProxyBody = BoxBody<Bytes, BoxError>;

/// The largest request body accepted (a long conversation with images fits).
const MAX_REQUEST: usize = 256 * 1024 * 1024;

/// Headers that belong to one connection, never forwarded either way.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

pub(crate) async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<ProxyBody>, Infallible> {
    let header = |name: &str| crate::door::header(request.headers(), name);
    let (host, origin) = (header("host"), header("origin"));
    let path = request.uri().path().to_owned();
    let rest = match shared.door.admit(host.as_deref(), origin.as_deref(), &path) {
        Ok(rest) => rest.to_owned(),
        Err(refusal) => {
            return Ok(error_response(
                refusal.status(),
                None,
                "proxy_refused",
                &refusal.to_string(),
            ))
        }
    };
    let wire = wire_of(&rest);
    let path_and_query = match request.uri().query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest,
    };
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            let message = format!("the request body could not be read: {error}");
            return Ok(error_response(400, wire, "invalid_request", &message));
        }
    };
    let keys = credentials(&parts.headers);
    // Only model requests with a JSON body are turns; anything else is only forwarded.
    let slot = wire
        .filter(|_| parts.method == hyper::Method::POST)
        .and_then(|wire| Some((wire, serde_json::from_slice::<Value>(&body).ok()?)))
        .and_then(
            |(wire, json)| match shared.conversations.begin(wire, &json, &keys) {
                Ok(slot) => Some(slot),
                Err(error) => {
                    shared.record_failed(error.to_string());
                    None
                }
            },
        );
    let url = shared.upstream.url_for(&path_and_query);
    let mut upstream = shared.client.request(parts.method.clone(), &url).body(body);
    for (name, value) in parts.headers.iter() {
        let replaced = ["host", "content-length", "accept-encoding"].contains(&name.as_str());
        if forwarded(name) && !replaced {
            upstream = upstream.header(name, value);
        }
    }
    upstream = upstream.header("accept-encoding", "identity");
    let sent = Instant::now();
    let answer = match upstream.send().await {
        Ok(answer) => answer,
        Err(error) => {
            let message = format!(
                "the Toolscope proxy could not reach the upstream {}: {}",
                shared.upstream.as_str(),
                error_chain(&error)
            );
            if let Some(slot) = &slot {
                let failed = slot.log.append(Record::ModelFailed {
                    turn: slot.turn,
                    kind: ModelErrorKind::Transport,
                    message: message.clone(),
                });
                if let Err(error) = failed {
                    shared.record_failed(error.to_string());
                }
            }
            return Ok(error_response(502, wire, "upstream_unreachable", &message));
        }
    };
    let mut response = Response::builder().status(answer.status());
    let head_of = |name: &str| {
        answer
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let head = Head {
        status: answer.status().as_u16(),
        content_type: head_of("content-type").unwrap_or_default(),
        retry_after: head_of("retry-after"),
    };
    if let Some(headers) = response.headers_mut() {
        for (name, value) in answer.headers().iter().filter(|(n, _)| forwarded(n)) {
            headers.append(name.clone(), value.clone());
        }
    }
    let Some(slot) = slot else {
        let stream = answer
            .bytes_stream()
            .map(|piece| piece.map(Frame::data).map_err(BoxError::from));
        return Ok(built(response, BodyExt::boxed(StreamBody::new(stream))));
    };
    let (copies, pieces) = mpsc::unbounded_channel();
    let on_error = {
        let shared = shared.clone();
        Arc::new(move |error: String| shared.record_failed(error))
    };
    tokio::spawn(
        TurnRecording {
            slot,
            head,
            sent,
            conversations: shared.conversations.clone(),
            protocols: shared.protocols.clone(),
            on_error,
        }
        .run(pieces),
    );
    // The end marker is sent only when the upstream's body ended: if the agent hangs up first,
    // hyper drops this stream and the recorder sees the copies stop without it. A body with a
    // length ends at its last byte (hyper stops polling there, so the chained marker would
    // never come).
    let ends = copies.clone();
    let mut left = answer.content_length();
    let end = futures_util::stream::poll_fn(move |_| {
        let _ = ends.send(Piece::End);
        std::task::Poll::Ready(None)
    });
    let stream = answer
        .bytes_stream()
        .map(move |piece| match piece {
            Ok(bytes) => {
                // Cloning `Bytes` shares the buffer: the recorder's copy costs no copy.
                let _ = copies.send(Piece::Bytes(bytes.clone()));
                if let Some(left) = left.as_mut() {
                    *left = left.saturating_sub(bytes.len() as u64);
                    if *left == 0 {
                        let _ = copies.send(Piece::End);
                    }
                }
                Ok(Frame::data(bytes))
            }
            Err(error) => {
                let _ = copies.send(Piece::Broken(error_chain(&error)));
                Err(BoxError::from(error))
            }
        })
        .chain(end);
    Ok(built(response, BodyExt::boxed(StreamBody::new(stream))))
}

fn forwarded(name: &HeaderName) -> bool {
    !HOP_BY_HOP.contains(&name.as_str())
}

/// The credentials a request carries, to be masked wherever they turn up in a record.
fn credentials(headers: &HeaderMap) -> Vec<String> {
    ["authorization", "x-api-key", "api-key", "x-goog-api-key"]
        .iter()
        .filter_map(|name| headers.get(*name)?.to_str().ok())
        .map(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
                .unwrap_or(value)
                .trim()
                .to_owned()
        })
        .filter(|value| value.len() >= 8)
        .collect()
}

fn built(response: hyper::http::response::Builder, body: ProxyBody) -> Response<ProxyBody> {
    response.body(body).unwrap_or_else(|error| {
        error_response(
            502,
            None,
            "proxy_error",
            &format!("the upstream's answer could not be passed on: {error}"),
        )
    })
}

/// An answer of the proxy's own, in the error shape of the agent's wire.
fn error_response(
    status: u16,
    wire: Option<Wire>,
    code: &str,
    message: &str,
) -> Response<ProxyBody> {
    let body = match wire {
        Some(Wire::Anthropic) => json!({
            "type": "error",
            "error": {"type": "api_error", "message": message},
        }),
        _ => json!({
            "error": {"message": message, "type": "proxy_error", "code": code},
        }),
    };
    let mut response = Response::new(
        Full::new(Bytes::from(body.to_string()))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

/// An error with its causes, as reqwest's own text leaves them out.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
