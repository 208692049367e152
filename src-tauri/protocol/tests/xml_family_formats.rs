//! The XML-ish and special-token open-model formats (glm45, kimi_k2, minimax_m2, seed_oss, step3,
//! deepseek_v32): streaming agrees with the batch parse, auto-detect picks each for its own
//! replies (glm45 shares `<tool_call>` with hermes), and adding them changes nothing for the
//! replies of the formats that were there before.
//!
//! `UPDATE_XML_FAMILY_GOLDENS=1` rewrites the goldens of these formats only (the shared
//! `UPDATE_GOLDENS` rewrites every format's); review the diff afterwards.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::request::{Diagnostic, ParsedToolRequest};
use toolscope_protocol::stream::{deltas, StreamEvent, ToolCallStream};
use toolscope_protocol::ProtocolSet;

const FORMATS: &[&str] = &[
    "glm45",
    "kimi_k2",
    "minimax_m2",
    "seed_oss",
    "step3",
    "deepseek_v32",
];

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/parser")
}

fn cases(format: &str) -> Vec<(PathBuf, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures_root().join(format))
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture is utf-8");
            (path, text)
        })
        .collect()
}

/// The same view of a report as `parser_fixtures.rs`: generated ids replaced, raw blocks
/// checked against their spans and dropped.
fn golden_view(report: &ParseReport, text: &str) -> Value {
    for request in &report.requests {
        assert_eq!(
            text.get(request.span.start..request.span.end),
            Some(request.raw_block.as_str()),
            "raw_block must be the text at the span"
        );
    }
    let mut value = serde_json::to_value(report).expect("report serialises");
    if let Some(requests) = value["requests"].as_array_mut() {
        for request in requests {
            if let Some(object) = request.as_object_mut() {
                object.remove("raw_block");
                let id = object["request_id"].as_str().unwrap_or_default();
                if !text.contains(id) {
                    object.insert("request_id".into(), Value::from("<generated>"));
                }
            }
        }
    }
    value
}

#[test]
fn goldens_of_the_family() {
    let update = std::env::var_os("UPDATE_XML_FAMILY_GOLDENS").is_some();
    let set = ProtocolSet::standard();
    let mut failures = Vec::new();
    for format in FORMATS {
        let cases = cases(format);
        assert!(cases.len() >= 6, "{format}: {} cases", cases.len());
        for (path, text) in cases {
            let report = parser::parse(&set, &text, Some(format)).expect("known format");
            let actual = golden_view(&report, &text);
            let golden = path.with_extension("json");
            if update {
                let pretty = serde_json::to_string_pretty(&actual).expect("serialises") + "\n";
                std::fs::write(&golden, pretty).expect("golden written");
                continue;
            }
            let expected: Option<Value> = std::fs::read_to_string(&golden)
                .ok()
                .and_then(|g| serde_json::from_str(&g).ok());
            if expected.as_ref() != Some(&actual) {
                failures.push(format!("{}:\n{actual:#}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A request without its generated id, for comparing two parses of one reply.
fn comparable(request: &ParsedToolRequest, text: &str) -> Value {
    let mut value = serde_json::to_value(request).expect("serialises");
    if !text.contains(&request.request_id) {
        value["request_id"] = Value::from("<generated>");
    }
    value
}

#[test]
fn streaming_in_3_byte_deltas_matches_the_batch_parse() {
    let set = ProtocolSet::standard();
    for format in FORMATS {
        let protocol = set.get(format).expect("registered");
        for (path, text) in cases(format) {
            let batch = protocol.parse_tool_requests(&text);
            let mut stream = ToolCallStream::new(protocol.clone());
            assert!(stream.is_incremental(), "{format} streams incrementally");
            let mut events = Vec::new();
            for delta in deltas(&text, || 3) {
                stream.push(delta, &mut events);
            }
            stream.finish(&mut events);
            let mut streamed: Vec<Value> = Vec::new();
            let mut diagnostics: Vec<Diagnostic> = Vec::new();
            for event in events {
                match event {
                    StreamEvent::Call { request, .. } => streamed.push(comparable(&request, &text)),
                    StreamEvent::Diagnostic { diagnostic } => diagnostics.push(diagnostic),
                    _ => {}
                }
            }
            let batched: Vec<Value> = batch
                .requests
                .iter()
                .map(|r| comparable(r, &text))
                .collect();
            assert_eq!(streamed, batched, "{}", path.display());
            assert_eq!(diagnostics, batch.diagnostics, "{}", path.display());
        }
    }
}

/// Seed-OSS writes qwen3-coder's `<function=…>` inside its own block, and qwen3_coder (earlier
/// in priority) also accepts a bare `<function=…>`: both find the same calls without errors, so
/// priority picks qwen3_coder. See [`seed_oss_replies_are_detected_as_seed_oss`].
const SHADOWED: &[&str] = &["seed_oss"];

fn check_detection(formats: &[&str]) {
    let set = ProtocolSet::standard();
    for format in formats {
        for (path, text) in cases(format) {
            let named = parser::parse(&set, &text, Some(format)).expect("known");
            let detected = parser::parse(&set, &text, None).expect("auto never fails");
            if named.requests.is_empty() {
                continue;
            }
            if path.ends_with("glm45/08_hermes_json_body.txt") {
                // Half hermes, half glm45: each finds one call and reports the other's block,
                // so priority picks hermes and a warning names glm45.
                assert_eq!(detected.format, "hermes");
                assert!(detected
                    .diagnostics
                    .iter()
                    .any(|d| d.message.contains("also parses as glm45")));
                continue;
            }
            assert_eq!(detected.format, *format, "{}", path.display());
            assert_eq!(
                detected.requests.len(),
                named.requests.len(),
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn auto_detect_picks_each_format_for_its_own_replies() {
    let formats: Vec<&str> = FORMATS
        .iter()
        .copied()
        .filter(|f| !SHADOWED.contains(f))
        .collect();
    check_detection(&formats);
}

/// What should hold, and does not yet: with qwen3_coder ahead in priority, a Seed-OSS reply is
/// read as qwen3-coder, and a call inside `<seed:think>` (which qwen3_coder does not know as
/// reasoning) is then parsed too. Fixing it needs a change outside this family's modules
/// (priority order, or qwen3_coder's bare `<function=` rule deferring to `<seed:tool_call>`).
#[test]
fn seed_oss_replies_are_detected_as_seed_oss() {
    check_detection(SHADOWED);
}

#[test]
fn hermes_and_glm45_share_a_tag_and_are_told_apart() {
    let set = ProtocolSet::standard();
    let hermes = "Sure.\n<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {\"message\": \"hi\"}}\n</tool_call>";
    let report = parser::parse(&set, hermes, None).expect("auto");
    assert_eq!(report.format, "hermes");
    assert_eq!(report.requests.len(), 1);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);

    let glm = "Sure.\n<tool_call>echo_echo\n<arg_key>message</arg_key>\n<arg_value>hi</arg_value>\n</tool_call>";
    let report = parser::parse(&set, glm, None).expect("auto");
    assert_eq!(report.format, "glm45");
    assert_eq!(report.requests.len(), 1);
    assert_eq!(report.requests[0].args["message"], "hi");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);

    // Named, each explains why the other's reply is not its own.
    let as_glm = parser::parse(&set, hermes, Some("glm45")).expect("named");
    assert!(as_glm.requests.is_empty());
    assert!(as_glm.diagnostics[0].message.contains("hermes"));
}

/// The standard set without this family: what detection was before it.
fn without_family() -> ProtocolSet {
    ProtocolSet::from_protocols(
        ProtocolSet::standard()
            .iter()
            .filter(|p| !FORMATS.contains(&p.id()))
            .cloned()
            .collect(),
    )
}

#[test]
fn other_formats_replies_are_detected_as_before() {
    let with = ProtocolSet::standard();
    let before = without_family();
    let mut formats: Vec<String> = std::fs::read_dir(fixtures_root())
        .expect("fixtures")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !FORMATS.contains(&name.as_str()))
        .collect();
    formats.sort();
    for format in formats {
        for (path, text) in cases(&format) {
            let now = parser::parse(&with, &text, None).expect("auto");
            let then = parser::parse(&before, &text, None).expect("auto");
            assert_eq!(now.format, then.format, "{}", path.display());
            assert_eq!(
                now.requests.len(),
                then.requests.len(),
                "{}",
                path.display()
            );
        }
    }
}

/// Megabyte replies, well-formed and pathological (thousands of unclosed calls, keys or
/// parameters in one block), parse in one pass: each needle is searched at most once per byte.
#[test]
fn large_and_pathological_replies_parse_in_linear_time() {
    let set = ProtocolSet::standard();
    let repeat = |unit: &str, n: usize| unit.repeat(n);
    let cases: Vec<(&str, String, usize)> = vec![
        (
            "glm45",
            repeat("<tool_call>echo_echo\n<arg_key>message</arg_key>\n<arg_value>hello world, this is a value</arg_value>\n</tool_call>\n", 10_000),
            10_000,
        ),
        (
            "glm45",
            format!("<tool_call>f\n{}</tool_call>", repeat("<arg_key>k", 100_000)),
            0,
        ),
        (
            "kimi_k2",
            repeat("<|tool_call_begin|>functions.echo_echo:0<|tool_call_argument_begin|>{\"message\": \"hello\"}<|tool_call_end|>", 10_000),
            10_000,
        ),
        (
            "minimax_m2",
            format!("<minimax:tool_call>\n{}</minimax:tool_call>", repeat("<invoke name=\"echo_echo\">\n<parameter name=\"message\">hello world</parameter>\n</invoke>\n", 10_000)),
            10_000,
        ),
        (
            "minimax_m2",
            format!("<minimax:tool_call>\n{}</minimax:tool_call>", repeat("<invoke name=\"a\">\n", 50_000)),
            0,
        ),
        (
            "minimax_m2",
            format!("<minimax:tool_call><invoke name=\"a\">{}</invoke></minimax:tool_call>", repeat("<parameter name=\"k\">v", 50_000)),
            0,
        ),
        (
            "seed_oss",
            format!("<seed:tool_call>\n{}</seed:tool_call>", repeat("<function=echo_echo>\n<parameter=message>hello</parameter>\n</function>\n", 10_000)),
            10_000,
        ),
        (
            "seed_oss",
            format!("<seed:tool_call>{}", repeat("<function=a><parameter=k>v</parameter>", 30_000)),
            // Each function is cut by the next; the last, cut by the end, is decoded.
            1,
        ),
        (
            "step3",
            repeat("<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"echo_echo\"><steptml:parameter name=\"message\">hello</steptml:parameter></steptml:invoke><｜tool_call_end｜>", 5_000),
            5_000,
        ),
        (
            "deepseek_v32",
            format!("<｜DSML｜function_calls>\n{}</｜DSML｜function_calls>", repeat("<｜DSML｜invoke name=\"echo_echo\">\n<｜DSML｜parameter name=\"n\" string=\"false\">[1, 2, 3]</｜DSML｜parameter>\n</｜DSML｜invoke>\n", 8_000)),
            8_000,
        ),
        (
            "deepseek_v32",
            format!("<｜DSML｜function_calls><｜DSML｜invoke name=\"a\">{}", repeat("<｜DSML｜parameter name=\"k\" string=\"", 30_000)),
            0,
        ),
    ];
    for (format, text, calls) in cases {
        let started = std::time::Instant::now();
        let report = parser::parse(&set, &text, Some(format)).expect("known");
        let elapsed = started.elapsed();
        assert_eq!(report.requests.len(), calls, "{format}");
        // Not a timing test (machines vary): a quadratic scan of these takes minutes.
        assert!(
            elapsed.as_secs() < 20,
            "{format}: {elapsed:?} for {} bytes",
            text.len()
        );
        eprintln!("{format}: {} bytes in {elapsed:?}", text.len());
    }
}

/// The family's markers and inner tags, with the punctuation and text they meet.
const ALPHABET: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "functions.echo_echo:0",
    "functions.",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<invoke",
    "</invoke>",
    "<parameter",
    "</parameter>",
    " name=\"",
    "name=",
    "name='",
    " string=\"true\"",
    " string=\"false\"",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<function=",
    "</function>",
    "<parameter=",
    "<seed:think>",
    "</seed:think>",
    "<｜tool_calls_begin｜>",
    "<｜tool_call_begin｜>",
    "function",
    "<｜tool_sep｜>",
    "<steptml:invoke",
    "</steptml:invoke>",
    "<steptml:parameter",
    "</steptml:parameter>",
    "<｜tool_call_end｜>",
    "<｜tool_calls_end｜>",
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "<｜DSML｜invoke",
    "</｜DSML｜invoke>",
    "<｜DSML｜parameter",
    "</｜DSML｜parameter>",
    "<think>",
    "</think>",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "\\",
    ":",
    ",",
    "=",
    "<",
    ">",
    "/",
    "\n",
    "\r\n",
    " ",
    "\u{3000}",
    "echo_echo",
    "x",
    "1",
    "é",
    "東京",
    "🙂",
    "true",
    "null",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// No panic, spans inside the reply on character boundaries, `raw_block` the text at its
    /// span, and streaming (any chunking) giving the same calls and diagnostics as the batch.
    #[test]
    fn the_family_survives_any_mix_of_its_tags(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..80),
        chunks in proptest::collection::vec(1usize..9, 1..40),
    ) {
        let text: String = picks.iter().map(|i| ALPHABET[i.index(ALPHABET.len())]).collect();
        let set = ProtocolSet::standard();
        for format in FORMATS {
            let protocol = set.get(format).expect("registered");
            let batch = protocol.parse_tool_requests(&text);
            for request in &batch.requests {
                let span = request.span;
                prop_assert_eq!(text.get(span.start..span.end), Some(request.raw_block.as_str()));
            }
            for diagnostic in &batch.diagnostics {
                let span = diagnostic.span;
                prop_assert!(
                    span.start <= span.end && text.get(span.start..span.end).is_some(),
                    "{}: diagnostic span {:?} in {:?}", format, span, text
                );
            }
            let mut stream = ToolCallStream::new(protocol.clone());
            let mut events = Vec::new();
            let mut chunk = chunks.iter().cycle();
            for delta in deltas(&text, || chunk.next().copied().unwrap_or(3)) {
                stream.push(delta, &mut events);
            }
            stream.finish(&mut events);
            let mut streamed = Vec::new();
            let mut diagnostics = Vec::new();
            for event in events {
                match event {
                    StreamEvent::Call { request, .. } => streamed.push(comparable(&request, &text)),
                    StreamEvent::Diagnostic { diagnostic } => diagnostics.push(diagnostic),
                    _ => {}
                }
            }
            let batched: Vec<Value> = batch.requests.iter().map(|r| comparable(r, &text)).collect();
            prop_assert_eq!(&streamed, &batched, "{}: {:?}", format, text);
            prop_assert_eq!(&diagnostics, &batch.diagnostics, "{}: {:?}", format, text);
        }
    }
}
