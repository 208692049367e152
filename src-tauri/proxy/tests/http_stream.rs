//! The `--url` transport's `GET` stream of server-initiated messages, against a scripted
//! streamable-HTTP server on 127.0.0.1 that ends the stream after one event: the proxy opens it
//! again after the server's `retry`, sends `Last-Event-ID`, and the agent receives the
//! notifications sent on both connections (MCP spec, "Resumability and Redelivery").

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolscope_proxy::http_upstream::{run_http, HttpOptions};
use toolscope_proxy::stdio::agent_lines_from;
use toolscope_proxy::{Recorder, SessionInfo, Tap};

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// What the server saw: the `Last-Event-ID` of each `GET`, in order.
#[derive(Default)]
struct Seen {
    gets: Vec<Option<String>>,
}

fn note(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

async fn answer(
    seen: Arc<Mutex<Seen>>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let full = |status: u16, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
        *response.status_mut() = hyper::StatusCode::from_u16(status).expect("status");
        response
            .headers_mut()
            .insert("mcp-session-id", "s1".parse().expect("header"));
        response
            .headers_mut()
            .insert("content-type", "application/json".parse().expect("header"));
        response
    };
    match request.method().as_str() {
        "POST" => {
            let body = request
                .into_body()
                .collect()
                .await
                .expect("body")
                .to_bytes();
            let message: Value = serde_json::from_slice(&body).expect("JSON");
            match message.get("id") {
                Some(id) => Ok(full(
                    200,
                    json!({"jsonrpc": "2.0", "id": id, "result": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "serverInfo": {"name": "scripted", "version": "1"}}})
                    .to_string(),
                )),
                None => Ok(full(202, String::new())),
            }
        }
        "GET" => {
            let last = request
                .headers()
                .get("last-event-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let first = {
                let mut seen = seen.lock().expect("lock");
                seen.gets.push(last);
                seen.gets.len() == 1
            };
            // The first stream carries one event and ends; the next one stays open.
            let event = if first {
                format!(
                    "retry: 50\nid: 1\ndata: {}\n\n",
                    note("notifications/tools/list_changed")
                )
            } else {
                format!(
                    "id: 2\ndata: {}\n\n",
                    note("notifications/resources/list_changed")
                )
            };
            let chunk: Result<Frame<Bytes>, Infallible> = Ok(Frame::data(Bytes::from(event)));
            let stream = futures_util::stream::iter([chunk]);
            let body: Body = if first {
                StreamBody::new(stream).boxed()
            } else {
                let open = futures_util::StreamExt::chain(stream, futures_util::stream::pending());
                BodyExt::boxed(StreamBody::new(open))
            };
            let mut response = Response::new(body);
            response
                .headers_mut()
                .insert("content-type", "text/event-stream".parse().expect("header"));
            Ok(response)
        }
        _ => Ok(full(200, String::new())),
    }
}

async fn serve(seen: Arc<Mutex<Seen>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let seen = seen.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |r| answer(seen.clone(), r));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    format!("http://{address}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ended_message_stream_is_opened_again_from_its_last_event() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let url = serve(seen.clone()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let recorder = Recorder::create(dir.path(), "scripted", "session").expect("recorder");
    let info = SessionInfo {
        name: "scripted".to_owned(),
        argv: vec!["--url".to_owned(), url.clone()],
        enforce: false,
    };
    let tap = Arc::new(Tap::start(recorder, "session", &info).expect("tap"));
    let (agent, proxy_side) = tokio::io::duplex(1 << 16);
    let (proxy_in, proxy_out) = tokio::io::split(proxy_side);
    let options = HttpOptions {
        url,
        headers: Vec::new(),
        exit_grace: Duration::from_secs(1),
        auth: None,
    };
    let session = tokio::spawn(run_http(
        tap,
        options,
        agent_lines_from(proxy_in),
        proxy_out,
        std::future::pending(),
    ));
    let (agent_in, mut agent_out) = tokio::io::split(agent);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    for line in [initialize.to_string(), note("notifications/initialized")] {
        agent_out
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("send");
    }
    let mut lines = BufReader::new(agent_in).lines();
    let mut methods = Vec::new();
    while methods.len() < 2 {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("the notifications arrive")
            .expect("read")
            .expect("a line");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        if let Some(method) = message["method"].as_str() {
            methods.push(method.to_owned());
        }
    }
    assert_eq!(
        methods,
        [
            "notifications/tools/list_changed",
            "notifications/resources/list_changed"
        ]
    );
    assert_eq!(
        seen.lock().expect("lock").gets,
        [None, Some("1".to_owned())],
        "reopened with the last event's id"
    );
    agent_out.shutdown().await.expect("close");
    drop(agent_out);
    let _ = tokio::time::timeout(Duration::from_secs(10), session).await;
}
