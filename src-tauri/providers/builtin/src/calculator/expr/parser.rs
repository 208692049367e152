//! The tokenizer and the recursive-descent parser that computes as it parses.

use super::functions::{arity, arity_message, lookup_constant, lookup_function};
use super::*;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
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
pub(super) struct Token<'a> {
    pub(super) kind: Kind,
    text: &'a str,
    offset: usize,
}

pub(super) fn unexpected(tok: Token<'_>, after_operand: bool) -> ExprError {
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

pub(super) fn skip_digits(bytes: &[u8], pos: &mut usize) -> usize {
    let start = *pos;
    while bytes.get(*pos).is_some_and(u8::is_ascii_digit) {
        *pos += 1;
    }
    *pos - start
}

pub(super) struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// The lookahead token.
    pub(super) tok: Token<'a>,
    depth: usize,
    pub(super) options: &'a EvalOptions,
    /// The first evaluation error; reported only if the whole expression parses.
    pub(super) fault: Option<ExprError>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str, options: &'a EvalOptions) -> Result<Self, ExprError> {
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

    pub(super) fn lex(&mut self) -> Result<Token<'a>, ExprError> {
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

    pub(super) fn token(&self, kind: Kind, start: usize) -> Token<'a> {
        Token {
            kind,
            text: self.src.get(start..self.pos).unwrap_or(""),
            offset: start,
        }
    }

    pub(super) fn number(&mut self, start: usize) -> Result<Token<'a>, ExprError> {
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
    pub(super) fn advance(&mut self) -> Result<Token<'a>, ExprError> {
        let next = self.lex()?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    pub(super) fn fault(&mut self, message: String, offset: usize) {
        if self.fault.is_none() {
            self.fault = Some(err(format!("{message} at offset {offset}"), Some(offset)));
        }
    }

    pub(super) fn finite(&mut self, value: f64, what: &str, offset: usize) -> f64 {
        if !value.is_finite() {
            self.fault(
                format!("result is not a finite number ({what} gave {value})"),
                offset,
            );
        }
        value
    }

    pub(super) fn expr(&mut self) -> Result<f64, ExprError> {
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

    pub(super) fn term(&mut self) -> Result<f64, ExprError> {
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

    pub(super) fn unary(&mut self) -> Result<f64, ExprError> {
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

    pub(super) fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.postfix()?;
        if self.tok.kind != Kind::Caret {
            return Ok(base);
        }
        let op = self.advance()?;
        let exponent = self.unary()?;
        Ok(self.finite(base.powf(exponent), &format!("'{}'", op.text), op.offset))
    }

    pub(super) fn postfix(&mut self) -> Result<f64, ExprError> {
        let mut value = self.primary()?;
        while self.tok.kind == Kind::Bang {
            let op = self.advance()?;
            value = self.factorial(value, op.offset);
        }
        Ok(value)
    }

    pub(super) fn primary(&mut self) -> Result<f64, ExprError> {
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
    pub(super) fn close(&mut self, open: Token<'a>) -> Result<(), ExprError> {
        match self.tok.kind {
            Kind::RParen => self.advance().map(drop),
            Kind::End => Err(err(
                format!("missing ')' to close '(' at offset {}", open.offset),
                Some(open.offset),
            )),
            _ => Err(unexpected(self.tok, true)),
        }
    }

    pub(super) fn name(&mut self, tok: Token<'a>) -> Result<f64, ExprError> {
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

    pub(super) fn call(&mut self, name: Token<'a>) -> Result<f64, ExprError> {
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
}
