//! Properties every parser must keep on any input: no panic, spans inside the reply on
//! character boundaries, `raw_block` equal to the text at its span, and streaming (any chunking)
//! giving the same calls as the batch parse. Inputs are built from every format's own markers
//! mixed with JSON/XML punctuation and text, so the parsers meet their own grammar broken in
//! every way.

use proptest::prelude::*;
use serde_json::Value;
use toolscope_protocol::framing::{Close, Open};
use toolscope_protocol::parser;
use toolscope_protocol::request::ParseOutput;
use toolscope_protocol::stream::{deltas, StreamEvent, ToolCallStream};
use toolscope_protocol::ProtocolSet;

fn alphabet() -> Vec<String> {
    let mut parts: Vec<String> = [
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "\"",
        "'",
        "\\",
        ":",
        ",",
        ";",
        "=",
        "<",
        ">",
        "/",
        "\n",
        " ",
        "name",
        "\"name\"",
        "\"arguments\"",
        "\"parameters\"",
        ": {",
        "}}",
        "echo_echo",
        "x",
        "1",
        "é",
        "東京",
        "🙂",
        "true",
        "null",
        "<think>",
        "</think>",
        "```json",
        "```",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for protocol in every_format().iter() {
        parts.extend(protocol.signature().markers.iter().map(|m| (*m).to_owned()));
        if let Some(framing) = protocol.framing() {
            for rule in framing.rules {
                match rule.open {
                    Open::Marker(m) | Open::TextStart(m) => parts.push(m.to_owned()),
                    Open::CallId(m) => parts.push(format!("{m}get_weather:0")),
                    Open::CallList => parts.push("[get_weather(".to_owned()),
                    Open::ObjectWithKey(keys) => {
                        parts.extend(keys.iter().map(|key| format!("{{{key}:")))
                    }
                    Open::ObjectList(keys) => {
                        parts.extend(keys.iter().map(|key| format!("[{{{key}:")))
                    }
                }
                match rule.close {
                    Close::Marker(m) => parts.push(m.to_owned()),
                    Close::Balanced { after, .. } if !after.is_empty() => {
                        parts.push(after.to_owned())
                    }
                    _ => {}
                }
            }
        }
    }
    parts.sort();
    parts.dedup();
    parts
}

/// The built-in formats and the declared examples: a format described in a file must hold the
/// same properties.
fn every_format() -> ProtocolSet {
    ProtocolSet::standard().extended(toolscope_protocol::declared::examples())
}

fn check_output(format: &str, text: &str, output: &ParseOutput) -> Result<(), TestCaseError> {
    for request in &output.requests {
        let span = request.span;
        prop_assert!(
            span.start <= span.end && span.end <= text.len(),
            "{format}: span {span:?} outside {}",
            text.len()
        );
        prop_assert!(
            text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
            "{format}: span {span:?} splits a character"
        );
        prop_assert_eq!(
            &text[span.start..span.end],
            request.raw_block.as_str(),
            "{}: raw_block is not the text at its span",
            format
        );
    }
    for diagnostic in &output.diagnostics {
        let span = diagnostic.span;
        prop_assert!(
            span.start <= span.end && span.end <= text.len(),
            "{format}: diagnostic span {span:?} outside {}",
            text.len()
        );
        prop_assert!(
            text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
            "{format}: diagnostic span {span:?} splits a character in {text:?}"
        );
    }
    Ok(())
}

fn calls(requests: impl Iterator<Item = (String, Value)>) -> Vec<(String, Value)> {
    requests.collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_format_survives_any_mix_of_its_markers(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..60),
        chunks in proptest::collection::vec(1usize..9, 1..40),
    ) {
        let parts = alphabet();
        let text: String = picks.iter().map(|i| parts[i.index(parts.len())].as_str()).collect();
        let set = every_format();
        for protocol in set.iter() {
            let format = protocol.id();
            // Directly, not through the facade's panic guard: a panic fails the property.
            let batch = protocol.parse_tool_requests(&text);
            check_output(format, &text, &batch)?;
            let batch_calls = calls(batch.requests.iter().map(|r| (r.tool_name.clone(), Value::Object(r.args.clone()))));

            let mut stream = ToolCallStream::new(protocol.clone());
            let mut events = Vec::new();
            let mut chunk = chunks.iter().cycle();
            for delta in deltas(&text, || chunk.next().copied().unwrap_or(4)) {
                stream.push(delta, &mut events);
            }
            stream.finish(&mut events);
            let streamed = calls(events.iter().filter_map(|e| match e {
                StreamEvent::Call { request, .. } => Some((request.tool_name.clone(), Value::Object(request.args.clone()))),
                _ => None,
            }));
            prop_assert_eq!(&streamed, &batch_calls, "{}: streaming differs from the batch parse of {:?}", format, text);
        }
        let auto = parser::parse(&set, &text, None).expect("auto never fails");
        prop_assert!(auto.format == "none" || set.get(&auto.format).is_some());
    }
}
