use proptest::prelude::*;

use super::*;
use crate::balanced::Syntax;
use crate::request::Severity;

const TAGS: Framing = Framing {
    rules: &[
        THINK,
        Rule::call("<call>", Close::Marker("</call>")).lenient(),
        Rule::token("<calls>"),
    ],
};

const START_OPEN: Framing = Framing {
    rules: &[
        Rule::reasoning("<think>", "</think>").may_start_open(),
        Rule::call("<call>", Close::Marker("</call>")).lenient(),
    ],
};

/// Reasoning that a call may end when it is never closed, and an end-of-turn token.
const TURNS: Framing = Framing {
    rules: &[
        THINK_MAY_START_OPEN.ends_unclosed_at(&["<call>", "<calls>"], &[&["{", "\"n\""]]),
        Rule::call("<call>", Close::Marker("</call>")).lenient(),
        Rule::end_of_turn("<eot>"),
        Rule::call("<strict>", Close::Marker("</strict>")),
    ],
};

/// Call blocks that their own next opener also ends (a dropped closing marker), beside an
/// end-of-turn token.
const REOPEN: Framing = Framing {
    rules: &[
        THINK,
        Rule::call("<call>", Close::Marker("</call>")).closed_by_next_opener(),
        Rule::end_of_turn("<eot>"),
    ],
};

const UNTIL_NEXT: Framing = Framing {
    rules: &[THINK, Rule::call(">>>", Close::UntilNext)],
};

const JSON_AFTER: Framing = Framing {
    rules: &[
        THINK,
        Rule::call(
            "[CALL]",
            Close::Balanced {
                after: "[ARGS]",
                syntax: Syntax::Json,
            },
        ),
        Rule::call("<|tag|>", JSON_VALUE).separated_by(b";"),
        Rule::at_text_start(
            "[",
            Close::Balanced {
                after: "",
                syntax: Syntax::Python,
            },
        ),
    ],
};

/// Blocks, reasoning, diagnostics and the content, as one comparable summary.
#[derive(Debug, PartialEq, Eq, Default)]
struct Summary {
    blocks: Vec<(usize, String, String, bool)>,
    reasoning: Vec<String>,
    diagnostics: Vec<(Severity, String)>,
    content: String,
    body_text: Vec<String>,
}

fn summarise(framing: Framing, text: &str, chunks: &[usize]) -> Summary {
    let mut scanner = Scanner::new(framing);
    let mut events = Vec::new();
    let mut fed = 0;
    for &size in chunks {
        let mut end = (fed + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        scanner.advance(&text[..end], false, &mut events);
        fed = end;
        if fed == text.len() {
            break;
        }
    }
    scanner.advance(text, true, &mut events);
    let mut summary = Summary::default();
    let mut body = String::new();
    for event in events {
        match event {
            ScanEvent::Content(s) => summary.content.push_str(&text[s.start..s.end]),
            ScanEvent::BlockStarted { .. } => body.clear(),
            ScanEvent::BodyDelta { span, .. } => body.push_str(&text[span.start..span.end]),
            ScanEvent::Block(b) => {
                summary.blocks.push((
                    b.rule,
                    text[b.span.start..b.span.end].to_owned(),
                    text[b.body.start..b.body.end].to_owned(),
                    b.complete,
                ));
                summary.body_text.push(std::mem::take(&mut body));
            }
            ScanEvent::Reasoning(s) => summary.reasoning.push(text[s.start..s.end].to_owned()),
            ScanEvent::Diagnostic(d) => summary.diagnostics.push((d.severity, d.message)),
        }
    }
    summary
}

fn whole(framing: Framing, text: &str) -> Summary {
    summarise(framing, text, &[])
}

#[test]
fn delimited_blocks_reasoning_tokens_and_content() {
    let text = "hi <think>no <call>x</call></think><calls><call>a</call> mid <call>b</call> end";
    let s = whole(TAGS, text);
    assert_eq!(
        s.blocks,
        vec![
            (1, "<call>a</call>".into(), "a".into(), true),
            (1, "<call>b</call>".into(), "b".into(), true)
        ]
    );
    assert_eq!(s.reasoning, vec!["<think>no <call>x</call></think>"]);
    assert_eq!(s.content, "hi  mid  end");
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.body_text, vec!["a", "b"]);
}

#[test]
fn an_unclosed_block_is_cut_at_the_next_one_and_decoded_at_the_end() {
    let s = whole(TAGS, "<call>a <call>b</call><call>c");
    assert_eq!(
        s.blocks,
        vec![
            (1, "<call>b</call>".into(), "b".into(), true),
            (1, "<call>c".into(), "c".into(), false)
        ]
    );
    assert_eq!(s.diagnostics.len(), 2);
    assert_eq!(s.diagnostics[0].0, Severity::Error);
    assert!(
        s.diagnostics[0].1.contains("another block starts"),
        "{:?}",
        s.diagnostics
    );
    assert_eq!(s.diagnostics[1].0, Severity::Warning);
}

#[test]
fn a_block_its_next_opener_ends_is_decoded_when_the_rule_says_so() {
    let s = whole(REOPEN, "<call>a <call>b</call> x <call>c <eot> y <call>d");
    assert_eq!(
        s.blocks,
        vec![
            (1, "<call>a ".into(), "a ".into(), true),
            (1, "<call>b</call>".into(), "b".into(), true),
        ]
    );
    // An end-of-turn token in the block, or the reply's end, still only reports it: the rule
    // is not lenient.
    assert_eq!(
        s.diagnostics.iter().map(|d| d.0).collect::<Vec<_>>(),
        vec![Severity::Warning, Severity::Error, Severity::Error]
    );
    assert!(s.diagnostics[0].1.contains("parsed up to the next one"));
    assert!(s.diagnostics[1].1.contains("end-of-turn"));
    assert_eq!(s.body_text, vec!["a ", "b"]);
    assert_eq!(s.content, " x  y ");
}

#[test]
fn balanced_values_after_inner_markers_and_separators() {
    let text = "x[CALL]f[ARGS]{\"a\": \"}\"} y<|tag|>{\"n\":1} ; {\"n\":2} z";
    let s = whole(JSON_AFTER, text);
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(
        bodies,
        vec!["f[ARGS]{\"a\": \"}\"}", "{\"n\":1}", "{\"n\":2}"]
    );
    assert_eq!(s.content, "x y z");
}

/// A call whose special tokens were decoded away: an id right before its JSON arguments.
const CALL_IDS: Framing = Framing {
    rules: &[Rule::call_id(
        "fn.",
        Close::Balanced {
            after: "<args>",
            syntax: Syntax::Json,
        },
    )],
};

#[test]
fn a_call_id_opens_a_block_only_before_its_arguments() {
    let text = "See fn. {\"x\": 1} and fn.get:x {}. fn.get:0 {\"a\": \"}\"}fn.put:1{}";
    for chunks in [&[][..], &[1][..], &[3, 5][..]] {
        let s = summarise(CALL_IDS, text, chunks);
        let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
        assert_eq!(
            bodies,
            vec!["get:0 {\"a\": \"}\"}", "put:1{}"],
            "{chunks:?}"
        );
        assert_eq!(
            s.content, "See fn. {\"x\": 1} and fn.get:x {}. ",
            "{chunks:?}"
        );
        assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    }
}

#[test]
fn a_left_out_inner_marker_may_follow_a_name_and_one_word() {
    let s = whole(JSON_AFTER, "[CALL]f json{\"a\": 1} [CALL]two words here{}");
    assert_eq!(s.blocks[0].2, "f json{\"a\": 1}");
    // Three words before a brace are prose: the second block never gets its value.
    assert_eq!(s.blocks.len(), 1, "{:?}", s.blocks);
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
}

#[test]
fn a_truncated_value_does_not_swallow_the_next_call() {
    let s = whole(JSON_AFTER, "[CALL]f[ARGS]{\"a\": [1, [CALL]g[ARGS]{}");
    assert_eq!(s.blocks.len(), 1);
    assert_eq!(s.blocks[0].2, "g[ARGS]{}");
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
}

#[test]
fn text_start_rules_only_match_at_the_start() {
    let s = whole(JSON_AFTER, "  <think>hm</think>\n[f(a='['), g()]");
    assert_eq!(s.blocks.len(), 1);
    assert_eq!(s.blocks[0].2, "[f(a='['), g()]");
    let s = whole(JSON_AFTER, "see [f()]");
    assert!(s.blocks.is_empty());
    assert_eq!(s.content, "see [f()]");
}

#[test]
fn a_marker_without_a_value_is_reported() {
    let s = whole(JSON_AFTER, "<|tag|> hello");
    assert!(s.blocks.is_empty());
    assert_eq!(s.diagnostics.len(), 1);
    assert!(s.diagnostics[0].1.contains("JSON"), "{:?}", s.diagnostics);
}

#[test]
fn until_next_blocks_end_at_the_next_opener_or_the_end() {
    let s = whole(UNTIL_NEXT, "hi >>>a\n{1}\n>>>b\n{2}");
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(bodies, vec!["a\n{1}\n", "b\n{2}"]);
    assert!(s.blocks.iter().all(|b| b.3), "complete: {:?}", s.blocks);
    assert!(s.diagnostics.is_empty());
    assert_eq!(s.content, "hi ");
}

#[test]
fn markers_quoted_in_inline_code_or_mid_line_in_fences_are_prose() {
    let text = "Wrap it in `<call>` tags, like `<call>x</call>`:\n<call>a</call>\n\
                ```py\nprint(\"<call>\")\n```\n```xml\n<call>b</call>\n```\nstray ` <call>c</call>";
    let s = whole(TAGS, text);
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(bodies, vec!["a", "b", "c"]);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert!(s.content.starts_with("Wrap it in `<call>` tags"));
}

#[test]
fn a_reply_may_start_inside_reasoning() {
    let s = whole(
        START_OPEN,
        "plan <call>no</call></think>ok <call>yes</call>",
    );
    assert_eq!(s.reasoning, vec!["plan <call>no</call></think>"]);
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(bodies, vec!["yes"]);
    assert_eq!(s.content, "ok ");
    // No `</think>`, or a `<think>` first: ordinary reply.
    let s = whole(START_OPEN, "text <call>a</call>");
    assert_eq!(s.blocks.len(), 1);
    assert!(s.reasoning.is_empty());
    let s = whole(START_OPEN, "<think>r</think><call>a</call> </think>");
    assert_eq!(s.reasoning, vec!["<think>r</think>"]);
    assert_eq!(s.blocks.len(), 1);
}

#[test]
fn unclosed_reasoning_ends_at_a_call_opener_followed_by_a_call() {
    let s = whole(TURNS, "<think>plan\n<call> { \"n\": 1}</call> after");
    assert_eq!(s.reasoning, vec!["<think>plan\n"]);
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(bodies, vec![" { \"n\": 1}"]);
    assert_eq!(s.content, " after");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    // A `</think>` later: all of it is reasoning.
    let s = whole(TURNS, "<think>plan <call>{\"n\": 1}</call> hm</think>ok");
    assert!(s.blocks.is_empty());
    assert_eq!(s.content, "ok");
    // Only the first opener counts, and it must be followed by a call: a mention keeps the
    // rest reasoning (as vLLM reads it).
    let s = whole(TURNS, "<think>use <call> tags <call>{\"n\": 1}</call>");
    assert!(s.blocks.is_empty());
    assert_eq!(s.reasoning.len(), 1);
    // Any of the openers, whichever comes first (a token here).
    let s = whole(TURNS, "<think>x <calls>{\"n\": 2} <call>{\"n\": 1}</call>");
    assert_eq!(s.reasoning, vec!["<think>x "]);
    assert_eq!(s.blocks.len(), 1);
}

#[test]
fn an_end_of_turn_token_ends_a_call_block_that_never_closes() {
    let s = whole(TURNS, "<call>a <eot>\nnext");
    assert_eq!(s.blocks, vec![(1, "<call>a ".into(), "a ".into(), true)]);
    assert_eq!(s.content, "\nnext");
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].0, Severity::Warning);
    assert!(
        s.diagnostics[0].1.contains("end-of-turn"),
        "{:?}",
        s.diagnostics
    );
    // Before the next block too, which is then read as usual.
    let s = whole(TURNS, "<call>a<eot><call>b</call>");
    let bodies: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
    assert_eq!(bodies, vec!["a", "b"]);
    // A block that closes keeps the token in its body.
    let s = whole(TURNS, "<call>a<eot>b</call>");
    assert_eq!(
        s.blocks,
        vec![(1, "<call>a<eot>b</call>".into(), "a<eot>b".into(), true)]
    );
    // A block that may not be read unclosed is still skipped, with an error.
    let s = whole(TURNS, "<strict>a<eot>");
    assert!(s.blocks.is_empty());
    assert_eq!(s.diagnostics[0].0, Severity::Error);
}

/// A format with neither a framing nor its own parse (a mistake) reports it instead of
/// looking like a reply with no calls.
#[test]
fn a_format_without_framing_or_parse_says_so() {
    struct Unframed;
    impl Protocol for Unframed {
        fn id(&self) -> &'static str {
            "unframed"
        }
        fn label(&self) -> &'static str {
            "unframed"
        }
        fn generate_tool_definitions(&self, _tools: &[crate::ToolDefinitionInput]) -> String {
            String::new()
        }
        fn format_tool_results(&self, _results: &[crate::result::ToolExecutionResult]) -> String {
            String::new()
        }
    }
    let out = Unframed.parse_tool_requests("<call>{}</call>");
    assert!(out.requests.is_empty());
    assert_eq!(out.diagnostics.len(), 1);
    assert_eq!(out.diagnostics[0].code, DiagnosticCode::InternalError);
    assert!(out.diagnostics[0]
        .message
        .contains("'unframed' has no framing"));
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_result(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<call>"), Just("</call>"), Just("<think>"), Just("</think>"), Just("<calls>"),
                Just("[CALL]"), Just("[ARGS]"), Just("<|tag|>"), Just("{"), Just("}"), Just("["),
                Just("]"), Just("\""), Just("\\"), Just(";"), Just(" "), Just("x"), Just("é"),
                Just("<"), Just("<|"), Just("("), Just(">>>"), Just(">"), Just("`"),
                Just("```"), Just("\n"), Just("<eot>"), Just("\"n\""), Just("<strict>"),
                Just("</strict>")
            ],
            0..40,
        ),
        chunks in proptest::collection::vec(1usize..7, 0..60),
    ) {
        let text: String = parts.concat();
        for framing in [TAGS, JSON_AFTER, UNTIL_NEXT, START_OPEN, TURNS, REOPEN] {
            prop_assert_eq!(summarise(framing, &text, &chunks), whole(framing, &text));
        }
    }
}

#[test]
fn a_call_object_right_after_reasoning_stands_on_its_own() {
    const OBJECTS: Framing = Framing {
        rules: &[
            THINK_MAY_START_OPEN,
            Rule::object_with_key(&["\"n\""], JSON_VALUE).lenient(),
            Rule::call("<x>", Close::Marker("</x>")),
        ],
    };
    let object = r#"{"n": 1}"#;
    for text in [
        format!("<think>why</think>\n\n{object}"),
        format!("why, opened in the prompt</think>{object}"),
    ] {
        for chunks in [&[][..], &[1; 64][..]] {
            let s = summarise(OBJECTS, &text, chunks);
            let blocks: Vec<&str> = s.blocks.iter().map(|b| b.2.as_str()).collect();
            assert_eq!(blocks, vec![object], "{text:?} fed in {chunks:?}");
        }
    }
    // After any other tag the object belongs to that tag's format, as before.
    assert!(whole(OBJECTS, &format!("<y>{object}")).blocks.is_empty());
}

#[test]
fn a_longer_marker_of_an_earlier_rule_is_waited_for() {
    const FENCES: Framing = Framing {
        rules: &[
            Rule::call("```json", Close::Marker("```")).lenient(),
            Rule::call("```", Close::Marker("```")).lenient(),
        ],
    };
    for text in ["```json\n[1]\n```", "```\n[1]\n```"] {
        let batch = whole(FENCES, text);
        for size in [1, 2, 4] {
            assert_eq!(
                summarise(FENCES, text, &[size; 32]),
                batch,
                "{text:?} in {size}s"
            );
        }
    }
    assert_eq!(whole(FENCES, "```json\n[1]\n```").blocks[0].0, 0);
}
