//! A scripted model server for tests: it speaks OpenAI Chat Completions, the OpenAI Responses
//! API, Anthropic Messages and Gemini `streamGenerateContent` over real HTTP on 127.0.0.1, streams SSE the way the vendors do
//! (each event flushed on its own, strings split at awkward places), and answers each model
//! request with the next turn of a [`Script`]. The agent loop, the CLI and the app's
//! end-to-end tests run against it instead of a real model; the binary
//! `toolscope-llm-testserver` serves a script file to tests in other processes.
//!
//! # Routes
//!
//! | route | answer |
//! |---|---|
//! | `POST /v1/chat/completions` | `data: {chunk}` events, then `data: [DONE]` |
//! | `POST /v1/responses` | typed `response.*` events ending with `response.completed` |
//! | `POST /v1/messages` | Anthropic's `message_start` … `message_stop` events |
//! | `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` | Gemini's `data:` chunks, the last with `finishReason` and `usageMetadata`, no `[DONE]` |
//! | `GET /v1/models` | OpenAI's list, or Anthropic's when the request has `x-api-key` or `anthropic-version` |
//! | `GET /v1beta/models` | Gemini's list, `{"models": [{"name": "models/ID", …}]}` |
//!
//! OpenAI base URLs are `http://127.0.0.1:PORT/v1` ([`TestServer::openai_base_url`]), the
//! Anthropic and Gemini one `http://127.0.0.1:PORT` ([`TestServer::base_url`]). A request
//! without `"stream": true` gets a 400 (this server only streams) and uses up no turn; on
//! Gemini, whose body has no `stream`, so do `:generateContent` and a missing `alt=sse`.
//!
//! # Script
//!
//! ```json
//! {
//!   "api_key": "sk-test",
//!   "models": ["toolscope-test"],
//!   "delay_ms": 1,
//!   "turns": [
//!     {"reply": {"text": "Let me check.", "calls": [
//!         {"name": "calculator_evaluate", "arguments": "{\"expression\": \"2+2\"}"}]}},
//!     {"expect": {"contains": ["4"]}, "reply": {"text": "It is 4."}},
//!     {"error": {"status": 429, "retry_after": "1"}},
//!     {"reply": {"text": "again"}, "repeat": true}
//!   ]
//! }
//! ```
//!
//! Each model request (any wire) uses up the next turn; a turn with `repeat: true` answers
//! every later request. When the turns run out, requests get 400 `script exhausted after N
//! turns`. A turn has exactly one of:
//!
//! - `reply`: `reasoning`, `text`, `calls` (`id` optional, `name`, `arguments`: a string is the
//!   exact JSON text streamed, so it may be invalid or cut; other JSON values are serialized;
//!   Gemini sends each call whole with `args` as an object, and ends the reply with
//!   `MALFORMED_FUNCTION_CALL` at the first call whose arguments are not a JSON object),
//!   `finish` (default `tool_calls`/`stop` on Chat, `tool_use`/`end_turn` on Anthropic,
//!   `completed` on Responses, where anything else ends with `response.incomplete`, `STOP` on
//!   Gemini), `usage`
//!   (`input_tokens`, `output_tokens`; estimated when absent; Chat sends a usage chunk only
//!   when it is scripted or `stream_options.include_usage` asks), `chunk_chars` (characters
//!   per delta: absent cycles 3, 7, 4, 6, 5 characters, cutting through escapes; `0` sends
//!   strings whole), `fault` (`{"cut_after": N}` closes the connection after N SSE events,
//!   `{"stall_after": N}` keeps it open and silent, `{"invalid_chunk_after": N}` sends
//!   `data: {not json` and ends the body; on Gemini an N at or past the last chunk falls just
//!   before it, so the reply never finishes), `framing` (`chunked`, the default, or `close`, the
//!   default with `cut_after`, which makes a cut a clean end of the body);
//! - `error`: `status` (400 to 599), `message`, `type`, `code` (OpenAI's `code`, Gemini's
//!   `ErrorInfo` reason), `retry_after` (the header; on Gemini also a `RetryInfo` detail), or
//!   `body` (the exact body); otherwise the vendor's shape is built.
//!
//! A turn may also have `expect`: `contains` (texts that must occur in the body or in one of
//! its JSON strings) and `pointers` (`{"/messages/0/role": "user"}`); a request that does not
//! meet it gets a 400 naming what is missing (and the turn is used up, so the script's
//! position stays predictable). With a script-level `api_key`, requests without
//! the matching `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic) get 401; on Gemini
//! (`x-goog-api-key` or `?key=`) a missing key gets 403 `PERMISSION_DENIED` and a wrong one 400
//! `API_KEY_INVALID`, as Google answers.

mod answer;
mod http;
pub mod script;
pub mod server;
pub mod wire;

pub use script::{
    split, Call, ErrorReply, Expect, Fault, Framing, Reply, Script, ScriptError, Turn, Usage,
};
pub use server::{Options, ReceivedRequest, ServerError, TestServer};
pub use wire::{render, Context, SseEvent, Wire};
