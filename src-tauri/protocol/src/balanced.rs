//! Where a JSON or Python literal ends, found one byte at a time.
//!
//! The framing scanner needs to know when `[TOOL_CALLS] [{…}, {…}]` or `[f(a=1)]` is complete
//! without parsing it (the format's decoder does that once, on the finished block) and without
//! rescanning when more text arrives. Brackets are counted outside strings; which bracket closes
//! which is the decoder's business, so this stays a tiny state machine.

/// The literal syntax of a balanced value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON: `{` or `[` opens; strings in `"` with `\` escapes.
    Json,
    /// Python literals and calls: `[`, `{` or `(` opens; strings in `'` or `"`.
    Python,
}

impl Syntax {
    /// How diagnostics name what was expected.
    pub fn expected(self) -> &'static str {
        match self {
            Self::Json => "a JSON object or array",
            Self::Python => "a Python list of calls",
        }
    }

    fn opens(self, b: u8) -> bool {
        match self {
            Self::Json => b == b'{' || b == b'[',
            Self::Python => b == b'{' || b == b'[' || b == b'(',
        }
    }

    fn closes(self, b: u8) -> bool {
        match self {
            Self::Json => b == b'}' || b == b']',
            Self::Python => b == b'}' || b == b']' || b == b')',
        }
    }

    fn quotes(self, b: u8) -> bool {
        match self {
            Self::Json => b == b'"',
            Self::Python => b == b'"' || b == b'\'',
        }
    }

    /// The bytes that change the state outside a string; every other byte is skipped there.
    fn significant(self) -> &'static [bool; 256] {
        match self {
            Self::Json => &JSON_SIGNIFICANT,
            Self::Python => &PYTHON_SIGNIFICANT,
        }
    }
}

const fn significant_bytes(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

static JSON_SIGNIFICANT: [bool; 256] = significant_bytes(b"\"{}[]");
static PYTHON_SIGNIFICANT: [bool; 256] = significant_bytes(b"\"'{}[]()");

/// Scanning state inside one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalancedScan {
    syntax: Syntax,
    depth: u32,
    /// The quote byte of the string being read, if any.
    quote: Option<u8>,
    escaped: bool,
}

impl BalancedScan {
    /// Starts a value at `first` (already consumed), or `None` when it cannot start one.
    pub fn start(syntax: Syntax, first: u8) -> Option<Self> {
        syntax.opens(first).then_some(Self {
            syntax,
            depth: 1,
            quote: None,
            escaped: false,
        })
    }

    pub fn in_string(&self) -> bool {
        self.quote.is_some()
    }

    /// Open brackets not yet closed (1 right after the opening byte).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Consumes `bytes` until the value closes, a `stop` byte appears outside a string (not
    /// consumed: the caller decides, then feeds it), or the bytes run out. String contents are
    /// skipped with memchr, which is where long replies spend their bytes.
    pub fn run(&mut self, bytes: &[u8], stop: Option<u8>) -> Progress {
        let significant = self.syntax.significant();
        let mut i = 0;
        while i < bytes.len() {
            if let Some(quote) = self.quote {
                if self.escaped {
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                match memchr::memchr2(quote, b'\\', &bytes[i..]) {
                    None => return Progress::More,
                    Some(offset) => {
                        i += offset;
                        if bytes[i] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.quote = None;
                        }
                        i += 1;
                        continue;
                    }
                }
            }
            // Outside strings, most bytes (keys' colons, numbers, Python's `name=`) change
            // nothing: skip them with a table lookup instead of the full state machine.
            while let Some(&b) = bytes.get(i) {
                if significant[usize::from(b)] || Some(b) == stop {
                    break;
                }
                i += 1;
            }
            let Some(&b) = bytes.get(i) else { break };
            if Some(b) == stop {
                return Progress::Stop(i);
            }
            i += 1;
            if self.feed(b) {
                return Progress::Closed(i);
            }
        }
        Progress::More
    }

    /// Consumes one byte; true when it closed the value.
    pub fn feed(&mut self, b: u8) -> bool {
        if let Some(quote) = self.quote {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == quote {
                self.quote = None;
            }
            return false;
        }
        if self.syntax.quotes(b) {
            self.quote = Some(b);
        } else if self.syntax.opens(b) {
            self.depth = self.depth.saturating_add(1);
        } else if self.syntax.closes(b) {
            self.depth = self.depth.saturating_sub(1);
            return self.depth == 0;
        }
        false
    }
}

/// How far [`BalancedScan::run`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The value closed; the index is just after its last byte.
    Closed(usize),
    /// The stop byte is at this index, outside any string.
    Stop(usize),
    /// Every byte was consumed and the value is still open.
    More,
}

/// End (exclusive) of the balanced value starting at `text[start]`, if it closes.
pub fn value_end(syntax: Syntax, text: &[u8], start: usize) -> Option<usize> {
    let mut scan = BalancedScan::start(syntax, *text.get(start)?)?;
    match scan.run(&text[start + 1..], None) {
        Progress::Closed(end) => Some(start + 1 + end),
        Progress::Stop(_) | Progress::More => None,
    }
}

/// Spans of the top-level elements of the JSON array at `text[span]` (whitespace trimmed).
/// Used to give each call of a list its own span; a list cut off at the end yields its
/// unfinished last element too.
pub fn element_spans(text: &str, span: crate::request::Span) -> Vec<crate::request::Span> {
    use crate::request::Span;
    let bytes = text.as_bytes();
    let Some(start) = (span.start..span.end).find(|&i| !bytes[i].is_ascii_whitespace()) else {
        return Vec::new();
    };
    if bytes[start] != b'[' {
        return Vec::new();
    }
    let mut spans = Vec::new();
    let mut scan = BalancedScan {
        syntax: Syntax::Json,
        depth: 1,
        quote: None,
        escaped: false,
    };
    let mut element_start = start + 1;
    let push = |from: usize, to: usize, spans: &mut Vec<Span>| {
        let slice = &bytes[from..to];
        let lead = slice.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let trail = slice
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        if lead < slice.len() {
            spans.push(Span::new(from + lead, to - trail));
        }
    };
    let mut i = start + 1;
    while i < span.end {
        match scan.run(&bytes[i..span.end], Some(b',')) {
            Progress::Stop(offset) => {
                let at = i + offset;
                if scan.depth() == 1 {
                    push(element_start, at, &mut spans);
                    element_start = at + 1;
                }
                i = at + 1;
            }
            Progress::Closed(offset) => {
                push(element_start, i + offset - 1, &mut spans);
                break;
            }
            Progress::More => {
                // The list is cut off: what is left is its last, unfinished element.
                push(element_start, span.end, &mut spans);
                break;
            }
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ends_at_the_matching_bracket_ignoring_strings() {
        let text = br#"{"a": "}]\" {", "b": [1, {"c": 2}]} tail"#;
        let end = value_end(Syntax::Json, text, 0).expect("closes");
        assert_eq!(&text[end..], b" tail");
        assert_eq!(value_end(Syntax::Json, br#"{"a": [1, 2"#, 0), None);
        assert_eq!(value_end(Syntax::Json, b"x{}", 0), None);
    }

    #[test]
    fn python_knows_single_quotes_and_calls() {
        let text = br#"[f(a='),]', b="\"]"), g()] rest"#;
        let end = value_end(Syntax::Python, text, 0).expect("closes");
        assert_eq!(&text[end..], b" rest");
    }

    #[test]
    fn array_elements_get_their_own_spans() {
        use crate::request::Span;
        let text = r#"x [ {"a": "1,2"} , [3, 4],"s" ] y"#;
        let spans = element_spans(text, Span::new(1, text.len() - 2));
        let parts: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(parts, vec![r#"{"a": "1,2"}"#, "[3, 4]", r#""s""#]);
        assert!(element_spans("[]", Span::new(0, 2)).is_empty());
    }

    #[test]
    fn byte_at_a_time_equals_all_at_once() {
        let text = br#"[{"x": "a\\"}, {"y": [[]]}]"#;
        let mut scan = BalancedScan::start(Syntax::Json, text[0]).expect("opens");
        let closed_at = text[1..].iter().position(|&b| scan.feed(b)).map(|i| i + 2);
        assert_eq!(closed_at, Some(text.len()));
    }
}

#[cfg(test)]
mod equivalence {
    use super::*;
    use proptest::prelude::*;

    /// The byte-at-a-time state machine `run` shortcuts.
    fn fed_one_by_one(
        mut scan: BalancedScan,
        bytes: &[u8],
        stop: Option<u8>,
    ) -> (Progress, BalancedScan) {
        for (i, &b) in bytes.iter().enumerate() {
            if !scan.in_string() && Some(b) == stop {
                return (Progress::Stop(i), scan);
            }
            if scan.feed(b) {
                return (Progress::Closed(i + 1), scan);
            }
        }
        (Progress::More, scan)
    }

    proptest! {
        #[test]
        fn run_skips_exactly_what_feeding_each_byte_would(
            text in "[a-z0-9 :=,'\"\\\\{}()\\[\\]]{0,64}",
            python in any::<bool>(),
            stop in prop::option::of(Just(b',')),
        ) {
            let syntax = if python { Syntax::Python } else { Syntax::Json };
            let scan = BalancedScan::start(syntax, b'[').expect("opens");
            let mut running = scan;
            let ran = running.run(text.as_bytes(), stop);
            // Same outcome, and the same state to go on from.
            prop_assert_eq!((ran, running), fed_one_by_one(scan, text.as_bytes(), stop));
        }
    }
}
