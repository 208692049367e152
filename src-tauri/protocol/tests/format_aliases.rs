//! The serving stacks' parser names (vLLM and SGLang `--tool-call-parser`) name our formats, so a
//! corpus labelled with them parses as named instead of failing as an unknown format.

use std::sync::Arc;

use toolscope_protocol::{hermes, parser, Protocol, ProtocolSet, ALIASES};

#[test]
fn every_alias_names_a_built_in_format_and_no_alias_is_an_id() {
    let set = ProtocolSet::standard();
    let ids = set.ids();
    let mut seen = Vec::new();
    for (alias, target) in ALIASES {
        assert!(ids.contains(target), "{alias} → {target}: no such format");
        assert!(
            !ids.iter().any(|id| id.eq_ignore_ascii_case(alias)),
            "{alias} is a format id itself"
        );
        assert!(!seen.contains(&alias.to_ascii_lowercase()), "{alias} twice");
        seen.push(alias.to_ascii_lowercase());
        let found = set.get(alias).map(|p| p.id());
        assert_eq!(found, Some(*target), "{alias}");
    }
    assert_eq!(set.aliases().len(), ALIASES.len());
}

#[test]
fn reference_parser_names_parse_as_their_format() {
    let set = ProtocolSet::standard();
    for (name, reply, format) in [
        (
            "qwen25",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "hermes",
        ),
        (
            "QWEN",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "hermes",
        ),
        (
            "llama4_json",
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
            "llama3_json",
        ),
        (
            "llama3",
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
            "llama3_json",
        ),
        (
            "openai",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            "gpt_oss",
        ),
        (
            "gpt-oss",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            "gpt_oss",
        ),
        (
            "llama4_pythonic",
            "[get_weather(city='Paris')]",
            "pythonic",
        ),
        (
            "interns1",
            "<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|action_end|>",
            "internlm2",
        ),
        (
            "spark25",
            "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Paris</arg_value>\n</tool_call>",
            "glm45",
        ),
    ] {
        let report = parser::parse(&set, reply, Some(name)).expect("alias is known");
        assert_eq!(report.format, format, "{name}");
        assert!(!report.detected, "{name}");
        let calls: Vec<_> = report.requests.iter().map(|r| &r.tool_name).collect();
        assert_eq!(calls, ["get_weather"], "{name}: {:?}", report.diagnostics);
    }
}

#[test]
fn an_id_wins_over_an_alias_and_a_missing_target_is_no_alias() {
    /// A format whose id is also a reference parser's name.
    struct Qwen;
    impl Protocol for Qwen {
        fn id(&self) -> &'static str {
            "qwen"
        }
        fn label(&self) -> &'static str {
            "a format of its own"
        }
        fn generate_tool_definitions(
            &self,
            _: &[toolscope_protocol::ToolDefinitionInput],
        ) -> String {
            String::new()
        }
        fn format_tool_results(
            &self,
            _: &[toolscope_protocol::result::ToolExecutionResult],
        ) -> String {
            String::new()
        }
    }
    let set = ProtocolSet::standard().extended([Arc::new(Qwen) as Arc<dyn Protocol>]);
    assert_eq!(set.get("qwen").map(|p| p.id()), Some("qwen"));
    assert!(!set.aliases().iter().any(|(alias, _)| *alias == "qwen"));

    let only_hermes = ProtocolSet::from_protocols(vec![Arc::new(hermes::Hermes)]);
    assert_eq!(only_hermes.get("qwen25").map(|p| p.id()), Some("hermes"));
    assert!(only_hermes.get("openai").is_none());
    assert!(only_hermes
        .aliases()
        .iter()
        .all(|(_, target)| *target == "hermes"));
}
