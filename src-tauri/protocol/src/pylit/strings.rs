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
