//! Reading `call:NAME{key:value,…}` into a name and a JSON arguments object.
//!
//! One pass, left to right: every byte is looked at a bounded number of times (a string's end
//! is found with one forward search from its start), so the cost is linear in the call's size.
//! Nesting is walked recursively but capped at [`MAX_DEPTH`], so no input exhausts the stack.

use serde_json::{Map, Number, Value};

/// Deeper nesting than any tool's arguments need; past it a call is refused, not read.
pub const MAX_DEPTH: usize = 64;

/// Why a call could not be read, at a byte offset into the text handed to [`read_call`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub at: usize,
    pub message: String,
}

/// Something read that the syntax does not quite allow, kept but worth a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadNote {
    pub at: usize,
    pub message: String,
}

/// A call read from the start of a block's body.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmaCall {
    pub name: String,
    pub args: Map<String, Value>,
    /// Where the arguments' closing `}` ends: what follows is not part of the call.
    pub end: usize,
    pub notes: Vec<ReadNote>,
}

/// Reads `call:NAME{…}` at the start of `text` (after whitespace), strings delimited by `quote`.
/// A stray `:` before `call:` (`<|tool_call>:call:…`, seen from Gemma 4) is tolerated.
pub fn read_call(text: &str, quote: &str) -> Result<GemmaCall, ReadError> {
    let mut start = text.len() - text.trim_start().len();
    if text[start..].starts_with(":call:") {
        start += 1;
    }
    let Some(after_call) = text[start..].strip_prefix("call:") else {
        return Err(ReadError {
            at: start,
            message: "does not start with 'call:NAME{'".to_owned(),
        });
    };
    let name_start = start + "call:".len();
    let Some(brace) = after_call.find('{') else {
        return Err(ReadError {
            at: name_start,
            message: "has no '{' after the function name".to_owned(),
        });
    };
    let name = after_call[..brace].trim();
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains(['}', ',', ':']) {
        return Err(ReadError {
            at: name_start,
            message: format!("has no usable function name before '{{' ('{name}')"),
        });
    }
    let mut reader = Reader {
        text,
        quote,
        pos: name_start + brace,
        notes: Vec::new(),
    };
    let args = reader.object(0)?;
    Ok(GemmaCall {
        name: name.to_owned(),
        args,
        end: reader.pos,
        notes: reader.notes,
    })
}

/// Reads one value (`<|"|>text<|"|>`, `{…}`, `[…]`, a number, `true`, …) that makes up all of
/// `text` apart from surrounding whitespace.
pub fn read_value(text: &str, quote: &str) -> Result<Value, ReadError> {
    let mut reader = Reader {
        text,
        quote,
        pos: 0,
        notes: Vec::new(),
    };
    let value = reader.value(0, b",}]")?;
    reader.skip_whitespace();
    if reader.pos < text.len() {
        return Err(reader.error("has text after the value"));
    }
    Ok(value)
}

struct Reader<'a> {
    text: &'a str,
    quote: &'a str,
    pos: usize,
    notes: Vec<ReadNote>,
}

impl Reader<'_> {
    fn error(&self, message: impl Into<String>) -> ReadError {
        ReadError {
            at: self.pos.min(self.text.len()),
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn at_quote(&self) -> bool {
        // Bytes, not a str slice: the cursor may stand inside a multi-byte character.
        self.text
            .as_bytes()
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(self.quote.as_bytes()))
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Commas and whitespace between members. The separator is optional: FunctionGemma has been
    /// seen writing `a:<escape>x<escape>b:<escape>y<escape>`, which vLLM reads as two keys.
    fn skip_separators(&mut self) {
        while self
            .peek()
            .is_some_and(|b| b == b',' || b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize, ends: &[u8]) -> Result<Value, ReadError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nests values more than {MAX_DEPTH} levels deep")));
        }
        self.skip_whitespace();
        if self.at_quote() {
            return self.string().map(Value::String);
        }
        match self.peek() {
            Some(b'{') => self.object(depth + 1).map(Value::Object),
            Some(b'[') => self.array(depth + 1),
            Some(_) => self.bare(ends),
            None => Err(self.error("is cut off where a value should be")),
        }
    }

    fn string(&mut self) -> Result<String, ReadError> {
        let start = self.pos + self.quote.len();
        match self.text[start..].find(self.quote) {
            Some(length) => {
                self.pos = start + length + self.quote.len();
                Ok(self.text[start..start + length].to_owned())
            }
            None => Err(self.error(format!(
                "has a string that is not closed by {} (cut off?)",
                self.quote
            ))),
        }
    }

    /// `{key:value,…}` starting at the `{` under the cursor.
    fn object(&mut self, depth: usize) -> Result<Map<String, Value>, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_separators();
            match self.peek() {
                None => {
                    self.pos = open;
                    return Err(self.error("has an object that is never closed by '}' (cut off?)"));
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(map);
                }
                Some(_) => {
                    let key_at = self.pos;
                    let key = self.key()?;
                    let value = self.value(depth, b",}]")?;
                    if map.insert(key.clone(), value).is_some() {
                        self.notes.push(ReadNote {
                            at: key_at,
                            message: format!("repeats the key '{key}'; the last value is kept"),
                        });
                    }
                }
            }
        }
    }

    /// A key up to its `:`: bare (`location`) or quoted (`<|"|>3<|"|>`, as the template writes
    /// the keys of object values).
    fn key(&mut self) -> Result<String, ReadError> {
        let key = if self.at_quote() {
            let key = self.string()?;
            self.skip_whitespace();
            key
        } else {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b':' || b"{}[],".contains(&b) || self.at_quote() {
                    break;
                }
                self.pos += 1;
            }
            let key = self.text[start..self.pos].trim();
            key.strip_prefix('"')
                .and_then(|k| k.strip_suffix('"'))
                .unwrap_or(key)
                .to_owned()
        };
        if self.peek() != Some(b':') {
            return Err(self.error(format!("expects ':' after the key '{key}'")));
        }
        if key.is_empty() {
            return Err(self.error("has an empty key"));
        }
        self.pos += 1;
        Ok(key)
    }

    fn array(&mut self, depth: usize) -> Result<Value, ReadError> {
        let open = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_separators();
            match self.peek() {
                None => {
                    self.pos = open;
                    return Err(self.error("has a list that is never closed by ']' (cut off?)"));
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => items.push(self.value(depth, b",]}")?),
            }
        }
    }

    /// An unquoted value up to the next `,`, `}` or `]`: a number, a boolean, null, or text.
    fn bare(&mut self, ends: &[u8]) -> Result<Value, ReadError> {
        let start = self.pos;
        while self.peek().is_some_and(|b| !ends.contains(&b)) {
            self.pos += 1;
        }
        let token = self.text[start..self.pos].trim();
        if token.is_empty() {
            return Err(self.error("has a key with no value"));
        }
        if let Some(value) = literal(token) {
            return Ok(value);
        }
        self.notes.push(ReadNote {
            at: start,
            message: format!("has the unquoted value '{token}', read as text"),
        });
        Ok(Value::String(token.to_owned()))
    }
}

/// A bare token as JSON: booleans and null in any case (`True`, `None` from Python habits, `nil`
/// as vLLM accepts), JSON numbers and strings, and numbers like `108.` that Python's `float`
/// reads. Anything else is not a literal.
fn literal(token: &str) -> Option<Value> {
    match token.to_ascii_lowercase().as_str() {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" | "none" | "nil" => return Some(Value::Null),
        _ => {}
    }
    if let Ok(value @ (Value::Number(_) | Value::String(_))) = serde_json::from_str::<Value>(token)
    {
        return Some(value);
    }
    let numeric = token
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        && token.bytes().any(|b| b.is_ascii_digit());
    if numeric {
        if let Ok(float) = token.parse::<f64>() {
            return Number::from_f64(float).map(Value::Number);
        }
    }
    None
}
