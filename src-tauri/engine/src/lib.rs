//! Toolscope engine: everything the desktop app and the CLI do, with no UI and no tauri.
//!
//! The pipeline mirrors the tool-calling cycle of a chat agent:
//! [`registry`] holds tools, [`discovery`] shows what a model may call and renders prompts,
//! the wire formats of `toolscope-protocol` turn a model reply into requests, [`executor`] runs
//! them, [`cycle`] chains the three and [`history`] records every run durably ([`metrics`]
//! sums it up); [`request_tools`] checks a reply against the tools of the request that
//! produced it. Tool sources (built-in, HTTP, MCP, ...) are provider crates that implement
//! [`Tool`].

pub mod agent;
pub mod config;
pub mod cycle;
pub mod declared_formats;
pub mod discovery;
pub mod eval;
pub mod executor;
pub mod export;
pub mod file_tools;
pub mod files;
pub mod history;
pub mod home;
pub mod jsonl;
pub mod metrics;
pub mod naming;
pub mod redact;
pub mod registry;
pub mod request_tools;
pub mod strict;
pub mod tool;
pub mod types;

pub use config::ToolCallConfig;
pub use registry::{Registry, RegistryError};
pub use tool::{
    BoxFuture, CallContext, CallProgress, ProgressRecorder, ProgressSink, TaskProgress, TaskStatus,
    Tool, ToolFailure, WireCall,
};
