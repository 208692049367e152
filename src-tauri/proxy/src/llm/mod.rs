//! The model proxy (`toolscope proxy llm --upstream URL`): the agent's base URL points here
//! instead of at its model endpoint. Requests and answers pass through unchanged, streams chunk
//! by chunk as they arrive, while each OpenAI Chat Completions, Responses or Anthropic Messages
//! exchange is recorded as a turn of a conversation in the agent loop's store, its reply parsed
//! as the Parser pane would.
//!
//! * [`door`](crate::door) admits loopback requests with the token only;
//! * [`route`] tells the wire from the path and builds the upstream URL;
//! * [`forward`] sends the request on and streams the answer back, handing a copy of each piece
//!   to the recorder;
//! * [`conversations`] groups requests into conversations, [`turn`] records one answer.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use toolscope_engine::agent::ConversationStore;
use toolscope_protocol::ProtocolSet;

use crate::door::{check_loopback, new_token, Door};
use crate::error::ProxyError;

pub mod conversations;
pub mod forward;
pub mod route;
pub mod sse;
pub mod turn;

use conversations::Conversations;
use route::Upstream;

/// How a model proxy is set up.
#[derive(Debug, Clone)]
pub struct LlmProxyOptions {
    /// A loopback address; port 0 picks a free one.
    pub listen: SocketAddr,
    /// The base URL the agent used before.
    pub upstream: String,
    /// The token agents must present; a fresh random one when `None`.
    pub token: Option<String>,
    /// Where conversations are recorded (the agent loop's store).
    pub conversations: ConversationStore,
}

/// What every request's handling shares.
pub(crate) struct Shared {
    door: Door,
    upstream: Upstream,
    client: reqwest::Client,
    conversations: Arc<Conversations>,
    protocols: Arc<ProtocolSet>,
    failure: Mutex<Option<String>>,
}

impl Shared {
    /// Reports a record that could not be written, once on stderr; forwarding goes on.
    fn record_failed(&self, error: String) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if failure.is_none() {
            eprintln!("toolscope proxy: cannot record: {error} (forwarding goes on)");
            *failure = Some(error);
        }
    }
}

/// A bound model proxy.
pub struct LlmProxy {
    listener: TcpListener,
    address: SocketAddr,
    shared: Arc<Shared>,
}

impl LlmProxy {
    pub async fn bind(options: LlmProxyOptions) -> Result<Self, ProxyError> {
        check_loopback(options.listen).map_err(ProxyError::Usage)?;
        let upstream = Upstream::parse(&options.upstream).map_err(ProxyError::Usage)?;
        let listener =
            TcpListener::bind(options.listen)
                .await
                .map_err(|source| ProxyError::Listen {
                    address: options.listen,
                    source,
                })?;
        let address = listener.local_addr().map_err(|source| ProxyError::Listen {
            address: options.listen,
            source,
        })?;
        let token = options.token.unwrap_or_else(new_token);
        let client = reqwest::Client::builder()
            // Bodies go through as they are: nothing is asked compressed or decompressed.
            .no_gzip()
            .no_brotli()
            .no_deflate()
            .no_zstd()
            .connect_timeout(std::time::Duration::from_secs(30))
            .build()
            .map_err(|e| ProxyError::Usage(format!("cannot set up the HTTP client: {e}")))?;
        let conversations = Arc::new(Conversations::new(
            options.conversations,
            upstream.as_str().to_owned(),
            vec![token.clone()],
        ));
        Ok(Self {
            listener,
            address,
            shared: Arc::new(Shared {
                door: Door::new(token, address.port()),
                upstream,
                client,
                conversations,
                protocols: Arc::new(ProtocolSet::standard()),
                failure: Mutex::new(None),
            }),
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn token(&self) -> &str {
        self.shared.door.token()
    }

    /// The base URL for an Anthropic SDK (it adds `/v1/messages`).
    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.address, self.shared.door.path_prefix())
    }

    /// The base URL for an OpenAI SDK (it adds `/chat/completions` or `/responses`).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    pub fn upstream(&self) -> &str {
        self.shared.upstream.as_str()
    }

    /// A handle that reports the first record that could not be written, after `serve`.
    pub fn failures(&self) -> FailureProbe {
        FailureProbe(self.shared.clone())
    }

    /// Serves until `shutdown` resolves; connections still open then are dropped.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                () = &mut shutdown => return,
                accepted = self.listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                // Out of file descriptors and the like: the next accept may work.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let shared = self.shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| forward::handle(shared.clone(), request));
                // A connection the agent drops mid-answer ends here; nothing to report.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

/// Whether any record failed to be written.
pub struct FailureProbe(Arc<Shared>);

impl FailureProbe {
    pub fn failure(&self) -> Option<String> {
        self.0
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
