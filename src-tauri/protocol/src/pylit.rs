//! Python call lists and literals, read into JSON: `[f(a=1, b='x'), g(c={'k': None})]`.
//!
//! The pythonic tool-call format (Llama 3.2 / Llama 4 / ToolACE) writes calls as Python source.
//! Servers read it with Python's own `ast` module; we have no interpreter, and a general Python
//! parser would be far more than the format needs, so this is a hand-written recursive-descent
//! reader of exactly the subset the format uses. It never panics, runs in time linear in its
//! input, bounds its recursion (a reply of 100,000 `[` must not overflow the stack), and points
//! every error at a byte so diagnostics can show where a model went wrong.
//!
//! Grammar (whitespace — space, tab, line breaks, form feed — allowed between tokens):
//!
//! ```text
//! call_list := '[' ( call ( ',' call )* ','? )? ']'
//! call      := name ( '.' name )* '(' ( argument ( ',' argument )* ','? )? ')'
//! argument  := name '=' value            (positional arguments are reported: see below)
//! value     := string+ | number | 'True' | 'False' | 'None'
//!            | '[' values ']' | '(' values ')' | '{' ( string ':' value ),* '}'
//! string    := ( 'r' | 'R' | 'u' | 'U' )? ( '…' | "…" | '''…''' | """…""" )
//! number    := ( '-' | '+' )? ( decimal | float | 0x… | 0o… | 0b… )   ('_' separators allowed)
//! ```
//!
//! Mapping to JSON: tuples and lists become arrays, `(x)` is just `x`, adjacent strings are
//! concatenated (as Python does), integers stay JSON integers (`3`), floats stay floats (`3.0`),
//! integers beyond 64 bits become floats (as serde_json does with such JSON). Dict keys must be
//! strings; a later duplicate key wins, as in Python.
//!
//! Function names may be dotted (`functions.get_weather`); the name is kept exactly as written,
//! so routing sees what the model wrote and an unknown-tool diagnostic names it faithfully.
//!
//! What Python would reject is an error here too (a line break inside a `'…'` string, `007`,
//! `\x4`, a repeated keyword argument); what the format forbids although Python allows it
//! (positional arguments, which cannot be mapped onto a JSON object of named arguments) is an
//! error on that call only. In a list, a bad call is skipped and reading resumes at the next
//! top-level `,`, so one bad call never hides the good ones around it.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// Deepest nesting of lists, tuples and dicts accepted (the arguments of a call are level 1).
pub const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not valid literal syntax.
    Syntax,
    /// The text ends inside a value or a call (a reply cut off).
    UnexpectedEnd,
    /// A list element that is not `name(…)`.
    NotACall,
    /// `f('x')`: the format needs `f(name='x')`.
    PositionalArgument,
    /// `f(a=1, a=2)`: Python rejects it.
    DuplicateArgument,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// A problem at `offset` (a byte offset into the parsed text), `len` bytes long (0 at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub offset: usize,
    pub len: usize,
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for Error {}

/// One call of a list; `start..end` is its text, from the name to the closing parenthesis.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Map<String, Value>,
    pub start: usize,
    pub end: usize,
}

/// What [`parse_call_list`] read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallList {
    /// One entry per list element in order, plus one per stretch of text skipped to recover.
    /// An error ends the list early only when no top-level `,` or `]` follows it.
    pub items: Vec<Result<Call, Error>>,
    /// Just after the closing `]`; `None` when the list never closed (cut off, or broken).
    pub end: Option<usize>,
}

/// Reads a Python list of calls at the start of `src` (after whitespace). Text after the
/// closing `]` is left alone: see [`CallList::end`].
pub fn parse_call_list(src: &str) -> CallList {
    let mut items = Vec::new();
    let end = for_each_call(src, |item| items.push(item));
    CallList { items, end }
}

/// [`parse_call_list`] handing each item to `each` as soon as it is read, with no list of
/// them in between (a megabyte reply holds thousands). Returns [`CallList::end`].
pub fn for_each_call(src: &str, each: impl FnMut(Result<Call, Error>)) -> Option<usize> {
    Parser::new(src).call_list(each)
}

/// Reads `src` as exactly one literal (surrounding whitespace allowed).
pub fn parse_literal(src: &str) -> Result<Value, Error> {
    let mut parser = Parser::new(src);
    let value = parser.value(0)?;
    parser.skip_ws();
    match parser.peek() {
        None => Ok(value),
        Some(_) => Err(parser.unexpected("the end of the literal")),
    }
}

/// Whether `src` starts like a call list (`[name(`, `[]`, or a `[name` the text ends in), as
/// opposed to prose that merely starts with a bracket (`[1] See …`, `[Note] …`).
pub fn looks_like_call_list(src: &str) -> bool {
    let mut parser = Parser::new(src);
    parser.skip_ws();
    if parser.peek() != Some(b'[') {
        return false;
    }
    parser.pos += 1;
    parser.skip_ws();
    match parser.peek() {
        None | Some(b']') => return true,
        Some(_) => {}
    }
    if parser.dotted_name().is_err() {
        return false;
    }
    parser.skip_ws();
    matches!(parser.peek(), None | Some(b'('))
}

/// A call that failed; `resync` says whether the reader is lost inside it (and must skip to
/// the next top-level separator) or stands right after its `)`.
struct Failed {
    error: Error,
    resync: bool,
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    /// Always on a character boundary: it only moves past ASCII bytes or whole characters.
    pos: usize,
    /// Items of the arrays being read, innermost last. Building each array and map once at
    /// its final size, instead of growing it, halves the allocator work on large replies.
    values: Vec<Value>,
    /// Entries of the maps being read (call arguments, dicts), innermost last.
    entries: Vec<(String, Value)>,
    /// Where each argument of the current call starts, for duplicate diagnostics.
    arg_offsets: Vec<usize>,
}

fn char_len_at(src: &str, offset: usize) -> usize {
    src.get(offset..)
        .and_then(|rest| rest.chars().next())
        .map_or(0, char::len_utf8)
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn is_quote(b: u8) -> bool {
    b == b'\'' || b == b'"'
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            values: Vec::new(),
            entries: Vec::new(),
            arg_offsets: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    fn error(&self, kind: ErrorKind, offset: usize, message: String) -> Error {
        Error {
            kind,
            offset,
            len: char_len_at(self.src, offset),
            message,
        }
    }

    fn end_error(&self, inside: &str) -> Error {
        Error {
            kind: ErrorKind::UnexpectedEnd,
            offset: self.src.len(),
            len: 0,
            message: format!("the text ends inside {inside}"),
        }
    }

    /// "expected X, found Y" at the current position (or the end of the text).
    fn unexpected(&self, expected: &str) -> Error {
        match self
            .src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            None => Error {
                kind: ErrorKind::UnexpectedEnd,
                offset: self.src.len(),
                len: 0,
                message: format!("the text ends where {expected} was expected"),
            },
            Some(found) => self.error(
                ErrorKind::Syntax,
                self.pos,
                format!("expected {expected}, found {found:?}"),
            ),
        }
    }

    fn ident(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let mut end = start;
        while let Some(&b) = self.bytes.get(end) {
            let len = if b.is_ascii_alphanumeric() || b == b'_' {
                1
            } else if b.is_ascii() {
                0
            } else {
                // Python identifiers may be non-ASCII letters (`café`).
                match self.src.get(end..).and_then(|rest| rest.chars().next()) {
                    Some(c) if c.is_alphabetic() || (end > start && c.is_alphanumeric()) => {
                        c.len_utf8()
                    }
                    _ => 0,
                }
            };
            if len == 0 {
                break;
            }
            end += len;
        }
        if end == start || self.bytes[start].is_ascii_digit() {
            return None;
        }
        self.pos = end;
        self.src.get(start..end)
    }

    /// `name` or `a.b.c`, returned as written.
    fn dotted_name(&mut self) -> Result<&'a str, Error> {
        let start = self.pos;
        if self.ident().is_none() {
            return Err(self.unexpected("a function name"));
        }
        while self.peek() == Some(b'.') {
            self.pos += 1;
            if self.ident().is_none() {
                return Err(self.unexpected("a name after '.'"));
            }
        }
        Ok(self.src.get(start..self.pos).unwrap_or_default())
    }

    fn call_list(&mut self, mut each: impl FnMut(Result<Call, Error>)) -> Option<usize> {
        self.skip_ws();
        if self.peek() != Some(b'[') {
            each(Err(self.unexpected("'[' opening a list of calls")));
            return None;
        }
        self.pos += 1;
        let mut index = 0;
        loop {
            self.skip_ws();
            match self.peek() {
                // Cut off between calls: nothing is lost, the caller sees `end: None`.
                None => return None,
                Some(b']') => {
                    self.pos += 1;
                    return Some(self.pos);
                }
                Some(_) => {}
            }
            index += 1;
            let element_start = self.pos;
            match self.call() {
                Ok(call) => each(Ok(call)),
                Err(Failed { mut error, resync }) => {
                    if error.kind == ErrorKind::UnexpectedEnd {
                        // The whole unfinished call is the news, not the empty end of the text.
                        error.offset = element_start;
                        error.len = self.src.len().saturating_sub(element_start);
                        error.message = format!("call {index} is cut off: {}", error.message);
                        each(Err(error));
                        return None;
                    }
                    error.message = format!("call {index}: {}", error.message);
                    if resync {
                        match self.skip_element(element_start) {
                            Some(at) => {
                                error.message.push_str("; the call is skipped");
                                each(Err(error));
                                self.pos = at;
                            }
                            None => {
                                error.message.push_str("; the rest of the list is skipped");
                                each(Err(error));
                                return None;
                            }
                        }
                    } else {
                        error.message.push_str("; the call is skipped");
                        each(Err(error));
                    }
                }
            }
            // Between calls: a separator, the end, or something to skip up to one.
            loop {
                self.skip_ws();
                match self.peek() {
                    None => return None,
                    Some(b',') => {
                        self.pos += 1;
                        break;
                    }
                    Some(b']') => {
                        self.pos += 1;
                        return Some(self.pos);
                    }
                    Some(_) => {
                        let mut error = self.unexpected(&format!("',' or ']' after call {index}"));
                        match self.skip_element(self.pos) {
                            Some(at) => {
                                error
                                    .message
                                    .push_str("; the text up to the next call is skipped");
                                each(Err(error));
                                self.pos = at;
                            }
                            None => {
                                error.message.push_str("; the rest of the list is skipped");
                                each(Err(error));
                                return None;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Where the list element starting at `from` ends: the next `,` or `]` outside strings
    /// and brackets. Skips by brackets and quotes alone, so it finds its way past text the
    /// reader could not make sense of; `None` when the text ends first.
    ///
    /// A closer closes the nearest opener of its kind, and those it skipped count as closed
    /// (`g(b=[1, 2), h()` is read as `g(b=[1, 2])`); a closer with no opener is ignored, except
    /// `]`, which then ends the list. Counts per kind keep this linear.
    fn skip_element(&self, from: usize) -> Option<usize> {
        fn kind(closer: u8) -> usize {
            match closer {
                b')' => 0,
                b']' => 1,
                _ => 2,
            }
        }
        let bytes = self.bytes;
        let mut stack: Vec<u8> = Vec::new();
        let mut open = [0usize; 3];
        let mut i = from;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\'' | b'"' => {
                    i += 1;
                    loop {
                        let offset = memchr::memchr2(b, b'\\', bytes.get(i..)?)?;
                        i += offset;
                        if bytes.get(i) == Some(&b'\\') {
                            i += 2;
                        } else {
                            break;
                        }
                    }
                }
                b'(' | b'[' | b'{' => {
                    let closer = match b {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    stack.push(closer);
                    open[kind(closer)] += 1;
                }
                b')' | b']' | b'}' if open[kind(b)] > 0 => {
                    while let Some(closer) = stack.pop() {
                        open[kind(closer)] -= 1;
                        if closer == b {
                            break;
                        }
                    }
                }
                b']' => return Some(i),
                b',' if stack.is_empty() => return Some(i),
                _ => {}
            }
            i += 1;
        }
        None
    }

    fn call(&mut self) -> Result<Call, Failed> {
        let lost = |error| Failed {
            error,
            resync: true,
        };
        let start = self.pos;
        let name = match self.dotted_name() {
            Ok(name) => name,
            Err(mut error) => {
                if error.kind != ErrorKind::UnexpectedEnd && self.pos == start {
                    error.kind = ErrorKind::NotACall;
                    error.message = format!("not a call: {}", error.message);
                }
                return Err(lost(error));
            }
        };
        self.skip_ws();
        match self.peek() {
            Some(b'(') => self.pos += 1,
            None => return Err(lost(self.end_error(&format!("the call to '{name}'")))),
            Some(_) => {
                let mut error = self.unexpected(&format!("'(' after '{name}'"));
                error.kind = ErrorKind::NotACall;
                error.message = format!("not a call: {}", error.message);
                return Err(lost(error));
            }
        }
        // Whatever a failed call left on the scratch stacks is garbage now.
        self.values.clear();
        self.entries.clear();
        self.arg_offsets.clear();
        // A call with a semantic problem is still read to its end, so the list goes on.
        let mut problem: Option<Error> = None;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                Some(b'*') => {
                    return Err(lost(self.error(
                        ErrorKind::Syntax,
                        self.pos,
                        format!(
                            "'{name}' unpacks arguments (*args / **kwargs), which is not a literal"
                        ),
                    )))
                }
                None => return Err(lost(self.end_error(&format!("the call to '{name}'")))),
                Some(_) => {}
            }
            let arg_start = self.pos;
            if let Some(key) = self.keyword() {
                let value = self.value(1).map_err(lost)?;
                self.entries.push((key.to_owned(), value));
                self.arg_offsets.push(arg_start);
            } else {
                let positional = |end: usize| Error {
                    kind: ErrorKind::PositionalArgument,
                    offset: arg_start,
                    len: end.saturating_sub(arg_start),
                    message: format!(
                        "'{name}' has a positional argument; calls take keyword arguments \
                         (name=value)"
                    ),
                };
                match self.value(1) {
                    Ok(_) => {
                        if problem.is_none() {
                            problem = Some(positional(self.pos));
                        }
                    }
                    Err(e) if e.kind == ErrorKind::UnexpectedEnd => return Err(lost(e)),
                    // Not even a literal (`f(city)`): the missing `name=` is the news.
                    Err(_) => {
                        let end = arg_start + char_len_at(self.src, arg_start);
                        return Err(lost(positional(end)));
                    }
                }
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    return Err(lost(
                        self.unexpected(&format!("',' or ')' after an argument of '{name}'")),
                    ))
                }
            }
        }
        let mut args = Map::with_capacity(self.entries.len());
        for (i, (key, value)) in self.entries.drain(..).enumerate() {
            match args.entry(key) {
                serde_json::map::Entry::Vacant(entry) => {
                    entry.insert(value);
                }
                serde_json::map::Entry::Occupied(entry) => {
                    if problem.is_none() {
                        let key = entry.key();
                        problem = Some(Error {
                            kind: ErrorKind::DuplicateArgument,
                            offset: self.arg_offsets.get(i).copied().unwrap_or(start),
                            len: key.len(),
                            message: format!("'{name}' repeats the argument '{key}'"),
                        });
                    }
                }
            }
        }
        match problem {
            Some(error) => Err(Failed {
                error,
                resync: false,
            }),
            None => Ok(Call {
                name: name.to_owned(),
                args,
                start,
                end: self.pos,
            }),
        }
    }

    /// `name =` (not `==`), consumed; otherwise nothing is consumed.
    fn keyword(&mut self) -> Option<&'a str> {
        let save = self.pos;
        if let Some(key) = self.ident() {
            self.skip_ws();
            if self.peek() == Some(b'=') && self.peek_at(self.pos + 1) != Some(b'=') {
                self.pos += 1;
                return Some(key);
            }
        }
        self.pos = save;
        None
    }

    /// A value nested in `depth` containers.
    fn value(&mut self, depth: usize) -> Result<Value, Error> {
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

    fn list(&mut self, depth: usize) -> Result<Value, Error> {
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
    fn tuple(&mut self, depth: usize) -> Result<Value, Error> {
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

    fn dict(&mut self, depth: usize) -> Result<Value, Error> {
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

    /// A quote, or a one-letter prefix and a quote.
    fn at_string_start(&self) -> bool {
        match self.peek() {
            Some(b) if is_quote(b) => true,
            Some(b'r' | b'R' | b'u' | b'U' | b'b' | b'B' | b'f' | b'F') => {
                self.peek_at(self.pos + 1).is_some_and(is_quote)
            }
            _ => false,
        }
    }

    /// One or more adjacent string literals, concatenated.
    fn string(&mut self) -> Result<String, Error> {
        let mut out = String::new();
        self.string_piece(&mut out)?;
        loop {
            let save = self.pos;
            self.skip_ws();
            if self.at_string_start() {
                self.string_piece(&mut out)?;
            } else {
                self.pos = save;
                return Ok(out);
            }
        }
    }

    fn string_piece(&mut self, out: &mut String) -> Result<(), Error> {
        let start = self.pos;
        let raw = matches!(self.peek(), Some(b'r' | b'R'));
        match self.peek() {
            Some(b'b' | b'B') => {
                return Err(self.error(
                    ErrorKind::Syntax,
                    start,
                    "bytes literals (b'…') are not JSON; use a plain string".to_owned(),
                ))
            }
            Some(b'f' | b'F') => {
                return Err(self.error(
                    ErrorKind::Syntax,
                    start,
                    "f-strings are not literals; use a plain string".to_owned(),
                ))
            }
            Some(b) if is_quote(b) => {}
            _ => self.pos += 1, // `r` or `u`
        }
        let Some(quote) = self.peek() else {
            return Err(self.end_error("a string"));
        };
        let triple = self.bytes.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]);
        self.pos += if triple { 3 } else { 1 };
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            let found = if triple {
                memchr::memchr2(quote, b'\\', rest)
            } else {
                memchr::memchr3(quote, b'\\', b'\n', rest)
            };
            let Some(offset) = found else {
                return Err(self.end_error("a string"));
            };
            let at = self.pos + offset;
            // Both ends are at ASCII bytes (or the previous stop): character boundaries.
            out.push_str(self.src.get(self.pos..at).unwrap_or_default());
            self.pos = at + 1;
            match self.bytes[at] {
                b'\\' if raw => {
                    // A raw string keeps the backslash, and the character after it cannot
                    // end the string.
                    out.push('\\');
                    let Some(c) = self.src.get(self.pos..).and_then(|r| r.chars().next()) else {
                        return Err(self.end_error("a string"));
                    };
                    out.push(c);
                    self.pos += c.len_utf8();
                }
                b'\\' => self.escape(out, at)?,
                b'\n' => {
                    return Err(self.error(
                        ErrorKind::Syntax,
                        at,
                        "a line break inside a quoted string; write \\n or use a triple-quoted \
                         string"
                            .to_owned(),
                    ))
                }
                _ if !triple => return Ok(()),
                _ if self.bytes.get(at..at + 3) == Some(&[quote; 3][..]) => {
                    self.pos = at + 3;
                    return Ok(());
                }
                _ => out.push(char::from(quote)),
            }
        }
    }

    /// The escape whose backslash is at `backslash` (`pos` is just after it).
    fn escape(&mut self, out: &mut String, backslash: usize) -> Result<(), Error> {
        let Some(c) = self.src.get(self.pos..).and_then(|r| r.chars().next()) else {
            return Err(self.end_error("a string escape"));
        };
        self.pos += c.len_utf8();
        let simple = match c {
            '\n' => return Ok(()), // a line continuation
            '\\' => '\\',
            '\'' => '\'',
            '"' => '"',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'v' => '\x0b',
            '0'..='7' => {
                let mut code = u32::from(c) - u32::from('0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            code = code * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
            }
            'x' => self.hex_char(2, backslash)?,
            'u' => self.hex_char(4, backslash)?,
            'U' => self.hex_char(8, backslash)?,
            'N' => {
                return Err(Error {
                    kind: ErrorKind::Syntax,
                    offset: backslash,
                    len: 2,
                    message: "named escapes (\\N{…}) are not supported; write the character or \
                              \\uXXXX"
                        .to_owned(),
                })
            }
            other => {
                // Python keeps an unknown escape as written.
                out.push('\\');
                other
            }
        };
        out.push(simple);
        Ok(())
    }

    fn hex_at(&self, at: usize, digits: usize) -> Option<u32> {
        let hex = self.src.get(at..at + digits)?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(hex, 16).ok()
    }

    /// `\xHH`, `\uHHHH` or `\UHHHHHHHH`, with `pos` on the first digit. A UTF-16 surrogate
    /// pair written as two `\u` escapes (JSON habit) becomes its character; a lone surrogate,
    /// which a Rust string cannot hold, becomes U+FFFD.
    fn hex_char(&mut self, digits: usize, backslash: usize) -> Result<char, Error> {
        let Some(code) = self.hex_at(self.pos, digits) else {
            if self.pos + digits > self.src.len()
                && self
                    .bytes
                    .get(self.pos..)
                    .unwrap_or_default()
                    .iter()
                    .all(u8::is_ascii_hexdigit)
            {
                return Err(self.end_error("a string escape"));
            }
            return Err(Error {
                kind: ErrorKind::Syntax,
                offset: backslash,
                len: 2,
                message: format!("this escape needs {digits} hex digits"),
            });
        };
        self.pos += digits;
        if (0xD800..0xDC00).contains(&code)
            && self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u")
        {
            if let Some(low @ 0xDC00..=0xDFFF) = self.hex_at(self.pos + 2, 4) {
                self.pos += 6;
                let combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(combined).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
        if (0xD800..0xE000).contains(&code) {
            return Ok(char::REPLACEMENT_CHARACTER);
        }
        char::from_u32(code).ok_or_else(|| Error {
            kind: ErrorKind::Syntax,
            offset: backslash,
            len: 2 + digits,
            message: format!("\\U{code:08x} is not a Unicode code point"),
        })
    }

    /// `[0-9_]*`, consumed.
    fn digits(&mut self) -> &'a str {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'_')) {
            self.pos += 1;
        }
        self.src.get(start..self.pos).unwrap_or_default()
    }

    fn number(&mut self) -> Result<Value, Error> {
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
        if cleaned.len() > 1 && cleaned.starts_with('0') && cleaned.bytes().any(|b| b != b'0') {
            return Err(invalid(
                self,
                " (Python forbids leading zeros; octal is written 0o…)",
            ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

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
            ("{'a', 'b'}", ErrorKind::Syntax, 4),
            ("[1 2]", ErrorKind::Syntax, 3),
            ("'abc", ErrorKind::UnexpectedEnd, 4),
            ("'ab\ncd'", ErrorKind::Syntax, 3),
            (r"'\x4g'", ErrorKind::Syntax, 1),
            (r"'\N{DASH}'", ErrorKind::Syntax, 1),
            (r"'\U00110000'", ErrorKind::Syntax, 1),
            ("b'x'", ErrorKind::Syntax, 0),
            ("f'x'", ErrorKind::Syntax, 0),
            ("007", ErrorKind::Syntax, 0),
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
        assert!(lit_err("true").message.contains("True"));
        assert!(lit_err("null").message.contains("None"));
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
            (vec![ok("f"), Err((Syntax, 8)), ok("h")], Some(src.len()))
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
                        c if u32::from(c) < 0x20 => {
                            out.push_str(&format!("\\x{:02x}", u32::from(c)))
                        }
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
                    prop_assert!(
                        src.is_char_boundary(call.start) && src.is_char_boundary(call.end)
                    );
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
}
