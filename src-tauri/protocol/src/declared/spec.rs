//! Reading a format description (TOML) and checking it, with every problem reported by line.
//!
//! The file is what a team writes instead of patching a serving stack's parser: the markers
//! around a call, optionally a regex with named groups for the name and the arguments, how the
//! arguments are encoded, the reasoning blocks to skip and how results go back. Unknown keys
//! are refused (a typo must not silently fall back to a default).

use serde::Deserialize;
use toml::Spanned;

/// How a call's arguments are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// A JSON object; without a regex the block holds `{"name", "arguments"}` objects (one, or
    /// a list of them).
    Json,
    /// One `key=value` per line (the assignment is configurable); values are text, typed from
    /// the method's schema like every text format's.
    KeyValue,
    /// `<parameter=key>value</parameter>` elements (the tags are configurable).
    XmlParameters,
}

/// A problem in a format file, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct SpecError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl SpecError {
    fn at(source: &str, offset: usize, message: impl Into<String>) -> Self {
        let offset = offset.min(source.len());
        let before = source.get(..offset).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Self {
            line,
            column,
            message: message.into(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    id: Spanned<String>,
    label: Option<String>,
    start: Spanned<String>,
    also_start: Option<Spanned<Vec<String>>>,
    bare_value: Option<Spanned<String>>,
    end: Option<Spanned<String>>,
    json_after: Option<Spanned<String>>,
    separator: Option<Spanned<String>>,
    arguments: Option<Spanned<String>>,
    regex: Option<Spanned<String>>,
    assignment: Option<Spanned<String>>,
    parameter_open: Option<Spanned<String>>,
    parameter_close: Option<Spanned<String>>,
    reasoning: Option<Spanned<Vec<[String; 2]>>>,
    tokens: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    prompt: PromptSpec,
    #[serde(default)]
    results: ResultsSpec,
}

/// What the model is told: `template` with `{each}` (every tool through `each`), `{example}`
/// (a call written in this format), `{definitions_list}`, `{definitions_pretty}` and
/// `{functions_list}` (see `template`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptSpec {
    pub template: Option<String>,
    pub each: Option<String>,
}

/// How results are fed back: `template` with `{each}` (every result through `each`) and
/// `{results}` (all of them as one JSON list).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultsSpec {
    pub template: Option<String>,
    pub each: Option<String>,
}

/// A checked description.
#[derive(Debug, Clone)]
pub struct Spec {
    pub id: String,
    pub label: String,
    pub start: String,
    /// More markers a call block may begin with. Not auto-detect evidence: such a marker is
    /// usually another format's too (Granite 3.1's `<tool_call>` is hermes' tag).
    pub also_start: Vec<String>,
    /// With `json_after = ""`: a reply (after reasoning) that begins with this text (`[` or
    /// `{`) is a call block without a marker, as when a serving stack drops the start token.
    /// Not auto-detect evidence either: a bare list is xLAM's whole format.
    pub bare_value: Option<String>,
    pub end: Option<String>,
    /// The block ends with the balanced JSON value after this inner marker (no `end` then).
    pub json_after: Option<String>,
    /// After a block, this byte (whitespace around it allowed) starts the next call.
    pub separator: Option<u8>,
    pub encoding: Encoding,
    pub regex: Option<regex::Regex>,
    pub assignment: String,
    pub parameter_open: String,
    pub parameter_close: String,
    pub reasoning: Vec<(String, String)>,
    pub tokens: Vec<String>,
    pub prompt: PromptSpec,
    pub results: ResultsSpec,
}

/// The regex may be long but not unbounded: it is compiled on every reload.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Spec {
    pub fn from_toml(source: &str) -> Result<Self, SpecError> {
        let raw: RawSpec = toml::from_str(source).map_err(|e| {
            let offset = e.span().map_or(0, |span| span.start);
            SpecError::at(source, offset, e.message().trim().to_owned())
        })?;
        let fail = |spanned_at: usize, message: String| SpecError::at(source, spanned_at, message);

        let id = raw.id.get_ref().clone();
        let id_ok = id.len() <= 64
            && id.starts_with(|c: char| c.is_ascii_lowercase())
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !id_ok {
            return Err(fail(
                raw.id.span().start,
                format!(
                    "id '{id}' must start with a lowercase letter and hold only a-z, 0-9 and _ \
                     (at most 64)"
                ),
            ));
        }
        let non_empty = |value: &Spanned<String>, key: &str| {
            if value.get_ref().is_empty() {
                Err(fail(
                    value.span().start,
                    format!("'{key}' must not be empty"),
                ))
            } else {
                Ok(value.get_ref().clone())
            }
        };
        let start = non_empty(&raw.start, "start")?;
        let end = raw.end.as_ref().map(|e| non_empty(e, "end")).transpose()?;
        let json_after =
            match (&raw.json_after, &end) {
                (Some(after), Some(_)) => return Err(fail(
                    after.span().start,
                    "'json_after' ends a block with its JSON value, so it cannot have an 'end' too"
                        .to_owned(),
                )),
                (Some(after), None) => Some(after.get_ref().clone()),
                (None, _) => None,
            };
        let separator = match &raw.separator {
            None => None,
            Some(sep) if json_after.is_none() => {
                return Err(fail(
                    sep.span().start,
                    "'separator' needs 'json_after': a block must end with its JSON value for \
                     the next call to follow it"
                        .to_owned(),
                ))
            }
            Some(sep) => match sep.get_ref().as_bytes() {
                [byte] if byte.is_ascii_punctuation() => Some(*byte),
                _ => {
                    return Err(fail(
                        sep.span().start,
                        format!(
                            "separator '{}' must be one ASCII punctuation character (such as ';')",
                            sep.get_ref()
                        ),
                    ))
                }
            },
        };
        let encoding = match raw.arguments.as_ref().map(|a| (a.get_ref().as_str(), a)) {
            None | Some(("json", _)) => Encoding::Json,
            Some(("key_value", _)) => Encoding::KeyValue,
            Some(("xml_parameters", _)) => Encoding::XmlParameters,
            Some((other, spanned)) => {
                return Err(fail(
                    spanned.span().start,
                    format!(
                        "arguments = '{other}' is not an encoding: use json, key_value or \
                         xml_parameters"
                    ),
                ))
            }
        };
        let regex = raw
            .regex
            .as_ref()
            .map(|spanned| compile_regex(spanned).map_err(|m| fail(spanned.span().start, m)))
            .transpose()?;
        if encoding != Encoding::Json && regex.is_none() {
            return Err(fail(
                raw.arguments.as_ref().map_or(0, |a| a.span().start),
                "key_value and xml_parameters bodies need a 'regex' with a (?P<name>…) group: \
                 the name is not inside the arguments"
                    .to_owned(),
            ));
        }
        let assignment = match &raw.assignment {
            Some(a) => non_empty(a, "assignment")?,
            None => "=".to_owned(),
        };
        let parameter_open = match &raw.parameter_open {
            Some(p) => non_empty(p, "parameter_open")?,
            None => "<parameter=".to_owned(),
        };
        let parameter_close = match &raw.parameter_close {
            Some(p) => non_empty(p, "parameter_close")?,
            None => "</parameter>".to_owned(),
        };
        let reasoning = match &raw.reasoning {
            None => vec![("<think>".to_owned(), "</think>".to_owned())],
            Some(pairs) => {
                let mut checked = Vec::new();
                for [open, close] in pairs.get_ref() {
                    if open.is_empty() || close.is_empty() {
                        return Err(fail(
                            pairs.span().start,
                            "each reasoning pair needs a non-empty opening and closing marker"
                                .to_owned(),
                        ));
                    }
                    checked.push((open.clone(), close.clone()));
                }
                checked
            }
        };
        let tokens = raw
            .tokens
            .iter()
            .flatten()
            .map(|t| non_empty(t, "tokens"))
            .collect::<Result<Vec<_>, _>>()?;
        if reasoning.iter().any(|(open, _)| *open == start) || tokens.contains(&start) {
            return Err(fail(
                raw.start.span().start,
                format!("start '{start}' is also a reasoning or token marker"),
            ));
        }
        let also_start = match &raw.also_start {
            None => Vec::new(),
            Some(list) => {
                let at = list.span().start;
                let mut checked: Vec<String> = Vec::new();
                for marker in list.get_ref() {
                    let taken = *marker == start
                        || checked.contains(marker)
                        || reasoning.iter().any(|(open, _)| open == marker)
                        || tokens.contains(marker);
                    if marker.is_empty() || taken {
                        return Err(fail(
                            at,
                            format!(
                                "also_start '{marker}' must be non-empty and not the start, \
                                 another also_start, a reasoning or a token marker"
                            ),
                        ));
                    }
                    checked.push(marker.clone());
                }
                checked
            }
        };
        let bare_value = match &raw.bare_value {
            None => None,
            Some(value) if json_after.as_deref() != Some("") => {
                return Err(fail(
                    value.span().start,
                    "'bare_value' needs json_after = \"\": the block is the JSON value the \
                     reply starts with"
                        .to_owned(),
                ))
            }
            Some(value) if matches!(value.get_ref().as_str(), "[" | "{") => {
                Some(value.get_ref().clone())
            }
            Some(value) => {
                return Err(fail(
                    value.span().start,
                    format!("bare_value '{}' must be \"[\" or \"{{\"", value.get_ref()),
                ))
            }
        };
        Ok(Self {
            label: raw
                .label
                .clone()
                .unwrap_or_else(|| format!("{id} (declared)")),
            id,
            start,
            also_start,
            bare_value,
            end,
            json_after,
            separator,
            encoding,
            regex,
            assignment,
            parameter_open,
            parameter_close,
            reasoning,
            tokens,
            prompt: raw.prompt,
            results: raw.results,
        })
    }
}

fn compile_regex(spanned: &Spanned<String>) -> Result<regex::Regex, String> {
    let regex = regex::RegexBuilder::new(spanned.get_ref())
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| format!("the regex does not compile: {e}"))?;
    let names: Vec<&str> = regex.capture_names().flatten().collect();
    if !names.contains(&"name") {
        return Err("the regex needs a (?P<name>…) group for the tool name".to_owned());
    }
    if let Some(other) = names
        .iter()
        .find(|n| !matches!(**n, "name" | "arguments" | "id"))
    {
        return Err(format!(
            "the regex group '{other}' means nothing here: use name, arguments and id"
        ));
    }
    Ok(regex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_reported_by_line() {
        let syntax = Spec::from_toml("id = \"a\"\nstart = \n").expect_err("syntax");
        assert_eq!(syntax.line, 2, "{syntax}");
        let unknown = Spec::from_toml("id = \"a\"\nstart = \"<c>\"\nsatrt = \"x\"\n")
            .expect_err("unknown key");
        assert_eq!(unknown.line, 3, "{unknown}");
        let regex = Spec::from_toml("id = \"a\"\nstart = \"<c>\"\n\nregex = '(?P<nam>x'\n")
            .expect_err("bad regex");
        assert_eq!(regex.line, 4, "{regex}");
        assert!(regex.message.contains("does not compile"), "{regex}");
        let groups = Spec::from_toml("id = \"a\"\nstart = \"<c>\"\nregex = '(?P<nam>x)'\n")
            .expect_err("no name group");
        assert!(groups.message.contains("(?P<name>"), "{groups}");
        let id = Spec::from_toml("id = \"Bad-Id\"\nstart = \"<c>\"\n").expect_err("id");
        assert_eq!((id.line, id.column), (1, 6), "{id}");
        let also = Spec::from_toml("id = \"a\"\nstart = \"<c>\"\nalso_start = [\"<c>\"]\n")
            .expect_err("also_start repeats start");
        assert_eq!(also.line, 3, "{also}");
        let bare =
            Spec::from_toml("id = \"a\"\nstart = \"<c>\"\nend = \"</c>\"\nbare_value = \"[\"\n")
                .expect_err("bare_value needs json_after");
        assert_eq!(bare.line, 4, "{bare}");
        let bracket =
            Spec::from_toml("id = \"a\"\nstart = \"<c>\"\njson_after = \"\"\nbare_value = \"(\"\n")
                .expect_err("bare_value is a JSON opener");
        assert!(bracket.message.contains("must be"), "{bracket}");
        let needs_regex =
            Spec::from_toml("id = \"a\"\nstart = \"<c>\"\narguments = \"key_value\"\n")
                .expect_err("needs regex");
        assert_eq!(needs_regex.line, 3, "{needs_regex}");
    }

    #[test]
    fn defaults_fill_what_is_not_said() {
        let spec = Spec::from_toml("id = \"acme\"\nstart = \"<call>\"\nend = \"</call>\"\n")
            .expect("valid");
        assert_eq!(spec.encoding, Encoding::Json);
        assert_eq!(spec.label, "acme (declared)");
        assert_eq!(spec.reasoning, [("<think>".into(), "</think>".into())]);
    }
}
