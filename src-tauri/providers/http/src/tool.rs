//! [`HttpTool`]: an [`HttpToolSpec`] as an engine [`Tool`], so HTTP tools are discovered,
//! validated, confirmed, timed out and cancelled by the executor like every other tool.

use std::sync::Arc;

use serde_json::{Map, Value};
use toolscope_engine::types::ToolInfo;
use toolscope_engine::{BoxFuture, CallContext, Tool, ToolFailure, WireCall};

use crate::curl::curl_command;
use crate::definition::HttpToolSpec;
use crate::request::call_endpoint;
use crate::secrets::EnvSource;

/// A tool whose methods call HTTP endpoints.
#[derive(Debug, Clone)]
pub struct HttpTool {
    spec: Arc<HttpToolSpec>,
    client: reqwest::Client,
    env: EnvSource,
}

impl HttpTool {
    /// `client` should come from [`crate::client_builder`] (same-origin redirects only).
    pub fn new(spec: HttpToolSpec, client: reqwest::Client, env: EnvSource) -> Self {
        Self {
            spec: Arc::new(spec),
            client,
            env,
        }
    }

    pub fn spec(&self) -> &HttpToolSpec {
        &self.spec
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
            call_endpoint(&self.client, endpoint, args, &self.env, &ctx.cancel).await
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
