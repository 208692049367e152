//! What Python's `json.loads` accepts beyond JSON, for call JSON that serde_json rejects.
//!
//! The reference parsers (vLLM, SGLang) decode a call with `json.loads`, which also takes a
//! lone UTF-16 surrogate escape (`"\ud83d"`: an emoji cut in half, as a model writes one escape
//! at a time) and the non-finite numbers `NaN`, `Infinity` and `-Infinity`. serde_json rejects
//! both, which cost the whole call. Only a decode that failed is looked at again: the text is
//! rewritten into JSON that means what Python read, as closely as a JSON value can hold it, and
//! decoded once more; the happy path never sees this module.
//!
//! - A lone surrogate escape becomes `\ufffd` (U+FFFD, the replacement character). A Rust
//!   string (and a JSON text sent on as UTF-8) cannot hold a lone surrogate; U+FFFD is what a
//!   UTF-8 encoder makes of one (Python's `errors="replace"`, a browser's `TextEncoder`), and it
//!   keeps the string one character for one. Keeping the six characters `\ud83d` as text would
//!   change the value into a different, longer string.
//! - A non-finite number becomes `null`: a JSON value has no NaN or infinity, and `null` is what
//!   serde_json and JavaScript's `JSON.stringify` write for one, so it is what a client reading
//!   the reference's call through any JSON library other than Python's would see.
//!
//! Each rewrite is reported as a warning by the caller, with the first place it happened.

/// JSON text rewritten from what Python's `json.loads` accepts, with what was rewritten.
#[derive(Debug)]
pub struct Rewritten {
    pub text: String,
    /// Byte offset (in the original text) of the first rewrite, and its length there.
    pub first: (usize, usize),
    pub surrogates: usize,
    pub non_finite: usize,
}

impl Rewritten {
    /// What was read differently, for a warning: "a lone surrogate escape (read as U+FFFD)".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.surrogates > 0 {
            parts.push(format!(
                "{} lone UTF-16 surrogate escape{} (read as U+FFFD)",
                self.surrogates,
                plural(self.surrogates)
            ));
        }
        if self.non_finite > 0 {
            parts.push(format!(
                "{} NaN or Infinity number{} (read as null)",
                self.non_finite,
                plural(self.non_finite)
            ));
        }
        parts.join(" and ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `text` with its lone surrogate escapes and non-finite numbers rewritten, or `None` when it
/// has neither (its JSON error is then a real one). One pass; strings are tracked so a `NaN`
/// inside one stays text.
pub fn python_compatible(text: &str) -> Option<Rewritten> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    // Everything before `copied` is in `out` already.
    let mut copied = 0;
    let mut first = None;
    let (mut surrogates, mut non_finite) = (0, 0);
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'"' => in_string = false,
                b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                    let Some(unit) = hex4(bytes, i + 2) else {
                        i += 2;
                        continue;
                    };
                    let paired = match unit {
                        0xD800..=0xDBFF => {
                            // A high surrogate is whole when a low one's escape follows.
                            bytes.get(i + 6) == Some(&b'\\')
                                && bytes.get(i + 7) == Some(&b'u')
                                && hex4(bytes, i + 8)
                                    .is_some_and(|u| (0xDC00..=0xDFFF).contains(&u))
                        }
                        0xDC00..=0xDFFF => false,
                        _ => {
                            i += 6;
                            continue;
                        }
                    };
                    if paired {
                        i += 12;
                        continue;
                    }
                    out.push_str(&text[copied..i]);
                    out.push_str("\\ufffd");
                    first.get_or_insert((i, 6));
                    surrogates += 1;
                    i += 6;
                    copied = i;
                    continue;
                }
                b'\\' => {
                    i += 2;
                    continue;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let word = ["NaN", "Infinity", "-Infinity"]
            .into_iter()
            .find(|w| bytes[i..].starts_with(w.as_bytes()));
        match word {
            Some(word) => {
                out.push_str(&text[copied..i]);
                out.push_str("null");
                first.get_or_insert((i, word.len()));
                non_finite += 1;
                i += word.len();
                copied = i;
            }
            None => i += 1,
        }
    }
    let first = first?;
    out.push_str(&text[copied..]);
    Some(Rewritten {
        text: out,
        first,
        surrogates,
        non_finite,
    })
}

/// The four hex digits at `at` as a number.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(n * 16 + v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(text: &str) -> Option<String> {
        python_compatible(text).map(|r| r.text)
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            rewrite(r#"{"s": "a\ud83d", "t": "\ude00b"}"#).as_deref(),
            Some(r#"{"s": "a\ufffd", "t": "\ufffdb"}"#)
        );
        // A whole pair and other escapes stay as they are.
        assert_eq!(rewrite(r#"{"s": "\ud83d\ude00 \" \u00e9 \\ud83d"}"#), None);
        // A high surrogate followed by one that is not low: only the lone one changes.
        assert_eq!(
            rewrite(r#""\ud83d\u0041""#).as_deref(),
            Some(r#""\ufffd\u0041""#)
        );
        let r = python_compatible(r#"{"s": "\ud83d"}"#).expect("rewritten");
        assert_eq!(r.first, (7, 6));
        assert_eq!(
            r.describe(),
            "1 lone UTF-16 surrogate escape (read as U+FFFD)"
        );
    }

    #[test]
    fn non_finite_numbers_become_null_outside_strings() {
        assert_eq!(
            rewrite(r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN"}"#).as_deref(),
            Some(r#"{"a": null, "b": [null, null], "c": "NaN"}"#)
        );
        let r = python_compatible(r#"[NaN, "\udc00"]"#).expect("rewritten");
        assert_eq!(
            r.describe(),
            "1 lone UTF-16 surrogate escape (read as U+FFFD) and 1 NaN or Infinity number \
             (read as null)"
        );
        assert_eq!(r.first, (1, 3));
        // Ordinary invalid JSON has nothing to rewrite.
        assert_eq!(rewrite(r#"{"a": nope}"#), None);
        assert_eq!(rewrite(r#"{"a": "\u12"}"#), None);
    }
}
