use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::parser;
use crate::stream::{StreamEvent, ToolCallStream};
use crate::ProtocolSet;

const JSON_CALLS: &str = r#"
id = "acme_json"
label = "Acme <call> JSON"
start = "<call>"
end = "</call>"
tokens = ["<|end|>"]
"#;

const NAMED_JSON: &str = r#"
id = "acme_named"
start = "<invoke "
end = "</invoke>"
regex = '^\s*name="(?P<name>[^"]+)"(?:\s+id="(?P<id>[^"]*)")?\s*>(?P<arguments>[\s\S]*)$'
"#;

const KEY_VALUE: &str = r#"
id = "acme_kv"
start = "[[call "
end = "]]"
arguments = "key_value"
assignment = ":"
regex = '(?s)^(?P<name>[A-Za-z_][\w.]*)\s*\n(?P<arguments>.*)$'
reasoning = [["[[reasoning]]", "[[/reasoning]]"]]
"#;

const XML: &str = r#"
id = "acme_xml"
start = "<act>"
end = "</act>"
arguments = "xml_parameters"
parameter_open = "<arg name="
parameter_close = "</arg>"
regex = '(?s)<tool>(?P<name>[^<]+)</tool>(?P<arguments>.*?)(?:</args>|$)'
"#;

fn format(source: &str) -> DeclaredFormat {
    DeclaredFormat::from_toml(source).expect("valid description")
}

fn args_of(output: &ParseOutput) -> Vec<(String, serde_json::Value)> {
    output
        .requests
        .iter()
        .map(|r| {
            (
                r.tool_name.clone(),
                serde_json::Value::Object(r.args.clone()),
            )
        })
        .collect()
}

#[test]
fn json_bodies_hold_one_call_or_a_list() {
    let acme = format(JSON_CALLS);
    let reply = "Checking.\n<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</call>\
                 <call>[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"n\": 1}}]</call><|end|>";
    let out = acme.parse_tool_requests(reply);
    assert_eq!(
        args_of(&out),
        [
            ("get_weather".into(), json!({"city": "Paris"})),
            ("a".into(), json!({})),
            ("b".into(), json!({"n": 1})),
        ]
    );
    assert_eq!(out.content, "Checking.");
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
}

#[test]
fn a_regex_names_the_call_and_its_id_and_json_arguments() {
    let acme = format(NAMED_JSON);
    let reply = "<invoke name=\"search\" id=\"c-7\">{\"q\": \"rust\"}</invoke>\n\
                 <invoke name=\"list\"></invoke>\n<invoke nope>{}</invoke>";
    let out = acme.parse_tool_requests(reply);
    assert_eq!(
        args_of(&out),
        [
            ("search".into(), json!({"q": "rust"})),
            ("list".into(), json!({}))
        ]
    );
    assert_eq!(out.requests[0].request_id, "c-7");
    assert_eq!(
        out.diagnostics.len(),
        1,
        "the block without a name is reported"
    );
    assert!(out.diagnostics[0].message.contains("does not match"));
}

#[test]
fn key_value_lines_are_text_typed_later() {
    let acme = format(KEY_VALUE);
    let reply = "[[reasoning]][[call nope\nx: 1]][[/reasoning]]\
                 [[call get_weather\ncity: \"Paris, France\"\ndays: 3\nnot a pair\n]]";
    let mut report = parser::parse(
        &ProtocolSet::from_protocols(vec![Arc::new(acme)]),
        reply,
        Some("acme_kv"),
    )
    .expect("known");
    assert_eq!(report.requests.len(), 1, "reasoning is never parsed");
    assert!(report.requests[0].untyped_args);
    parser::type_arguments(&mut report, |_| None);
    assert_eq!(
        serde_json::Value::Object(report.requests[0].args.clone()),
        json!({"city": "Paris, France", "days": 3})
    );
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
}

#[test]
fn xml_parameters_lose_one_newline_at_each_end() {
    let acme = format(XML);
    let reply = "<act><tool>write_file</tool><arg name=\"path\">a.txt</arg>\
                 <arg name=\"content\">\n  two\n  lines\n</arg></args></act>";
    let out = acme.parse_tool_requests(reply);
    assert_eq!(
        args_of(&out),
        [(
            "write_file".into(),
            json!({"path": "a.txt", "content": "  two\n  lines"})
        )]
    );
}

#[test]
fn declared_formats_stream_like_batch_and_are_detected() {
    let acme: Arc<dyn Protocol> = Arc::new(format(JSON_CALLS));
    let set = ProtocolSet::standard().extended([acme.clone()]);
    let reply =
        "Sure.\n<call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</call>\n\
                 <call>{\"name\": \"get_time\", \"arguments\": {\"zone\": \"CET\"";
    let detected = parser::parse(&set, reply, None).expect("auto");
    assert_eq!(detected.format, "acme_json");
    assert_eq!(detected.requests.len(), 1);
    let batch = acme.parse_tool_requests(reply);
    for delta in [1, 3, 7] {
        let mut stream = ToolCallStream::new(acme.clone());
        let mut events = Vec::new();
        for chunk in crate::stream::deltas(reply, || delta) {
            stream.push(chunk, &mut events);
        }
        stream.finish(&mut events);
        let streamed: Vec<_> = events
            .into_iter()
            .filter_map(|event| match event {
                StreamEvent::Call { request, .. } => Some(request),
                _ => None,
            })
            .collect();
        let view = |r: &[crate::request::ParsedToolRequest]| {
            r.iter()
                .map(|r| (r.tool_name.clone(), r.args.clone(), r.span, r.incomplete))
                .collect::<Vec<_>>()
        };
        assert_eq!(view(&streamed), view(&batch.requests), "delta {delta}");
    }
}

#[test]
fn a_clashing_id_is_left_out_of_an_extended_set() {
    let hermes_again = format("id = \"hermes\"\nstart = \"<x>\"\n");
    let set = ProtocolSet::standard().extended([Arc::new(hermes_again) as Arc<dyn Protocol>]);
    assert_eq!(set.ids().len(), ProtocolSet::standard().ids().len());
    assert_eq!(
        set.get("hermes").map(|p| p.label()),
        Some("Hermes / Qwen <tool_call> JSON")
    );
}

#[test]
fn the_shipped_examples_are_valid() {
    for (file, source) in EXAMPLES {
        DeclaredFormat::from_toml(source).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    assert_eq!(examples().len(), EXAMPLES.len());
}

#[test]
fn the_built_in_descriptions_are_valid() {
    for source in BUILTIN {
        let format = DeclaredFormat::from_toml(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
        assert!(std::ptr::eq(builtin(format.id()).id(), format.id()));
    }
}

#[test]
fn a_separator_chains_calls_after_one_marker() {
    let chained =
        format("id = \"chained\"\nstart = \"<|calls|>\"\njson_after = \"\"\nseparator = \";\"\n");
    let reply = "Both.<|calls|>{\"name\": \"a\", \"arguments\": {}} ; {\"name\": \"b\", \"arguments\": {\"n\": 2}} done";
    let out = chained.parse_tool_requests(reply);
    assert_eq!(
        args_of(&out),
        [("a".into(), json!({})), ("b".into(), json!({"n": 2}))]
    );
    assert_eq!(out.content, "Both. done");
    let refused = DeclaredFormat::from_toml(
        "id = \"x\"\nstart = \"<c>\"\nend = \"</c>\"\nseparator = \";\"\n",
    )
    .expect_err("a separator needs json_after");
    assert_eq!(refused.line, 4, "{refused}");
}
