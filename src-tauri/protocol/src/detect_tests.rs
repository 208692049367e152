//! Tests of [`super`]: which signatures a reply shows.

use super::*;

#[test]
fn markers_and_prefixes_select_candidates() {
    let detector = Detector::new(&[
        Signature {
            markers: vec!["<tool_call>"],
            prefixes: vec![],
            call_ids: vec![],
            before_value: vec![],
        },
        Signature {
            markers: vec!["<tool_call>", "<function="],
            prefixes: vec![],
            call_ids: vec![],
            before_value: vec![],
        },
        Signature {
            markers: vec![],
            prefixes: vec!["["],
            call_ids: vec![],
            before_value: vec![],
        },
    ]);
    let ids = |text: &str| -> Vec<usize> {
        detector
            .candidates(text)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    };
    assert_eq!(ids("a <tool_call> b"), vec![0, 1]);
    assert_eq!(ids("<function=x>"), vec![1]);
    assert_eq!(ids(" <think>[no]</think>\n[f()]"), vec![2]);
    assert!(ids("see [f()]").is_empty());
    assert!(ids("<think>[f()]").is_empty());
    // Specificity: the longest marker found; a prefix alone counts 0.
    assert_eq!(
        detector.candidates("[<function=x> <tool_call>"),
        vec![(0, 11), (1, 11), (2, 0)]
    );
}

#[test]
fn a_bare_object_inside_a_leading_list_is_no_evidence() {
    let detector = Detector::new(&[
        Signature {
            markers: vec![BARE_OBJECT],
            prefixes: vec![],
            call_ids: vec![],
            before_value: vec![],
        },
        Signature {
            markers: vec![],
            prefixes: vec!["["],
            call_ids: vec![],
            before_value: vec![],
        },
    ]);
    assert_eq!(detector.candidates("[{\"a\": {\"b\": 1}}]"), vec![(1, 0)]);
    assert_eq!(
        detector.candidates(" <think>x</think>[{\"a\": 1}]"),
        vec![(1, 0)]
    );
    // Cut off: the list runs to the end.
    assert_eq!(detector.candidates("[{\"a\": [1"), vec![(1, 0)]);
    // A `{` after the list, or a list after prose, counts.
    assert_eq!(
        detector.candidates("[{\"a\": 1}] then {\"b\": 2}"),
        vec![(0, 1), (1, 0)]
    );
    assert_eq!(detector.candidates("see [{\"a\": 1}]"), vec![(0, 1)]);
}

#[test]
fn shape_prefixes_are_checks_on_the_reply_start() {
    let detector = Detector::new(&[
        Signature {
            prefixes: vec![BARE_CALLS_REPLY],
            ..Signature::default()
        },
        Signature {
            prefixes: vec![NAME_LINE_THEN_OBJECT],
            ..Signature::default()
        },
    ]);
    let ids = |text: &str| -> Vec<usize> {
        detector
            .candidates(text)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    };
    assert_eq!(ids(" f.g(a=1), h(b=2)\n"), vec![0]);
    assert_eq!(ids("<think>x</think>get_weather\n{\"a\": 1}"), vec![1]);
    for neither in [
        "Call f(a=1).",
        "f(a=1) then",
        "1f(a=1)",
        "(a=1)",
        "Here it is:\n{\"a\": 1}",
        "get weather\n{}",
        "get_weather\n {}",
        "get_weather {}",
    ] {
        assert!(ids(neither).is_empty(), "{neither}");
    }
}

#[test]
fn a_marker_before_a_value_counts_whatever_the_spacing() {
    let detector = Detector::new(&[Signature {
        before_value: vec!["[TOOL_CALLS]"],
        ..Signature::default()
    }]);
    // The evidence runs to the value's bracket, so it is as long as the spacing makes it.
    for (text, length) in [
        ("[TOOL_CALLS][{}]", 13),
        ("[TOOL_CALLS] [{}]", 14),
        ("[TOOL_CALLS]  [{}]", 15),
        ("x [TOOL_CALLS]\r\n\t{}", 16),
        // A first marker without a value does not hide a later one.
        ("[TOOL_CALLS]get{} [TOOL_CALLS] []", 14),
    ] {
        assert_eq!(detector.candidates(text), vec![(0, length)], "{text:?}");
    }
    for text in [
        "[TOOL_CALLS]get{}",
        "[TOOL_CALLS] now",
        "[TOOL_CALLS]  ",
        "[TOOL_CALLS]",
    ] {
        assert!(detector.candidates(text).is_empty(), "{text:?}");
    }
}

#[test]
fn a_call_id_namespace_counts_only_before_a_call() {
    let detector = Detector::new(&[Signature {
        markers: vec![],
        prefixes: vec![],
        call_ids: vec!["functions."],
        before_value: vec![],
    }]);
    for prose in [
        "Split it into smaller functions. Then test the functions.",
        "see functions.get_weather for details",
        "functions.get_weather:x {}",
    ] {
        assert!(detector.candidates(prose).is_empty(), "{prose}");
    }
    for call in [
        "Checking. functions.get_weather:0{\"city\": \"Paris\"}",
        "prose functions. then functions.search:12 {}",
    ] {
        assert_eq!(
            detector.candidates(call),
            vec![(0, "functions.".len())],
            "{call}"
        );
    }
}

#[test]
fn a_call_line_needs_a_python_call_after_it() {
    let detector = Detector::new(&[Signature {
        prefixes: vec![CALL_LINE],
        ..Signature::default()
    }]);
    for text in [
        "Call: f(a=1)<bot_end>",
        "Sure.\nCall: t.order(loc='x'); g()",
        "Call:f()",
    ] {
        assert_eq!(detector.candidates(text), vec![(0, 0)], "{text:?}");
    }
    for text in [
        "Call: us anytime (9-5).",
        "Please Call: f(a=1)",
        "Call: 1f()",
        "Call:\nf(a=1)",
        "call: f(a=1)",
    ] {
        assert!(detector.candidates(text).is_empty(), "{text:?}");
    }
}
