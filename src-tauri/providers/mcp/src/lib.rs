//! MCP servers as tool sources.
//!
//! Each configured server (a child process over stdio, or a streamable-HTTP endpoint) becomes
//! one tool in the engine's [`toolscope_engine::Registry`], with one method per MCP tool
//! ([`toolscope_engine::naming`] explains the routing names). [`sources::McpSources`] keeps the configured
//! servers, their status and stderr, asks before starting a new command line, reconnects, and
//! follows `notifications/tools/list_changed`. The engine stays free of MCP: calls reach the
//! servers through the same `Tool` trait as built-in tools, so the executor's timeout,
//! cancellation and output cap apply unchanged.
//!
//! While a call runs, a server may ask things of Toolscope (MCP's client features): input from
//! the person (`elicitation/create`, answered through [`interaction::Elicitor`]), the
//! workspace roots (`roots/list`), a model's help (`sampling/createMessage`, refused
//! with a reason or, once the person chose an endpoint and approves, sent to it), and tools it wants called as tasks run through `tasks/get` / `tasks/result`.

mod client_handler;
pub mod config;
pub mod connection;
pub mod elicitation;
pub mod interaction;
pub mod oauth;
pub mod progress;
pub mod result;
pub mod sampling;
mod server_log;
mod server_process;
pub mod sources;
mod task_progress;
pub mod task_support;
mod tasks;
mod tool;

pub use config::{import, ImportReport, McpServerConfig, McpTransport};
pub use interaction::{
    ClientHooks, DeclineAll, ElicitAction, ElicitationAnswer, ElicitationRequest, Elicitor,
    WorkspaceRoot,
};
pub use oauth::store::SignInFiles;
pub use oauth::{Browser, NoBrowser, OAuthClientConfig};
pub use sampling::{
    DeclineSampling, ModelSampler, Sampler, SamplingConsent, SamplingEndpoint, SamplingRequest,
    SAMPLING_DECLINED,
};
pub use sources::{McpSources, SourceState, SourceStatus};
