//! Just enough HTTP/1.1 to play a script: read a request (head, then a `content-length` or
//! chunked body) and write a response whose body is sent piece by piece, each piece flushed
//! on its own, so a fault can stop it anywhere. Written on plain tokio, not an HTTP server
//! crate, because the faults need to leave a body unfinished on purpose.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::script::Framing;
use crate::wire::reason_phrase;

/// The largest request head and body read (a long conversation fits easily).
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Why a request could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    #[error("malformed request: {0}")]
    Malformed(String),
}

/// A request as read off the connection.
#[derive(Debug, Clone)]
pub struct RawRequest {
    pub method: String,
    /// The target without its query.
    pub path: String,
    /// The target's query (after `?`), as sent; empty when there is none.
    pub query: String,
    /// Names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The value of a query parameter (`alt` in `?alt=sse`), as sent (not percent-decoded).
    pub fn query_param(&self, name: &str) -> Option<&str> {
        self.query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// Whether the client asked to close the connection after this response.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

/// Reads the next request; `None` when the client closed the connection between requests.
pub async fn read_request(
    reader: &mut BufReader<OwnedReadHalf>,
) -> Result<Option<RawRequest>, HttpError> {
    let mut line = String::new();
    // Tolerate blank lines before a request line (RFC 9112, 2.2).
    loop {
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(HttpError::Malformed(format!("request line {line:?}")));
    };
    let (method, target) = (method.to_owned(), target.to_owned());
    let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
    let (path, query) = (path.to_owned(), query.to_owned());
    let mut headers = Vec::new();
    let mut head_size = line.len();
    loop {
        line.clear();
        let read = reader.read_line(&mut line).await?;
        head_size += read;
        if read == 0 || head_size > MAX_HEAD {
            return Err(HttpError::Malformed(
                "unfinished or oversized head".to_owned(),
            ));
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut request = RawRequest {
        method,
        path,
        query,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked(reader).await?;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| HttpError::Malformed(format!("content-length {length:?}")))?;
        if length > MAX_BODY {
            return Err(HttpError::Malformed(format!("a body of {length} bytes")));
        }
        request.body = vec![0; length];
        reader.read_exact(&mut request.body).await?;
    }
    Ok(Some(request))
}

async fn read_chunked(reader: &mut BufReader<OwnedReadHalf>) -> Result<Vec<u8>, HttpError> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).await?;
        let size = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| HttpError::Malformed(format!("chunk size {line:?}")))?;
        if size == 0 {
            // Trailers, then the blank line.
            loop {
                line.clear();
                if reader.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(HttpError::Malformed("an oversized chunked body".to_owned()));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..]).await?;
        line.clear();
        reader.read_line(&mut line).await?;
    }
}

/// Writes a whole response with a `content-length`.
pub async fn write_complete(
    writer: &mut OwnedWriteHalf,
    status: u16,
    headers: &[(&str, String)],
    body: &str,
    close: bool,
) -> std::io::Result<()> {
    let mut head = status_line(status);
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n", body.len()));
    if close {
        head.push_str("connection: close\r\n");
    }
    head.push_str("\r\n");
    head.push_str(body);
    writer.write_all(head.as_bytes()).await?;
    writer.flush().await
}

fn status_line(status: u16) -> String {
    format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status))
}

/// A streamed `200 text/event-stream` body, written one piece at a time.
pub struct StreamedBody<'a> {
    writer: &'a mut OwnedWriteHalf,
    framing: Framing,
}

impl<'a> StreamedBody<'a> {
    /// Writes the head.
    pub async fn start(
        writer: &'a mut OwnedWriteHalf,
        framing: Framing,
    ) -> std::io::Result<StreamedBody<'a>> {
        let mut head = status_line(200);
        head.push_str("content-type: text/event-stream; charset=utf-8\r\n");
        head.push_str("cache-control: no-cache\r\n");
        head.push_str(match framing {
            Framing::Chunked => "transfer-encoding: chunked\r\n",
            Framing::Close => "connection: close\r\n",
        });
        head.push_str("\r\n");
        writer.write_all(head.as_bytes()).await?;
        writer.flush().await?;
        Ok(Self { writer, framing })
    }

    /// Writes and flushes one piece.
    pub async fn send(&mut self, piece: &str) -> std::io::Result<()> {
        match self.framing {
            Framing::Chunked => {
                let framed = format!("{:x}\r\n{piece}\r\n", piece.len());
                self.writer.write_all(framed.as_bytes()).await?;
            }
            Framing::Close => self.writer.write_all(piece.as_bytes()).await?,
        }
        self.writer.flush().await
    }

    /// Ends the body properly (the last chunk; nothing for a close-delimited body, whose end
    /// is the connection's).
    pub async fn finish(self) -> std::io::Result<()> {
        if self.framing == Framing::Chunked {
            self.writer.write_all(b"0\r\n\r\n").await?;
            self.writer.flush().await?;
        }
        Ok(())
    }
}
