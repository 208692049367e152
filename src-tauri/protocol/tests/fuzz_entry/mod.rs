//! The wire formats' fuzzing entry points, shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets/`, which include this file by path) and the regression test
//! (`tests/fuzz_regressions.rs`), so a crash the fuzzer found is replayed by a normal
//! `cargo test` through exactly the code that found it.
//!
//! Each entry point decodes raw bytes into a parser call and asserts only what the formats
//! promise: parsers never panic (`Protocol::parse_tool_requests`), spans lie inside the reply
//! on character boundaries with `raw_block` the text at the span (`ParsedToolRequest`),
//! streaming gives the batch parse's results whatever the deltas (`framing.rs`: "the batch and
//! streaming results cannot drift apart"), and parsing stays linear in the reply's length. The
//! formats come from the crate's own [`ProtocolSet::standard`], so a new format is fuzzed with
//! no change here. Argument coercion and validation are fuzzed from the engine's tests
//! (`src-tauri/engine/tests/fuzz_entry/`), which own the validator.
#![allow(dead_code)] // each fuzz target uses one entry point

use std::sync::{Arc, OnceLock};

use toolscope_protocol::framing::{Close, Open};
use toolscope_protocol::parser;
use toolscope_protocol::request::{DiagnosticCode, ParseOutput, ParsedToolRequest, Span};
use toolscope_protocol::stream::{self, StreamEvent, ToolCallStream};
use toolscope_protocol::{Protocol, ProtocolSet};

/// A fuzz target's body: any bytes in, a panic on a finding.
pub type Entry = fn(&[u8]);

/// Every entry point by the name of its fuzz target (and its fixture directory).
pub const TARGETS: &[(&str, Entry)] = &[
    ("parse_format", parse_format),
    ("detect", detect),
    ("stream", stream),
    ("large_reply", large_reply),
];

fn protocols() -> &'static ProtocolSet {
    static SET: OnceLock<ProtocolSet> = OnceLock::new();
    // The declared examples too: a format described in a file is fuzzed like a built-in one.
    SET.get_or_init(|| ProtocolSet::standard().extended(toolscope_protocol::declared::examples()))
}

/// Picks the format an input is for and returns the rest. An input starting with a format id
/// and a newline (`hermes\n…`, how the seed corpora are written) is for that format; any other
/// input picks one by its first byte, so every byte string still reaches some parser.
pub fn split_format(data: &[u8]) -> (Arc<dyn Protocol>, &[u8]) {
    let set = protocols();
    if let Some(newline) = data.iter().take(32).position(|&b| b == b'\n') {
        let named = std::str::from_utf8(&data[..newline])
            .ok()
            .and_then(|id| set.get(id));
        if let Some(protocol) = named {
            return (protocol, &data[newline + 1..]);
        }
    }
    let all: Vec<&Arc<dyn Protocol>> = set.iter().collect();
    let first = data.first().copied().unwrap_or(0);
    let protocol = all[usize::from(first) % all.len()].clone();
    (protocol, data.get(1..).unwrap_or_default())
}

/// A libFuzzer dictionary: every format's markers (the engine searches them with SIMD, which
/// the fuzzer's comparison tracing cannot see into) and the keys calls are written with.
pub fn dictionary() -> String {
    let mut words: Vec<&str> = vec![
        "<think>",
        "</think>",
        "{",
        "}",
        "[",
        "]",
        "\"name\"",
        "\"arguments\"",
        "\"parameters\"",
        "\"tool_calls\"",
        "\"function\"",
        "```json",
        "```",
        "\\u00e9",
    ];
    for protocol in protocols().iter() {
        let signature = protocol.signature();
        words.extend(signature.markers.iter().chain(&signature.prefixes));
        for rule in protocol.framing().map(|f| f.rules).unwrap_or_default() {
            match rule.open {
                Open::Marker(m) | Open::CallId(m) | Open::TextStart(m) => words.push(m),
                Open::CallList => words.push("[get_weather("),
                Open::ObjectWithKey(keys) | Open::ObjectList(keys) => {
                    words.extend(keys.iter().copied())
                }
            }
            match rule.close {
                Close::Marker(m) | Close::Balanced { after: m, .. } => words.push(m),
                Close::Immediately | Close::UntilNext => {}
            }
        }
    }
    words.retain(|w| !w.is_empty());
    words.sort_unstable();
    words.dedup();
    let mut dict = String::new();
    for word in words {
        dict.push('"');
        for byte in word.bytes() {
            match byte {
                b'"' | b'\\' => dict.push_str(&format!("\\{}", char::from(byte))),
                0x20..=0x7e => dict.push(char::from(byte)),
                _ => dict.push_str(&format!("\\x{byte:02X}")),
            }
        }
        dict.push_str("\"\n");
    }
    dict
}

/// A reply is text: invalid UTF-8 becomes U+FFFD, as a client decoding a model's bytes would.
fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One format's batch parse (`<format id>\n<reply>`).
pub fn parse_format(data: &[u8]) {
    let (protocol, rest) = split_format(data);
    let text = text_of(rest);
    // Directly, not through the facade's panic guard: a panic is the finding.
    let output = protocol.parse_tool_requests(&text);
    check_output(protocol.id(), &text, &output);
}

/// Auto-detect over the whole input, through the parser facade the app and CLI use.
pub fn detect(data: &[u8]) {
    let text = text_of(data);
    let set = protocols();
    let report = parser::parse(set, &text, None).expect("auto-detect never fails");
    assert!(
        report.format == "none" || set.get(&report.format).is_some(),
        "auto-detect chose an unknown format '{}'",
        report.format
    );
    assert!(report.detected);
    let output = ParseOutput {
        requests: report.requests,
        diagnostics: report.diagnostics,
        content: report.content,
    };
    check_output(&report.format, &text, &output);
}

/// Streaming in deltas of fuzzed sizes (`<format id>\n`, a count `n` (mod 8), `n` delta sizes
/// (mod 32; 0 is an empty delta, then 1 byte) used in turn, then the reply; no sizes means 1-byte deltas),
/// compared with the batch parse of the same reply.
pub fn stream(data: &[u8]) {
    let (protocol, rest) = split_format(data);
    let count = usize::from(rest.first().copied().unwrap_or(0) % 8);
    let sizes: Vec<usize> = rest
        .iter()
        .skip(1)
        .take(count)
        .map(|&b| usize::from(b % 32))
        .collect();
    let text = text_of(rest.get(1 + sizes.len()..).unwrap_or_default());
    let id = protocol.id();
    let batch = protocol.parse_tool_requests(&text);
    check_output(id, &text, &batch);

    let mut live = ToolCallStream::new(protocol.clone());
    let mut events = Vec::new();
    let mut fed = 0;
    let mut size = sizes.iter().copied().cycle();
    while fed < text.len() {
        let n = size.next().unwrap_or(1);
        if n == 0 {
            // An empty delta (a keep-alive chunk) changes nothing; the next one moves on.
            live.push("", &mut events);
        }
        let mut end = (fed + n.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        live.push(&text[fed..end], &mut events);
        fed = end;
    }
    live.finish(&mut events);
    assert_eq!(live.text(), text, "{id}: the stream lost or changed text");

    let mut requests = Vec::new();
    let mut diagnostics = Vec::new();
    let mut started = 0u32;
    for event in &events {
        match event {
            StreamEvent::Content { span }
            | StreamEvent::Reasoning { span }
            | StreamEvent::ArgumentsDelta { span, .. } => check_span(id, "event", &text, *span),
            StreamEvent::CallStarted { block, start } => {
                assert_eq!(*block, started, "{id}: blocks are numbered in order");
                started += 1;
                assert!(*start <= text.len() && text.is_char_boundary(*start));
            }
            StreamEvent::Call { block, request } => {
                if live.is_incremental() {
                    assert!(*block < started, "{id}: call of a block never started");
                }
                requests.push(request.clone());
            }
            StreamEvent::Diagnostic { diagnostic } => diagnostics.push(diagnostic.clone()),
        }
    }
    let streamed = ParseOutput {
        requests,
        diagnostics,
        content: String::new(),
    };
    check_output(id, &text, &streamed);
    assert_eq!(
        comparable(&streamed.requests),
        comparable(&batch.requests),
        "{id}: streaming found other calls than the batch parse of {text:?}"
    );
    assert_eq!(
        streamed.diagnostics, batch.diagnostics,
        "{id}: streaming reported other diagnostics than the batch parse of {text:?}"
    );

    // The app's replay view streams in fixed deltas; it must tell the same story.
    let delta = sizes.first().copied().unwrap_or(1);
    let replay = stream::replay(protocol, &text, delta);
    let replayed: Vec<ParsedToolRequest> = replay
        .calls
        .iter()
        .flat_map(|call| call.requests.iter().cloned())
        .collect();
    assert_eq!(
        comparable(&replayed),
        comparable(&batch.requests),
        "{id}: the replay in {delta}-byte deltas found other calls than the batch parse"
    );
}

/// How long [`large_reply`] makes a reply: past auto-detect's 128 KiB sampling threshold, and
/// long enough that work quadratic in the reply's length takes seconds, not milliseconds.
pub const LARGE_REPLY_BYTES: usize = 512 * 1024;

/// One format's batch parse, its 4-byte-delta stream and auto-detect on a reply of
/// [`LARGE_REPLY_BYTES`] made by repeating the input's reply (`<format id>\n<reply>`). The
/// engine promises linear time (DESIGN.md: 1 MB in milliseconds, streamed in 4-byte deltas in
/// 50 ms); the fuzzer's per-input timeout turns anything super-linear into a finding.
pub fn large_reply(data: &[u8]) {
    let (protocol, rest) = split_format(data);
    let unit = text_of(rest);
    if unit.is_empty() {
        return;
    }
    let text = unit.repeat(LARGE_REPLY_BYTES.div_ceil(unit.len()));
    let id = protocol.id();
    let batch = protocol.parse_tool_requests(&text);
    check_output(id, &text, &batch);

    let replay = stream::replay(protocol, &text, 4);
    let replayed: Vec<ParsedToolRequest> = replay
        .calls
        .into_iter()
        .flat_map(|call| call.requests)
        .collect();
    assert_eq!(
        comparable(&replayed).len(),
        batch.requests.len(),
        "{id}: streaming found other calls than the batch parse"
    );
    assert_eq!(comparable(&replayed), comparable(&batch.requests));

    let report = parser::parse(protocols(), &text, None).expect("auto-detect never fails");
    let output = ParseOutput {
        requests: report.requests,
        diagnostics: report.diagnostics,
        content: report.content,
    };
    check_output(&report.format, &text, &output);
}

/// Requests with generated ids blanked: they differ between two parses of the same reply.
fn comparable(requests: &[ParsedToolRequest]) -> Vec<ParsedToolRequest> {
    requests
        .iter()
        .map(|request| {
            let mut request = request.clone();
            if is_generated_id(&request.request_id) {
                request.request_id.clear();
            }
            request
        })
        .collect()
}

fn is_generated_id(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn check_span(format: &str, what: &str, text: &str, span: Span) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{format}: {what} span {span:?} outside the {}-byte reply",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{format}: {what} span {span:?} splits a character"
    );
}

/// What every parse promises, whatever the input.
fn check_output(format: &str, text: &str, output: &ParseOutput) {
    for request in &output.requests {
        check_span(format, "request", text, request.span);
        assert_eq!(
            &text[request.span.start..request.span.end],
            request.raw_block,
            "{format}: raw_block is not the text at its span"
        );
        assert_eq!(
            request.format, format,
            "a request says another format produced it"
        );
    }
    for diagnostic in &output.diagnostics {
        check_span(format, "diagnostic", text, diagnostic.span);
        assert_ne!(
            diagnostic.code,
            DiagnosticCode::InternalError,
            "{format}: a parser panicked (caught by the facade): {}",
            diagnostic.message
        );
    }
}
