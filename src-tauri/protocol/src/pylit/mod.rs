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
//! value     := string+ | number | 'True' | 'False' | 'None' | 'true' | 'false' | 'null'
//!            | '[' values ']' | '(' values ')' | '{' ( value ':' value ),* '}' | '{' values '}'
//! string    := ( 'r' | 'u' | 'f' )? ( '…' | "…" | '''…''' | """…""" )   (any letter case)
//! number    := ( '-' | '+' )? ( decimal | float | 0x… | 0o… | 0b… )   ('_' separators allowed)
//! ```
//!
//! Mapping to JSON: tuples, lists and sets become arrays (sets in written order), `(x)` is just
//! `x`, adjacent strings are concatenated (as Python does), integers stay JSON integers (`3`),
//! floats stay floats (`3.0`), integers beyond 64 bits become floats (as serde_json does with
//! such JSON). Dict keys must be strings; a later duplicate key wins, as in Python.
//!
//! Function names may be dotted (`functions.get_weather`); the name is kept exactly as written,
//! so routing sees what the model wrote and an unknown-tool diagnostic names it faithfully.
//!
//! Models write Python that Python itself would reject, and the reference servers (vLLM's
//! shared pythonic helpers, SGLang's LFM2 detector) rewrite it before `ast.parse`; the same
//! readings are built in here, each changing nothing that is valid Python:
//! - JSON's `true` / `false` / `null` are read as `True` / `False` / `None` (OLMo 3, LFM2);
//! - raw line breaks, tabs and NULs inside a `'…'` string are kept as the characters they are;
//! - zero-padded integers (`month=07`) are decimal (`7`);
//! - an f-string without placeholders (`f'hi'`) is a plain string;
//! - a quote that cannot end its string (what follows it is not `,` `)` `]` `}` `:`, another
//!   string or the end) is taken as part of it when exactly one later quote can end the string
//!   with the brackets around it still balanced (`cmd='sed -n '1,5p' f.py'`); when none or
//!   several can, the call is an error, as the references drop it.
//!
//! [`parse_python_literal`] makes none of these readings: it reads one value as Python's
//! `ast.literal_eval` does, for text values whose reference parser falls back to it.
//!
//! What stays an error (what the references also reject): bytes (`b'…'`), f-strings with
//! placeholders, `\x4`, non-finite numbers (`1e999`), names that are not literals. In a list, a
//! bad call is skipped and reading resumes at the next top-level `,`, so one bad call never
//! hides the good ones around it.
//!
//! A repeated keyword argument keeps its last value, with a warning ([`Call::notes`], with
//! [`Options::ast_keywords`]; otherwise an error on that call): `ast.parse` accepts it (only the
//! compiler rejects it), and vLLM and SGLang build the arguments from the keywords in order. A
//! positional argument costs its call: a JSON object of named arguments has no place for it, and
//! vLLM's `handle_single_tool` now rejects it rather than drop the value silently (SGLang's
//! detector still drops it and keeps the call).
//!
//! The reader is split by what it reads: this file holds the public entry points and the
//! reader's state, [`calls`] call lists and calls, [`values`] containers, [`strings`] string
//! literals and [`numbers`] number literals.

mod calls;
mod lines;
mod numbers;
mod strings;
mod syntax;
mod values;

pub use syntax::python_list_end;

use std::borrow::Cow;

use serde_json::{Map, Value};

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
    /// `f(a=1, a=2)`: `ast.parse` accepts it, Python's compiler rejects it.
    DuplicateArgument,
    /// Text after a call's `)` that is neither the separator nor the list's end (`f()) ]`,
    /// `f() g()`): the call itself read whole, but its part of the list did not.
    AfterCall,
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
    /// What was read differently from what the model wrote, as the references read it (a
    /// literal positional argument left out, a repeated keyword's earlier values dropped):
    /// reported as warnings beside the call.
    pub notes: Vec<Error>,
}

/// What [`parse_call_list`] read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallList {
    /// One entry per list element in order, plus one per stretch of text skipped to recover.
    /// An error ends the list early only when no top-level `,` or `]` follows it.
    pub items: Vec<Result<Call, Error>>,
    /// Just after the closing `]`; `None` when the list never closed (cut off, or broken).
    pub end: Option<usize>,
    /// Where bare names were read as strings (offset, length), with [`Options::bare_names`].
    pub bare_names: Vec<(usize, usize)>,
}

/// Readings a format's reference makes beyond the default grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// What separates calls in the list (`,` by default; NexusRaven joins them with `;`).
    pub separator: u8,
    /// A bare (dotted) name as a value is read as its own text, as the Berkeley Function
    /// Calling Leaderboard's `resolve_ast_by_type` does (`loc=Berkeley`).
    pub bare_names: bool,
    /// A call as a value (`c=g(x, k=1)`) is read as `{"name", "arguments": [positional],
    /// "keywords": {…}}`, the shape nexusraven-pip gives nested calls.
    pub nested_calls: bool,
    /// The reference builds the arguments from `ast`'s keywords (vLLM's and SGLang's pythonic
    /// readers): a repeated keyword keeps its last value, with a note ([`Call::notes`]).
    /// Without it, it costs the call, as where the reference runs the call (`eval`).
    pub ast_keywords: bool,
}

impl Options {
    /// Python's own grammar, read strictly.
    pub const STRICT: Self = Self {
        separator: b',',
        bare_names: false,
        nested_calls: false,
        ast_keywords: false,
    };

    /// The readings of vLLM's and SGLang's `ast`-based pythonic parsers.
    pub const AST_KEYWORDS: Self = Self {
        ast_keywords: true,
        ..Self::STRICT
    };
}

impl Default for Options {
    fn default() -> Self {
        Self::STRICT
    }
}

/// Reads a Python list of calls at the start of `src` (after whitespace). Text after the
/// closing `]` is left alone: see [`CallList::end`].
pub fn parse_call_list(src: &str) -> CallList {
    parse_call_list_with(src, Options::default())
}

/// [`parse_call_list`] with a format's extra readings.
pub fn parse_call_list_with(src: &str, options: Options) -> CallList {
    let mut items = Vec::new();
    let mut parser = Parser::new(src);
    parser.options = options;
    let end = parser.call_list(|item| items.push(item));
    CallList {
        items,
        end,
        bare_names: parser.bare_seen,
    }
}

/// [`parse_call_list`] handing each item to `each` as soon as it is read, with no list of
/// them in between (a megabyte reply holds thousands). Returns [`CallList::end`].
pub fn for_each_call(
    src: &str,
    options: Options,
    each: impl FnMut(Result<Call, Error>),
) -> Option<usize> {
    let mut parser = Parser::new(src);
    parser.options = options;
    parser.call_list(each)
}

/// Reads calls written one per line (`f(a=1)\ng(b=2)`, each maybe inside `print(…)`),
/// handing each call, or the error that cost it, to `each`. A bad line is skipped; a call the
/// text ends inside ends the reading.
pub fn for_each_call_line(src: &str, options: Options, each: impl FnMut(Result<Call, Error>)) {
    let mut parser = Parser::new(src);
    parser.options = options;
    parser.call_lines(each)
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

/// Reads `src` as exactly one literal the way Python's `ast.literal_eval` does: none of the
/// readings of invalid Python above (JSON's `true`/`false`/`null`, zero-padded integers, line
/// breaks in a `'…'` string, a quote that cannot end its string, f-strings) is made, so text that
/// Python rejects stays an error. For values a model wrote as text (`coerce`), where Python's
/// rejection decides that the text is kept: `07` is a code, not the number 7.
pub fn parse_python_literal(src: &str) -> Result<Value, Error> {
    let mut parser = Parser::new(src);
    parser.strict = true;
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
    /// The closers of the brackets open around the current position, innermost last: what a
    /// string with an unescaped quote inside must leave balanced (see [`strings`]).
    open: Vec<u8>,
    /// How many entries of `open` belong to the enclosing list, below the current call.
    call_floor: usize,
    /// Bytes the nested-quote recovery may still scan; keeps the whole read linear.
    recovery_budget: usize,
    /// Read as Python's `ast.literal_eval` does, without the readings of invalid Python listed
    /// in the module docs (see [`parse_python_literal`]).
    strict: bool,
    options: Options,
    /// Where bare names were read as strings, for [`CallList::bare_names`].
    bare_seen: Vec<(usize, usize)>,
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
    pub(super) fn new(src: &'a str) -> Self {
        Self {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            values: Vec::new(),
            entries: Vec::new(),
            arg_offsets: Vec::new(),
            open: Vec::new(),
            call_floor: 0,
            recovery_budget: src.len().saturating_mul(8).saturating_add(4096),
            strict: false,
            options: Options::default(),
            bare_seen: Vec::new(),
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    pub(super) fn error(&self, kind: ErrorKind, offset: usize, message: String) -> Error {
        Error {
            kind,
            offset,
            len: char_len_at(self.src, offset),
            message,
        }
    }

    pub(super) fn end_error(&self, inside: &str) -> Error {
        Error {
            kind: ErrorKind::UnexpectedEnd,
            offset: self.src.len(),
            len: 0,
            message: format!("the text ends inside {inside}"),
        }
    }

    /// "expected X, found Y" at the current position (or the end of the text).
    pub(super) fn unexpected(&self, expected: &str) -> Error {
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

    pub(super) fn ident(&mut self) -> Option<&'a str> {
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
    pub(super) fn dotted_name(&mut self) -> Result<&'a str, Error> {
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
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_lenient;
