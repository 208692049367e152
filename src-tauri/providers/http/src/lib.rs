//! Toolscope HTTP tools (seed 004): tools defined by `.json`/`.toml` files whose methods call
//! HTTP endpoints.
//!
//! A file ([`definition`]) names an endpoint per method: a URL template with `{param}`
//! placeholders, the HTTP method, literal headers with `${ENV_VAR}` references, auth whose
//! secrets come only from environment variables, a timeout and how the response is shaped.
//! [`HttpToolSet`] loads a directory of such files into the engine's registry, reloads it on
//! demand or by polling ([`HttpToolSet::watch`]), and saves or deletes single files for an
//! editor ([`store`]). Calls ([`HttpTool`]) encode arguments for their place in the URL, cap the
//! response body, and redact every secret they used from their errors and results. Seed 004's
//! `rate_limit` spaces or refuses a tool's calls ([`rate_limit`]), and its `streamable` tools
//! report their body as progress while it arrives.

mod curl;
pub mod definition;
pub mod rate_limit;
mod request;
mod response;
pub mod secrets;
pub mod store;
mod stream;
mod template;
mod tool;
pub mod toolset;
pub mod watch;

pub use definition::{
    DefinitionError, FileFormat, HttpToolSpec, RateLimitDefinition, ToolDefinition, ToolKind,
    DEFAULT_MAX_RESPONSE_BYTES,
};
pub use rate_limit::{RateLimit, RateLimiter};
pub use request::client_builder;
pub use reqwest;
pub use secrets::{EnvSource, REDACTED};
pub use store::{delete_definition, read_definition, save_definition, StoreError};
pub use tool::HttpTool;
pub use toolset::{ClientSetupError, DefinitionProblem, HttpToolSet, ReloadReport};
pub use watch::DirectoryWatch;
