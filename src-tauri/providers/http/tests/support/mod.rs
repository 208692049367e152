//! A small HTTP/1.1 server on 127.0.0.1 (port 0) for the HTTP tool tests.
//!
//! Hand-written on a tokio `TcpListener` so the tests control every byte: the raw request
//! target (to check percent-encoding), slow replies (timeouts, cancellation) and endless bodies
//! (the response cap). Every reply closes its connection.

#![allow(dead_code)]

pub mod calls;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The raw request target, e.g. `/items/a%20b?q=1`.
    pub target: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }

    /// The raw (still encoded) value of a query parameter.
    pub fn query_param(&self, name: &str) -> Option<&str> {
        self.query()
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Waits, then answers.
    Delayed(Duration, Box<Reply>),
    /// `total` bytes of filler in 64 KiB writes, with or without a `Content-Length`.
    Flood { total: u64, declare_length: bool },
    /// These bytes as they are (a malformed or cut-off response), then the connection closes.
    Raw(Vec<u8>),
    /// The connection closes without a byte of answer, like a server process that died.
    Hangup,
    /// A 200 with a chunked body, one HTTP chunk per piece. With a `gate`, each piece after
    /// the first waits for a permit (the test hands one out when the client has shown the
    /// previous piece), so the pieces reach the client apart without any sleeping.
    Chunked {
        content_type: String,
        pieces: Vec<Vec<u8>>,
        gate: Option<Arc<tokio::sync::Semaphore>>,
    },
}

impl Reply {
    pub fn json(status: u16, value: Value) -> Self {
        Self::Full {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }

    pub fn text(status: u16, body: &str) -> Self {
        Self::Full {
            status,
            headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn redirect(location: &str) -> Self {
        Self::Full {
            status: 302,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }

    pub fn unauthorized() -> Self {
        Self::text(401, "missing or wrong credentials")
    }
}

type Route = dyn Fn(&Recorded) -> Reply + Send + Sync;

pub struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// Bytes of flood bodies the server managed to write.
    pub flooded: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    pub async fn start(route: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let port = listener.local_addr().expect("local address").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let flooded = Arc::new(AtomicU64::new(0));
        let route: Arc<Route> = Arc::new(route);
        let (recorded, counter) = (Arc::clone(&requests), Arc::clone(&flooded));
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (route, recorded, counter) = (
                    Arc::clone(&route),
                    Arc::clone(&recorded),
                    Arc::clone(&counter),
                );
                tokio::spawn(async move {
                    let _ = serve(stream, route, recorded, counter).await;
                });
            }
        });
        Self {
            base: format!("http://127.0.0.1:{port}"),
            requests,
            flooded,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    pub fn last_request(&self) -> Recorded {
        self.requests()
            .pop()
            .expect("the server received a request")
    }
}

async fn serve(
    mut stream: TcpStream,
    route: Arc<Route>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    flooded: Arc<AtomicU64>,
) -> std::io::Result<()> {
    let Some(request) = read_request(&mut stream).await? else {
        return Ok(());
    };
    let mut reply = route(&request);
    if let Ok(mut all) = recorded.lock() {
        all.push(request);
    }
    while let Reply::Delayed(wait, inner) = reply {
        tokio::time::sleep(wait).await;
        reply = *inner;
    }
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str(&format!(
                "Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ));
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(&body).await?;
        }
        Reply::Flood {
            total,
            declare_length,
        } => {
            let mut head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n".to_owned();
            if declare_length {
                head.push_str(&format!("Content-Length: {total}\r\n"));
            }
            head.push_str("Connection: close\r\n\r\n");
            stream.write_all(head.as_bytes()).await?;
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = 0u64;
            while sent < total {
                let n = chunk
                    .len()
                    .min(usize::try_from(total - sent).unwrap_or(chunk.len()));
                stream.write_all(&chunk[..n]).await?;
                sent += n as u64;
                flooded.fetch_add(n as u64, Ordering::SeqCst);
            }
        }
        Reply::Raw(bytes) => stream.write_all(&bytes).await?,
        Reply::Chunked {
            content_type,
            pieces,
            gate,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            for (index, piece) in pieces.iter().enumerate() {
                if let (true, Some(gate)) = (index > 0, &gate) {
                    if let Ok(permit) = gate.acquire().await {
                        permit.forget();
                    }
                }
                let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
                chunk.extend_from_slice(piece);
                chunk.extend_from_slice(b"\r\n");
                stream.write_all(&chunk).await?;
                stream.flush().await?;
            }
            stream.write_all(b"0\r\n\r\n").await?;
        }
        Reply::Hangup | Reply::Delayed(..) => {}
    }
    stream.shutdown().await
}

async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<Recorded>> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 || buffer.len() > 1 << 20 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_owned();
    let target = first.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Some(Recorded {
        method,
        target,
        headers,
        body,
    }))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        302 => "Found",
        401 => "Unauthorized",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

/// A client for the tests: the crate's policies, and no proxy (loopback only).
pub fn client() -> toolscope_http::reqwest::Client {
    toolscope_http::client_builder()
        .no_proxy()
        .build()
        .expect("builds a client")
}

/// A port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}
