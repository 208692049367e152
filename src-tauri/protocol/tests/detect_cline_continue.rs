//! Auto-detect for the coding agents' text protocols: Cline's and Roo Code's XML tool tags
//! (`cline`, `roo_code`) and Continue's ```` ```tool ```` blocks (`continue_tool`). Every
//! fixture, with no format named, yields the calls its own format extracts; prose that names a
//! tool or a parameter tag, HTML and other formats' replies are not claimed; the references'
//! own cases agree; megabytes of calls (and of broken calls) parse in one pass.

use serde_json::{json, Value};
use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{assert_auto_detect_matches_named, calls, cases, detect, fixtures_root};

const OURS: &[&str] = &["cline", "roo_code", "continue_tool"];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(OURS);
}

#[test]
fn a_tool_only_roo_code_knows_makes_the_reply_roo_code() {
    let report = detect("<apply_diff>\n<path>a.py</path>\n<diff>x</diff>\n</apply_diff>");
    assert_eq!(report.format, "roo_code");
    // Cline's own parameter (`requires_approval`) makes an execute_command Cline's.
    let report = detect(
        "<execute_command>\n<command>ls</command>\n<requires_approval>false</requires_approval>\n\
         </execute_command>",
    );
    assert_eq!(report.format, "cline");
    // Roo's own parameters (`mode`, `message`) make a new_task Roo Code's.
    let report = detect("<new_task>\n<mode>code</mode>\n<message>Do it</message>\n</new_task>");
    assert_eq!(report.format, "roo_code");
    assert_eq!(
        calls(&report),
        vec![(
            "new_task".to_owned(),
            json!({"mode": "code", "message": "Do it"})
        )]
    );
}

#[test]
fn prose_is_not_claimed() {
    for prose in [
        "Use `<read_file>` with a `<path>` child to read a file.",
        "I will call <read_file> once you confirm.",
        "The SVG has a <path d=\"M0\"/> and <div><span>x</span></div>.",
        "<path>src/main.js</path> is the file I mean.",
        "Write a ```tool block; its first line is TOOL_NAME: and then BEGIN_ARG: lines.",
        "```tool_definition\nTOOL_NAME: example_tool\nTOOL_ARG: a (string, required)\nEND_ARG\n```",
        "The config key tool_name: is required.",
    ] {
        let report = detect(prose);
        assert!(report.requests.is_empty(), "{prose}: {:?}", calls(&report));
    }
}

#[test]
fn other_formats_fixtures_are_not_claimed() {
    let root = fixtures_root().join("parser");
    let mut formats: Vec<String> = std::fs::read_dir(&root)
        .expect("fixture root")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| !OURS.contains(&name.as_str()))
        .collect();
    formats.sort();
    for format in formats {
        if !root.join(&format).is_dir() {
            continue;
        }
        for (path, text) in cases(&format) {
            let report = detect(&text);
            assert!(
                !OURS.contains(&report.format.as_str()),
                "{} detected as {}",
                path.display(),
                report.format
            );
        }
    }
}

/// The cases of `corpus` whose id starts with one of `prefixes`.
fn corpus_cases(corpus: &str, prefixes: &[&str]) -> Vec<Value> {
    let text =
        std::fs::read_to_string(fixtures_root().join("eval").join(corpus)).expect("eval corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON case"))
        .filter(|case| {
            let id = case["id"].as_str().unwrap_or_default();
            prefixes.iter().any(|p| id.starts_with(p))
        })
        .collect()
}

/// The calls of a case, typed as `toolscope eval` types them: from the case's own tools, or
/// without a schema.
fn case_calls(set: &ProtocolSet, case: &Value) -> (String, Vec<(String, Value)>) {
    let reply = case["reply"].as_str().unwrap_or_default();
    let mut report = parser::parse(set, reply, case["format"].as_str()).expect("known format");
    let tools = case["tools"].as_array().cloned();
    parser::type_arguments(&mut report, |name| {
        tools.as_ref().and_then(|tools| {
            tools
                .iter()
                .find(|t| t["function"]["name"] == name)
                .map(|t| t["function"]["parameters"].clone())
        })
    });
    (report.format.clone(), calls(&report))
}

fn expected_calls(case: &Value) -> Vec<(String, Value)> {
    case["expected"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let name = c["name"].as_str().unwrap_or_default().to_owned();
            (name, c["arguments"].clone())
        })
        .collect()
}

#[test]
fn the_reference_cases_agree() {
    let set = ProtocolSet::standard();
    let ours = corpus_cases("reference_cases.jsonl", &["cline:", "roo:", "continue:"]);
    assert!(ours.len() >= 30, "only {} cases", ours.len());
    for case in &ours {
        let (_, found) = case_calls(&set, case);
        assert_eq!(found, expected_calls(case), "{}", case["id"]);
    }
}

#[test]
fn the_real_outputs_are_detected_and_agree() {
    let set = ProtocolSet::standard();
    for case in corpus_cases("real_outputs.jsonl", &["cline-", "roo-", "continue-"]) {
        assert!(
            case.get("format").is_none(),
            "{}: names its format",
            case["id"]
        );
        let (format, found) = case_calls(&set, &case);
        assert_eq!(
            found,
            expected_calls(&case),
            "{} read as {format}",
            case["id"]
        );
    }
}

#[test]
fn a_megabyte_of_calls_parses_in_one_pass() {
    let megabyte = 1 << 20;
    let units = [
        (
            "cline",
            "<read_file>\n<path>src/main.js</path>\n<task_progress>x</task_progress>\n</read_file>\n",
        ),
        (
            "roo_code",
            "<apply_diff>\n<path>a.py</path>\n<diff>\n-a\n+b\n</diff>\n</apply_diff>\n",
        ),
        (
            "continue_tool",
            "```tool\nTOOL_NAME: read_file\nBEGIN_ARG: filepath\na.txt\nEND_ARG\n```\n",
        ),
    ];
    for (format, unit) in units {
        let count = megabyte / unit.len();
        let report = detect(&unit.repeat(count));
        assert_eq!(report.format, format);
        assert_eq!(report.requests.len(), count, "{format}");
    }
    // Broken calls: tags that never close, values that never end, tool tags with no evidence,
    // unknown tags in a body, fences without names, arguments without END_ARG.
    for broken in [
        "<read_file>\n<path>src/main.js\n",
        "<read_file> is what I would use\n",
        "<read_file><verbose><path>x</path>\n",
        "<write_to_file><path>a</path><content>x</content>\n",
        "```tool\nBEGIN_ARG: a\n1\n",
        "```tool\nTOOL_NAME: f\nBEGIN_ARG: a\n1\n",
        "TOOL_NAME: f\nBEGIN_ARG: a\nappend\n",
    ] {
        let text = broken.repeat(megabyte / broken.len());
        let _ = detect(&text);
        for format in OURS {
            let _ = parser::parse(&ProtocolSet::standard(), &text, Some(format));
        }
    }
}
