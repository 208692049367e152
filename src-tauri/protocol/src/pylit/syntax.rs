//! Whether a bracketed list is Python at all, for a list the reader could not read.
//!
//! The references read a pythonic reply with `ast.parse`: text that is not Python gives no call
//! at all, while a list that is Python but holds a value no JSON can carry (`b'x'`, a name, a
//! lambda) loses only that call (vLLM's `test_bad_sibling_call_does_not_drop_good_calls`). The
//! reader here stops at the first thing it cannot read either way, so when it stops this pass
//! tells the two apart. It is not a Python parser: it pairs quotes and brackets and checks the
//! few rules a model's broken list breaks — an unterminated string or bracket, a closer that
//! does not match, two operands with nothing between them (`"a" Sacramento`, `f() g()`), and a
//! bare `=` outside a call's parentheses (`[f(), method="x"]`).

/// Python keywords that join or introduce operands (`x if y else z`, `lambda x: x`,
/// `[f(x) for x in xs]`): an operand may follow them.
const OPERATOR_WORDS: &[&[u8]] = &[
    b"and", b"or", b"not", b"in", b"is", b"if", b"else", b"for", b"lambda", b"await", b"async",
];

/// Letters a string literal may be prefixed with (`r'…'`, `b"…"`, `rb'…'`, `f'…'`).
fn is_string_prefix(word: &[u8]) -> bool {
    word.len() <= 2
        && word
            .iter()
            .all(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f'))
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || !b.is_ascii()
}

/// Reads the list that opens at `src[0]` (`[`) up to its matching `]`. `Ok` with the offset
/// just after that `]` when everything up to it can be Python; otherwise the offset where it
/// stops being Python and why.
pub fn python_list_end(src: &str) -> Result<usize, (usize, &'static str)> {
    let bytes = src.as_bytes();
    if bytes.first() != Some(&b'[') {
        return Err((0, "the text does not open a list"));
    }
    let mut open: Vec<u8> = Vec::new();
    // The last token ended an operand (a name, number, string or closing bracket), so another
    // operand cannot follow it directly; `string_last` allows `'a' 'b'` (concatenation).
    let mut after_operand = false;
    let mut string_last = false;
    let mut after_name = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |at| i + at);
                continue;
            }
            b'\'' | b'"' => {
                if after_operand && !string_last {
                    return Err((i, "a string follows another operand with nothing between"));
                }
                i = string_end(bytes, i).ok_or((i, "a string is never closed"))?;
                (after_operand, string_last, after_name) = (true, true, false);
                continue;
            }
            b'(' | b'[' | b'{' => {
                open.push(match b {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                });
                (after_operand, string_last, after_name) = (false, false, false);
            }
            b')' | b']' | b'}' => {
                if open.pop() != Some(b) {
                    return Err((i, "a closing bracket does not match the one it closes"));
                }
                if open.is_empty() {
                    return Ok(i + 1);
                }
                (after_operand, string_last, after_name) = (true, false, false);
            }
            b'=' => {
                let previous = i.checked_sub(1).map(|at| bytes[at]);
                let compound = bytes.get(i + 1) == Some(&b'=')
                    || previous.is_some_and(|p| b"=!<>:+-*/%&|^@".contains(&p));
                if compound {
                    i += usize::from(bytes.get(i + 1) == Some(&b'='));
                } else if !(after_name && open.last() == Some(&b')')) {
                    return Err((i, "'=' stands outside a call's parentheses"));
                }
                (after_operand, string_last, after_name) = (false, false, false);
            }
            _ if is_name_byte(b) => {
                let start = i;
                while bytes.get(i).copied().is_some_and(is_name_byte) {
                    i += 1;
                }
                let word = &bytes[start..i];
                if matches!(bytes.get(i), Some(b'\'' | b'"')) && is_string_prefix(word) {
                    // The prefix belongs to the string that follows it.
                    if after_operand && !string_last {
                        return Err((
                            start,
                            "a string follows another operand with nothing between",
                        ));
                    }
                    i = string_end(bytes, i).ok_or((start, "a string is never closed"))?;
                    (after_operand, string_last, after_name) = (true, true, false);
                    continue;
                }
                let number = start == i || word[0].is_ascii_digit();
                if number && bytes.get(i) == Some(&b'.') {
                    // `1.5`, `1.e3`: the rest of the number.
                    i += 1;
                    while bytes.get(i).copied().is_some_and(is_name_byte) {
                        i += 1;
                    }
                }
                if OPERATOR_WORDS.contains(&word) {
                    (after_operand, string_last, after_name) = (false, false, false);
                    continue;
                }
                if after_operand {
                    return Err((
                        start,
                        "two operands stand side by side with nothing between",
                    ));
                }
                (after_operand, string_last, after_name) = (true, false, !number);
                continue;
            }
            _ => (after_operand, string_last, after_name) = (false, false, false),
        }
        i += 1;
    }
    Err((bytes.len(), "the list is never closed"))
}

/// Just after the string literal whose opening quote is at `at`; `None` when it never closes.
/// A backslash escapes the next byte (in a raw string too, for where the string ends).
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = bytes[at];
    let triple = bytes.get(at..at + 3) == Some(&[quote; 3][..]);
    let mut i = at + if triple { 3 } else { 1 };
    loop {
        let offset = memchr::memchr2(quote, b'\\', bytes.get(i..)?)?;
        i += offset;
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if !triple {
            return Some(i + 1);
        }
        if bytes.get(i..i + 3) == Some(&[quote; 3][..]) {
            return Some(i + 3);
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::python_list_end;

    fn verdict(src: &str) -> Result<usize, &'static str> {
        python_list_end(src).map_err(|(_, why)| why)
    }

    #[test]
    fn python_lists_close_where_python_closes_them() {
        for src in [
            "[f(a=1), g(b='x', c=[1, 2])]",
            "[f(a='it''s'), g(b=\"\"\"x\ny\"\"\")]",
            "[f(a=r'\\d+', b=b'z', c=f'{x}')]",
            "[f(a=1 if x else 2, b=lambda y: y**2, c=[i for i in xs])]",
            "[f(a=x == 1, b=y <= 2, c=(z := 3))]",
            "[f(a=110 / 5.2, b=1.5e3, c=-0x1f)]",
            "[f(a=1),\n # a comment ]\n g()]",
            "[f(a='x')] and more",
        ] {
            assert!(verdict(src).is_ok(), "{src}");
        }
        assert_eq!(python_list_end("[f()] ()"), Ok(5));
    }

    #[test]
    fn broken_lists_are_not_python() {
        for (src, why) in [
            (
                "[f(a=\"x), g(b=\"y\", c=\"z\")]",
                "two operands stand side by side with nothing between",
            ),
            ("[f(a='x), g(b=1)]", "a string is never closed"),
            (
                "[f(a=[0.8, 0.7]))]",
                "a closing bracket does not match the one it closes",
            ),
            (
                "[f(a=1), method='x']",
                "'=' stands outside a call's parentheses",
            ),
            (
                "[f(a=1) g(b=2)]",
                "two operands stand side by side with nothing between",
            ),
            (
                "[f(a=1 2)]",
                "two operands stand side by side with nothing between",
            ),
            ("[f(a=1), g(", "the list is never closed"),
        ] {
            assert_eq!(verdict(src), Err(why), "{src}");
        }
    }
}
