//! Tests of `expr`, kept beside it so the module itself stays readable.

use super::*;
use proptest::prelude::*;
use std::f64::consts::{E, PI};

fn eval_with(
    expression: &str,
    angle_unit: AngleUnit,
    vars: &[(&str, f64)],
) -> Result<f64, ExprError> {
    let options = EvalOptions {
        angle_unit,
        variables: vars.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
    };
    evaluate(expression, &options)
}

fn eval(expression: &str) -> f64 {
    match eval_with(expression, AngleUnit::Radians, &[]) {
        Ok(value) => value,
        Err(e) => panic!("{expression:?} failed: {e}"),
    }
}

fn eval_err(expression: &str) -> String {
    match eval_with(expression, AngleUnit::Radians, &[]) {
        Ok(value) => panic!("{expression:?} evaluated to {value}, expected an error"),
        Err(e) => e.message,
    }
}

fn assert_close(expression: &str, actual: f64, expected: f64) {
    let tolerance = 1e-12 * expected.abs().max(1.0);
    assert!(
        (actual - expected).abs() <= tolerance,
        "{expression:?}: got {actual}, expected {expected}"
    );
}

#[test]
fn precedence_and_associativity() {
    let cases = [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("10 - 4 - 3", 3.0),
        ("100 / 10 / 5", 2.0),
        ("2 * 3 ^ 2", 18.0),
        ("2 ^ 3 ^ 2", 512.0),
        ("2 ** 3 ** 2", 512.0),
        ("-2 ^ 2", -4.0),
        ("(-2) ^ 2", 4.0),
        ("2 ^ -1", 0.5),
        ("-2 ^ -2", -0.25),
        ("--1", 1.0),
        ("+-+1", -1.0),
        ("7 % 4", 3.0),
        ("-7 % 4", -3.0),
        ("1 + 7 % 4 * 2", 7.0),
        ("3!", 6.0),
        ("-3!", -6.0),
        ("2 ^ 3!", 64.0),
        ("3!!", 720.0),
        ("(1 + 2)!", 6.0),
        ("1.5e3", 1500.0),
        ("2.5E+2 + 1e-3", 250.001),
        (".5 + 5.", 5.5),
    ];
    for (expression, expected) in cases {
        assert_close(expression, eval(expression), expected);
    }
    assert_eq!(
        eval_err("2e"),
        "unexpected 'e' at offset 1 (missing operator?)"
    );
    assert_close("e^2", eval("e^2"), E * E);
}

#[test]
fn every_function_and_constant() {
    let cases = [
        ("sqrt(16)", 4.0),
        ("cbrt(-27)", -3.0),
        ("abs(-2.5)", 2.5),
        ("sin(pi / 2)", 1.0),
        ("cos(pi)", -1.0),
        ("tan(pi / 4)", 1.0),
        ("asin(1)", PI / 2.0),
        ("acos(1)", 0.0),
        ("atan(1)", PI / 4.0),
        ("atan2(1, -1)", 3.0 * PI / 4.0),
        ("ln(e)", 1.0),
        ("log10(1000)", 3.0),
        ("log(1000)", 3.0),
        ("log(8, 2)", 3.0),
        ("log(81, 3)", 4.0),
        ("exp(1)", E),
        ("floor(-1.5)", -2.0),
        ("ceil(1.2)", 2.0),
        ("round(2.5)", 3.0),
        ("round(-2.5)", -3.0),
        ("round(1.23456, 3)", 1.235),
        ("round(1234, -2)", 1200.0),
        ("trunc(-1.7)", -1.0),
        ("min(3, 1, 2)", 1.0),
        ("max(3, 1, 2)", 3.0),
        ("min(5)", 5.0),
        ("hypot(3, 4)", 5.0),
        ("hypot(2, 3, 6)", 7.0),
        ("fact(5)", 120.0),
        ("fact(0)", 1.0),
        ("tau / pi", 2.0),
        ("SQRT(4) + PI - pi", 2.0),
    ];
    for (expression, expected) in cases {
        assert_close(expression, eval(expression), expected);
    }
    let names: Vec<&str> = function_names().collect();
    assert_eq!(names.len(), 22);
    for name in names {
        assert!(
            cases
                .iter()
                .any(|(e, _)| e.to_ascii_lowercase().starts_with(&format!("{name}("))),
            "function {name} is not covered"
        );
    }
    assert!(eval("fact(170)").is_finite());
}

#[test]
fn degrees_and_radians() {
    let deg = |e: &str| eval_with(e, AngleUnit::Degrees, &[]);
    assert_eq!(deg("sin(180)"), Ok(0.0));
    assert_eq!(deg("cos(90)"), Ok(0.0));
    assert_eq!(deg("sin(-90)"), Ok(-1.0));
    assert_eq!(deg("cos(720)"), Ok(1.0));
    assert_close("sin(30)", deg("sin(30)").unwrap_or(f64::NAN), 0.5);
    assert_close("tan(45)", deg("tan(45)").unwrap_or(f64::NAN), 1.0);
    assert_close("asin(1)", deg("asin(1)").unwrap_or(f64::NAN), 90.0);
    assert_close("acos(0)", deg("acos(0)").unwrap_or(f64::NAN), 90.0);
    assert_close("atan(1)", deg("atan(1)").unwrap_or(f64::NAN), 45.0);
    assert_close("atan2", deg("atan2(-1, -1)").unwrap_or(f64::NAN), -135.0);
    assert_eq!(
        deg("tan(90)").map_err(|e| e.message),
        Err("tan is undefined at 90 degrees at offset 0".to_owned())
    );
    assert_close("sin(pi/6)", eval("sin(pi / 6)"), 0.5);
    assert_close("sin(30) rad", eval("sin(30)"), 30f64.sin());
}

#[test]
fn variables() {
    let vars = [("x", 2.0), ("rate_2", 0.5), ("X", 10.0)];
    let run = |e: &str| eval_with(e, AngleUnit::Radians, &vars).map_err(|e| e.message);
    assert_eq!(run("x * X + rate_2"), Ok(20.5));
    assert_eq!(run("x^2!"), Ok(4.0));
    assert_eq!(run("y + 1"), Err("unknown variable 'y' at offset 0".into()));
    assert_eq!(
        eval_with("pi", AngleUnit::Radians, &[("PI", 3.0)]).map_err(|e| e.message),
        Err("variable name 'PI' is reserved for a built-in constant or function".into())
    );
    assert_eq!(
        eval_with("1", AngleUnit::Radians, &[("sin", 3.0)]).map_err(|e| e.message),
        Err("variable name 'sin' is reserved for a built-in constant or function".into())
    );
    let bad = eval_with("1", AngleUnit::Radians, &[("2x", 3.0)]);
    assert!(bad.is_err_and(|e| e.message.starts_with("variable name '2x' is not valid")));
    let inf = eval_with("1", AngleUnit::Radians, &[("x", f64::INFINITY)]);
    assert!(inf.is_err_and(|e| e.message == "variable 'x' is not a finite number"));
}

#[test]
fn error_messages() {
    let cases = [
        ("(1 + 2))", "unexpected ')' at offset 7"),
        ("foo(1)", "unknown function 'foo' at offset 0"),
        ("1 / 0", "division by zero at offset 2"),
        ("1 % 0", "modulo by zero at offset 2"),
        (
            "10 ^ 400",
            "result is not a finite number ('^' gave inf) at offset 3",
        ),
        (
            "exp(1000)",
            "result is not a finite number (exp gave inf) at offset 0",
        ),
        (
            "1e308 * 10",
            "result is not a finite number ('*' gave inf) at offset 6",
        ),
        (
            "atan2(1)",
            "expected 2 arguments to atan2, got 1 at offset 0",
        ),
        (
            "sqrt(1, 2)",
            "expected 1 argument to sqrt, got 2 at offset 0",
        ),
        (
            "log(1, 2, 3)",
            "expected 1 or 2 arguments to log, got 3 at offset 0",
        ),
        (
            "max()",
            "expected at least 1 argument to max, got 0 at offset 0",
        ),
        (
            "hypot(1)",
            "expected at least 2 arguments to hypot, got 1 at offset 0",
        ),
        ("(1 + 2", "missing ')' to close '(' at offset 0"),
        ("min(1, 2", "missing ')' to close '(' at offset 3"),
        ("min(1,)", "unexpected ')' at offset 6"),
        ("1 +", "unexpected end of expression at offset 3"),
        ("* 2", "unexpected '*' at offset 0"),
        ("2 3", "unexpected '3' at offset 2 (missing operator?)"),
        ("2 (3)", "unexpected '(' at offset 2 (missing operator?)"),
        ("1 # 2", "unexpected character '#' at offset 2"),
        ("1 + é", "unexpected character 'é' at offset 4"),
        ("1 + .", "unexpected '.' at offset 4"),
        ("1e999", "number '1e999' at offset 0 is too large"),
        (
            "sin + 1",
            "function 'sin' at offset 0 needs its arguments in parentheses, e.g. sin(x)",
        ),
        ("sqrt(-1)", "sqrt of a negative number (-1) at offset 0"),
        (
            "sqrt(-1e300)",
            "sqrt of a negative number (-1e300) at offset 0",
        ),
        ("ln(0)", "ln of a non-positive number (0) at offset 0"),
        (
            "log(8, 1)",
            "log base must be positive and not 1, got 1 at offset 0",
        ),
        ("asin(2)", "asin is defined from -1 to 1, got 2 at offset 0"),
        (
            "2.5!",
            "factorial is defined for integers from 0 to 170, got 2.5 at offset 3",
        ),
        (
            "fact(171)",
            "factorial is defined for integers from 0 to 170, got 171 at offset 0",
        ),
        (
            "(-1)!",
            "factorial is defined for integers from 0 to 170, got -1 at offset 4",
        ),
        (
            "round(1, 0.5)",
            "round digits must be an integer from -15 to 15, got 0.5 at offset 0",
        ),
        (
            "0 ^ -1",
            "result is not a finite number ('^' gave inf) at offset 2",
        ),
        ("   ", "expression is empty"),
    ];
    for (expression, expected) in cases {
        assert_eq!(eval_err(expression), expected, "for {expression:?}");
    }
    // Syntax errors win over evaluation errors; the first evaluation error wins over later ones.
    assert_eq!(eval_err("1/0 + )"), "unexpected ')' at offset 6");
    assert_eq!(
        eval_err("sqrt(-1) + 1/0"),
        "sqrt of a negative number (-1) at offset 0"
    );
    let long = "1+".repeat(500) + "1";
    assert_eq!(
        eval_err(&long),
        "expression is too long: 1001 characters (maximum 1000)"
    );
    let error = eval_with("(1 + 2))", AngleUnit::Radians, &[]);
    assert_eq!(error.map_err(|e| e.offset), Err(Some(7)));
}

#[test]
fn depth_limit() {
    let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(eval(&nested(200)), 1.0);
    let too_deep = eval_err(&nested(300));
    assert!(
        too_deep.starts_with("expression is nested too deeply (more than 256 levels)"),
        "{too_deep}"
    );
    assert!(
        eval_err(&format!("{}1", "-".repeat(400))).starts_with("expression is nested too deeply")
    );
    assert!(
        eval_err(&format!("{}2", "2^".repeat(300))).starts_with("expression is nested too deeply")
    );
    let calls = format!("{}1{}", "-abs(".repeat(130), ")".repeat(130));
    assert!(eval_err(&calls).starts_with("expression is nested too deeply"));
    // Long flat chains are not nesting.
    assert_eq!(eval(&("1+".repeat(499) + "1")), 500.0);
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC{0,200}") {
        let _ = eval_with(&s, AngleUnit::Degrees, &[("x", 1.5)]);
    }

    #[test]
    fn never_panics_on_expression_alphabet(s in "[0-9a-z+\\-*/%^!(),. eE_]{0,120}") {
        let result = eval_with(&s, AngleUnit::Radians, &[("x", 2.0)]);
        if let Ok(value) = result {
            prop_assert!(value.is_finite());
        }
    }

    #[test]
    fn integer_arithmetic_matches_rust(a in -1000i64..1000, b in -1000i64..1000, c in 1i64..50) {
        let expression = format!("{a} * {b} - {a} % {c} + ({b})^2");
        let expected = (a * b - a % c + b * b) as f64;
        prop_assert_eq!(eval_with(&expression, AngleUnit::Radians, &[]), Ok(expected));
    }
}
