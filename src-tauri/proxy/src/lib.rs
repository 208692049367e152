//! Toolscope in the middle: a person points their own agent's MCP configuration at
//! `toolscope proxy mcp -- COMMAND ...` instead of the server, and Toolscope starts the real
//! server, forwards every JSON-RPC message both ways unchanged and in order, and records each
//! one (with what it means: calls, latency, validation, progress, elicitation, cancellation).
//!
//! The pieces are independent of the transport so the later faces (an HTTP upstream, a
//! listening proxy, fault injection, the app's Live view) reuse them:
//!
//! * [`message`] splits a line into what the observer needs, without re-encoding it;
//! * [`observer`] derives events from the message stream (pure, no I/O);
//! * [`recorder`] appends stamped records to the session file (the engine's crash-safe
//!   [`toolscope_engine::jsonl::AppendLog`]);
//! * [`tap`] joins the two: every message is observed and recorded, atomically and in one
//!   order, *before* it is forwarded;
//! * [`stdio`] is the first transport: a child process on stdin/stdout;
//! * [`llm`] is the model proxy: an agent's model requests, forwarded to its endpoint and
//!   recorded as conversations, behind the loopback [`door`].

pub mod door;
pub mod error;
pub mod faults;
pub mod http_upstream;
pub mod listen;
pub mod llm;
pub mod message;
pub mod observer;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod stdio;
pub mod tap;
pub mod tools_diff;

mod observer_tools;

pub use error::ProxyError;
pub use record::{Direction, EndReason, Event};
pub use recorder::{session_id, Recorder, SessionInfo};
pub use stdio::{agent_stdin_lines, run_stdio, StdioOptions, StdioOutcome};
pub use tap::{Tap, Verdict};
