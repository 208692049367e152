//! `toolscope proxy mcp --url URL` in front of a server behind OAuth: the proxy signs in the
//! way `toolscope call` does, with the MCP client's sign-in (discovery, registration, PKCE, the
//! browser through `$BROWSER`, the loopback redirect), and keeps the sign-in where the CLI keeps
//! its own (`<data dir>/sign-ins/`, by server name and URL). So a proxy named as the server is
//! named in `--mcp-config`, at the same URL, uses the sign-in the CLI already holds, and the
//! CLI uses the proxy's; `toolscope sign-out` forgets either.

use std::sync::Arc;

use tokio::sync::Mutex;
use toolscope_mcp::oauth::{self, Authorizer, SignInContext, SignInPolicy};
use toolscope_mcp::{OAuthClientConfig, SignInFiles};
use toolscope_proxy::http_upstream::{AuthFuture, UpstreamAuth};

use crate::mcp_client::TerminalBrowser;
use crate::setup::data_dir;

/// The proxy's sign-in to one upstream server.
pub struct ProxySignIn {
    server: String,
    authorizer: Authorizer,
}

impl std::fmt::Debug for ProxySignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxySignIn")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl ProxySignIn {
    /// The sign-in for server `name` at `url`: the stored one when there is one (renewed if it
    /// expired), else none until the server refuses a request.
    pub async fn open(name: &str, url: &str) -> Result<Self, String> {
        let context = SignInContext {
            files: Some(SignInFiles::in_data_dir(&data_dir())),
            policy: SignInPolicy::Automatic,
            ..SignInContext::default()
        };
        let manager = oauth::starting_manager(name, url, &context)
            .await
            .map_err(|e| e.to_string())?;
        let authorizer = Authorizer::new(
            name.to_owned(),
            url.to_owned(),
            OAuthClientConfig::default(),
            Arc::new(TerminalBrowser),
            Arc::new(Mutex::new(manager)),
            context,
        );
        Ok(Self {
            server: name.to_owned(),
            authorizer,
        })
    }
}

impl UpstreamAuth for ProxySignIn {
    fn token(&self) -> AuthFuture<'_, Option<String>> {
        Box::pin(self.authorizer.access_token())
    }

    fn sign_ins(&self) -> AuthFuture<'_, u32> {
        Box::pin(self.authorizer.sign_ins())
    }

    fn refused<'a>(
        &'a self,
        challenge: &'a str,
        sign_ins_seen: u32,
    ) -> AuthFuture<'a, Result<(), String>> {
        Box::pin(async move {
            if self.authorizer.sign_ins().await != sign_ins_seen {
                // Another request signed in meanwhile: the refused one is only sent again.
                return Ok(());
            }
            eprintln!(
                "toolscope proxy: {} requires signing in; waiting for the browser",
                self.server
            );
            let signed = self.authorizer.authorize(challenge, sign_ins_seen).await;
            match &signed {
                Ok(()) => eprintln!("toolscope proxy: signed in to {}", self.server),
                Err(e) => eprintln!("toolscope proxy: signing in to {} failed: {e}", self.server),
            }
            signed.map_err(|e| e.to_string())
        })
    }
}
