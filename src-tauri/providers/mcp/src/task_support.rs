//! Which tools must be called as tasks: facts rmcp's typed model drops, read from the wire.
//!
//! MCP 2025-11-25 says a client MUST call a tool as a task when the server declares
//! `capabilities.tasks.requests.tools.call` and the tool's `execution.taskSupport` is
//! `required` (and MAY when it is `optional`). rmcp 3.x models the later tasks extension and
//! parses both the `initialize` result and `tools/list` into types without those fields, so
//! they are gone before our code sees them. For a stdio server we own the byte stream:
//! [`Tapped`] passes every byte on unchanged and looks at the lines that mention them.
//!
//! Over streamable HTTP rmcp decodes the body itself, so nothing is known ([`TaskMode::Unknown`]);
//! there a plain call that the server refuses with -32601 (which the spec makes the answer to
//! a required-task tool called plainly) is retried as a task. The TypeScript SDK sends that
//! refusal as a tool result flagged `isError` ("MCP error -32601: Tool x requires task
//! augmentation ...") rather than as a JSON-RPC error, so that form counts too. The refused
//! call never ran, so trying again runs the tool once.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

/// Lines longer than this are not kept for inspection (they pass through all the same). A
/// listing of thousands of tools stays well below it.
const MAX_INSPECTED_LINE: usize = 32 * 1024 * 1024;
/// A buffer grown past this by one long line is released afterwards.
const KEEP_CAPACITY: usize = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

/// How a tool is to be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskMode {
    /// A plain `tools/call`.
    Plain,
    /// A task-augmented `tools/call`.
    Task,
    /// The transport does not show the facts: call plainly, and as a task if refused with -32601.
    Unknown,
}

/// Whether a plain call's result is the server's "call me as a task" refusal in the shape
/// the TypeScript SDK gives it.
pub fn refused_as_plain_call(result: &rmcp::model::CallToolResult) -> bool {
    result.is_error == Some(true)
        && result
            .content
            .iter()
            .filter_map(rmcp::model::ContentBlock::as_text)
            .any(|t| t.text.contains("-32601") && t.text.contains("task"))
}

/// What the stream showed about one server.
#[derive(Debug, Default)]
pub struct WireFacts {
    facts: Mutex<Facts>,
}

#[derive(Debug, Default)]
struct Facts {
    /// `Some` once the `initialize` result was read.
    tool_tasks: Option<bool>,
    tools: HashMap<String, TaskSupport>,
}

impl WireFacts {
    fn facts(&self) -> MutexGuard<'_, Facts> {
        self.facts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How to call the server's tool `name`. Both `required` and `optional` tools run as tasks:
    /// a task reports where it stands and can be cancelled on the server's side.
    pub fn mode(&self, name: &str) -> TaskMode {
        let facts = self.facts();
        match facts.tool_tasks {
            None => TaskMode::Unknown,
            Some(false) => TaskMode::Plain,
            Some(true) => match facts.tools.get(name) {
                Some(TaskSupport::Required | TaskSupport::Optional) => TaskMode::Task,
                _ => TaskMode::Plain,
            },
        }
    }

    /// Looks at one complete line from the server.
    fn inspect(&self, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return;
        };
        let initialize = text.contains("\"protocolVersion\"") && text.contains("\"capabilities\"");
        if !initialize && !text.contains("\"tools\"") {
            return;
        }
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let Some(result) = message.get("result") else {
            return;
        };
        if initialize && result.get("protocolVersion").is_some() {
            let declared = result
                .pointer("/capabilities/tasks/requests/tools/call")
                .is_some();
            self.facts().tool_tasks = Some(declared);
        }
        if let Some(tools) = result.get("tools").and_then(Value::as_array) {
            let mut facts = self.facts();
            for tool in tools {
                let Some(name) = tool.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let support = match tool
                    .pointer("/execution/taskSupport")
                    .and_then(Value::as_str)
                {
                    Some("required") => TaskSupport::Required,
                    Some("optional") => TaskSupport::Optional,
                    _ => TaskSupport::Forbidden,
                };
                facts.tools.insert(name.to_owned(), support);
            }
        }
    }
}

/// A server's stdout with [`WireFacts`] noted on the way through.
pub struct Tapped<R> {
    inner: R,
    facts: Arc<WireFacts>,
    line: Vec<u8>,
    /// False while skipping the rest of a line too long to keep.
    keeping: bool,
}

impl<R> Tapped<R> {
    pub fn new(inner: R, facts: Arc<WireFacts>) -> Self {
        Self {
            inner,
            facts,
            line: Vec::new(),
            keeping: true,
        }
    }

    fn scan(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let (part, rest) = match end {
                Some(i) => (&bytes[..i], &bytes[i + 1..]),
                None => (bytes, &[][..]),
            };
            if self.keeping {
                if self.line.len() + part.len() > MAX_INSPECTED_LINE {
                    self.keeping = false;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            if end.is_some() {
                if self.keeping {
                    self.facts.inspect(&self.line);
                }
                self.line.clear();
                if self.line.capacity() > KEEP_CAPACITY {
                    self.line.shrink_to(KEEP_CAPACITY);
                }
                self.keeping = true;
            }
            bytes = rest;
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tapped<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            this.scan(&buf.filled()[before..]);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    const INIT: &str = r#"{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":0}"#;
    const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},{"name":"maybe","inputSchema":{},"execution":{"taskSupport":"optional"}},{"name":"echo","inputSchema":{}}]}}"#;

    async fn read_through(chunks: &[&[u8]], facts: &Arc<WireFacts>) -> Vec<u8> {
        let mut joined = Vec::new();
        for chunk in chunks {
            joined.extend_from_slice(chunk);
        }
        // A reader that hands out a few bytes at a time splits lines across reads.
        let (mut writer, reader) = tokio::io::duplex(7);
        let feed = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            writer.write_all(&joined).await.expect("written");
        });
        let mut tapped = Tapped::new(reader, Arc::clone(facts));
        let mut out = Vec::new();
        tapped.read_to_end(&mut out).await.expect("read");
        feed.await.expect("fed");
        out
    }

    #[tokio::test]
    async fn facts_come_from_initialize_and_listing_and_bytes_pass_unchanged() {
        let facts = Arc::new(WireFacts::default());
        assert_eq!(facts.mode("research"), TaskMode::Unknown);
        let input: [&[u8]; 4] = [INIT.as_bytes(), b"\n\xff garbage\n", LIST.as_bytes(), b"\n"];
        let out = read_through(&input, &facts).await;
        assert_eq!(out, input.concat());
        assert_eq!(facts.mode("research"), TaskMode::Task);
        assert_eq!(facts.mode("maybe"), TaskMode::Task);
        assert_eq!(facts.mode("echo"), TaskMode::Plain);
        assert_eq!(facts.mode("unlisted"), TaskMode::Plain);
    }

    #[tokio::test]
    async fn without_the_server_capability_nothing_is_a_task() {
        let facts = Arc::new(WireFacts::default());
        let init = INIT.replace(r#","tasks":{"requests":{"tools":{"call":{}}}}"#, "");
        read_through(&[init.as_bytes(), b"\n", LIST.as_bytes(), b"\n"], &facts).await;
        assert_eq!(facts.mode("research"), TaskMode::Plain);
    }
}
