//! MCP servers as tool sources.
//!
//! Each configured server (a child process over stdio, or a streamable-HTTP endpoint) becomes
//! one tool in the engine's [`toolscope_engine::Registry`], with one method per MCP tool
//! ([`toolscope_engine::naming`] explains the routing names). [`sources::McpSources`] keeps the configured
//! servers, their status and stderr, asks before starting a new command line, reconnects, and
//! follows `notifications/tools/list_changed`. The engine stays free of MCP: calls reach the
//! servers through the same `Tool` trait as built-in tools, so the executor's timeout,
//! cancellation and output cap apply unchanged.

pub mod config;
pub mod connection;
pub mod progress;
pub mod result;
mod server_log;
mod server_process;
pub mod sources;
mod tool;

pub use config::{import, ImportReport, McpServerConfig, McpTransport};
pub use sources::{McpSources, SourceState, SourceStatus};
