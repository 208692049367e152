//! The fuzzing entry points, shared by the cargo-fuzz targets (`fuzz/fuzz_targets/`, which
//! include this file by path) and the regression test (`tests/fuzz_regressions.rs`), so a
//! crash the fuzzer found is replayed by a normal `cargo test` through exactly the code that
//! found it.
//!
//! Each entry point decodes raw bytes into an engine call and asserts only what the engine
//! promises: parsers never panic (`Protocol::parse_tool_requests`), spans lie inside the reply
//! on character boundaries with `raw_block` the text at the span (`ParsedToolRequest`),
//! streaming gives the batch parse's results whatever the deltas (`protocol/framing.rs`: "the
//! batch and streaming results cannot drift apart"), and coercion only turns text into the
//! types a property's schema asks for (`executor/coerce.rs`). The formats come from the
//! engine's own [`ProtocolSet::standard`], so a new format is fuzzed with no change here.
#![allow(dead_code)] // each fuzz target uses one entry point

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Number, Value};
use toolscope_engine::builtin::{calculator, clock, devtools, echo};
use toolscope_engine::executor::{coerce, validate, Executor, ExecutorOptions};
use toolscope_engine::parser;
use toolscope_engine::protocol::framing::{Close, Open};
use toolscope_engine::protocol::stream::{self, StreamEvent, ToolCallStream};
use toolscope_engine::protocol::{Protocol, ProtocolSet};
use toolscope_engine::{
    BoxFuture, CallContext, DiagnosticCode, ErrorKind, MethodMetadata, ParseOutput,
    ParsedToolRequest, Registry, Span, Tool, ToolFailure, ToolInfo, ToolSource,
};

/// A fuzz target's body: any bytes in, a panic on a finding.
pub type Entry = fn(&[u8]);

/// Every entry point by the name of its fuzz target (and its fixture directory).
pub const TARGETS: &[(&str, Entry)] = &[
    ("parse_format", parse_format),
    ("detect", detect),
    ("stream", stream),
    ("coerce_validate", coerce_validate),
    ("large_reply", large_reply),
];

fn protocols() -> &'static ProtocolSet {
    static SET: OnceLock<ProtocolSet> = OnceLock::new();
    SET.get_or_init(ProtocolSet::standard)
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
                Open::Marker(m) | Open::TextStart(m) => words.push(m),
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

/// Bytes read front to back; exhausted input reads as zeros, so any input decodes.
struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.data.split_first().unwrap_or((&0, &[]));
        self.data = rest;
        *first
    }

    fn pick<'t, T>(&mut self, options: &'t [T]) -> &'t T {
        &options[usize::from(self.byte()) % options.len()]
    }

    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (taken, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        taken
    }

    /// Text of up to 63 bytes.
    fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 64);
        text_of(self.bytes(len))
    }

    fn u64(&mut self) -> u64 {
        let mut raw = [0u8; 8];
        let bytes = self.bytes(8);
        raw[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(raw)
    }
}

const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "object", "array", "any",
];
const NAMES: &[&str] = &["a", "count", "flag", "items", "mode", "x"];

/// A JSON value of any kind (nesting bounded by `depth`).
fn value(input: &mut Input, depth: u8) -> Value {
    match input.byte() % 8 {
        0 => Value::Null,
        1 => Value::Bool(input.byte() % 2 == 1),
        2 => Value::from(input.u64() as i64),
        3 => Value::from(input.u64()),
        4 => Number::from_f64(f64::from_bits(input.u64())).map_or(Value::Null, Value::Number),
        5 if depth > 0 => Value::Array(
            (0..input.byte() % 4)
                .map(|_| value(input, depth - 1))
                .collect(),
        ),
        6 if depth > 0 => Value::Object(
            (0..input.byte() % 4)
                .map(|_| (input.pick(NAMES).to_string(), value(input, depth - 1)))
                .collect(),
        ),
        _ => Value::String(input.text()),
    }
}

/// A property schema in the shapes tool schemas use (types, type lists, enums, defaults,
/// bounds, nested objects and arrays).
fn property(input: &mut Input, depth: u8) -> Value {
    let mut prop = Map::new();
    match input.byte() % 8 {
        0..=3 => {
            prop.insert("type".into(), Value::from(*input.pick(TYPES)));
        }
        4 => {
            let types: Vec<Value> = (0..1 + input.byte() % 3)
                .map(|_| Value::from(*input.pick(TYPES)))
                .collect();
            prop.insert("type".into(), Value::Array(types));
        }
        5 => {
            let options: Vec<Value> = (0..input.byte() % 4).map(|_| value(input, 1)).collect();
            prop.insert("enum".into(), Value::Array(options));
        }
        6 if depth > 0 => return object_schema(input, depth - 1),
        6 | 7 => {
            prop.insert("type".into(), Value::from("array"));
            prop.insert("items".into(), property(input, depth.saturating_sub(1)));
        }
        _ => {}
    }
    let extras = input.byte();
    if extras & 1 != 0 {
        prop.insert("default".into(), value(input, 1));
    }
    if extras & 2 != 0 {
        prop.insert("minimum".into(), value(input, 0));
    }
    if extras & 4 != 0 {
        prop.insert("maxLength".into(), Value::from(input.byte()));
    }
    if extras & 8 != 0 {
        prop.insert("pattern".into(), Value::from(input.text()));
    }
    if extras & 16 != 0 {
        prop.insert("const".into(), value(input, 1));
    }
    Value::Object(prop)
}

fn object_schema(input: &mut Input, depth: u8) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for _ in 0..input.byte() % 6 {
        let name = if input.byte() % 4 == 0 {
            input.text()
        } else {
            input.pick(NAMES).to_string()
        };
        if input.byte() % 2 == 0 {
            required.push(Value::from(name.clone()));
        }
        properties.insert(name, property(input, depth));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    if input.byte() % 3 == 0 {
        schema.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(schema)
}

/// The parameter schemas of the built-in tools: real schemas with nesting, enums and defaults.
fn builtin_schemas() -> &'static [Value] {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let tools: [&dyn Tool; 4] = [
            &calculator::CalculatorTool,
            &clock::ClockTool,
            &devtools::DevTools::default(),
            &echo::EchoTool,
        ];
        tools
            .iter()
            .flat_map(|tool| tool.info().methods)
            .map(|method| method.parameters)
            .collect()
    })
}

/// Arguments as a text format delivers them: mostly text, for the schema's properties.
fn untyped_args(input: &mut Input, schema: &Value) -> Map<String, Value> {
    let names: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut args = Map::new();
    for _ in 0..input.byte() % 6 {
        let name = match input.byte() % 4 {
            0 => input.text(),
            _ if names.is_empty() => input.pick(NAMES).to_string(),
            _ => input.pick(&names).clone(),
        };
        let arg = match input.byte() % 5 {
            0 => value(input, 2),
            _ => Value::String(input.text()),
        };
        args.insert(name, arg);
    }
    args
}

/// Argument coercion and validation. The first byte picks the schema: raw JSON (`schema`,
/// a NUL byte, then `args` as a JSON object), one of the built-in tools' schemas, or a schema
/// built from the bytes; the arguments are then built from the bytes for that schema.
pub fn coerce_validate(data: &[u8]) {
    let mut input = Input { data };
    let (schema, args) = match input.byte() % 3 {
        0 => {
            let rest = input.bytes(usize::MAX);
            let (schema_text, args_text) = match rest.iter().position(|&b| b == 0) {
                Some(nul) => (&rest[..nul], &rest[nul + 1..]),
                None => (rest, &[][..]),
            };
            let Ok(schema) = serde_json::from_slice::<Value>(schema_text) else {
                return;
            };
            let args = match serde_json::from_slice::<Value>(args_text) {
                Ok(Value::Object(args)) => args,
                _ => Map::new(),
            };
            (schema, args)
        }
        1 => {
            let schema = input.pick(builtin_schemas()).clone();
            let args = untyped_args(&mut input, &schema);
            (schema, args)
        }
        _ => {
            let schema = object_schema(&mut input, 2);
            let args = untyped_args(&mut input, &schema);
            (schema, args)
        }
    };
    check_coercion(&schema, &args);
    check_validation(&schema, args);
}

/// `coerce_untyped` only turns text of a known, non-string property into a value of a type the
/// property declares (or one of its enum values); `apply_defaults` only adds missing defaults.
fn check_coercion(schema: &Value, args: &Map<String, Value>) {
    let mut coerced = args.clone();
    coerce::coerce_untyped(&mut coerced, schema);
    assert_eq!(
        coerced.keys().collect::<Vec<_>>(),
        args.keys().collect::<Vec<_>>(),
        "coercion changed the argument names"
    );
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, before) in args {
        let after = &coerced[name];
        if after == before {
            continue;
        }
        assert!(
            before.is_string(),
            "coercion changed a typed value {before}"
        );
        let prop = properties
            .and_then(|p| p.get(name))
            .unwrap_or_else(|| panic!("coercion changed '{name}', which has no schema"));
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        assert!(
            !types.contains(&"string"),
            "coercion changed text the schema wants as text"
        );
        let fits = if types.is_empty() {
            prop.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|options| options.contains(after))
        } else {
            types.iter().any(|t| match *t {
                "integer" => after.is_i64() || after.is_u64(),
                "number" => after.is_number(),
                "boolean" => after.is_boolean(),
                "null" => after.is_null(),
                "object" => after.is_object(),
                "array" => after.is_array(),
                _ => false,
            })
        };
        assert!(
            fits,
            "coercion turned {before} into {after}, which {prop} does not allow"
        );
    }

    let mut defaulted = coerced.clone();
    coerce::apply_defaults(&mut defaulted, schema);
    for (name, value) in &coerced {
        assert_eq!(
            defaulted.get(name),
            Some(value),
            "a default replaced '{name}'"
        );
    }
    for (name, value) in &defaulted {
        if coerced.contains_key(name) {
            continue;
        }
        let default = properties
            .and_then(|p| p.get(name))
            .and_then(|prop| prop.get("default"));
        assert_eq!(default, Some(value), "'{name}' was added without a default");
    }
}

/// A tool with one method whose parameters are the fuzzed schema.
struct SchemaTool(Value);

impl Tool for SchemaTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "fuzz".into(),
            name: "fuzz".into(),
            description: String::new(),
            source: ToolSource::Builtin,
            methods: vec![MethodMetadata {
                name: "call".into(),
                description: String::new(),
                parameters: self.0.clone(),
                agent_callable: true,
                protocol_config: None,
                annotations: Default::default(),
                output_schema: None,
            }],
        }
    }

    fn call<'a>(
        &'a self,
        _method: &'a str,
        _args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async { Ok(Value::Null) })
    }
}

/// The executor's pre-run check (coerce, defaults, JSON-Schema validation) on text arguments:
/// it never panics, an invalid-arguments answer names at least one issue by JSON pointer, and
/// "would run" means the validator accepts the prepared arguments.
fn check_validation(schema: &Value, args: Map<String, Value>) {
    let registry = Arc::new(Registry::new());
    if registry
        .register(Arc::new(SchemaTool(schema.clone())))
        .is_err()
    {
        assert!(!schema.is_object(), "a valid method was refused");
        return;
    }
    let executor = Executor::new(registry.clone(), ExecutorOptions::default());
    let mut request = ParsedToolRequest::manual("fuzz_call", args);
    request.untyped_args = true;
    let verdict = executor.check(&request);
    let (_, method) = registry.resolve("fuzz_call").expect("just registered");
    let validator = match method.validator() {
        Ok(validator) => validator,
        Err(_) => {
            let kind = verdict.map(|e| e.kind);
            assert_eq!(kind, Some(ErrorKind::ToolError), "an invalid schema passed");
            return;
        }
    };
    let mut prepared = request.args.clone();
    coerce::coerce_untyped(&mut prepared, schema);
    coerce::apply_defaults(&mut prepared, schema);
    let issues = validate::validate_args(&validator, &Value::Object(prepared));
    match verdict {
        None => assert!(issues.is_empty(), "would run with invalid args: {issues:?}"),
        Some(error) => {
            assert_eq!(error.kind, ErrorKind::InvalidArgs, "{}", error.message);
            assert!(!error.issues.is_empty(), "invalid args without an issue");
            assert_eq!(error.issues, issues, "the check is not deterministic");
            for issue in &error.issues {
                assert!(issue.path.starts_with('/'), "issue path {:?}", issue.path);
            }
        }
    }
}
