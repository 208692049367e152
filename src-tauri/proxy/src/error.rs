//! What can stop a proxy session, as one enum the CLI maps onto its exit codes.

use std::io;

use toolscope_engine::jsonl::LogIoError;

#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The session file could not be created or written.
    #[error(transparent)]
    Record(#[from] LogIoError),
    /// The upstream command could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    /// The command line was empty.
    #[error("no server command given (put it after `--`)")]
    NoCommand,
    /// The listening address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: std::net::SocketAddr,
        #[source]
        source: io::Error,
    },
    /// An option the person gave cannot work (a non-loopback address, a bad upstream URL).
    #[error("{0}")]
    Usage(String),
    /// A pipe of the upstream process was not available after spawning it.
    #[error("the server's {0} pipe is not available")]
    MissingPipe(&'static str),
}
