//! Positions: serde_json reports errors by line and column, and inside a decoded string; these
//! map them back to byte offsets in the reply.

/// serde_json's 1-based line and column as a byte offset into `text`, on a char boundary.
pub fn line_column_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The end of the character at `at` (or `at` at the end of the text).
pub(super) fn next_char_end(text: &str, at: usize) -> usize {
    text.get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(at.min(text.len()), |c| at + c.len_utf8())
}

/// Byte offset, in the JSON string literal `literal` (quotes included), of the text that
/// decodes to byte `decoded` of the string's value: maps a position serde_json reports in a
/// decoded string back into the reply, across escapes.
pub fn literal_offset(literal: &str, decoded: usize) -> usize {
    let bytes = literal.as_bytes();
    let mut i = 1;
    let mut produced = 0;
    while i < bytes.len() && produced < decoded {
        match bytes[i] {
            b'"' => break,
            b'\\' => {
                let (raw, value) = match bytes.get(i + 1) {
                    Some(b'u') => {
                        let code = hex4(bytes, i + 2);
                        let pair = code.is_some_and(|c| (0xD800..0xDC00).contains(&c))
                            && bytes.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                            && hex4(bytes, i + 8).is_some_and(|c| (0xDC00..0xE000).contains(&c));
                        if pair {
                            (12, 4)
                        } else {
                            let width = match code {
                                Some(c) if c < 0x80 => 1,
                                Some(c) if c < 0x800 => 2,
                                _ => 3,
                            };
                            (6, width)
                        }
                    }
                    Some(_) => (2, 1),
                    None => (1, 0),
                };
                i += raw;
                produced += value;
            }
            lead => {
                let width = match lead {
                    0x00..=0x7F => 1,
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                i += width;
                produced += width;
            }
        }
    }
    let mut at = i.min(literal.len());
    while !literal.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// True when `id` looks like one the engine made up (`call_` + 32 hex digits) rather than one
/// the model's reply carried.
pub fn is_generated_id(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|rest| rest.len() == 32 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}
