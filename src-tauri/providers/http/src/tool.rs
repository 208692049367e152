//! [`HttpTool`]: an [`HttpToolSpec`] as an engine [`Tool`], so HTTP tools are discovered,
//! validated, confirmed, timed out and cancelled by the executor like every other tool.
//! A tool with a `rate_limit` owns the [`RateLimiter`] every call of it goes through.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use toolscope_engine::executor::suggest::whole_seconds_up;
use toolscope_engine::types::ToolInfo;
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure, WireCall};

use crate::curl::curl_command;
use crate::definition::HttpToolSpec;
use crate::rate_limit::{NoSlot, RateLimiter};
use crate::request::call_endpoint;
use crate::secrets::EnvSource;

/// A tool whose methods call HTTP endpoints.
#[derive(Debug, Clone)]
pub struct HttpTool {
    spec: Arc<HttpToolSpec>,
    client: reqwest::Client,
    env: EnvSource,
    limiter: Option<Arc<RateLimiter>>,
}

impl HttpTool {
    /// `client` should come from [`crate::client_builder`] (same-origin redirects only). A
    /// spec with a rate limit gets a limiter of its own; see [`Self::with_limiter`].
    pub fn new(spec: HttpToolSpec, client: reqwest::Client, env: EnvSource) -> Self {
        let limiter = spec
            .rate_limit
            .map(|limit| Arc::new(RateLimiter::new(limit)));
        Self {
            spec: Arc::new(spec),
            client,
            env,
            limiter,
        }
    }

    /// Uses `limiter` (one that outlives this tool, e.g. across reloads of its file) instead
    /// of its own; ignored when the spec has no rate limit.
    pub fn with_limiter(mut self, limiter: Arc<RateLimiter>) -> Self {
        if self.limiter.is_some() {
            self.limiter = Some(limiter);
        }
        self
    }

    pub fn spec(&self) -> &HttpToolSpec {
        &self.spec
    }

    pub fn limiter(&self) -> Option<&Arc<RateLimiter>> {
        self.limiter.as_ref()
    }

    /// Waits for a slot of the tool's rate limit, until the call's deadline (the executor's
    /// timeout, else the endpoint's timeout) or its cancellation.
    async fn take_slot(
        &self,
        endpoint_timeout: Option<Duration>,
        ctx: &CallContext,
    ) -> Result<(), ToolFailure> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        let deadline = ctx.deadline.or_else(|| {
            endpoint_timeout.and_then(|limit| tokio::time::Instant::now().checked_add(limit))
        });
        tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => Err(ToolFailure::failed(format!(
                "'{}' was cancelled while waiting for its rate limit",
                self.spec.id()
            ))),
            taken = limiter.acquire(deadline) => taken.map_err(|NoSlot { retry_after }| {
                let seconds = whole_seconds_up(retry_after);
                ToolFailure::RateLimited {
                    message: format!(
                        "'{}' allows {} (its rate_limit) and no slot frees up before this \
                         call's timeout: retry in {seconds} s",
                        self.spec.id(),
                        limiter.limit().describe()
                    ),
                    retry_after,
                }
            }),
        }
    }
}

impl Tool for HttpTool {
    fn info(&self) -> ToolInfo {
        self.spec.info.clone()
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            let endpoint = self
                .spec
                .endpoint(method)
                .ok_or_else(|| ToolFailure::UnknownMethod(method.to_owned()))?;
            self.take_slot(endpoint.timeout, &ctx).await?;
            call_endpoint(&self.client, endpoint, args, &self.env, &ctx).await
        })
    }

    fn wire_call(
        &self,
        method: &str,
        args: &Map<String, Value>,
    ) -> Result<Option<WireCall>, ToolFailure> {
        let endpoint = self
            .spec
            .endpoint(method)
            .ok_or_else(|| ToolFailure::UnknownMethod(method.to_owned()))?;
        curl_command(&self.client, endpoint, args.clone())
            .map(|command| Some(WireCall::Curl { command }))
    }
}
