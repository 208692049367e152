//! Auto-detect on the python-literal family's fixtures: with no format named, every reply of
//! pythonic, LFM2, OLMo 3, Functionary v3.2, Gemma and Phi-4-mini must yield exactly the calls
//! its own format extracts (detected as that format, or as one extracting the identical calls),
//! and prose with brackets must yield none.

use toolscope_protocol::parser;
use toolscope_protocol::ProtocolSet;

mod support;
use support::{assert_auto_detect_matches_named, calls};

const FORMATS: [&str; 6] = [
    "pythonic",
    "lfm2",
    "olmo3",
    "functionary_v32",
    "gemma",
    "phi4_mini",
];

#[test]
fn auto_detect_extracts_the_same_calls_as_the_named_format() {
    assert_auto_detect_matches_named(&FORMATS);
}

#[test]
fn prose_with_brackets_is_not_a_call_list() {
    let set = ProtocolSet::standard();
    for text in [
        "See [this](https://example.com) for details.",
        "The answer is [1, 2] or [3].",
        "Use xs[f(a=1)] to index, and call me at [10:00].",
        "[Note] I can't do that (sorry).",
        "Numbers: [1] and [get more](link).",
    ] {
        let report = parser::parse(&set, text, None).expect("auto-detect answers");
        assert!(report.requests.is_empty(), "{text}: {:?}", report.requests);
        assert!(!report.has_errors(), "{text}: {:?}", report.diagnostics);
    }
}

#[test]
fn a_call_list_after_prose_is_detected_as_pythonic() {
    let set = ProtocolSet::standard();
    let text = "I will check the weather for you. [get_weather(city='Tokyo', unit=None)]";
    let report = parser::parse(&set, text, None).expect("auto-detect answers");
    assert_eq!(report.format, "pythonic");
    assert_eq!(
        calls(&report),
        vec![(
            "get_weather".to_owned(),
            serde_json::json!({"city": "Tokyo", "unit": null})
        )]
    );
    assert_eq!(report.content, "I will check the weather for you.");
}
