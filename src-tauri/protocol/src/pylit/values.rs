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
                // JSON's spellings too: OLMo 3 and LFM2 write them, and vLLM's and SGLang's
                // readers accept them.
                Some("True") => Ok(Value::Bool(true)),
                Some("False") => Ok(Value::Bool(false)),
                Some("None") => Ok(Value::Null),
                Some("true") if !self.strict => Ok(Value::Bool(true)),
                Some("false") if !self.strict => Ok(Value::Bool(false)),
                Some("null") if !self.strict => Ok(Value::Null),
                Some(_) if self.options.bare_names || self.options.nested_calls => {
                    self.name_value(start, depth)
                }
                Some(name) => {
                    let hint = match name {
                        "none" | "nil" => " (Python spells it None)",
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

    /// A name as a value, its first part read from `start`: a nested call or the name's text,
    /// as [`Options`] allow; otherwise the error a non-literal is.
    fn name_value(&mut self, start: usize, depth: usize) -> Result<Value, Error> {
        while self.peek() == Some(b'.') {
            self.pos += 1;
            if self.ident().is_none() {
                return Err(self.unexpected("a name after '.'"));
            }
        }
        let end = self.pos;
        let name = self.src.get(start..end).unwrap_or_default().to_owned();
        self.skip_ws();
        if self.options.nested_calls && self.peek() == Some(b'(') {
            if depth >= MAX_DEPTH {
                return Err(self.error(
                    ErrorKind::TooDeep,
                    start,
                    format!("values nested deeper than {MAX_DEPTH} levels are not read"),
                ));
            }
            return self.nested_call(name, depth);
        }
        self.pos = end;
        if self.options.bare_names {
            self.bare_seen.push((start, end - start));
            return Ok(Value::String(name));
        }
        Err(Error {
            kind: ErrorKind::Syntax,
            offset: start,
            len: end - start,
            message: format!("'{name}' is not a literal"),
        })
    }

    /// `name(…)` as a value, at its `(`: positional values and keyword arguments.
    fn nested_call(&mut self, name: String, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        self.open.push(b')');
        let mut positional = Vec::new();
        let mut keywords = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error(&format!("the call to '{name}'"))),
                Some(_) => {}
            }
            match self.keyword() {
                // A repeated keyword: the later wins, as in a dict (Python rejects the call).
                Some(key) => {
                    let value = self.value(depth + 1)?;
                    keywords.insert(key.to_owned(), value);
                }
                None => positional.push(self.value(depth + 1)?),
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error(&format!("the call to '{name}'"))),
                Some(_) => {
                    return Err(self.unexpected(&format!("',' or ')' in the call to '{name}'")))
                }
            }
        }
        self.open.pop();
        let mut call = Map::new();
        call.insert("name".to_owned(), Value::String(name));
        call.insert("arguments".to_owned(), Value::Array(positional));
        call.insert("keywords".to_owned(), Value::Object(keywords));
        Ok(Value::Object(call))
    }

    pub(super) fn list(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        self.open.push(b']');
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
        self.open.pop();
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
        self.open.push(b')');
        let first = self.value(depth + 1)?;
        self.skip_ws();
        match self.peek() {
            Some(b')') => {
                self.pos += 1;
                self.open.pop();
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
        self.open.pop();
        Ok(Value::Array(self.values.drain(mark..).collect()))
    }

    /// A dict, or a set (`{'a', 'b'}`), which becomes an array in written order: JSON has no
    /// sets, and vLLM and SGLang read them so.
    pub(super) fn dict(&mut self, depth: usize) -> Result<Value, Error> {
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Object(Map::new()));
        }
        self.open.push(b'}');
        let first_start = self.pos;
        let first = self.value(depth + 1)?;
        self.skip_ws();
        let value = match self.peek() {
            Some(b':') => self.dict_from(depth, first, first_start)?,
            Some(b',' | b'}') => self.set_from(depth, first)?,
            None => return Err(self.end_error("a dict")),
            Some(_) => return Err(self.unexpected("':' after a dict key, or ',' in a set")),
        };
        self.open.pop();
        Ok(value)
    }

    /// The rest of a set whose first item is read, up to its `}`.
    fn set_from(&mut self, depth: usize, first: Value) -> Result<Value, Error> {
        let mark = self.values.len();
        self.values.push(first);
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.end_error("a set")),
                Some(_) => return Err(self.unexpected("',' or '}' in a set")),
            }
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let item = self.value(depth + 1)?;
            self.values.push(item);
        }
        Ok(Value::Array(self.values.drain(mark..).collect()))
    }

    /// The rest of a dict whose first key is read (`pos` on its `:`), up to its `}`.
    fn dict_from(
        &mut self,
        depth: usize,
        first: Value,
        first_start: usize,
    ) -> Result<Value, Error> {
        let mark = self.entries.len();
        let mut key = first;
        let mut key_start = first_start;
        loop {
            let Value::String(name) = key else {
                return Err(Error {
                    kind: ErrorKind::Syntax,
                    offset: key_start,
                    len: self.pos.saturating_sub(key_start),
                    message: format!(
                        "dict keys must be strings (JSON objects have string keys), found {}",
                        crate::request::json_kind(&key)
                    ),
                });
            };
            self.skip_ws();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.end_error("a dict")),
                Some(_) => return Err(self.unexpected("':' after a dict key")),
            }
            let value = self.value(depth + 1)?;
            self.entries.push((name, value));
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
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            key_start = self.pos;
            key = self.value(depth + 1)?;
        }
        // A later duplicate key replaces the value and keeps the first position, as in Python.
        let entries = self.entries.drain(mark..);
        let mut map = Map::with_capacity(entries.len());
        map.extend(entries);
        Ok(Value::Object(map))
    }
}
