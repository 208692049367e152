//! Auto-detect for Qwen-Agent's `✿FUNCTION✿` protocol and Functionary v2 (both layouts): every
//! fixture of theirs, with no format named, yields the calls its own format extracts; their
//! markers in prose, or other formats' replies, are not claimed; and a megabyte of calls, or
//! of broken ones, parses in one pass.

use serde_json::json;
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{assert_auto_detect_matches_named, calls, detect};

const FORMATS: &[&str] = &["qwen_agent", "functionary_v2", "functionary_v2_llama3"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(FORMATS);
}

#[test]
fn each_layout_is_detected_with_its_calls() {
    for (text, format, name, args) in [
        (
            "✿FUNCTION✿: get_current_weather\n✿ARGS✿: {\"location\": \"Paris\"}",
            "qwen_agent",
            "get_current_weather",
            json!({"location": "Paris"}),
        ),
        (
            "get_weather\n<|content|>{\"location\": \"Hanoi\"}<|stop|>",
            "functionary_v2",
            "get_weather",
            json!({"location": "Hanoi"}),
        ),
        (
            "Sure.<|reserved_special_token_249|>get_weather\n{\"location\": \"Hanoi\"}<|eot_id|>",
            "functionary_v2_llama3",
            "get_weather",
            json!({"location": "Hanoi"}),
        ),
    ] {
        let report = detect(text);
        assert_eq!(report.format, format, "{text}");
        assert_eq!(calls(&report), vec![(name.to_owned(), args)], "{text}");
    }
}

#[test]
fn prose_and_other_formats_are_not_claimed() {
    for prose in [
        "FUNCTION: get_weather\nARGS: {\"city\": \"Paris\"}",
        "The ✿ flower is a dingbat; the recipient of the content was pleased.",
        "Set the recipient and the content fields, then press send.",
        "Llama 3 reserves tokens such as reserved_special_token_249 for fine-tunes.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", report.requests);
        assert!(!FORMATS.contains(&report.format.as_str()), "{prose}");
    }
    for (reply, format) in [
        (
            ">>>get_weather\n{\"location\": \"Hanoi\"}<|eot_id|>",
            "functionary_v32",
        ),
        (
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "hermes",
        ),
        (
            "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}",
            "react",
        ),
    ] {
        assert_eq!(detect(reply).format, format, "{reply}");
    }
}

/// Parses `text` (auto-detected) and checks it took well under the time a quadratic walk needs.
fn timed(text: &str) -> parser::ParseReport {
    let started = std::time::Instant::now();
    let report = detect(text);
    // Generous: a quadratic walk would take minutes, a linear one milliseconds.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    report
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    for (step, format) in [
        (
            "✿FUNCTION✿: get_weather\n✿ARGS✿: {\"city\": \"Paris\", \"days\": [1, 2, 3]}\n",
            "qwen_agent",
        ),
        (
            "<|from|>assistant\n<|recipient|>get_weather\n<|content|>{\"city\": \"Paris\"}\n",
            "functionary_v2",
        ),
        (
            "<|reserved_special_token_249|>get_weather\n{\"city\": \"Paris\", \"days\": [1]}",
            "functionary_v2_llama3",
        ),
    ] {
        let count = 1_000_000 / step.len();
        let report = timed(&step.repeat(count));
        assert_eq!(report.format, format);
        assert_eq!(report.requests.len(), count, "{format}");
    }
}

#[test]
fn a_megabyte_of_broken_calls_stays_linear() {
    for (text, format) in [
        ("✿ARGS✿: {\"a\": [".repeat(60_000), "qwen_agent"),
        (
            "✿FUNCTION✿: f\n✿ARGS✿: {\"a\": [\n".repeat(40_000),
            "qwen_agent",
        ),
        ("<|content|><|recipient|>".repeat(40_000), "functionary_v2"),
        (
            "<|from|>assistant\n<|content|>{\"a\": [".repeat(40_000),
            "functionary_v2",
        ),
        (
            "<|reserved_special_token_249|>f {\"a\": [".repeat(30_000),
            "functionary_v2_llama3",
        ),
    ] {
        let started = std::time::Instant::now();
        let report = parser::parse(&ProtocolSet::standard(), &text, Some(format)).expect("named");
        assert!(report.requests.is_empty(), "{format}");
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
}

fn weather_tool(description: &str) -> Vec<toolscope_protocol::ToolDefinitionInput> {
    use toolscope_protocol::method::MethodMetadata;
    vec![toolscope_protocol::ToolDefinitionInput {
        tool_id: "weather".into(),
        tool_name: "Weather".into(),
        description: String::new(),
        methods: vec![MethodMetadata {
            name: "current".into(),
            description: description.into(),
            parameters: json!({"type": "object", "properties": {"location": {"type": "string"}}}),
            agent_callable: true,
            protocol_config: None,
            annotations: Default::default(),
            output_schema: None,
        }],
    }]
}

fn results() -> Vec<toolscope_protocol::result::ToolExecutionResult> {
    use toolscope_protocol::result::{ExecutionStatus, ToolExecutionResult};
    ["{\"temperature\": 22}", "sunny"]
        .iter()
        .map(|text| ToolExecutionResult {
            request_id: "call_1".into(),
            tool_name: "weather_current".into(),
            status: ExecutionStatus::Success,
            result: (*text).into(),
            duration_ms: 1.0,
            error: None,
            truncated: None,
        })
        .collect()
}

#[test]
fn prompts_and_results_follow_the_references() {
    let set = ProtocolSet::standard();
    let get = |id: &str| set.get(id).expect("built in");

    // Qwen-Agent: a `### name` section with the parameters as `json.dumps` writes them, then
    // the parallel command list; Chinese when the tools are described in Chinese.
    let prompt = get("qwen_agent").generate_tool_definitions(&weather_tool("Get the weather"));
    assert!(prompt.starts_with("# Tools\n\n## You have access to the following tools:\n\n### weather_current\n\nweather_current: Get the weather Parameters: {\"type\": \"object\", \"properties\": {\"location\": {\"type\": \"string\"}}} Format the arguments as a JSON object.\n\n## Insert the following command"), "{prompt}");
    assert!(prompt.contains("✿FUNCTION✿: The name of tool 1, should be one of [weather_current]\n✿ARGS✿: The input of tool 1\n"));
    assert!(prompt.ends_with(
        "✿RETURN✿: Reply based on tool results. Images need to be rendered as ![](url)"
    ));
    let zh = get("qwen_agent").generate_tool_definitions(&weather_tool("查询天气"));
    assert!(zh.starts_with("# 工具\n\n## 你拥有如下工具：\n\n### weather_current\n\nweather_current: 查询天气 输入参数："), "{zh}");
    assert_eq!(
        get("qwen_agent").format_tool_results(&results()),
        "✿RESULT✿: {\"temperature\": 22}\n✿RESULT✿: sunny\n✿RETURN✿"
    );

    // Functionary v2 and v2.5: the TypeScript namespace; results as the templates' turns.
    for id in ["functionary_v2", "functionary_v2_llama3"] {
        let prompt = get(id).generate_tool_definitions(&weather_tool("Get the weather"));
        assert!(prompt.starts_with("// Supported function definitions that should be called when necessary.\nnamespace functions {\n\n// Get the weather\ntype weather_current = "), "{prompt}");
        assert!(prompt.ends_with("} // namespace functions"), "{prompt}");
    }
    assert_eq!(
        get("functionary_v2").format_tool_results(&results()),
        "<|from|>weather_current\n<|recipient|>all\n<|content|>{\"temperature\": 22}\n\
         <|from|>weather_current\n<|recipient|>all\n<|content|>sunny\n"
    );
    assert_eq!(
        get("functionary_v2_llama3").format_tool_results(&results()),
        "<|start_header_id|>tool<|end_header_id|>\n\nname=weather_current\n{\"temperature\": 22}<|eot_id|>\
         <|start_header_id|>tool<|end_header_id|>\n\nname=weather_current\nsunny<|eot_id|>"
    );
}
