//! Reading string literals in every quoting Python allows, with escapes, into UTF-8.

use super::*;

impl<'a> Parser<'a> {
    /// A quote, or a one-letter prefix and a quote.
    pub(super) fn at_string_start(&self) -> bool {
        match self.peek() {
            Some(b) if is_quote(b) => true,
            Some(b'r' | b'R' | b'u' | b'U' | b'b' | b'B' | b'f' | b'F') => {
                self.peek_at(self.pos + 1).is_some_and(is_quote)
            }
            _ => false,
        }
    }

    /// One or more adjacent string literals, concatenated.
    pub(super) fn string(&mut self) -> Result<String, Error> {
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

    pub(super) fn string_piece(&mut self, out: &mut String) -> Result<(), Error> {
        let start = self.pos;
        let raw = matches!(self.peek(), Some(b'r' | b'R'));
        let formatted = matches!(self.peek(), Some(b'f' | b'F'));
        match self.peek() {
            Some(b'b' | b'B') => {
                return Err(self.error(
                    ErrorKind::Syntax,
                    start,
                    "bytes literals (b'…') are not JSON; use a plain string".to_owned(),
                ))
            }
            Some(b'f' | b'F') if self.strict => {
                return Err(self.error(
                    ErrorKind::Syntax,
                    start,
                    "f-strings are not literals".to_owned(),
                ))
            }
            Some(b) if is_quote(b) => {}
            _ => self.pos += 1, // `r`, `u` or `f`
        }
        let Some(quote) = self.peek() else {
            return Err(self.end_error("a string"));
        };
        let piece_start = out.len();
        let triple = self.bytes.get(self.pos..self.pos + 3) == Some(&[quote; 3][..]);
        self.pos += if triple { 3 } else { 1 };
        let content = self.pos;
        // Where a `'…'` string with an unescaped quote inside really ends, once decided.
        let mut closing: Option<usize> = None;
        loop {
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            let Some(offset) = memchr::memchr2(quote, b'\\', rest) else {
                return Err(self.end_error("a string"));
            };
            let at = self.pos + offset;
            // Both ends are at ASCII bytes (or the previous stop): character boundaries. Raw
            // line breaks are kept: models put them in commands, and the references escape
            // them before parsing, which keeps the same characters.
            let piece = self.src.get(self.pos..at).unwrap_or_default();
            if self.strict && !triple && piece.contains(['\n', '\r']) {
                return Err(self.error(
                    ErrorKind::Syntax,
                    start,
                    "a line break inside a one-line string".to_owned(),
                ));
            }
            out.push_str(piece);
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
                _ if triple => {
                    if self.bytes.get(at..at + 3) == Some(&[quote; 3][..]) {
                        self.pos = at + 3;
                        break;
                    }
                    out.push(char::from(quote));
                }
                // Python ends the string at the first quote; what follows must then fit.
                _ if self.strict => break,
                _ => {
                    let ends = match closing {
                        Some(end) => at == end,
                        None => self.can_end_string(at + 1),
                    };
                    if ends {
                        break;
                    }
                    if closing.is_none() {
                        let end = self.nested_quote_end(quote, content, at)?;
                        if end == at {
                            break;
                        }
                        closing = Some(end);
                    }
                    out.push(char::from(quote));
                }
            }
        }
        if formatted && out[piece_start..].contains(['{', '}']) {
            return Err(Error {
                kind: ErrorKind::Syntax,
                offset: start,
                len: self.pos - start,
                message: "f-strings with placeholders are not literals; use a plain string"
                    .to_owned(),
            });
        }
        Ok(())
    }

    /// Whether a quote just before `after` can end a string in valid Python here: what follows
    /// it (past whitespace) is a separator, a closer, a colon, another string or the end.
    fn can_end_string(&self, after: usize) -> bool {
        let mut i = after;
        while self.peek_at(i).is_some_and(is_ws) {
            i += 1;
        }
        match self.peek_at(i) {
            None | Some(b',' | b')' | b']' | b'}' | b':') => true,
            Some(b) if is_quote(b) => true,
            Some(b'r' | b'R' | b'u' | b'U' | b'f' | b'F' | b'b' | b'B') => {
                self.peek_at(i + 1).is_some_and(is_quote)
            }
            _ => false,
        }
    }

    /// The quote that ends a `quote`-string (its text starting at `content`) whose quote at
    /// `first` cannot (a nested, unescaped quote: `'sed -n '1,5p' f.py'`): the one later quote
    /// that can end a string and leaves the brackets open around the string balanced up to the
    /// end of the call. Quotes past a bracket that closes more than the string opened are not
    /// considered: taking one would swallow the next call into this string (SGLang checks the
    /// same by counting calls). None or several is an error, as vLLM and SGLang then drop the
    /// call rather than guess.
    fn nested_quote_end(
        &mut self,
        quote: u8,
        content: usize,
        first: usize,
    ) -> Result<usize, Error> {
        let mut found: Option<usize> = None;
        let mut any_quote = false;
        // Brackets alone, ignoring quotes (which are in doubt): what the string itself opened.
        let mut depth = 0usize;
        let mut i = content;
        while let Some(&b) = self.bytes.get(i) {
            if !self.spend(1) {
                break;
            }
            match b {
                b'\\' => i += 1,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => match depth.checked_sub(1) {
                    Some(less) => depth = less,
                    None => break,
                },
                _ if b == quote && i > first => {
                    any_quote = true;
                    if self.can_end_string(i + 1) && self.balanced_after(i + 1) {
                        if found.is_some() {
                            return Err(
                                self.nested_quote_error(first, "several later quotes could end it")
                            );
                        }
                        found = Some(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        match found {
            Some(at) => Ok(at),
            // No later quote at all: this one ends the string, and what follows is the error.
            None if !any_quote => Ok(first),
            None => Err(self.nested_quote_error(first, "no later quote ends it cleanly")),
        }
    }

    fn nested_quote_error(&self, at: usize, why: &str) -> Error {
        self.error(
            ErrorKind::Syntax,
            at,
            format!("this quote is inside the string but does not end it ({why}); escape it"),
        )
    }

    /// Takes `bytes` from the recovery budget; false once it is spent.
    fn spend(&mut self, bytes: usize) -> bool {
        match self.recovery_budget.checked_sub(bytes) {
            Some(left) => {
                self.recovery_budget = left;
                true
            }
            None => {
                self.recovery_budget = 0;
                false
            }
        }
    }

    /// Whether what follows a call's `)` at `after` can follow a call: the next item or the
    /// end of what encloses it (`open[floor - 1]`), or, for a call on its own line, the line's
    /// end.
    fn call_may_end_before(&self, after: usize, floor: usize) -> bool {
        let mut i = after;
        while matches!(self.peek_at(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        match (self.peek_at(i), floor.checked_sub(1)) {
            (None, _) => true,
            (Some(b','), Some(_)) => true,
            (Some(b), Some(below)) => self.open.get(below) == Some(&b),
            (Some(b), None) => matches!(b, b'\n' | b'\r' | b';'),
        }
    }

    /// Whether the text from `from` closes the brackets open around the string (innermost
    /// first) through the current call's `)` without a mismatch. Text that ends first cannot
    /// be refuted, so it counts as balanced.
    fn balanced_after(&mut self, from: usize) -> bool {
        let floor = self.call_floor.min(self.open.len());
        let mut expected = self.open.len() - floor;
        if expected == 0 {
            return self.bytes[from.min(self.bytes.len())..]
                .iter()
                .all(|&b| is_ws(b));
        }
        let mut nested: Vec<u8> = Vec::new();
        let mut i = from;
        while let Some(&b) = self.bytes.get(i) {
            if !self.spend(1) {
                return false;
            }
            match b {
                b'\'' | b'"' => loop {
                    i += 1;
                    match self.bytes.get(i) {
                        None => return true,
                        Some(b'\\') => i += 1,
                        Some(&c) if c == b => break,
                        Some(_) => {}
                    }
                },
                b'(' => nested.push(b')'),
                b'[' => nested.push(b']'),
                b'{' => nested.push(b'}'),
                b')' | b']' | b'}' => match nested.pop() {
                    Some(closer) if closer != b => return false,
                    Some(_) => {}
                    None => {
                        expected -= 1;
                        if self.open.get(floor + expected) != Some(&b) {
                            return false;
                        }
                        if expected == 0 {
                            return self.call_may_end_before(i + 1, floor);
                        }
                    }
                },
                _ => {}
            }
            i += 1;
        }
        true
    }

    /// The escape whose backslash is at `backslash` (`pos` is just after it).
    pub(super) fn escape(&mut self, out: &mut String, backslash: usize) -> Result<(), Error> {
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

    pub(super) fn hex_at(&self, at: usize, digits: usize) -> Option<u32> {
        let hex = self.src.get(at..at + digits)?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(hex, 16).ok()
    }

    /// `\xHH`, `\uHHHH` or `\UHHHHHHHH`, with `pos` on the first digit. A UTF-16 surrogate
    /// pair written as two `\u` escapes (JSON habit) becomes its character; a lone surrogate,
    /// which a Rust string cannot hold, becomes U+FFFD.
    pub(super) fn hex_char(&mut self, digits: usize, backslash: usize) -> Result<char, Error> {
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
}
