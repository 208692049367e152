//! Incremental parsing: feed a reply as the model streams it, get calls as they complete.
//!
//! A client that streams a completion wants to show a call the moment its block closes, and
//! its arguments while they arrive, without re-parsing the whole reply on every delta (which
//! turns a 1 MB reply in 4-character deltas into hours of work). Framed formats get that from
//! the shared [`Scanner`]: each delta costs time proportional to its length, and each block is
//! decoded once, when it ends. Formats parsed as whole documents are buffered and parsed at
//! [`ToolCallStream::finish`]; [`ToolCallStream::is_incremental`] says which kind a stream is.
//!
//! Events carry byte spans into [`ToolCallStream::text`] rather than copies, so a delta costs
//! no allocation beyond the buffer growing.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::framing::{ScanEvent, Scanner};
use crate::request::{Diagnostic, DiagnosticCode, ParseOutput, ParsedToolRequest, Severity, Span};
use crate::Protocol;

/// What a stream reports, in reply order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// Prose outside the calls.
    Content {
        span: Span,
    },
    /// A call block began (`block` counts blocks from 0).
    CallStarted {
        block: u32,
        start: usize,
    },
    /// More of the open block's body (the arguments, in most formats) arrived.
    ArgumentsDelta {
        block: u32,
        span: Span,
    },
    /// A call is complete.
    Call {
        block: u32,
        request: ParsedToolRequest,
    },
    /// Reasoning text ended (never parsed as calls).
    Reasoning {
        span: Span,
    },
    Diagnostic {
        diagnostic: Diagnostic,
    },
}

/// One reply being parsed as it arrives.
pub struct ToolCallStream {
    protocol: Arc<dyn Protocol>,
    text: String,
    scanner: Option<Scanner>,
    scan_events: Vec<ScanEvent>,
    blocks: u32,
    finished: bool,
}

impl std::fmt::Debug for ToolCallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCallStream")
            .field("protocol", &self.protocol.id())
            .field("bytes", &self.text.len())
            .field("incremental", &self.is_incremental())
            .finish()
    }
}

impl ToolCallStream {
    pub fn new(protocol: Arc<dyn Protocol>) -> Self {
        let scanner = protocol.framing().map(Scanner::new);
        Self {
            protocol,
            text: String::new(),
            scanner,
            scan_events: Vec::new(),
            blocks: 0,
            finished: false,
        }
    }

    /// True when calls are reported as they complete; false when the format is buffered and
    /// parsed at [`Self::finish`].
    pub fn is_incremental(&self) -> bool {
        self.scanner.is_some()
    }

    /// The reply so far; event spans index into it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Adds a delta and appends what it completed to `events`. Ignored after `finish`.
    pub fn push(&mut self, delta: &str, events: &mut Vec<StreamEvent>) {
        if self.finished {
            return;
        }
        self.text.push_str(delta);
        self.scan(false, events);
    }

    /// Ends the reply: open blocks are closed (decoded or reported) and buffered formats parsed.
    pub fn finish(&mut self, events: &mut Vec<StreamEvent>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if self.scanner.is_some() {
            self.scan(true, events);
            return;
        }
        let output = guarded(self.protocol.as_ref(), |p| {
            p.parse_tool_requests(&self.text)
        });
        for diagnostic in output.diagnostics {
            events.push(StreamEvent::Diagnostic { diagnostic });
        }
        for request in output.requests {
            events.push(StreamEvent::Call {
                block: self.blocks,
                request,
            });
            self.blocks += 1;
        }
    }

    fn scan(&mut self, eof: bool, events: &mut Vec<StreamEvent>) {
        let Some(scanner) = self.scanner.as_mut() else {
            return;
        };
        self.scan_events.clear();
        scanner.advance(&self.text, eof, &mut self.scan_events);
        for event in self.scan_events.drain(..) {
            match event {
                ScanEvent::Content(span) => events.push(StreamEvent::Content { span }),
                ScanEvent::Reasoning(span) => events.push(StreamEvent::Reasoning { span }),
                ScanEvent::Diagnostic(diagnostic) => {
                    events.push(StreamEvent::Diagnostic { diagnostic });
                }
                ScanEvent::BlockStarted { start, .. } => {
                    events.push(StreamEvent::CallStarted {
                        block: self.blocks,
                        start,
                    });
                    self.blocks += 1;
                }
                ScanEvent::BodyDelta { span, .. } => events.push(StreamEvent::ArgumentsDelta {
                    block: self.blocks.saturating_sub(1),
                    span,
                }),
                ScanEvent::Block(block) => {
                    let text = &self.text;
                    let output = guarded(self.protocol.as_ref(), |p| {
                        let mut out = ParseOutput::default();
                        crate::framing::decode(p, text, &block, &mut out);
                        out
                    });
                    let index = self.blocks.saturating_sub(1);
                    for diagnostic in output.diagnostics {
                        events.push(StreamEvent::Diagnostic { diagnostic });
                    }
                    for request in output.requests {
                        events.push(StreamEvent::Call {
                            block: index,
                            request,
                        });
                    }
                }
            }
        }
    }
}

/// One call block as it appeared while a reply streamed in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplayedCall {
    pub block: u32,
    /// Where the block starts in the reply.
    pub start: usize,
    /// Bytes fed when the block was recognised.
    pub started_at: usize,
    /// Where its body (the arguments, as they arrive) starts in the reply.
    pub body_start: usize,
    /// Bytes fed when its calls were complete; `None` when the reply ended first.
    pub completed_at: Option<usize>,
    /// The calls the block held (several for a JSON list), once complete.
    pub requests: Vec<ParsedToolRequest>,
}

/// A diagnostic and the number of bytes fed when it was reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplayedDiagnostic {
    pub at: usize,
    pub diagnostic: Diagnostic,
}

/// What streaming a whole reply in fixed deltas produced, and when: enough to replay the
/// stream at any speed without sending every delta across a process boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StreamReplay {
    pub format: String,
    /// False when the format is buffered: everything appears at the end.
    pub incremental: bool,
    pub delta_bytes: u32,
    pub total_bytes: usize,
    pub deltas: u32,
    pub calls: Vec<ReplayedCall>,
    pub diagnostics: Vec<ReplayedDiagnostic>,
    /// Reasoning spans, each with the bytes fed when it ended.
    pub reasoning: Vec<(Span, usize)>,
    /// Time the engine spent streaming, in milliseconds.
    pub elapsed_ms: f64,
}

/// `text` cut into consecutive deltas of `next_size()` bytes each (at least 1), each cut moved
/// forward to a character boundary: how a reply arrives from a streaming API. Replays, the
/// streaming benchmarks and the tests all feed a stream this way.
pub fn deltas(text: &str, mut next_size: impl FnMut() -> usize) -> impl Iterator<Item = &str> {
    let mut fed = 0;
    std::iter::from_fn(move || {
        if fed >= text.len() {
            return None;
        }
        let mut end = (fed + next_size().max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let delta = &text[fed..end];
        fed = end;
        Some(delta)
    })
}

/// Streams `text` through `protocol` in deltas of `delta_bytes` (at least 1; deltas end on
/// character boundaries) and records when each call and diagnostic appeared.
pub fn replay(protocol: Arc<dyn Protocol>, text: &str, delta_bytes: usize) -> StreamReplay {
    let started = std::time::Instant::now();
    let delta_bytes = delta_bytes.max(1);
    let format = protocol.id().to_owned();
    let mut stream = ToolCallStream::new(protocol);
    let incremental = stream.is_incremental();
    let mut replay = StreamReplay {
        format,
        incremental,
        delta_bytes: u32::try_from(delta_bytes).unwrap_or(u32::MAX),
        total_bytes: text.len(),
        deltas: 0,
        calls: Vec::new(),
        diagnostics: Vec::new(),
        reasoning: Vec::new(),
        elapsed_ms: 0.0,
    };
    let mut events = Vec::new();
    let mut body_seen = None;
    let mut fed = 0;
    for delta in deltas(text, || delta_bytes) {
        stream.push(delta, &mut events);
        fed += delta.len();
        replay.deltas = replay.deltas.saturating_add(1);
        record(&mut replay, &mut events, fed, &mut body_seen);
    }
    stream.finish(&mut events);
    record(&mut replay, &mut events, fed, &mut body_seen);
    replay.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    replay
}

/// `body_seen`: the last block whose first argument bytes were recorded (blocks come in order).
fn record(
    replay: &mut StreamReplay,
    events: &mut Vec<StreamEvent>,
    fed: usize,
    body_seen: &mut Option<u32>,
) {
    for event in events.drain(..) {
        match event {
            StreamEvent::CallStarted { block, start } => replay.calls.push(ReplayedCall {
                block,
                start,
                started_at: fed,
                body_start: fed,
                completed_at: None,
                requests: Vec::new(),
            }),
            StreamEvent::ArgumentsDelta { block, span } => {
                if *body_seen != Some(block) {
                    *body_seen = Some(block);
                    if let Some(call) = replay.calls.iter_mut().rev().find(|c| c.block == block) {
                        call.body_start = span.start;
                    }
                }
            }
            StreamEvent::Call { block, request } => {
                match replay.calls.iter_mut().rev().find(|c| c.block == block) {
                    Some(call) => {
                        call.completed_at = Some(fed);
                        call.requests.push(request);
                    }
                    // Buffered formats report calls without a start.
                    None => replay.calls.push(ReplayedCall {
                        block,
                        start: request.span.start,
                        started_at: fed,
                        body_start: request.span.start,
                        completed_at: Some(fed),
                        requests: vec![request],
                    }),
                }
            }
            StreamEvent::Diagnostic { diagnostic } => replay.diagnostics.push(ReplayedDiagnostic {
                at: fed,
                diagnostic,
            }),
            StreamEvent::Reasoning { span } => replay.reasoning.push((span, fed)),
            StreamEvent::Content { .. } => {}
        }
    }
}

/// A decoder bug costs one block (reported), never the stream.
fn guarded(protocol: &dyn Protocol, run: impl FnOnce(&dyn Protocol) -> ParseOutput) -> ParseOutput {
    catch_unwind(AssertUnwindSafe(|| run(protocol))).unwrap_or_else(|_| ParseOutput {
        diagnostics: vec![Diagnostic {
            severity: Severity::Error,
            code: DiagnosticCode::InternalError,
            message: format!(
                "the {} parser failed internally on this part of the reply; please report it",
                protocol.id()
            ),
            span: Span::new(0, 0),
        }],
        ..ParseOutput::default()
    })
}

#[cfg(test)]
mod tests;
