//! `toolscope proxy llm --upstream URL`: Toolscope between a real agent and its model. The
//! agent's base URL points at the address this prints; each model request is forwarded to the
//! upstream unchanged and recorded as a turn of a conversation (the store the agent loop
//! writes), its reply parsed. Stdout says where to point the agent (one JSON line with
//! `--json`); stderr carries everything else.

use std::net::SocketAddr;

use clap::Args;
use serde_json::json;
use toolscope_engine::agent::ConversationStore;
use toolscope_proxy::llm::{LlmProxy, LlmProxyOptions};
use toolscope_proxy::ProxyError;

use crate::exit;
use crate::output::outln;
use crate::setup::data_dir;

/// The environment variable that fixes the token across restarts (at least 32 characters).
const TOKEN_VAR: &str = "TOOLSCOPE_PROXY_TOKEN";

#[derive(Debug, Args)]
pub struct LlmProxyArgs {
    /// The base URL the agent used before, e.g. http://127.0.0.1:8000/v1.
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// The loopback address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Print where to point the agent as one JSON line on stdout.
    #[arg(long)]
    json: bool,
}

pub async fn llm(args: LlmProxyArgs) -> u8 {
    let token = match std::env::var(TOKEN_VAR) {
        Ok(token) if token.len() >= 32 && token.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            Some(token)
        }
        Ok(token) if !token.is_empty() => {
            eprintln!("error: {TOKEN_VAR} must be at least 32 letters and digits");
            return exit::USAGE;
        }
        _ => None,
    };
    let store = ConversationStore::new(data_dir().join("conversations"));
    let dir = store.dir().to_path_buf();
    let options = LlmProxyOptions {
        listen: args.listen,
        upstream: args.upstream,
        token,
        conversations: store,
    };
    let proxy = match LlmProxy::bind(options).await {
        Ok(proxy) => proxy,
        Err(error @ ProxyError::Usage(_)) => {
            eprintln!("error: {error}");
            return exit::USAGE;
        }
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    if args.json {
        let line = json!({
            "address": proxy.address().to_string(),
            "openai_base_url": proxy.openai_base_url(),
            "anthropic_base_url": proxy.base_url(),
            "token": proxy.token(),
            "upstream": proxy.upstream(),
            "conversations": dir.display().to_string(),
        });
        outln!("{line}");
    } else {
        outln!(
            "toolscope proxy llm: forwarding to {}\n\
             Point the agent's base URL here:\n  \
             OpenAI SDKs:    {}\n  \
             Anthropic SDKs: {}\n\
             e.g. OPENAI_BASE_URL={} (the agent's own API key passes through)\n\
             Conversations are recorded in {}",
            proxy.upstream(),
            proxy.openai_base_url(),
            proxy.base_url(),
            proxy.openai_base_url(),
            dir.display()
        );
    }
    let failures = proxy.failures();
    let signal = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let heard = signal.clone();
    proxy
        .serve(async move {
            let name = crate::proxy::signal().await;
            *heard.lock().unwrap_or_else(|e| e.into_inner()) = name;
        })
        .await;
    let name = signal.lock().unwrap_or_else(|e| e.into_inner()).clone();
    eprintln!("toolscope proxy llm: stopped by {name}");
    if failures.failure().is_some() {
        exit::ENVIRONMENT
    } else {
        exit::OK
    }
}
