//! Reading calls written one after another, one per line, as OLMo 3's `<function_calls>` and
//! Gemma's ```` ```tool_code ```` blocks carry them: `get_weather(city="Paris")`, optionally
//! shown as `print(get_weather(city="Paris"))`.
//!
//! A call is read to its closing parenthesis, so one whose string holds a raw line break (or
//! whose arguments are laid out over several lines) is still one call; vLLM's OLMo 3 parser
//! splits at every line break first and loses such calls.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn call_lines(&mut self, mut each: impl FnMut(Result<Call, Error>)) {
        let mut index = 0;
        loop {
            while self.peek().is_some_and(|b| is_ws(b) || b == b';') {
                self.pos += 1;
            }
            if self.peek().is_none() {
                return;
            }
            index += 1;
            let line_start = self.pos;
            self.open.clear();
            self.call_floor = 0;
            let printed = self.enter_print();
            match self.call() {
                Ok(call) => {
                    if printed {
                        self.skip_ws();
                        if self.peek() == Some(b')') {
                            self.pos += 1;
                        } else {
                            let mut error = self.unexpected("')' closing print(…)");
                            error.message = format!("call {index}: {}", error.message);
                            each(Err(error));
                            self.skip_line();
                            continue;
                        }
                    }
                    each(Ok(call));
                    self.after_call_line(index, &mut each);
                }
                Err(mut error) => {
                    if error.kind == ErrorKind::UnexpectedEnd {
                        error.offset = line_start;
                        error.len = self.src.len().saturating_sub(line_start);
                        error.message = format!("call {index} is cut off: {}", error.message);
                        each(Err(error));
                        return;
                    }
                    error.message = format!("call {index}: {}; the call is skipped", error.message);
                    self.pos = self.pos.max(error.offset);
                    each(Err(error));
                    self.skip_line();
                }
            }
        }
    }

    /// `print(` around a call (not a tool named `print`): consumed, and its `)` expected.
    fn enter_print(&mut self) -> bool {
        let save = self.pos;
        if self
            .src
            .get(self.pos..)
            .is_some_and(|r| r.starts_with("print("))
        {
            self.pos += "print(".len();
            self.skip_ws();
            let inner = self.pos;
            if self.dotted_name().is_ok() {
                self.skip_ws();
                if self.peek() == Some(b'(') {
                    self.pos = inner;
                    self.open.push(b')');
                    self.call_floor = 1;
                    return true;
                }
            }
        }
        self.pos = save;
        false
    }

    /// After a call: the rest of its line must be empty (or `;`); other text is reported.
    fn after_call_line(&mut self, index: usize, each: &mut impl FnMut(Result<Call, Error>)) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
        if matches!(self.peek(), None | Some(b'\n' | b';')) {
            return;
        }
        let mut error = self.unexpected(&format!("the end of the line after call {index}"));
        error.message.push_str("; the rest of the line is skipped");
        each(Err(error));
        self.skip_line();
    }

    fn skip_line(&mut self) {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        self.pos = memchr::memchr(b'\n', rest).map_or(self.bytes.len(), |nl| self.pos + nl + 1);
    }
}
