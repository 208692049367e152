//! Reading number literals: decimal, float, hex, octal and binary, with `_` separators, into
//! JSON integers or floats as serde_json would.

use serde_json::{Number, Value};

use super::*;

impl<'a> Parser<'a> {
    /// `[0-9_]*`, consumed.
    pub(super) fn digits(&mut self) -> &'a str {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'_')) {
            self.pos += 1;
        }
        self.src.get(start..self.pos).unwrap_or_default()
    }

    pub(super) fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let mut negative = false;
        if let Some(sign @ (b'-' | b'+')) = self.peek() {
            negative = sign == b'-';
            self.pos += 1;
            self.skip_ws();
        }
        let digits_start = self.pos;
        let invalid = |parser: &Self, why: &str| {
            let mut end = parser.pos;
            while parser
                .peek_at(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            {
                end += 1;
            }
            Error {
                kind: ErrorKind::Syntax,
                offset: start,
                len: end.saturating_sub(start).max(1),
                message: format!(
                    "{:?} is not a number{why}",
                    parser.src.get(start..end).unwrap_or_default()
                ),
            }
        };
        let radix = match (self.peek(), self.peek_at(self.pos + 1)) {
            (Some(b'0'), Some(b'x' | b'X')) => 16,
            (Some(b'0'), Some(b'o' | b'O')) => 8,
            (Some(b'0'), Some(b'b' | b'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.pos += 2;
            let body_start = self.pos;
            while self
                .peek()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                self.pos += 1;
            }
            let body = self
                .src
                .get(body_start..self.pos)
                .unwrap_or_default()
                .replace('_', "");
            return match u128::from_str_radix(&body, radix) {
                Ok(magnitude) => Ok(int_value(magnitude, negative)),
                Err(_) if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) => {
                    Err(invalid(self, ""))
                }
                Err(_) => Err(invalid(self, " this format can hold (too large)")),
            };
        }
        let int_part = self.digits();
        let mut float = false;
        let mut fraction = "";
        if self.peek() == Some(b'.') {
            float = true;
            self.pos += 1;
            fraction = self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            float = true;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.digits().bytes().any(|b| b.is_ascii_digit()) {
                return Err(invalid(self, " (the exponent has no digits)"));
            }
        }
        let has_digit = |s: &str| s.bytes().any(|b| b.is_ascii_digit());
        if !has_digit(int_part) && !has_digit(fraction) {
            return Err(if self.peek().is_none() {
                self.end_error("a number")
            } else {
                invalid(self, "")
            });
        }
        if self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(invalid(self, ""));
        }
        let lexeme = self.src.get(digits_start..self.pos).unwrap_or_default();
        let cleaned: Cow<'_, str> = if lexeme.contains('_') {
            Cow::Owned(lexeme.replace('_', ""))
        } else {
            Cow::Borrowed(lexeme)
        };
        if float {
            let magnitude: f64 = cleaned.parse().map_err(|_| invalid(self, ""))?;
            let value = if negative { -magnitude } else { magnitude };
            return Number::from_f64(value)
                .map(Value::Number)
                .ok_or_else(|| invalid(self, " JSON can hold (out of range)"));
        }
        // Python rejects `07`; models zero-pad dates and codes (`month=07`), and vLLM and
        // SGLang read them as decimal, which `parse` does, except when reading strictly.
        if self.strict && cleaned.starts_with('0') && cleaned.bytes().any(|b| b != b'0') {
            return Err(invalid(self, " (Python rejects leading zeros)"));
        }
        match cleaned.parse::<u128>() {
            Ok(magnitude) => Ok(int_value(magnitude, negative)),
            // Beyond 128 bits: a float, like any integer too large for 64.
            Err(_) => {
                let magnitude: f64 = cleaned.parse().map_err(|_| invalid(self, ""))?;
                let value = if negative { -magnitude } else { magnitude };
                Number::from_f64(value)
                    .map(Value::Number)
                    .ok_or_else(|| invalid(self, " JSON can hold (out of range)"))
            }
        }
    }
}

/// A JSON integer when 64 bits hold it, else the nearest float (as serde_json reads such JSON).
fn int_value(magnitude: u128, negative: bool) -> Value {
    if negative {
        if let Some(v) = i128::try_from(magnitude)
            .ok()
            .and_then(|m| i64::try_from(-m).ok())
        {
            return Value::from(v);
        }
    } else if let Ok(v) = u64::try_from(magnitude) {
        return Value::from(v);
    }
    let float = magnitude as f64;
    let float = if negative { -float } else { float };
    Number::from_f64(float).map_or(Value::Null, Value::Number)
}
