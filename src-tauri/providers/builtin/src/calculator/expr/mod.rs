//! The expression evaluator behind `calculator_evaluate`: a hand-written tokenizer and a
//! recursive-descent parser that computes as it parses. Nothing is ever handed to an interpreter.
//!
//! Grammar, loosest binding first:
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/' | '%') unary)*
//! unary   := ('+' | '-') unary | power
//! power   := postfix ('^' unary)?          right-associative; `**` is an alias of `^`
//! postfix := primary '!'*
//! primary := number | name | name '(' (expr (',' expr)*)? ')' | '(' expr ')'
//! ```
//!
//! So `-2^2` is `-(2^2)`, `2^3^2` is `2^(3^2)` and `2^-1` is allowed. Syntax errors win over
//! evaluation errors: a domain problem (division by zero, `sqrt(-1)`) is remembered and parsing
//! goes on, so `1/0 + )` reports the `)`. Every recursion passes through `unary`, which enforces
//! [`MAX_DEPTH`]. Offsets are byte offsets; they equal character offsets because every token is
//! ASCII and the lexer stops at the first character that is not.

use std::collections::BTreeMap;

/// Longest accepted expression, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 1000;
/// Deepest accepted nesting (parentheses, function arguments, unary signs, exponents).
pub const MAX_DEPTH: usize = 256;

/// How trigonometric functions read and return angles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AngleUnit {
    #[default]
    Radians,
    Degrees,
}

/// What an expression may refer to besides the built-ins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOptions {
    pub angle_unit: AngleUnit,
    /// User variables by exact (case-sensitive) name.
    pub variables: BTreeMap<String, f64>,
}

/// Why an expression has no value. `message` is complete (it names the offset when there is one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExprError {
    pub message: String,
    /// Byte offset of the offending token, when the error has a place.
    pub offset: Option<usize>,
}

fn err(message: impl Into<String>, offset: Option<usize>) -> ExprError {
    ExprError {
        message: message.into(),
        offset,
    }
}

/// Whether `name` could be written in an expression as a variable.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `value` rounded to `precision` significant digits (0: unrounded), in plain notation between
/// 1e-6 and 1e15 and in exponent notation (`1.5e20`) outside.
pub fn format_significant(value: f64, precision: u32) -> String {
    let rounded = if precision == 0 || !value.is_finite() {
        value
    } else {
        let digits = precision.min(17) as usize - 1;
        format!("{value:.digits$e}").parse().unwrap_or(value)
    };
    if rounded == 0.0 {
        return "0".into();
    }
    if (1e-6..1e15).contains(&rounded.abs()) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

/// A number in an error message: full precision, exponent notation when very large or small.
fn show(value: f64) -> String {
    format_significant(value, 0)
}

/// Evaluates `expression`. The result is always finite.
pub fn evaluate(expression: &str, options: &EvalOptions) -> Result<f64, ExprError> {
    let chars = expression.chars().count();
    if chars > MAX_EXPRESSION_CHARS {
        return Err(err(
            format!("expression is too long: {chars} characters (maximum {MAX_EXPRESSION_CHARS})"),
            None,
        ));
    }
    if expression.bytes().all(|b| b.is_ascii_whitespace()) {
        return Err(err("expression is empty", None));
    }
    for (name, value) in &options.variables {
        if !is_identifier(name) {
            return Err(err(format!("variable name '{name}' is not valid: use letters, digits and '_', not starting with a digit"), None));
        }
        if lookup_constant(name).is_some() || lookup_function(name).is_some() {
            return Err(err(
                format!("variable name '{name}' is reserved for a built-in constant or function"),
                None,
            ));
        }
        if !value.is_finite() {
            return Err(err(
                format!("variable '{name}' is not a finite number"),
                None,
            ));
        }
    }
    let mut parser = Parser::new(expression, options)?;
    let value = parser.expr()?;
    if parser.tok.kind != Kind::End {
        return Err(unexpected(parser.tok, true));
    }
    if let Some(fault) = parser.fault {
        return Err(fault);
    }
    if !value.is_finite() {
        return Err(err("result is not a finite number", None));
    }
    Ok(value)
}

mod functions;
mod parser;

pub use functions::{constant_names, function_names};
use functions::{lookup_constant, lookup_function};
use parser::{unexpected, Kind, Parser};

#[cfg(test)]
mod tests;
