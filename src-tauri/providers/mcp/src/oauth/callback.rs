//! The redirect at the end of a browser sign-in, for a native app (RFC 8252 §7.3): a listener on
//! 127.0.0.1 with a port the system picks, open only while one sign-in waits for its redirect,
//! closed when the redirect arrives or the wait times out. Apart from a proxy a person starts on
//! purpose, this is the only socket Toolscope listens on.
//!
//! It answers the browser with a short page and hands the whole redirect URL on; checking its
//! `state` against the one sent is the token exchange's job (rmcp keeps the PKCE verifier and
//! the state together), so a stray or forged request fails the sign-in instead of being guessed at.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::OAuthError;

/// The path the authorization server redirects to.
const CALLBACK_PATH: &str = "/callback";
/// A browser's request line and headers fit easily; anything longer is not a redirect.
const MAX_REQUEST_BYTES: usize = 16 * 1024;
/// A connection that sends nothing (a browser's speculative preconnect) is dropped after this.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

pub struct CallbackListener {
    listener: TcpListener,
    port: u16,
}

impl CallbackListener {
    /// Binds 127.0.0.1 on a port the system picks.
    pub async fn bind() -> Result<Self, OAuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| OAuthError::Listener(e.to_string()))?;
        let port = listener
            .local_addr()
            .map_err(|e| OAuthError::Listener(e.to_string()))?
            .port();
        Ok(Self { listener, port })
    }

    /// Where the authorization server sends the browser back to.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Waits for the redirect and returns its full URL; the listener closes when this returns.
    /// Requests for other paths (a favicon) get a 404 and the wait goes on.
    pub async fn wait(self, limit: Duration) -> Result<String, OAuthError> {
        let waiting = async {
            loop {
                let (stream, _) = self
                    .listener
                    .accept()
                    .await
                    .map_err(|e| OAuthError::Listener(e.to_string()))?;
                if let Some(outcome) = self.answer(stream).await {
                    return outcome;
                }
            }
        };
        tokio::time::timeout(limit, waiting)
            .await
            .unwrap_or(Err(OAuthError::Timeout(limit.as_secs())))
    }

    /// `None` when the request was not the redirect (the wait goes on).
    async fn answer(&self, mut stream: TcpStream) -> Option<Result<String, OAuthError>> {
        let target =
            match tokio::time::timeout(READ_TIMEOUT, read_request_target(&mut stream)).await {
                Ok(Some(target)) => target,
                _ => return None,
            };
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        if path != CALLBACK_PATH {
            let _ = respond(&mut stream, "404 Not Found", "Not the sign-in redirect.").await;
            return None;
        }
        let url = format!("http://127.0.0.1:{}{target}", self.port);
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let value = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        if let Some(error) = value("error") {
            let description = value("error_description");
            let _ = respond(
                &mut stream,
                "200 OK",
                "The sign-in was not completed. Toolscope shows why; you can close this tab.",
            )
            .await;
            return Some(Err(OAuthError::Refused { error, description }));
        }
        if value("code").is_none() {
            let _ = respond(
                &mut stream,
                "400 Bad Request",
                "This redirect carries no authorization code.",
            )
            .await;
            return Some(Err(OAuthError::Flow(
                "the authorization server redirected back without a code".into(),
            )));
        }
        let _ = respond(
            &mut stream,
            "200 OK",
            // The state and the code are checked after this answer: it cannot claim success.
            "Received. You can close this tab; Toolscope finishes the sign-in and shows how it went.",
        )
        .await;
        Some(Ok(url))
    }
}

/// The request target of an HTTP/1.1 `GET`, once the headers have arrived.
async fn read_request_target(stream: &mut TcpStream) -> Option<String> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0_u8; 1024];
    while !buffer.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 || buffer.len() + read > MAX_REQUEST_BYTES {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let head = String::from_utf8_lossy(&buffer);
    let mut parts = head.lines().next()?.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Some(target.to_owned()),
        _ => None,
    }
}

async fn respond(stream: &mut TcpStream, status: &str, message: &str) -> std::io::Result<()> {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Toolscope sign-in</title></head>\
         <body style=\"font-family: sans-serif; margin: 3rem\"><p>{message}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream
            .write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
            .await
            .expect("send");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("read");
        response
    }

    #[tokio::test]
    async fn returns_the_redirect_after_ignoring_other_paths_and_then_closes() {
        let listener = CallbackListener::bind().await.expect("bind");
        let port = listener.port;
        assert_eq!(
            listener.redirect_uri(),
            format!("http://127.0.0.1:{port}/callback")
        );
        let waiting = tokio::spawn(listener.wait(Duration::from_secs(10)));
        assert!(get(port, "/favicon.ico").await.starts_with("HTTP/1.1 404"));
        let page = get(port, "/callback?code=abc&state=xyz").await;
        assert!(page.starts_with("HTTP/1.1 200") && page.contains("Received"));
        let url = waiting.await.expect("join").expect("redirect");
        assert_eq!(
            url,
            format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz")
        );
        // Closed: nothing of ours answers on the port any more. Another test's listener may
        // be given the freed port, so a connection alone proves nothing; only our page would.
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await {
            let late = b"GET /callback?code=late&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            let mut response = String::new();
            if stream.write_all(late).await.is_ok() {
                let read = stream.read_to_string(&mut response);
                let _ = tokio::time::timeout(Duration::from_secs(2), read).await;
            }
            assert!(!response.contains("Toolscope sign-in"), "{response}");
        }
    }

    #[tokio::test]
    async fn an_error_redirect_fails_the_sign_in_with_the_servers_words() {
        let listener = CallbackListener::bind().await.expect("bind");
        let port = listener.port;
        let waiting = tokio::spawn(listener.wait(Duration::from_secs(10)));
        get(
            port,
            "/callback?error=access_denied&error_description=The+user+said+no&state=s",
        )
        .await;
        match waiting.await.expect("join") {
            Err(OAuthError::Refused { error, description }) => {
                assert_eq!(error, "access_denied");
                assert_eq!(description.as_deref(), Some("The user said no"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_the_limit() {
        let listener = CallbackListener::bind().await.expect("bind");
        let outcome = listener.wait(Duration::from_secs(120)).await;
        assert!(
            matches!(outcome, Err(OAuthError::Timeout(120))),
            "{outcome:?}"
        );
    }
}
