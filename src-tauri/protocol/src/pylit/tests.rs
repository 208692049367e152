//! Tests of `pylit`, kept beside it so the reader itself stays readable.

use super::*;
use proptest::prelude::*;
use serde_json::{json, Number};

fn lit(src: &str) -> Value {
    parse_literal(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn lit_err(src: &str) -> Error {
    match parse_literal(src) {
        Ok(v) => panic!("{src}: expected an error, got {v}"),
        Err(e) => e,
    }
}

fn list_ok(src: &str) -> Vec<(String, Value)> {
    let list = parse_call_list(src);
    assert!(list.end.is_some(), "{src}: not closed");
    list.items
        .into_iter()
        .map(|item| match item {
            Ok(call) => (call.name, Value::Object(call.args)),
            Err(e) => panic!("{src}: {e}"),
        })
        .collect()
}

#[test]
fn strings_in_every_quoting() {
    assert_eq!(lit("'a'"), json!("a"));
    assert_eq!(lit("\"a\""), json!("a"));
    assert_eq!(lit("''"), json!(""));
    assert_eq!(lit("'it\"s'"), json!("it\"s"));
    assert_eq!(lit("\"it's\""), json!("it's"));
    assert_eq!(lit("'''a\n'b'\n'''"), json!("a\n'b'\n"));
    assert_eq!(lit("\"\"\"x\"\"y\"\"\""), json!("x\"\"y"));
    assert_eq!(lit("'a' \"b\"\n  'c'"), json!("abc"));
    assert_eq!(lit("u'x' r'\\d\\''"), json!("x\\d\\'"));
    assert_eq!(lit("'東京 🙂 naïve'"), json!("東京 🙂 naïve"));
}

#[test]
fn every_escape() {
    assert_eq!(
        lit(r#"'\n\t\r\\\'\"\a\b\f\v'"#),
        json!("\n\t\r\\'\"\u{7}\u{8}\u{c}\u{b}")
    );
    assert_eq!(lit(r"'\x41\u00e9\U0001F642\101\0'"), json!("Aé🙂A\u{0}"));
    assert_eq!(lit(r"'\ud83d\ude00 \ud83d'"), json!("😀 \u{fffd}"));
    assert_eq!(lit("'a\\\nb'"), json!("ab"));
    assert_eq!(lit(r"'\d\w'"), json!("\\d\\w"));
}

#[test]
fn numbers_keep_integer_or_float() {
    assert_eq!(lit("3"), json!(3));
    assert!(lit("3").is_i64() || lit("3").is_u64());
    assert_eq!(lit("-3"), json!(-3));
    assert_eq!(lit("- 3"), json!(-3));
    assert_eq!(lit("+3"), json!(3));
    assert_eq!(lit("0"), json!(0));
    assert_eq!(lit("1_000"), json!(1000));
    assert_eq!(lit("0x1F"), json!(31));
    assert_eq!(lit("0o17"), json!(15));
    assert_eq!(lit("-0b101"), json!(-5));
    assert_eq!(lit("18446744073709551615"), json!(u64::MAX));
    assert_eq!(lit("-9223372036854775808"), json!(i64::MIN));
    assert!(lit("18446744073709551616").is_f64());
    assert!(lit("1".repeat(60).as_str()).is_f64());
    let float = lit("411.79");
    assert!(float.is_f64());
    assert_eq!(float, json!(411.79));
    assert!(lit("3.0").is_f64());
    assert_eq!(lit("-2.5e-3"), json!(-0.0025));
    assert_eq!(lit(".5"), json!(0.5));
    assert_eq!(lit("5."), json!(5.0));
    assert_eq!(lit("1E10"), json!(1e10));
    assert_eq!(lit("1_0.2_5"), json!(10.25));
}

#[test]
fn constants_and_containers() {
    assert_eq!(lit("True"), json!(true));
    assert_eq!(lit("False"), json!(false));
    assert_eq!(lit("None"), json!(null));
    assert_eq!(lit("[]"), json!([]));
    assert_eq!(lit("[1, 'a', [None],]"), json!([1, "a", [null]]));
    assert_eq!(lit("()"), json!([]));
    assert_eq!(lit("(1,)"), json!([1]));
    assert_eq!(lit("(1, 2)"), json!([1, 2]));
    assert_eq!(lit("(1)"), json!(1));
    assert_eq!(lit("{}"), json!({}));
    assert_eq!(
        lit("{'k': None, \"n\": True, 'l': [1, (2, 3)], 'd': {'x': -1.5},}"),
        json!({"k": null, "n": true, "l": [1, [2, 3]], "d": {"x": -1.5}})
    );
    assert_eq!(lit("{'a': 1, 'a': 2}"), json!({"a": 2}));
}

#[test]
fn errors_point_at_the_problem() {
    let cases: &[(&str, ErrorKind, usize)] = &[
        ("[1, tru]", ErrorKind::Syntax, 4),
        ("{1: 2}", ErrorKind::Syntax, 1),
        ("{'a' 1}", ErrorKind::Syntax, 5),
        ("[1 2]", ErrorKind::Syntax, 3),
        ("'abc", ErrorKind::UnexpectedEnd, 4),
        (r"'\x4g'", ErrorKind::Syntax, 1),
        (r"'\N{DASH}'", ErrorKind::Syntax, 1),
        (r"'\U00110000'", ErrorKind::Syntax, 1),
        ("b'x'", ErrorKind::Syntax, 0),
        ("1e", ErrorKind::Syntax, 0),
        ("12abc", ErrorKind::Syntax, 0),
        ("1j", ErrorKind::Syntax, 0),
        ("1e999", ErrorKind::Syntax, 0),
        ("0x", ErrorKind::Syntax, 0),
        ("-", ErrorKind::UnexpectedEnd, 1),
        ("[1, 2", ErrorKind::UnexpectedEnd, 5),
        ("1 2", ErrorKind::Syntax, 2),
    ];
    for &(src, kind, offset) in cases {
        let e = lit_err(src);
        assert_eq!((e.kind, e.offset), (kind, offset), "{src}: {e}");
        assert!(e.offset + e.len <= src.len(), "{src}: {e:?}");
    }
    assert!(lit_err("none").message.contains("None"));
}

#[test]
fn call_lists() {
    assert_eq!(list_ok("[]"), vec![]);
    assert_eq!(
        list_ok(" [ f ( a = 1 , b='x', ) , g() , ns.h(c=[1, 2], d={'k': None, 'n': True}), ]"),
        vec![
            ("f".to_owned(), json!({"a": 1, "b": "x"})),
            ("g".to_owned(), json!({})),
            (
                "ns.h".to_owned(),
                json!({"c": [1, 2], "d": {"k": null, "n": true}})
            ),
        ]
    );
    let src = "[f(a=1), g(b=2)] tail";
    let list = parse_call_list(src);
    assert_eq!(list.end, Some(16));
    let spans: Vec<&str> = list
        .items
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .map(|c| &src[c.start..c.end])
        .collect();
    assert_eq!(spans, vec!["f(a=1)", "g(b=2)"]);
    // Argument order is kept (routing and display show what the model wrote).
    let calls = list_ok("[f(z=1, a=2, m=3)]");
    let keys: Vec<&String> = calls[0]
        .1
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["z", "a", "m"]);
}

/// Each item as its name or its error's kind and offset.
type Item = Result<String, (ErrorKind, usize)>;

/// The items and the end of the list.
fn shape(src: &str) -> (Vec<Item>, Option<usize>) {
    let list = parse_call_list(src);
    let items = list
        .items
        .into_iter()
        .map(|i| i.map(|c| c.name).map_err(|e| (e.kind, e.offset)))
        .collect();
    (items, list.end)
}

#[test]
fn a_bad_call_does_not_hide_its_neighbours() {
    use ErrorKind::*;
    let ok = |n: &str| Ok(n.to_owned());
    let src = "[f(a=1), g('x', b=2), h(c=3)]";
    assert_eq!(
        shape(src),
        (
            vec![ok("f"), Err((PositionalArgument, 11)), ok("h")],
            Some(src.len())
        )
    );
    let src = "[f(a=1), g(city), h(c=3)]";
    assert_eq!(
        shape(src),
        (
            vec![ok("f"), Err((PositionalArgument, 11)), ok("h")],
            Some(src.len())
        )
    );
    let src = "[f(a=1, a=2), 42, 'g', g(b={'x': [1, 'y']), h()]";
    let (items, end) = shape(src);
    assert_eq!(end, Some(src.len()));
    assert_eq!(
        items,
        vec![
            Err((DuplicateArgument, 8)),
            Err((NotACall, 14)),
            Err((NotACall, 18)),
            Err((Syntax, 41)),
            ok("h")
        ]
    );
    // A missing comma: the second call is skipped with the text up to the next one.
    let src = "[f(a=1) g(b=2), h()]";
    assert_eq!(
        shape(src),
        (vec![ok("f"), Err((AfterCall, 8)), ok("h")], Some(src.len()))
    );
    let src = "[f(a=1), g(*args), h(**kw)]";
    assert_eq!(
        shape(src),
        (
            vec![ok("f"), Err((Syntax, 11)), Err((Syntax, 21))],
            Some(src.len())
        )
    );
}

#[test]
fn a_list_cut_off_or_broken_keeps_what_came_before() {
    use ErrorKind::*;
    let ok = |n: &str| Ok(n.to_owned());
    // Cut inside a call: that call is reported, the list simply ends.
    let src = "[f(a=1), g(b='Lon";
    assert_eq!(shape(src), (vec![ok("f"), Err((UnexpectedEnd, 9))], None));
    // Cut between calls: nothing is lost, the list is not closed.
    assert_eq!(shape("[f(a=1), "), (vec![ok("f")], None));
    assert_eq!(shape("[f(a=1)"), (vec![ok("f")], None));
    // A bracket left open is closed by the next outer closer, as a reader would.
    let src = "[f(a=1), g(b=[1, 2), h(c=3)]";
    assert_eq!(
        shape(src),
        (vec![ok("f"), Err((Syntax, 18)), ok("h")], Some(src.len()))
    );
    // An error no separator follows (here: inside an unclosed string) breaks the rest of
    // the list: one error.
    let src = "[f(a=1), g(b=1 2, c='x), h(c=3)]";
    let (items, end) = shape(src);
    assert_eq!(end, None);
    assert_eq!(items, vec![ok("f"), Err((Syntax, 15))]);
    let list = parse_call_list(src);
    let message = list.items[1]
        .as_ref()
        .err()
        .map(|e| e.message.clone())
        .unwrap_or_default();
    assert!(message.contains("rest of the list"), "{message}");
    // Not a list at all.
    assert_eq!(shape("f(a=1)"), (vec![Err((Syntax, 0))], None));
    assert_eq!(shape(""), (vec![Err((UnexpectedEnd, 0))], None));
}

#[test]
fn recognises_call_lists_versus_prose() {
    for yes in ["[f(", " [ns.f (a=1)]", "[]", "[", "[get_wea", "[\n  f()]"] {
        assert!(looks_like_call_list(yes), "{yes}");
    }
    for no in [
        "[1] See",
        "[Note] x",
        "['a']",
        "[TOOL_CALLS] [",
        "x[f()]",
        "[f.(",
        "[f x",
    ] {
        assert!(!looks_like_call_list(no), "{no}");
    }
}

#[test]
fn nesting_is_bounded_not_a_stack_overflow() {
    let ok_depth = MAX_DEPTH - 1;
    let src = format!("[f(a={}1{})]", "[".repeat(ok_depth), "]".repeat(ok_depth));
    assert_eq!(parse_call_list(&src).items.len(), 1);
    assert!(parse_call_list(&src).items[0].is_ok());
    let src = format!(
        "[f(a={}1{}), g()]",
        "[".repeat(MAX_DEPTH),
        "]".repeat(MAX_DEPTH)
    );
    let (items, end) = shape(&src);
    assert_eq!(end, Some(src.len()));
    assert_eq!(
        items,
        vec![
            Err((ErrorKind::TooDeep, 5 + MAX_DEPTH - 1)),
            Ok("g".to_owned())
        ]
    );
    // Far beyond the bound, and never closed: still one error, no overflow.
    let src = format!("[f(a={}", "({[".repeat(100_000));
    let (items, end) = shape(&src);
    assert_eq!(end, None);
    assert_eq!(items.len(), 1);
    assert!(parse_literal(&"[".repeat(1_000_000)).is_err());
}

#[test]
fn time_is_linear_in_the_input() {
    // 20,000 calls with a string each, plus a broken call every 1,000: all read, quickly.
    let mut src = String::from("[");
    for i in 0..20_000 {
        if i % 1000 == 999 {
            src.push_str("bad(1, x=[1, 2), ");
        } else {
            src.push_str(&format!("f{i}(s='{}', n={i}), ", "x".repeat(40)));
        }
    }
    src.push(']');
    let list = parse_call_list(&src);
    assert_eq!(list.end, Some(src.len()));
    assert_eq!(list.items.iter().filter(|i| i.is_ok()).count(), 19_980);
}

/// Renders JSON as a Python literal, for round trips.
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => format!("{f:?}"),
            _ => n.to_string(),
        },
        Value::String(s) => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("\\'"),
                    '\n' => out.push_str("\\n"),
                    c if u32::from(c) < 0x20 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(python).collect::<Vec<_>>().join(", ")
            )
        }
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", python(&Value::String(k.clone())), python(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Text built from the grammar's own pieces, so the reader meets it broken in every way.
fn pythonish() -> impl Strategy<Value = String> {
    let parts = proptest::sample::select(vec![
        "[", "]", "(", ")", "{", "}", ",", ":", "=", "'", "\"", "'''", "\\", "\\u", "\\x",
        "\\U0001", "d8", " ", "\n", "f", "a", "r", "b", ".", "-", "1", "0x", "e", "_", "True",
        "None", "é", "🙂",
    ]);
    proptest::collection::vec(parts, 0..48).prop_map(|p| p.concat())
}

fn check_spans(src: &str, list: &CallList) -> Result<(), TestCaseError> {
    for item in &list.items {
        match item {
            Ok(call) => {
                prop_assert!(call.start < call.end && call.end <= src.len());
                prop_assert!(src.is_char_boundary(call.start) && src.is_char_boundary(call.end));
            }
            Err(e) => {
                prop_assert!(e.offset + e.len <= src.len(), "{:?} in {:?}", e, src);
                prop_assert!(src.is_char_boundary(e.offset), "{:?} in {:?}", e, src);
                prop_assert!(
                    src.is_char_boundary(e.offset + e.len),
                    "{:?} in {:?}",
                    e,
                    src
                );
            }
        }
    }
    if let Some(end) = list.end {
        prop_assert!(end <= src.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_never_panics(src in any::<String>()) {
        let list = parse_call_list(&src);
        check_spans(&src, &list)?;
        let _ = parse_literal(&src);
        let _ = looks_like_call_list(&src);
        let wrapped = format!("[f(a={src})]");
        check_spans(&wrapped, &parse_call_list(&wrapped))?;
    }

    #[test]
    fn grammar_pieces_never_panic(src in pythonish()) {
        check_spans(&src, &parse_call_list(&src))?;
        let _ = parse_literal(&src);
        let listed = format!("[f({src}), g(x={src})]");
        check_spans(&listed, &parse_call_list(&listed))?;
    }

    #[test]
    fn json_values_round_trip(value in json_value()) {
        let src = python(&value);
        prop_assert_eq!(parse_literal(&src).map_err(|e| e.to_string()), Ok(value.clone()), "{}", src);
        let call = format!("[f(v={src})]");
        let list = parse_call_list(&call);
        let args = list.items.first().and_then(|i| i.as_ref().ok()).map(|c| c.args.clone());
        prop_assert_eq!(args.and_then(|a| a.get("v").cloned()), Some(value));
    }
}

/// `ast.parse` accepts a repeated keyword (only the compiler rejects it); vLLM's and SGLang's
/// readers build the arguments from the keywords in order. A positional argument still costs
/// its call (vLLM's `handle_single_tool` rejects it). Without [`Options::ast_keywords`] a
/// repeated keyword costs the call too (see above).
#[test]
fn ast_keywords_keep_a_repeated_keywords_last_value() {
    let list = parse_call_list_with("[g('x', b=2), f(a=1, a=2)]", Options::AST_KEYWORDS);
    assert_eq!(list.end, Some(26));
    assert!(matches!(&list.items[0], Err(e) if e.kind == ErrorKind::PositionalArgument));
    let Ok(call) = &list.items[1] else {
        panic!("{:?}", list.items[1]);
    };
    assert_eq!(Value::Object(call.args.clone()), json!({"a": 2}));
    let notes: Vec<_> = call.notes.iter().map(|n| (n.kind, n.offset)).collect();
    assert_eq!(notes, vec![(ErrorKind::DuplicateArgument, 21)]);
    assert!(call.notes[0].message.contains("last value is kept"));
}
