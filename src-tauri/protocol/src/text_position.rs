//! Byte spans as an editor on the other side of the IPC boundary indexes text: UTF-16 code
//! units, 1-based lines and 1-based columns in characters. Spans are byte offsets into the UTF-8
//! reply; a JavaScript string indexes UTF-16. The app computes these here, next to the text it
//! already holds, instead of the UI walking a multi-megabyte string after every parse.

use serde::Serialize;

use crate::request::Span;

/// Where a span sits in the text, as the UI indexes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TextRange {
    /// UTF-16 index of the start (what a JS string's `slice` takes).
    pub from: u32,
    /// UTF-16 index of the end, never before `from`.
    pub to: u32,
    /// 1-based line of the start.
    pub line: u32,
    /// 1-based column of the start, in characters (code points) from the start of its line.
    pub column: u32,
}

/// One position: UTF-16 index, line, column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Position {
    index: usize,
    line: usize,
    column: usize,
}

/// The [`TextRange`] of every span, in order, from one pass over `text`. An offset inside a
/// character resolves to the next character; one past the end, to the end (as the UI's own
/// mapping does, so both agree wherever a span comes from).
pub fn text_ranges(text: &str, spans: &[Span]) -> Vec<TextRange> {
    let mut offsets: Vec<usize> = spans.iter().flat_map(|s| [s.start, s.end]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let positions = positions_of(text, &offsets);
    let at = |offset: usize| {
        // Every offset asked for is in `offsets`; the fallback is never taken.
        offsets
            .binary_search(&offset)
            .ok()
            .and_then(|i| positions.get(i).copied())
            .unwrap_or(Position {
                index: 0,
                line: 1,
                column: 1,
            })
    };
    let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    spans
        .iter()
        .map(|span| {
            let start = at(span.start);
            let end = at(span.end).index.max(start.index);
            TextRange {
                from: narrow(start.index),
                to: narrow(end),
                line: narrow(start.line),
                column: narrow(start.column),
            }
        })
        .collect()
}

/// The position of each of the sorted `offsets`, walking `text` once. ASCII stretches (most of
/// a reply) are crossed a slice at a time: a byte is then a code unit and a column.
fn positions_of(text: &str, offsets: &[usize]) -> Vec<Position> {
    let mut out = Vec::with_capacity(offsets.len());
    let mut here = Position {
        index: 0,
        line: 1,
        column: 1,
    };
    let mut byte = 0;
    for &wanted in offsets {
        let mut target = wanted.min(text.len());
        // Inside a character: its end, the next character's start.
        while !text.is_char_boundary(target) {
            target += 1;
        }
        if target > byte {
            let stretch = &text[byte..target];
            if stretch.is_ascii() {
                here.index += stretch.len();
                match stretch.rfind('\n') {
                    Some(last) => {
                        here.line += stretch.bytes().filter(|&b| b == b'\n').count();
                        here.column = stretch.len() - last;
                    }
                    None => here.column += stretch.len(),
                }
            } else {
                for c in stretch.chars() {
                    here.index += c.len_utf16();
                    if c == '\n' {
                        here.line += 1;
                        here.column = 1;
                    } else {
                        here.column += 1;
                    }
                }
            }
            byte = target;
        }
        out.push(here);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The straightforward count from the start, to compare with.
    fn counted(text: &str, offset: usize) -> (u32, u32, u32) {
        let mut end = offset.min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let before = &text[..end];
        let index = before.encode_utf16().count();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        (n(index), n(line), n(column))
    }

    #[test]
    fn every_offset_matches_a_count_from_the_start() {
        let text = "ab\nçé日本\r\n\nlast line 😀 end\n";
        let spans: Vec<Span> = (0..=text.len() + 2)
            .flat_map(|start| (start..=text.len() + 2).map(move |end| Span::new(start, end)))
            .collect();
        let ranges = text_ranges(text, &spans);
        for (span, range) in spans.iter().zip(&ranges) {
            let (from, line, column) = counted(text, span.start);
            let (to, _, _) = counted(text, span.end);
            assert_eq!(
                *range,
                TextRange {
                    from,
                    to: to.max(from),
                    line,
                    column
                },
                "span {span:?}"
            );
        }
    }

    #[test]
    fn spans_in_any_order_and_repeated() {
        let text = "x\ny😀z\nw";
        let spans = [
            Span::new(8, 9),
            Span::new(0, 1),
            Span::new(8, 9),
            Span::new(3, 4),
            Span::new(5, 5),
        ];
        let ranges = text_ranges(text, &spans);
        let range = |from, to, line, column| TextRange {
            from,
            to,
            line,
            column,
        };
        assert_eq!(
            ranges,
            vec![
                range(6, 7, 2, 4),
                range(0, 1, 1, 1),
                range(6, 7, 2, 4),
                // An end inside the emoji: the character after it.
                range(3, 5, 2, 2),
                // A start inside it too.
                range(5, 5, 2, 3),
            ]
        );
    }

    #[test]
    fn empty_text_and_no_spans() {
        assert!(text_ranges("abc", &[]).is_empty());
        assert_eq!(
            text_ranges("", &[Span::new(0, 3)]),
            vec![TextRange {
                from: 0,
                to: 0,
                line: 1,
                column: 1
            }]
        );
    }
}
