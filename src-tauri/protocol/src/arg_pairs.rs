//! The `<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>` argument pairs GLM-4.5 introduced
//! and several formats copied: GLM-4.5/4.7 (and its aliases), GLM-5.3-Flash's second layout,
//! iQuest Coder V2, Tencent Hy3/Hy4 (suffixed tokens) and K2 Horizon (`<ifm|…>` tokens, with an
//! optional `<ifm|arg_type>` between key and value).
//!
//! One reader serves them all; a [`PairSyntax`] says what really differs between them: the tag
//! spelling, whether a value is trimmed (GLM's references `.strip()` values, the others keep
//! them as written), whether GLM-4.7's two characters `\n` count as layout, whether a value
//! may run past the next key opener (Hy3/Hy4's references read a value to its first closing
//! token whatever it quotes; the GLM reader stops at the next `<arg_key>`, so a value the model
//! forgot to close does not swallow the next pair), and what text between pairs does to the
//! call ([`Stray`]). Messages are the same for every format, with its tags, the call's name and
//! the call's closing marker filled in.
//!
//! Every search goes through [`Finder`]s whose positions only grow, so a block of thousands of
//! pairs (or broken ones) is read in linear time.

use crate::calls::{error, warning};
use crate::request::{DiagnosticCode, ParseOutput, Span};
use crate::xml_markup::Finder;

/// GLM-4.7 sometimes writes the two characters `\n` where the template has a newline.
pub const LITERAL_NEWLINE: &str = "\\n";

/// How one format spells and reads its pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairSyntax {
    pub key_open: &'static str,
    pub key_close: &'static str,
    pub value_open: &'static str,
    pub value_close: &'static str,
    /// An optional element between key and value that declares the value's type (K2 Horizon's
    /// `<ifm|arg_type>…</ifm|arg_type>`), as (open, close).
    pub type_tags: Option<(&'static str, &'static str)>,
    /// Whether whitespace around a value is dropped (GLM's references strip every value).
    pub trim_values: bool,
    /// Whether the two characters `\n` count as layout between the tags (GLM-4.7).
    pub literal_newlines: bool,
    /// Whether a value must close before the next key opener (else it is broken), or is read to
    /// its first closing tag whatever it quotes.
    pub value_ends_at_next_key: bool,
    /// What text between pairs does to the call.
    pub stray: Stray,
}

/// What text between pairs (which no template writes) does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stray {
    /// An error that skips the call, as the references that match the whole body do.
    SkipsTheCall,
    /// Before the first pair an error that skips the call (the block may be another format's,
    /// or prose); after one a warning, as the references' `findall` ignores it.
    IgnoredAfterAPair,
    /// A warning wherever it stands: the caller has already checked the start of the call.
    Ignored,
}

/// GLM-4.5's spelling and reading rules (also GLM-5.3-Flash's second layout).
pub const GLM: PairSyntax = PairSyntax {
    key_open: "<arg_key>",
    key_close: "</arg_key>",
    value_open: "<arg_value>",
    value_close: "</arg_value>",
    type_tags: None,
    trim_values: true,
    literal_newlines: true,
    value_ends_at_next_key: true,
    stray: Stray::IgnoredAfterAPair,
};

/// One pair as read: the key (trimmed), its value (trimmed when the syntax says so), the declared
/// type when the syntax has one, and where the pair and the value stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'t> {
    pub key: &'t str,
    pub value: &'t str,
    pub declared_type: Option<&'t str>,
    pub value_span: Span,
    pub span: Span,
}

/// What reading one pair gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPair<'t> {
    /// A whole pair.
    Pair(Pair<'t>),
    /// A pair whose value opener is missing (`<arg_key>k</arg_key>text</arg_value>`), left out
    /// with an error, as the references' pair pattern skips it; reading goes on at `end`.
    LeftOut { end: usize },
    /// A pair whose extent is a guess, reported: the call is skipped.
    Broken,
}

/// The call the pairs belong to, for messages.
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The marker that closes the call (named when a tag is missing before it).
    pub close: &'a str,
    /// False when the reply ended inside the call (cut off).
    pub complete: bool,
}

/// Reads pairs in `text[..end]`.
pub struct PairReader<'t> {
    text: &'t str,
    end: usize,
    syntax: PairSyntax,
    keys: Finder<'t>,
    key_closes: Finder<'t>,
    value_closes: Finder<'t>,
}

impl<'t> PairReader<'t> {
    pub fn new(text: &'t str, end: usize, syntax: PairSyntax) -> Self {
        let end = end.min(text.len());
        Self {
            text,
            end,
            syntax,
            keys: Finder::new(text, end, syntax.key_open),
            key_closes: Finder::new(text, end, syntax.key_close),
            value_closes: Finder::new(text, end, syntax.value_close),
        }
    }

    /// The first key opener at or after `from`.
    pub fn next_key(&mut self, from: usize) -> Option<usize> {
        self.keys.find(from)
    }

    /// Every pair in `text[from..end]`, handed to `each` in order; false (with an error) when
    /// one is broken or stray text skips the call, because a call with a doubtful argument must
    /// not run.
    pub fn read_all(
        &mut self,
        from: usize,
        call: CallContext<'_>,
        out: &mut ParseOutput,
        mut each: impl FnMut(Pair<'t>, &mut ParseOutput),
    ) -> bool {
        let mut cursor = from;
        let mut read_one = false;
        while let Some(key_open) = self.keys.find(cursor) {
            if self.stray(cursor, key_open, read_one, call.name, out) {
                return false;
            }
            let limit = self.keys.find(key_open + self.syntax.key_open.len());
            match self.read(key_open, limit.unwrap_or(self.end), call, out) {
                ReadPair::Pair(pair) => {
                    cursor = pair.span.end;
                    read_one = true;
                    each(pair, out);
                }
                ReadPair::LeftOut { end } => {
                    cursor = end;
                    read_one = true;
                }
                ReadPair::Broken => return false,
            }
        }
        // A reply cut inside the call's closing marker leaves the start of it: not stray text.
        let tail = self.text.get(cursor..self.end).unwrap_or_default().trim();
        let cut_in_close = !call.complete && !tail.is_empty() && call.close.starts_with(tail);
        cut_in_close || !self.stray(cursor, self.end, read_one, call.name, out)
    }

    /// The pair whose key opener is at `key_open`; the key must close before `key_limit` (the
    /// next key opener, or whatever else the caller knows ends it). Errors are reported here.
    pub fn read(
        &mut self,
        key_open: usize,
        key_limit: usize,
        call: CallContext<'_>,
        out: &mut ParseOutput,
    ) -> ReadPair<'t> {
        match self.read_pair(key_open, key_limit, call, out) {
            Ok(pair) => ReadPair::Pair(pair),
            Err(Some(end)) => ReadPair::LeftOut { end },
            Err(None) => ReadPair::Broken,
        }
    }

    /// [`Self::read`], with `Err(Some(end))` for a pair left out and `Err(None)` for a broken one.
    fn read_pair(
        &mut self,
        key_open: usize,
        key_limit: usize,
        call: CallContext<'_>,
        out: &mut ParseOutput,
    ) -> Result<Pair<'t>, Option<usize>> {
        let syntax = self.syntax;
        let text = self.text;
        let name = call.name;
        let key_start = key_open + syntax.key_open.len();
        let Some(key_close) = self.key_closes.find(key_start).filter(|&at| at < key_limit) else {
            let what = format!("{} is not closed by {}", syntax.key_open, syntax.key_close);
            self.broken(key_open, key_limit, what, call, out);
            return Err(None);
        };
        let key = text.get(key_start..key_close).unwrap_or_default().trim();
        let mut after_key = key_close + syntax.key_close.len();
        let next_key = self.keys.find(key_start);
        let limit = next_key.unwrap_or(self.end);
        let mut declared_type = None;
        if let Some((type_open, type_close)) = syntax.type_tags {
            let at = self.skip_layout(after_key, limit);
            if text
                .get(at..limit)
                .is_some_and(|r| r.starts_with(type_open))
            {
                let type_start = at + type_open.len();
                let Some(len) = text.get(type_start..limit).and_then(|r| r.find(type_close)) else {
                    let what = format!(
                        "the {type_open} of '{key}' of '{name}' is not closed by {type_close}"
                    );
                    self.broken(key_open, limit, what, call, out);
                    return Err(None);
                };
                declared_type = text.get(type_start..type_start + len).map(str::trim);
                after_key = type_start + len + type_close.len();
            }
        }
        let value_open = self.skip_layout(after_key, limit);
        if !text
            .get(value_open..limit)
            .is_some_and(|rest| rest.starts_with(syntax.value_open))
        {
            // Text, then the value's closer, before the next key: the model left the value's
            // opener out (GLM-5.2, vLLM issue 49248). The references' pair pattern does not match
            // such a pair and reads the others; so does this reader, with an error.
            let orphan_close = self
                .value_closes
                .find(value_open)
                .filter(|&at| at < limit && at > value_open);
            let opener_inside = |at: usize| {
                text.get(value_open..at)
                    .is_some_and(|between| between.contains(syntax.value_open))
            };
            if let Some(at) = orphan_close.filter(|&at| !key.is_empty() && !opener_inside(at)) {
                error(
                    out,
                    DiagnosticCode::UnclosedValue,
                    format!(
                        "argument '{key}' of '{name}' has no {} before its value; the argument \
                         is left out, as the references' pair pattern leaves it",
                        syntax.value_open
                    ),
                    Span::new(key_open, at + syntax.value_close.len()),
                );
                return Err(Some(at + syntax.value_close.len()));
            }
            let message = if value_open == limit && next_key.is_none() && !call.complete {
                format!(
                    "the reply ends after argument '{key}' of '{name}' and before its value; the \
                     call is skipped"
                )
            } else {
                format!(
                    "argument '{key}' of '{name}' is not followed by {}; the call is skipped",
                    syntax.value_open
                )
            };
            error(
                out,
                DiagnosticCode::UnclosedValue,
                message,
                Span::new(key_open, after_key),
            );
            return Err(None);
        }
        let value_start = value_open + syntax.value_open.len();
        let value_limit = if syntax.value_ends_at_next_key {
            limit
        } else {
            self.end
        };
        let Some(value_close) = self
            .value_closes
            .find(value_start)
            .filter(|&at| at < value_limit)
        else {
            let what = format!(
                "the value of '{key}' of '{name}' is not closed by {}",
                syntax.value_close
            );
            self.broken(key_open, value_limit, what, call, out);
            return Err(None);
        };
        if key.is_empty() {
            error(
                out,
                DiagnosticCode::UnknownKey,
                format!(
                    "an argument of '{name}' has an empty {}; the call is skipped",
                    syntax.key_open
                ),
                Span::new(key_open, after_key),
            );
            return Err(None);
        }
        let raw = text.get(value_start..value_close).unwrap_or_default();
        let (value, value_span) = if syntax.trim_values {
            let lead = raw.len() - raw.trim_start().len();
            let value = raw.trim();
            let start = value_start + lead;
            (value, Span::new(start, start + value.len()))
        } else {
            (raw, Span::new(value_start, value_close))
        };
        Ok(Pair {
            key,
            value,
            declared_type,
            value_span,
            span: Span::new(key_open, value_close + syntax.value_close.len()),
        })
    }

    /// Reports a tag of the pair at `key_open` that is not closed before `limit`.
    fn broken(
        &self,
        key_open: usize,
        limit: usize,
        what: String,
        call: CallContext<'_>,
        out: &mut ParseOutput,
    ) {
        let at_a_key = self
            .text
            .get(limit..self.end)
            .is_some_and(|rest| rest.starts_with(self.syntax.key_open));
        let message = if at_a_key {
            format!(
                "{what} before the next {}; the call is skipped",
                self.syntax.key_open
            )
        } else if limit >= self.end && !call.complete {
            format!("{what}: the reply ends first; the call is skipped")
        } else {
            format!("{what} before {}; the call is skipped", call.close)
        };
        error(
            out,
            DiagnosticCode::UnclosedValue,
            message,
            Span::new(key_open, limit),
        );
    }

    /// The end of the layout at `text[from..to]`: whitespace, and literal `\n`s when the syntax
    /// allows them.
    pub fn skip_layout(&self, from: usize, to: usize) -> usize {
        let mut rest = self.text.get(from..to).unwrap_or_default();
        loop {
            let trimmed = rest.trim_start();
            match trimmed.strip_prefix(LITERAL_NEWLINE) {
                Some(after) if self.syntax.literal_newlines => rest = after,
                _ => return to - trimmed.len(),
            }
        }
    }

    /// What text in `text[from..to]`, where only pairs belong, does to the call (see [`Stray`]).
    /// True when the call is skipped.
    fn stray(
        &self,
        from: usize,
        to: usize,
        after_a_pair: bool,
        name: &str,
        out: &mut ParseOutput,
    ) -> bool {
        let start = self.skip_layout(from, to);
        let trimmed = self.text.get(start..to).unwrap_or_default().trim_end();
        if trimmed.is_empty() {
            return false;
        }
        let preview: String = trimmed.chars().take(40).collect();
        let span = Span::new(start, start + trimmed.len());
        let what = format!(
            "text between the arguments of '{name}' is not an {}/{} pair ('{preview}')",
            self.syntax.key_open, self.syntax.value_open
        );
        let skips = match self.syntax.stray {
            Stray::SkipsTheCall => true,
            Stray::IgnoredAfterAPair => !after_a_pair,
            Stray::Ignored => false,
        };
        if skips {
            let message = format!("{what}; the call is skipped");
            error(out, DiagnosticCode::StrayText, message, span);
        } else {
            warning(
                out,
                DiagnosticCode::StrayText,
                format!("{what}; it is ignored"),
                span,
            );
        }
        skips
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(syntax: PairSyntax, body: &str) -> (Vec<(String, String)>, ParseOutput) {
        let mut out = ParseOutput::default();
        let mut pairs = Vec::new();
        let call = CallContext {
            name: "f",
            close: "</tool_call>",
            complete: true,
        };
        let ok = PairReader::new(body, body.len(), syntax).read_all(0, call, &mut out, |p, _| {
            pairs.push((p.key.to_owned(), p.value.to_owned()))
        });
        if !ok {
            pairs.clear();
        }
        (pairs, out)
    }

    #[test]
    fn values_are_trimmed_or_kept_as_the_syntax_says() {
        let body = "<arg_key> a </arg_key>\\n<arg_value> 1 </arg_value>";
        assert_eq!(read(GLM, body).0, [("a".into(), "1".into())]);
        let raw = PairSyntax {
            trim_values: false,
            literal_newlines: false,
            ..GLM
        };
        let (pairs, out) = read(raw, body);
        assert!(pairs.is_empty());
        assert_eq!(out.diagnostics.len(), 1);
        let (pairs, _) = read(raw, "<arg_key>a</arg_key> <arg_value> 1 </arg_value>");
        assert_eq!(pairs, [("a".into(), " 1 ".into())]);
    }

    #[test]
    fn a_value_may_run_past_the_next_key_only_when_the_syntax_allows() {
        let body = "<arg_key>a</arg_key><arg_value>x <arg_key> y</arg_value>";
        assert!(read(GLM, body).0.is_empty());
        let quoting = PairSyntax {
            value_ends_at_next_key: false,
            ..GLM
        };
        assert_eq!(
            read(quoting, body).0,
            [("a".into(), "x <arg_key> y".into())]
        );
    }

    #[test]
    fn a_value_whose_opener_is_missing_is_left_out_and_the_call_kept() {
        let body =
            "<arg_key>q</arg_key>how many</arg_value><arg_key>n</arg_key><arg_value>3</arg_value>";
        let (pairs, out) = read(GLM, body);
        assert_eq!(pairs, [("n".into(), "3".into())]);
        assert_eq!(out.diagnostics.len(), 1);
        assert!(out.diagnostics[0].message.contains("left out"));
        // No value at all before the next key: where the pair ends is a guess.
        let body = "<arg_key>q</arg_key><arg_key>n</arg_key><arg_value>3</arg_value>";
        assert!(read(GLM, body).0.is_empty());
    }
}
