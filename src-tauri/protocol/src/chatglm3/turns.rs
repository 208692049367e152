//! The assistant turns of a ChatGLM3 / GLM-4 reply, shared by [`super::ChatGlm3`] and
//! [`crate::glm4_chat::Glm4Chat`].
//!
//! Both models write every turn as `<|role|>METADATA\nCONTENT`; a tool call is an assistant
//! turn whose metadata is the tool's name. A reply is one assistant turn (the text after the
//! prompt's `<|assistant|>`), or several when the special tokens are kept (`text` turn, then a
//! call turn, each opened by `<|assistant|>`). The other role tokens end a turn: what follows
//! `<|observation|>` or `<|user|>` is not the assistant's, up to the next `<|assistant|>`.

use crate::request::Span;

pub const ASSISTANT: &str = "<|assistant|>";
/// Tokens that end the assistant's turn; the text after them is someone else's.
pub const TURN_ENDS: &[&str] = &["<|observation|>", "<|user|>", "<|system|>", "<|endoftext|>"];

/// One assistant turn: its metadata line (the first non-blank line, trimmed) and the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The whole turn, after its `<|assistant|>` (if any), up to the token that ends it.
    pub span: Span,
    /// The first non-blank line, trimmed; empty when the turn is blank.
    pub metadata: Span,
    /// After the metadata line's line break, to the turn's end (empty without a line break).
    pub rest: Span,
}

/// The assistant turns of `text`, in order, with a leading `<think>…</think>` left out (the
/// models do not reason, but the project never reads reasoning as calls). Linear in `text`.
pub fn assistant_turns(text: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    let mut from = skip_leading_reasoning(text);
    let mut assistant = true;
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(offset) = memchr::memmem::find(bytes.get(at..).unwrap_or_default(), b"<|") {
        let token_start = at + offset;
        let rest = text.get(token_start..).unwrap_or_default();
        let token = std::iter::once(ASSISTANT)
            .chain(TURN_ENDS.iter().copied())
            .find(|t| rest.starts_with(t));
        let Some(token) = token else {
            at = token_start + 2;
            continue;
        };
        if assistant {
            turns.push(turn(text, Span::new(from, token_start)));
        }
        assistant = token == ASSISTANT;
        from = token_start + token.len();
        at = from;
    }
    if assistant {
        turns.push(turn(text, Span::new(from, text.len())));
    }
    turns
}

/// Where the reply starts after a leading reasoning block (its end when never closed).
fn skip_leading_reasoning(text: &str) -> usize {
    let trimmed = text.trim_start();
    let start = text.len() - trimmed.len();
    match trimmed.strip_prefix("<think>") {
        Some(after) => match after.find("</think>") {
            Some(end) => start + "<think>".len() + end + "</think>".len(),
            None => text.len(),
        },
        None => 0,
    }
}

fn turn(text: &str, span: Span) -> Turn {
    let body = text.get(span.start..span.end).unwrap_or_default();
    let lead = body.len() - body.trim_start().len();
    let line_start = span.start + lead;
    let line = text.get(line_start..span.end).unwrap_or_default();
    let (line_end, rest_start) = match line.find('\n') {
        Some(nl) => (line_start + nl, line_start + nl + 1),
        None => (span.end, span.end),
    };
    let raw = text.get(line_start..line_end).unwrap_or_default();
    let metadata = Span::new(line_start, line_start + raw.trim_end().len());
    Turn {
        span,
        metadata,
        rest: Span::new(rest_start, span.end),
    }
}

/// `text[span]`, or "" for a span that is not one.
pub fn slice(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or_default()
}

/// The prose of turns that hold no call, trimmed and joined by line breaks.
pub fn push_content(content: &mut String, piece: &str) {
    let piece = piece.trim();
    if piece.is_empty() {
        return;
    }
    if !content.is_empty() {
        content.push('\n');
    }
    content.push_str(piece);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(text: &str) -> Vec<&str> {
        assistant_turns(text)
            .into_iter()
            .map(|t| slice(text, t.metadata))
            .collect()
    }

    #[test]
    fn turns_split_at_assistant_and_end_at_other_roles() {
        let text = "\nHi.\n<|assistant|>get_weather\n```python\ntool_call(a=1)\n```\n\
                    <|observation|>\n{\"t\": 1}<|assistant|>\nIt is 1.";
        assert_eq!(metadata(text), vec!["Hi.", "get_weather", "It is 1."]);
        let turns = assistant_turns(text);
        assert!(slice(text, turns[1].rest).starts_with("```python"));
        assert!(!slice(text, turns[1].span).contains("observation"));
    }

    #[test]
    fn reasoning_and_unknown_tokens() {
        assert_eq!(metadata("<think>a\nb</think>\nname\n{}"), vec!["name"]);
        assert!(metadata("<think>never closed").iter().all(|m| m.is_empty()));
        assert_eq!(metadata("a <|x|> b"), vec!["a <|x|> b"]);
        // What follows another role's token is not the assistant's.
        assert_eq!(metadata("<|user|>q"), vec![""]);
    }
}
