//! Reading call lists and calls: `[f(a=1), g(b=2)]`, resynchronising after a bad call so
//! its neighbours are kept.

use serde_json::Map;

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn call_list(&mut self, mut each: impl FnMut(Result<Call, Error>)) -> Option<usize> {
        self.skip_ws();
        if self.peek() != Some(b'[') {
            each(Err(self.unexpected("'[' opening a list of calls")));
            return None;
        }
        self.pos += 1;
        self.open.clear();
        self.open.push(b']');
        self.call_floor = 1;
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
                Err(mut error) => {
                    if error.kind == ErrorKind::UnexpectedEnd {
                        // The whole unfinished call is the news, not the empty end of the text.
                        error.offset = element_start;
                        error.len = self.src.len().saturating_sub(element_start);
                        error.message = format!("call {index} is cut off: {}", error.message);
                        each(Err(error));
                        return None;
                    }
                    error.message = format!("call {index}: {}", error.message);
                    // The reader is lost inside the call: skip to the next top-level separator.
                    if !self.skip_reporting(error, element_start, "the call", &mut each) {
                        return None;
                    }
                }
            }
            // Between calls: a separator, the end, or something to skip up to one.
            loop {
                self.skip_ws();
                match self.peek() {
                    None => return None,
                    Some(b) if b == self.options.separator => {
                        self.pos += 1;
                        break;
                    }
                    Some(b']') => {
                        self.pos += 1;
                        return Some(self.pos);
                    }
                    Some(_) => {
                        let sep = char::from(self.options.separator);
                        let mut error =
                            self.unexpected(&format!("'{sep}' or ']' after call {index}"));
                        error.kind = ErrorKind::AfterCall;
                        let skipped = "the text up to the next call";
                        if !self.skip_reporting(error, self.pos, skipped, &mut each) {
                            return None;
                        }
                    }
                }
            }
        }
    }

    /// Reports `error` and moves on to where the element at `from` ends, saying that `skipped`
    /// is skipped; false when the text ends first (the rest of the list is skipped).
    fn skip_reporting(
        &mut self,
        mut error: Error,
        from: usize,
        skipped: &str,
        each: &mut impl FnMut(Result<Call, Error>),
    ) -> bool {
        let next = self.skip_element(from);
        let what = if next.is_some() {
            skipped
        } else {
            "the rest of the list"
        };
        error.message.push_str(&format!("; {what} is skipped"));
        each(Err(error));
        match next {
            Some(at) => {
                self.pos = at;
                true
            }
            None => false,
        }
    }

    /// Where the list element starting at `from` ends: the next `,` or `]` outside strings
    /// and brackets. Skips by brackets and quotes alone, so it finds its way past text the
    /// reader could not make sense of; `None` when the text ends first.
    ///
    /// A closer closes the nearest opener of its kind, and those it skipped count as closed
    /// (`g(b=[1, 2), h()` is read as `g(b=[1, 2])`); a closer with no opener is ignored, except
    /// `]`, which then ends the list. Counts per kind keep this linear.
    pub(super) fn skip_element(&self, from: usize) -> Option<usize> {
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
                _ if b == self.options.separator && stack.is_empty() => return Some(i),
                _ => {}
            }
            i += 1;
        }
        None
    }

    pub(super) fn call(&mut self) -> Result<Call, Error> {
        let start = self.pos;
        let name = match self.dotted_name() {
            Ok(name) => name,
            Err(mut error) => {
                if error.kind != ErrorKind::UnexpectedEnd && self.pos == start {
                    error.kind = ErrorKind::NotACall;
                    error.message = format!("not a call: {}", error.message);
                }
                return Err(error);
            }
        };
        self.skip_ws();
        match self.peek() {
            Some(b'(') => self.pos += 1,
            None => return Err(self.end_error(&format!("the call to '{name}'"))),
            Some(_) => {
                let mut error = self.unexpected(&format!("'(' after '{name}'"));
                error.kind = ErrorKind::NotACall;
                error.message = format!("not a call: {}", error.message);
                return Err(error);
            }
        }
        // Whatever a failed call left on the scratch stacks is garbage now.
        self.values.clear();
        self.entries.clear();
        self.arg_offsets.clear();
        self.open.truncate(self.call_floor);
        self.open.push(b')');
        // What is read differently from what was written, reported beside the call.
        let mut notes: Vec<Error> = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                Some(b'*') => {
                    return Err(self.error(
                        ErrorKind::Syntax,
                        self.pos,
                        format!(
                            "'{name}' unpacks arguments (*args / **kwargs), which is not a literal"
                        ),
                    ))
                }
                None => return Err(self.end_error(&format!("the call to '{name}'"))),
                Some(_) => {}
            }
            let arg_start = self.pos;
            if let Some(key) = self.keyword() {
                let value = self.value(1)?;
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
                    Ok(_) => notes.push(positional(self.pos)),
                    Err(e) if e.kind == ErrorKind::UnexpectedEnd => return Err(e),
                    // Not even a literal (`f(city)`): the missing `name=` is the news.
                    Err(_) => {
                        let end = arg_start + char_len_at(self.src, arg_start);
                        return Err(positional(end));
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
                    return Err(
                        self.unexpected(&format!("',' or ')' after an argument of '{name}'"))
                    )
                }
            }
        }
        self.open.truncate(self.call_floor);
        let mut args = Map::with_capacity(self.entries.len());
        for (i, (key, value)) in self.entries.drain(..).enumerate() {
            if args.contains_key(&key) {
                notes.push(Error {
                    kind: ErrorKind::DuplicateArgument,
                    offset: self.arg_offsets.get(i).copied().unwrap_or(start),
                    len: key.len(),
                    message: format!("'{name}' repeats the argument '{key}'"),
                });
            }
            args.insert(key, value);
        }
        // A positional argument costs the call: its value has no parameter name, and keeping the
        // call without it would look like a success (vLLM's `handle_single_tool` rejects it).
        let positional = notes
            .iter()
            .position(|note| note.kind == ErrorKind::PositionalArgument);
        if let Some(at) = positional {
            // The call is read to its end, so the list goes on after it.
            return Err(notes.swap_remove(at));
        }
        if !self.options.ast_keywords && !notes.is_empty() {
            return Err(notes.swap_remove(0));
        }
        for note in &mut notes {
            note.message
                .push_str("; the last value is kept, as the references keep it");
        }
        Ok(Call {
            name: name.to_owned(),
            args,
            start,
            end: self.pos,
            notes,
        })
    }

    /// `name =` (not `==`), consumed; otherwise nothing is consumed.
    pub(super) fn keyword(&mut self) -> Option<&'a str> {
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
}
