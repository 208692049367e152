//! Model endpoints for the agent loop: what a reply looks like while it streams in.
//!
//! Every provider streams a reply as Server-Sent Events whose `data` are JSON chunks: OpenAI's
//! Chat Completions send `choices[].delta` pieces (tool calls by `index`, their arguments as
//! string fragments), its Responses API typed `response.*` events, Anthropic's Messages API
//! typed `content_block_*` events (a tool call's input as `partial_json` fragments). Both become the same [`ReplyEvent`]s and the same
//! [`AssembledReply`], so the loop, the recorder and the Agent pane never care which vendor
//! answered. The readers have no I/O; [`client`] sends a request and feeds them the SSE
//! events as they arrive.

pub mod anthropic;
pub mod client;
pub mod error;
pub mod gemini;
pub mod model;
pub mod openai_chat;
pub mod profiles;
pub mod reply;
pub mod request;
pub mod responses;
pub mod status;

pub use error::StreamError;
pub use reply::{AssembledCall, AssembledReply, ReplyEvent, Usage};
pub use status::{classify, EndpointError};
