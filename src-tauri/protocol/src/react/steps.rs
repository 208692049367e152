//! Finding the `Action:` / `Action Input:` steps of a ReAct reply in one pass over its lines.
//!
//! The reference parsers use regular expressions over the whole reply; here each line is looked
//! at once and each Action Input is measured once (a balanced value, or the lines up to the next
//! labelled line), so a megabyte reply with thousands of steps costs one walk.

use crate::balanced::{value_end, Syntax};
use crate::request::Span;

/// What a line starts with (after indentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
    /// `Action:` or `Action 2:`; the offset is just after the colon, from the line's start.
    Action(usize),
    /// `Action Input:`, `Action Input 2:`, `Action 2 Input:` or `ActionInput:`.
    Input(usize),
    /// `Final Answer:`: the reply answers instead of acting.
    FinalAnswer,
    /// `Observation:` or `Thought:` (numbered or not): the end of an Action Input.
    Other,
}

/// The label `line` starts with, after spaces and tabs.
pub(super) fn label(line: &str) -> Option<Label> {
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[indent..];
    if let Some(after) = rest.strip_prefix("Action") {
        let after_number = skip_number(after);
        if let Some(colon) = after_number.strip_prefix(':') {
            return Some(Label::Action(line.len() - colon.len()));
        }
        let input = after_number.strip_prefix("Input")?;
        let colon = skip_number(input).strip_prefix(':')?;
        return Some(Label::Input(line.len() - colon.len()));
    }
    if let Some(after) = rest.strip_prefix("Final Answer") {
        return after
            .trim_start_matches([' ', '\t'])
            .starts_with(':')
            .then_some(Label::FinalAnswer);
    }
    for word in ["Observation", "Thought"] {
        if let Some(after) = rest.strip_prefix(word) {
            return skip_number(after).starts_with(':').then_some(Label::Other);
        }
    }
    None
}

/// `s` without leading spaces, then digits, then spaces (`Action 2 :`).
fn skip_number(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches([' ', '\t'])
}

/// Where an Action line's name lies in `rest` (the text after the colon), as a byte range: the
/// whole line, as LangChain and Qwen-Agent take it (LangChain tools are often named
/// `Wikipedia Research Tool`), up to a parenthesised remark (llama-index drops
/// `(add two numbers)`) or a `Final Answer:` written on the same line, without Markdown
/// backticks, asterisks or quotes around it.
pub(super) fn action_name(rest: &str) -> std::ops::Range<usize> {
    let mut end = rest.find('(').unwrap_or(rest.len());
    if let Some(answer) = rest[..end].find("Final Answer:") {
        end = answer;
    }
    let is_decoration = |c: char| c.is_whitespace() || matches!(c, '`' | '*' | '"' | '\'');
    let start_trimmed = rest[..end].trim_start_matches(is_decoration);
    let start = end - start_trimmed.len();
    let name = start_trimmed.trim_end_matches(is_decoration);
    start..start + name.len()
}

/// Where `Action Input:` appears later on an Action line (`Action: search Action Input: x`),
/// as (offset of `Action`, offset after the colon) within `rest`.
pub(super) fn input_on_same_line(rest: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(found) = rest.get(from..)?.find("Action") {
        let at = from + found;
        if let Some(Label::Input(after)) = label(&rest[at..]) {
            return Some((at, at + after));
        }
        from = at + "Action".len();
    }
    None
}

/// The lines of `text[from..to]` as (start offset, line without its `\n` or `\r\n`).
pub(super) fn lines(text: &str, from: usize, to: usize) -> impl Iterator<Item = (usize, &str)> {
    let region = text.get(from..to).unwrap_or_default();
    let mut offset = from;
    region.split_inclusive('\n').map(move |piece| {
        let start = offset;
        offset += piece.len();
        let line = piece.strip_suffix('\n').unwrap_or(piece);
        (start, line.strip_suffix('\r').unwrap_or(line))
    })
}

/// Where one Action Input lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Input {
    /// The input to decode: a balanced value, or the trimmed text.
    pub value: Span,
    /// Where the step ends (after a closing fence, when there is one).
    pub end: usize,
    /// The reply ended before the value closed.
    pub cut_off: bool,
}

/// Measures the Action Input that starts at `from` (just after its colon) and may run to `to`:
/// a JSON or Python value (in a ``` fence or not) ends where it balances; any other text runs
/// to the next labelled line (`Observation:`, `Thought:`, `Action:`, `Final Answer:`) or `to`.
pub(super) fn measure_input(text: &str, from: usize, to: usize) -> Input {
    let bytes = text.as_bytes();
    let mut at = skip_whitespace(bytes, from, to);
    let fenced = text.get(at..to).is_some_and(|rest| rest.starts_with("```"));
    if fenced {
        // The fence's own line (```json) is not input.
        at = match memchr::memchr(b'\n', bytes.get(at..to).unwrap_or_default()) {
            Some(nl) => skip_whitespace(bytes, at + nl + 1, to),
            None => to,
        };
    }
    // The next labelled line bounds the input either way, so an unclosed `{` costs a walk to
    // that line, not to the end of the reply (which, once per step, would be quadratic).
    let end = text_end(text, at, to);
    if matches!(bytes.get(at), Some(b'{' | b'[')) && at < to {
        if let Some(end) = value_end(Syntax::Python, bytes.get(..end).unwrap_or(bytes), at) {
            let mut step_end = end;
            if fenced {
                let after = skip_whitespace(bytes, end, to);
                if text
                    .get(after..to)
                    .is_some_and(|rest| rest.starts_with("```"))
                {
                    step_end = after + 3;
                }
            }
            return Input {
                value: Span::new(at, end),
                end: step_end,
                cut_off: false,
            };
        }
    }
    let mut value_to = end;
    if fenced {
        if let Some(close) = text.get(at..end).and_then(|body| body.rfind("```")) {
            value_to = at + close;
        }
    }
    let body = text.get(at..value_to).unwrap_or_default();
    let trimmed_end = at + body.trim_end().len();
    let cut_off = end == to && matches!(bytes.get(at), Some(b'{' | b'['));
    Input {
        value: Span::new(at, trimmed_end.max(at)),
        end: if fenced { end } else { trimmed_end.max(at) },
        cut_off,
    }
}

/// The start of the first labelled line after the one `from` is on, or `to`.
fn text_end(text: &str, from: usize, to: usize) -> usize {
    let region = text.as_bytes().get(from..to).unwrap_or_default();
    let first_line_end = memchr::memchr(b'\n', region).map(|nl| from + nl + 1);
    let Some(next) = first_line_end else {
        return to;
    };
    lines(text, next, to)
        .find(|(_, line)| label(line).is_some())
        .map_or(to, |(start, _)| start)
}

fn skip_whitespace(bytes: &[u8], mut at: usize, to: usize) -> usize {
    while at < to && bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_langchains_numbered_forms() {
        assert_eq!(label("Action: x"), Some(Label::Action(7)));
        assert_eq!(label("  Action 2 : x"), Some(Label::Action(12)));
        assert_eq!(label("Action Input: {}"), Some(Label::Input(13)));
        assert_eq!(label("Action Input 1: {}"), Some(Label::Input(15)));
        assert_eq!(label("Action 1 Input: {}"), Some(Label::Input(15)));
        assert_eq!(label("ActionInput: {}"), Some(Label::Input(12)));
        assert_eq!(label("Final Answer: 4"), Some(Label::FinalAnswer));
        assert_eq!(label("Thought 3: hm"), Some(Label::Other));
        assert_eq!(label("Actions: many"), None);
        assert_eq!(label("The Action: button"), None);
    }

    #[test]
    fn names_stop_at_a_space_or_parenthesis() {
        let name = |rest: &'static str| &rest[action_name(rest)];
        assert_eq!(name(" add (add two numbers)"), "add");
        assert_eq!(name(" `search`"), "search");
        assert_eq!(name(" 加法"), "加法");
        assert_eq!(name("   "), "");
        assert_eq!(name(" Wikipedia Research Tool "), "Wikipedia Research Tool");
        assert_eq!(name(" search Final Answer:"), "search");
    }

    #[test]
    fn an_input_ends_at_its_value_or_the_next_label() {
        let text = "{\"a\": {\"b\": 1}} trailing\nObservation: x";
        let input = measure_input(text, 0, text.len());
        assert_eq!(
            &text[input.value.start..input.value.end],
            "{\"a\": {\"b\": 1}}"
        );
        let text = " what is it?\nsecond line\nObservation: x";
        let input = measure_input(text, 0, text.len());
        assert_eq!(
            &text[input.value.start..input.value.end],
            "what is it?\nsecond line"
        );
        let text = "\n```json\n{\"q\": 1}\n```\nThought: done";
        let input = measure_input(text, 0, text.len());
        assert_eq!(&text[input.value.start..input.value.end], "{\"q\": 1}");
        assert_eq!(&text[input.end - 3..input.end], "```");
        let text = " {\"q\": [1, 2";
        assert!(measure_input(text, 0, text.len()).cut_off);
    }
}
