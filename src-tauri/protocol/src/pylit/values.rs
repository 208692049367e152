//! Reading values and containers: lists, tuples and dicts, with nesting bounded by
//! [`MAX_DEPTH`].

use serde_json::{Map, Value};

use super::*;

impl<'a> Parser<'a> {
    /// A value nested in `depth` containers.
    pub(super) fn value(&mut self, depth: usize) -> Result<Value, Error> {
        self.skip_ws();
        let start = self.pos;
        let Some(b) = self.peek() else {
            return Err(self.end_error("a value"));
        };
        match b {
            b'[' | b'(' | b'{' if depth >= MAX_DEPTH => Err(self.error(
                ErrorKind::TooDeep,
                start,
                format!("values nested deeper than {MAX_DEPTH} levels are not read"),
            )),
            b'[' => self.list(depth),
            b'(' => self.tuple(depth),
            b'{' => self.dict(depth),
            b'\'' | b'"' => self.string().map(Value::String),
            b'-' | b'+' | b'0'..=b'9' => self.number(),
            b'.' if self.peek_at(start + 1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
            _ if self.at_string_start() => self.string().map(Value::String),
            _ => match self.ident() {
                Some("True") => Ok(Value::Bool(true)),
                Some("False") => Ok(Value::Bool(false)),
                Some("None") => Ok(Value::Null),
                Some(name) => {
                    let hint = match name {
                        "true" => " (Python spells it True)",
                        "false" => " (Python spells it False)",
                        "null" | "none" | "nil" => " (Python spells it None)",
                        "inf" | "nan" => " (and not representable in JSON)",
                        _ => "",
                    };
                    Err(Error {
                        kind: ErrorKind::Syntax,
                        offset: start,
                        len: name.len(),
                        message: format!(
                            "'{name}' is not a literal{hint}; values must be strings, numbers, \
                             True, False, None, lists, tuples or dicts"
                        ),
                    })
                }
                None => Err(self.unexpected("a value")),
            },
        }
    }

    pub(super) fn list(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        let mark = self.values.len();
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            let item = self.value(depth + 1)?;
            self.values.push(item);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error("a list")),
                Some(_) => return Err(self.unexpected("',' or ']' in a list")),
            }
        }
        Ok(Value::Array(self.values.drain(mark..).collect()))
    }

    /// `()` and `(a, b)` are arrays; `(a)` is only `a` in parentheses.
    pub(super) fn tuple(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b')') {
            self.pos += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let first = self.value(depth + 1)?;
        self.skip_ws();
        match self.peek() {
            Some(b')') => {
                self.pos += 1;
                return Ok(first);
            }
            Some(b',') => self.pos += 1,
            None => return Err(self.end_error("a tuple")),
            Some(_) => return Err(self.unexpected("',' or ')' in a tuple")),
        }
        let mark = self.values.len();
        self.values.push(first);
        loop {
            self.skip_ws();
            if self.peek() == Some(b')') {
                self.pos += 1;
                break;
            }
            let item = self.value(depth + 1)?;
            self.values.push(item);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error("a tuple")),
                Some(_) => return Err(self.unexpected("',' or ')' in a tuple")),
            }
        }
        Ok(Value::Array(self.values.drain(mark..).collect()))
    }

    pub(super) fn dict(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        let mark = self.entries.len();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key_start = self.pos;
            let key = match self.value(depth + 1)? {
                Value::String(key) => key,
                other => {
                    return Err(Error {
                        kind: ErrorKind::Syntax,
                        offset: key_start,
                        len: self.pos.saturating_sub(key_start),
                        message: format!(
                            "dict keys must be strings (JSON objects have string keys), found {}",
                            crate::request::json_kind(&other)
                        ),
                    })
                }
            };
            self.skip_ws();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.end_error("a dict")),
                Some(_) => return Err(self.unexpected("':' after a dict key (sets are not JSON)")),
            }
            let value = self.value(depth + 1)?;
            self.entries.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error("a dict")),
                Some(_) => return Err(self.unexpected("',' or '}' in a dict")),
            }
        }
        // A later duplicate key replaces the value and keeps the first position, as in Python.
        let entries = self.entries.drain(mark..);
        let mut map = Map::with_capacity(entries.len());
        map.extend(entries);
        Ok(Value::Object(map))
    }
}
