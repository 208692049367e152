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
use std::f64::consts::{E, PI, TAU};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    Sqrt,
    Cbrt,
    Abs,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Ln,
    Log10,
    Log,
    Exp,
    Floor,
    Ceil,
    Round,
    Trunc,
    Min,
    Max,
    Hypot,
    Fact,
}

const FUNCTIONS: [(&str, Func); 22] = [
    ("sqrt", Func::Sqrt),
    ("cbrt", Func::Cbrt),
    ("abs", Func::Abs),
    ("sin", Func::Sin),
    ("cos", Func::Cos),
    ("tan", Func::Tan),
    ("asin", Func::Asin),
    ("acos", Func::Acos),
    ("atan", Func::Atan),
    ("atan2", Func::Atan2),
    ("ln", Func::Ln),
    ("log10", Func::Log10),
    ("log", Func::Log),
    ("exp", Func::Exp),
    ("floor", Func::Floor),
    ("ceil", Func::Ceil),
    ("round", Func::Round),
    ("trunc", Func::Trunc),
    ("min", Func::Min),
    ("max", Func::Max),
    ("hypot", Func::Hypot),
    ("fact", Func::Fact),
];

const CONSTANTS: [(&str, f64); 3] = [("pi", PI), ("e", E), ("tau", TAU)];

/// Names of the built-in functions (matched case-insensitively, like the constants).
pub fn function_names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|(name, _)| *name)
}

/// Names of the built-in constants.
pub fn constant_names() -> impl Iterator<Item = &'static str> {
    CONSTANTS.iter().map(|(name, _)| *name)
}

fn lookup_function(name: &str) -> Option<Func> {
    FUNCTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, f)| *f)
}

fn lookup_constant(name: &str) -> Option<f64> {
    CONSTANTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// Minimum and maximum (None: unbounded) argument counts.
fn arity(f: Func) -> (usize, Option<usize>) {
    match f {
        Func::Atan2 => (2, Some(2)),
        Func::Log | Func::Round => (1, Some(2)),
        Func::Min | Func::Max => (1, None),
        Func::Hypot => (2, None),
        _ => (1, Some(1)),
    }
}

fn arity_message(name: &str, f: Func, got: usize) -> String {
    let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
    let expected = match arity(f) {
        (min, Some(max)) if min == max => format!("{min} {}", plural(min)),
        (min, Some(max)) => format!("{min} or {max} arguments"),
        (min, None) => format!("at least {min} {}", plural(min)),
    };
    format!("expected {expected} to {name}, got {got}")
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

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Num(f64),
    Ident,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Bang,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
    offset: usize,
}

fn unexpected(tok: Token<'_>, after_operand: bool) -> ExprError {
    let offset = tok.offset;
    let message = match tok.kind {
        Kind::End => format!("unexpected end of expression at offset {offset}"),
        Kind::Num(_) | Kind::Ident | Kind::LParen if after_operand => format!(
            "unexpected '{}' at offset {offset} (missing operator?)",
            tok.text
        ),
        _ => format!("unexpected '{}' at offset {offset}", tok.text),
    };
    err(message, Some(offset))
}

fn skip_digits(bytes: &[u8], pos: &mut usize) -> usize {
    let start = *pos;
    while bytes.get(*pos).is_some_and(u8::is_ascii_digit) {
        *pos += 1;
    }
    *pos - start
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// The lookahead token.
    tok: Token<'a>,
    depth: usize,
    options: &'a EvalOptions,
    /// The first evaluation error; reported only if the whole expression parses.
    fault: Option<ExprError>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, options: &'a EvalOptions) -> Result<Self, ExprError> {
        let mut parser = Self {
            src,
            pos: 0,
            tok: Token {
                kind: Kind::End,
                text: "",
                offset: 0,
            },
            depth: 0,
            options,
            fault: None,
        };
        parser.tok = parser.lex()?;
        Ok(parser)
    }

    fn lex(&mut self) -> Result<Token<'a>, ExprError> {
        let bytes = self.src.as_bytes();
        while bytes.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(&first) = bytes.get(start) else {
            return Ok(Token {
                kind: Kind::End,
                text: "",
                offset: start,
            });
        };
        self.pos += 1;
        let kind = match first {
            b'0'..=b'9' | b'.' => return self.number(start),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    self.pos += 1;
                }
                Kind::Ident
            }
            b'+' => Kind::Plus,
            b'-' => Kind::Minus,
            b'*' if bytes.get(self.pos) == Some(&b'*') => {
                self.pos += 1;
                Kind::Caret
            }
            b'*' => Kind::Star,
            b'/' => Kind::Slash,
            b'%' => Kind::Percent,
            b'^' => Kind::Caret,
            b'!' => Kind::Bang,
            b'(' => Kind::LParen,
            b')' => Kind::RParen,
            b',' => Kind::Comma,
            _ => {
                let ch = self.src.get(start..).and_then(|s| s.chars().next());
                let shown = ch.map(|c| c.escape_debug().to_string()).unwrap_or_default();
                return Err(err(
                    format!("unexpected character '{shown}' at offset {start}"),
                    Some(start),
                ));
            }
        };
        Ok(self.token(kind, start))
    }

    fn token(&self, kind: Kind, start: usize) -> Token<'a> {
        Token {
            kind,
            text: self.src.get(start..self.pos).unwrap_or(""),
            offset: start,
        }
    }

    fn number(&mut self, start: usize) -> Result<Token<'a>, ExprError> {
        let bytes = self.src.as_bytes();
        let mut pos = start;
        let mut digits = skip_digits(bytes, &mut pos);
        if bytes.get(pos) == Some(&b'.') {
            pos += 1;
            digits += skip_digits(bytes, &mut pos);
        }
        if digits == 0 {
            return Err(err(
                format!("unexpected '.' at offset {start}"),
                Some(start),
            ));
        }
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            let mut exp = pos + 1;
            if matches!(bytes.get(exp), Some(b'+' | b'-')) {
                exp += 1;
            }
            if skip_digits(bytes, &mut exp) > 0 {
                pos = exp;
            }
        }
        self.pos = pos;
        let text = self.src.get(start..pos).unwrap_or("");
        let value: f64 = text.parse().map_err(|_| {
            err(
                format!("invalid number '{text}' at offset {start}"),
                Some(start),
            )
        })?;
        if !value.is_finite() {
            return Err(err(
                format!("number '{text}' at offset {start} is too large"),
                Some(start),
            ));
        }
        Ok(self.token(Kind::Num(value), start))
    }

    /// Consumes the lookahead and returns it.
    fn advance(&mut self) -> Result<Token<'a>, ExprError> {
        let next = self.lex()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    fn fault(&mut self, message: String, offset: usize) {
        if self.fault.is_none() {
            self.fault = Some(err(format!("{message} at offset {offset}"), Some(offset)));
        }
    }

    fn finite(&mut self, value: f64, what: &str, offset: usize) -> f64 {
        if !value.is_finite() {
            self.fault(
                format!("result is not a finite number ({what} gave {value})"),
                offset,
            );
        }
        value
    }

    fn expr(&mut self) -> Result<f64, ExprError> {
        let mut acc = self.term()?;
        while matches!(self.tok.kind, Kind::Plus | Kind::Minus) {
            let op = self.advance()?;
            let rhs = self.term()?;
            let value = if op.kind == Kind::Plus {
                acc + rhs
            } else {
                acc - rhs
            };
            acc = self.finite(value, &format!("'{}'", op.text), op.offset);
        }
        Ok(acc)
    }

    fn term(&mut self) -> Result<f64, ExprError> {
        let mut acc = self.unary()?;
        while matches!(self.tok.kind, Kind::Star | Kind::Slash | Kind::Percent) {
            let op = self.advance()?;
            let rhs = self.unary()?;
            let value = match op.kind {
                Kind::Star => acc * rhs,
                Kind::Slash => {
                    if rhs == 0.0 {
                        self.fault("division by zero".into(), op.offset);
                    }
                    acc / rhs
                }
                _ => {
                    if rhs == 0.0 {
                        self.fault("modulo by zero".into(), op.offset);
                    }
                    acc % rhs
                }
            };
            acc = self.finite(value, &format!("'{}'", op.text), op.offset);
        }
        Ok(acc)
    }

    fn unary(&mut self) -> Result<f64, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let offset = self.tok.offset;
            return Err(err(
                format!("expression is nested too deeply (more than {MAX_DEPTH} levels) at offset {offset}"),
                Some(offset),
            ));
        }
        let value = match self.tok.kind {
            Kind::Plus => {
                self.advance()?;
                self.unary()?
            }
            Kind::Minus => {
                self.advance()?;
                -self.unary()?
            }
            _ => self.power()?,
        };
        self.depth -= 1;
        Ok(value)
    }

    fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.postfix()?;
        if self.tok.kind != Kind::Caret {
            return Ok(base);
        }
        let op = self.advance()?;
        let exponent = self.unary()?;
        Ok(self.finite(base.powf(exponent), &format!("'{}'", op.text), op.offset))
    }

    fn postfix(&mut self) -> Result<f64, ExprError> {
        let mut value = self.primary()?;
        while self.tok.kind == Kind::Bang {
            let op = self.advance()?;
            value = self.factorial(value, op.offset);
        }
        Ok(value)
    }

    fn primary(&mut self) -> Result<f64, ExprError> {
        let tok = self.advance()?;
        match tok.kind {
            Kind::Num(value) => Ok(value),
            Kind::LParen => {
                let value = self.expr()?;
                self.close(tok)?;
                Ok(value)
            }
            Kind::Ident if self.tok.kind == Kind::LParen => self.call(tok),
            Kind::Ident => self.name(tok),
            _ => Err(unexpected(tok, false)),
        }
    }

    /// Expects the `)` matching `open`.
    fn close(&mut self, open: Token<'a>) -> Result<(), ExprError> {
        match self.tok.kind {
            Kind::RParen => self.advance().map(drop),
            Kind::End => Err(err(
                format!("missing ')' to close '(' at offset {}", open.offset),
                Some(open.offset),
            )),
            _ => Err(unexpected(self.tok, true)),
        }
    }

    fn name(&mut self, tok: Token<'a>) -> Result<f64, ExprError> {
        if let Some(value) = self.options.variables.get(tok.text) {
            return Ok(*value);
        }
        if let Some(value) = lookup_constant(tok.text) {
            return Ok(value);
        }
        let (name, offset) = (tok.text, tok.offset);
        let message = if lookup_function(name).is_some() {
            format!("function '{name}' at offset {offset} needs its arguments in parentheses, e.g. {name}(x)")
        } else {
            format!("unknown variable '{name}' at offset {offset}")
        };
        Err(err(message, Some(offset)))
    }

    fn call(&mut self, name: Token<'a>) -> Result<f64, ExprError> {
        let Some(func) = lookup_function(name.text) else {
            return Err(err(
                format!("unknown function '{}' at offset {}", name.text, name.offset),
                Some(name.offset),
            ));
        };
        let open = self.advance()?;
        let mut args = Vec::new();
        if self.tok.kind == Kind::RParen {
            self.advance()?;
        } else {
            loop {
                args.push(self.expr()?);
                if self.tok.kind != Kind::Comma {
                    self.close(open)?;
                    break;
                }
                self.advance()?;
            }
        }
        let (min, max) = arity(func);
        if args.len() < min || max.is_some_and(|max| args.len() > max) {
            let message = arity_message(name.text, func, args.len());
            return Err(err(
                format!("{message} at offset {}", name.offset),
                Some(name.offset),
            ));
        }
        let value = self.apply(func, name.text, &args, name.offset);
        Ok(self.finite(value, name.text, name.offset))
    }

    fn apply(&mut self, func: Func, name: &str, args: &[f64], offset: usize) -> f64 {
        let x = args.first().copied().unwrap_or(f64::NAN);
        let second = args.get(1).copied();
        let degrees = self.options.angle_unit == AngleUnit::Degrees;
        let angle_out = |radians: f64| {
            if degrees {
                radians.to_degrees()
            } else {
                radians
            }
        };
        match func {
            Func::Sqrt => {
                if x < 0.0 {
                    self.fault(format!("sqrt of a negative number ({})", show(x)), offset);
                }
                x.sqrt()
            }
            Func::Cbrt => x.cbrt(),
            Func::Abs => x.abs(),
            Func::Sin | Func::Cos | Func::Tan => self.trig(func, x, offset),
            Func::Asin | Func::Acos => {
                if !(-1.0..=1.0).contains(&x) {
                    self.fault(
                        format!("{name} is defined from -1 to 1, got {}", show(x)),
                        offset,
                    );
                }
                angle_out(if func == Func::Asin {
                    x.asin()
                } else {
                    x.acos()
                })
            }
            Func::Atan => angle_out(x.atan()),
            Func::Atan2 => angle_out(x.atan2(second.unwrap_or(f64::NAN))),
            Func::Ln | Func::Log10 | Func::Log => {
                if x <= 0.0 {
                    self.fault(
                        format!("{name} of a non-positive number ({})", show(x)),
                        offset,
                    );
                }
                match (func, second) {
                    (Func::Ln, _) => x.ln(),
                    (_, None | Some(10.0)) => x.log10(),
                    (_, Some(2.0)) => x.log2(),
                    (_, Some(base)) => {
                        if base <= 0.0 || base == 1.0 {
                            self.fault(
                                format!("log base must be positive and not 1, got {}", show(base)),
                                offset,
                            );
                        }
                        x.ln() / base.ln()
                    }
                }
            }
            Func::Exp => x.exp(),
            Func::Floor => x.floor(),
            Func::Ceil => x.ceil(),
            Func::Trunc => x.trunc(),
            Func::Round => match second {
                None => x.round(),
                Some(digits) => {
                    if digits.fract() != 0.0 || !(-15.0..=15.0).contains(&digits) {
                        self.fault(
                            format!(
                                "round digits must be an integer from -15 to 15, got {}",
                                show(digits)
                            ),
                            offset,
                        );
                        return f64::NAN;
                    }
                    if x.abs() >= 4_503_599_627_370_496.0 {
                        return x; // 2^52: already an integer
                    }
                    let scale = 10f64.powi(digits as i32);
                    (x * scale).round() / scale
                }
            },
            Func::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Func::Hypot => args.iter().skip(1).fold(x, |acc, v| acc.hypot(*v)),
            Func::Fact => self.factorial(x, offset),
        }
    }

    /// sin, cos and tan. In degrees, multiples of 90 are exact (sin(180) is 0, not 1.2e-16).
    fn trig(&mut self, func: Func, x: f64, offset: usize) -> f64 {
        let radians = if self.options.angle_unit == AngleUnit::Degrees {
            let turn = x.rem_euclid(360.0);
            if turn % 90.0 == 0.0 {
                let quadrant = (turn / 90.0) as u8 % 4;
                return match (func, quadrant) {
                    (Func::Sin, 0 | 2) | (Func::Cos, 1 | 3) | (Func::Tan, 0 | 2) => 0.0,
                    (Func::Sin, 1) | (Func::Cos, 0) => 1.0,
                    (Func::Sin, _) | (Func::Cos, _) => -1.0,
                    _ => {
                        self.fault(format!("tan is undefined at {} degrees", show(x)), offset);
                        f64::NAN
                    }
                };
            }
            x.to_radians()
        } else {
            x
        };
        match func {
            Func::Sin => radians.sin(),
            Func::Cos => radians.cos(),
            _ => radians.tan(),
        }
    }

    fn factorial(&mut self, n: f64, offset: usize) -> f64 {
        if n.fract() != 0.0 || !(0.0..=170.0).contains(&n) {
            self.fault(
                format!(
                    "factorial is defined for integers from 0 to 170, got {}",
                    show(n)
                ),
                offset,
            );
            return f64::NAN;
        }
        (2..=n as u32).fold(1.0, |acc, k| acc * f64::from(k))
    }
}

#[cfg(test)]
mod tests;
