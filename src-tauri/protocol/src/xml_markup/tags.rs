//! Reading one opening tag of the family: its attributes (or `=name`), where it ends, and
//! what is wrong with it when it cannot be read.

use super::*;

/// Why a tag could not be read.
pub(super) enum TagError {
    /// The limit came before its `>`.
    Unclosed,
    /// A byte that cannot be there (a `<` or a newline inside the tag).
    Malformed(usize),
}

/// Reads a tag from `at` (just after its opening, e.g. after `<invoke`) to its `>`, which must
/// come before `limit`. Returns the attributes (for `Equals`, one attribute `name`) and the
/// position after `>`.
pub(super) fn read_tag<'t>(
    text: &'t str,
    at: usize,
    limit: usize,
    style: TagStyle,
) -> Result<(Vec<Attr<'t>>, usize), TagError> {
    let bytes = text.as_bytes();
    let limit = limit.min(bytes.len());
    if style == TagStyle::Equals {
        let mut i = at;
        while i < limit {
            match bytes[i] {
                b'>' => {
                    let raw = text.get(at..i).unwrap_or_default().trim();
                    let name = strip_quotes(raw);
                    return Ok((
                        vec![Attr {
                            key: "name",
                            value: name,
                        }],
                        i + 1,
                    ));
                }
                b'<' | b'\n' => return Err(TagError::Malformed(i)),
                _ => i += 1,
            }
        }
        return Err(TagError::Unclosed);
    }
    let mut attrs = Vec::new();
    let mut i = at;
    loop {
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        match bytes[i] {
            b'>' => return Ok((attrs, i + 1)),
            b'<' | b'/' | b'=' | b'"' | b'\'' => return Err(TagError::Malformed(i)),
            _ => {}
        }
        let key_start = i;
        while i < limit
            && !matches!(bytes[i], b'=' | b'>' | b'<')
            && !bytes[i].is_ascii_whitespace()
        {
            i += 1;
        }
        let key = text.get(key_start..i).unwrap_or_default();
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        if bytes[i] != b'=' {
            // A bare word (`<invoke get_weather>`) is no attribute this family writes.
            return Err(TagError::Malformed(key_start));
        }
        i += 1;
        while i < limit && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= limit {
            return Err(TagError::Unclosed);
        }
        let value = match bytes[i] {
            quote @ (b'"' | b'\'') => {
                let start = i + 1;
                let Some(len) = bytes
                    .get(start..limit)
                    .and_then(|rest| memchr::memchr(quote, rest))
                else {
                    return Err(TagError::Unclosed);
                };
                i = start + len + 1;
                text.get(start..start + len).unwrap_or_default()
            }
            _ => {
                let start = i;
                while i < limit && bytes[i] != b'>' && !bytes[i].is_ascii_whitespace() {
                    if bytes[i] == b'<' {
                        return Err(TagError::Malformed(i));
                    }
                    i += 1;
                }
                text.get(start..i).unwrap_or_default()
            }
        };
        attrs.push(Attr { key, value });
    }
}

/// The character at byte `at` (a tag may hold any character where a `>` was expected).
pub(super) fn char_span(text: &str, at: usize) -> Span {
    let len = text
        .get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(0, char::len_utf8);
    Span::new(at, at + len)
}

pub(super) fn strip_quotes(raw: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = raw
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    raw
}

pub(super) fn attr<'t>(attrs: &[Attr<'t>], key: &str) -> Option<&'t str> {
    attrs.iter().find(|a| a.key == key).map(|a| a.value)
}

/// The tag as written, for messages: `<invoke name="x">`, or its first 60 characters.
pub(super) fn tag_preview(text: &str, span: Span) -> String {
    let raw = text.get(span.start..span.end).unwrap_or_default();
    let mut preview: String = raw.chars().take(60).collect();
    if preview.len() < raw.len() {
        preview.push('…');
    }
    preview
}
