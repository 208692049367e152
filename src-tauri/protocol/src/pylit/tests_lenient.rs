//! Tests of the readings `pylit` adds to Python for what models write and the reference
//! servers accept (vLLM's pythonic helpers, SGLang's LFM2 detector): each mirrors one of their
//! test cases.

use super::*;
use serde_json::json;

fn one_call(src: &str) -> Result<(String, Value), Error> {
    let list = parse_call_list(src);
    match list.items.into_iter().next() {
        Some(Ok(call)) => Ok((call.name, Value::Object(call.args))),
        Some(Err(e)) => Err(e),
        None => panic!("{src}: no item"),
    }
}

fn args(src: &str) -> Value {
    one_call(src).unwrap_or_else(|e| panic!("{src}: {e}")).1
}

fn names(src: &str) -> Vec<Result<String, ErrorKind>> {
    parse_call_list(src)
        .items
        .into_iter()
        .map(|i| i.map(|c| c.name).map_err(|e| e.kind))
        .collect()
}

#[test]
fn json_spellings_of_the_constants_are_read() {
    // vLLM test_olmo3_tool_parser: more_types_*_json_literals.
    assert_eq!(
        args("[register_user(role=null, passed_test=true, failed=false)]"),
        json!({"role": null, "passed_test": true, "failed": false})
    );
    assert_eq!(
        parse_literal("[True, false, None]"),
        Ok(json!([true, false, null]))
    );
}

#[test]
fn sets_become_arrays_in_written_order() {
    // vLLM test_lfm2_tool_parser: set_arg.
    assert_eq!(
        args("[label(tags={'urgent', 'bug'})]"),
        json!({"tags": ["urgent", "bug"]})
    );
    assert_eq!(parse_literal("{1, 2,}"), Ok(json!([1, 2])));
    assert_eq!(parse_literal("{}"), Ok(json!({})));
    assert_eq!(
        parse_literal("{'a': 1, 'b': {2}}"),
        Ok(json!({"a": 1, "b": [2]}))
    );
}

#[test]
fn zero_padded_integers_are_decimal() {
    // vLLM test_lfm2_tool_parser: leading_zero_int.
    assert_eq!(
        args("[set_date(month=07, day=05)]"),
        json!({"month": 7, "day": 5})
    );
    assert_eq!(parse_literal("00"), Ok(json!(0)));
    assert_eq!(parse_literal("07.5"), Ok(json!(7.5)));
}

#[test]
fn raw_control_characters_stay_in_strings() {
    // vLLM test_lfm2_tool_parser: multiline_string_arg, nul_byte_string_arg.
    assert_eq!(
        args("[exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')]"),
        json!({"command": "cat > f.py << EOF\nimport csv\nprint(1)\nEOF"})
    );
    assert_eq!(
        args("[exec(command='printf a\u{0}b')]"),
        json!({"command": "printf a\u{0}b"})
    );
}

#[test]
fn escapes_and_plain_f_strings() {
    // vLLM test_pythonic_tool_parser: escaped_string.
    assert_eq!(
        args(r#"[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]"#),
        json!({"city": "Martha's Vineyard", "metric": "\"cool units\""})
    );
    assert_eq!(args("[f(s=f'hello')]"), json!({"s": "hello"}));
    assert_eq!(
        one_call("[f(s=f'{x}')]").map_err(|e| e.kind),
        Err(ErrorKind::Syntax)
    );
    assert_eq!(
        args(r"[f(s='caf\u00e9 \U0001F600')]"),
        json!({"s": "café 😀"})
    );
}

#[test]
fn one_clean_reading_of_nested_quotes_is_taken() {
    // vLLM test_lfm2_tool_parser: nested_quote.
    assert_eq!(
        args("[bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')]"),
        json!({"command": "sed -n '360,450p' /testbed/sympy/matrices/common.py"})
    );
    // nested_python_c: a quote followed by `)` that would leave the call unbalanced is not it.
    let src = "[bash(command='cd /testbed && python3 -c \"from sympy import latex\n\
               print(latex(3*x, mul_symbol='\\,'))\"')]";
    assert_eq!(
        args(src),
        json!({"command": "cd /testbed && python3 -c \"from sympy import latex\n\
                           print(latex(3*x, mul_symbol='\\,'))\""})
    );
}

#[test]
fn ambiguous_nested_quotes_cost_only_their_call() {
    // vLLM test_pythonic_tool_parser: good_call_survives_unparsable_sibling.
    let src = "[get_weather(city='San Francisco', metric='celsius'), f(a='x 'y', b='z')]";
    assert_eq!(
        names(src),
        vec![Ok("get_weather".to_owned()), Err(ErrorKind::Syntax)]
    );
    // unrecoverable_block_still_reports_no_tool_call.
    let src = "[f(a='x 'y' 'z), g(b='p 'q' 'r)]";
    assert!(names(src).iter().all(Result::is_err), "{:?}", names(src));
}

#[test]
fn what_json_cannot_hold_is_refused_per_call() {
    // vLLM test_pythonic_tool_parser: bad_sibling_call_does_not_drop_good_calls and
    // non_finite_argument_rejected; SGLang test_pythonic_detector: bool_unary.
    for bad in [
        "bad(x=b'z')",
        "calc(x=1e999)",
        "move(x=-True, y=0)",
        "move(x=-\"hello\", y=0)",
    ] {
        let src = format!("[{bad}, get_weather(city='LA')]");
        assert_eq!(
            names(&src),
            vec![Err(ErrorKind::Syntax), Ok("get_weather".to_owned())],
            "{src}"
        );
    }
}

#[test]
fn numbers_keep_their_sign_and_kind() {
    // SGLang test_pythonic_detector: negative_* cases.
    assert_eq!(
        args("[move(x=-1.5, y=2.0, deltas=[-1, -2, +3])]"),
        json!({"x": -1.5, "y": 2.0, "deltas": [-1, -2, 3]})
    );
}

#[test]
fn a_huge_run_of_broken_quotes_stays_linear() {
    let src = format!("[f(a='{}')]", "x 'y".repeat(50_000));
    let started = std::time::Instant::now();
    let _ = parse_call_list(&src);
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn the_strict_reading_rejects_what_python_rejects() {
    use super::parse_python_literal;
    for valid in [
        ("{'a': True, 'b': None}", json!({"a": true, "b": null})),
        ("['x', 'y']", json!(["x", "y"])),
        ("(1, -2.5, +3)", json!([1, -2.5, 3])),
        ("0", json!(0)),
        ("00", json!(0)),
        ("1_000", json!(1000)),
        ("'''two\nlines'''", json!("two\nlines")),
        ("r'a\\b'", json!("a\\b")),
    ] {
        assert_eq!(parse_python_literal(valid.0), Ok(valid.1), "{}", valid.0);
    }
    for invalid in [
        "true",
        "[null]",
        "07",
        "[0612345678]",
        "'one\nline'",
        "'sed -n '1,5p' f.py'",
        "f'hi'",
        "Paris",
        "2024-01-01",
    ] {
        assert!(parse_python_literal(invalid).is_err(), "{invalid}");
        let _ = parse_literal(invalid); // the lenient reading may accept some of them
    }
    assert_eq!(parse_literal("07"), Ok(json!(7)));
}
