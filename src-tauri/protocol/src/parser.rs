//! The parser facade (seed 000 §4.4): picks the protocol, never panics, always answers.
//!
//! Protocols are expected not to panic; this layer still catches a panic and turns it into an
//! `internal_error` diagnostic, so a parser bug costs one reply's parse, never the app.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};

use crate::request::{Diagnostic, DiagnosticCode, ParseOutput, ParsedToolRequest, Severity, Span};
use crate::{Protocol, ProtocolSet};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParserError {
    #[error("unknown format '{requested}' (known: auto, {known})")]
    UnknownFormat { requested: String, known: String },
}

/// The outcome of parsing one reply, with the format that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ParseReport {
    /// Protocol id that produced the requests (the chosen one for a named format).
    pub format: String,
    /// True when the format was detected rather than named.
    pub detected: bool,
    pub requests: Vec<ParsedToolRequest>,
    pub diagnostics: Vec<Diagnostic>,
    /// The reply's prose without call blocks, reasoning and format tokens.
    pub content: String,
}

impl ParseReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// The protocol `name` names (case-insensitive), or an error that lists the known ones.
pub fn named(
    protocols: &ProtocolSet,
    name: &str,
) -> Result<std::sync::Arc<dyn Protocol>, ParserError> {
    protocols.get(name).ok_or_else(|| {
        let aliases: Vec<&str> = protocols.aliases().iter().map(|(a, _)| *a).collect();
        let mut known = protocols.ids().join(", ");
        if !aliases.is_empty() {
            known.push_str("; also the reference parsers' names ");
            known.push_str(&aliases.join(", "));
        }
        ParserError::UnknownFormat {
            requested: name.to_owned(),
            known,
        }
    })
}

/// Parses `text` with the named protocol, or detects it when `format` is `None` or `"auto"`.
pub fn parse(
    protocols: &ProtocolSet,
    text: &str,
    format: Option<&str>,
) -> Result<ParseReport, ParserError> {
    match format.filter(|f| !f.eq_ignore_ascii_case("auto")) {
        Some(name) => {
            let protocol = named(protocols, name)?;
            Ok(parse_with(protocol.as_ref(), text))
        }
        None => Ok(detect(protocols, text)),
    }
}

/// Parses with each format whose signature occurs in the reply (one pass finds them) and
/// keeps the best: calls found, then the more specific signature (the longest marker found; a
/// leading bracket counts least), then fewest errors (where none finds a call, an error past a
/// marker explains the reply), then most calls, then priority order.
/// Any other format that also found calls is named in a warning instead of being dropped
/// silently. A reply over 128 KiB is judged on its first 64 KiB when calls are found there.
fn detect(protocols: &ProtocolSet, text: &str) -> ParseReport {
    // A long reply is judged on its beginning (formats do not change mid-reply), and only the
    // winner parses the whole of it: detection then costs little more than the named parse.
    if text.len() > 2 * DETECTION_SAMPLE {
        let mut cut = DETECTION_SAMPLE;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        let sample = &text[..cut];
        let candidates = protocols.candidates(sample);
        let ranked = rank(&candidates, sample);
        if let Some((chosen, also)) = ranked
            .filter(|(_, _, found)| *found)
            .map(|(c, a, _)| (c, a))
        {
            let (protocol, _) = &candidates[chosen];
            let output = parse_guarded(protocol.as_ref(), text);
            return detected(protocol.id(), output, &also, text.len());
        }
    }
    let candidates = protocols.candidates(text);
    let outcomes: Vec<ParseOutput> = candidates
        .iter()
        .map(|(p, _)| parse_guarded(p.as_ref(), text))
        .collect();
    match rank_outcomes(&candidates, &outcomes)
        .filter(|(chosen, _)| names_the_reply(&outcomes[*chosen], candidates[*chosen].1))
    {
        Some((chosen, also)) => {
            let id = candidates[chosen].0.id();
            let output = outcomes.into_iter().nth(chosen).unwrap_or_default();
            detected(id, output, &also, text.len())
        }
        None => report(
            "none",
            true,
            ParseOutput {
                content: text.trim().to_owned(),
                ..ParseOutput::default()
            },
        ),
    }
}

/// Whether a winning format's reading names the reply's format: it found a call, said what
/// is wrong, or matched more than the reply's leading shape. A format whose only evidence is how
/// the reply starts (a bracket, a name and a parenthesis) and that reads nothing from it and
/// says nothing has not recognised it: the reply is prose in no format.
fn names_the_reply(output: &ParseOutput, specificity: usize) -> bool {
    !output.requests.is_empty() || !output.diagnostics.is_empty() || specificity > 0
}

/// Bytes of a long reply that auto-detect ranks the candidate formats on.
const DETECTION_SAMPLE: usize = 64 * 1024;

/// Parses `text` with every candidate and ranks them: (winner, others that found calls,
/// whether the winner found any).
fn rank(
    candidates: &[(std::sync::Arc<dyn Protocol>, usize)],
    text: &str,
) -> Option<(usize, Vec<&'static str>, bool)> {
    let outcomes: Vec<ParseOutput> = candidates
        .iter()
        .map(|(p, _)| parse_guarded(p.as_ref(), text))
        .collect();
    let (chosen, also) = rank_outcomes(candidates, &outcomes)?;
    Some((chosen, also, !outcomes[chosen].requests.is_empty()))
}

/// Calls found, then the most specific evidence (a format's own marker over one it shares,
/// any marker over a leading bracket: a lenient cousin must not win a reply written in a
/// stricter format's own tags), then fewest errors, then most calls; `min_by_key` keeps the
/// first of equals, so priority order breaks the remaining ties.
fn rank_outcomes(
    candidates: &[(std::sync::Arc<dyn Protocol>, usize)],
    outcomes: &[ParseOutput],
) -> Option<(usize, Vec<&'static str>)> {
    let errors = |out: &ParseOutput| {
        out.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    };
    let chosen = outcomes
        .iter()
        .zip(candidates)
        .enumerate()
        .min_by_key(|(_, (out, (_, specificity)))| {
            let no_calls = out.requests.is_empty();
            (
                no_calls,
                std::cmp::Reverse(*specificity),
                // Where no format finds a call: past a marker of its own, a format that says
                // what is broken in the call it opens explains the reply better than one that
                // reads it as prose (a call object that is not JSON); on a leading bracket
                // alone, prose that a format reads without an error is the likelier reading.
                // How many errors says nothing about which format the reply was written in:
                // the first in priority order names it.
                if no_calls {
                    usize::from((errors(out) > 0) == (*specificity == 0))
                } else {
                    errors(out)
                },
                std::cmp::Reverse(out.requests.len()),
            )
        })
        .map(|(i, _)| i)?;
    let also = outcomes
        .iter()
        .zip(candidates)
        .enumerate()
        .filter(|(i, (out, _))| *i != chosen && !out.requests.is_empty())
        .map(|(_, (_, (p, _)))| p.id())
        .collect();
    Some((chosen, also))
}

/// The report of a detected format, naming the other formats that also found calls.
fn detected(id: &str, mut output: ParseOutput, also: &[&str], len: usize) -> ParseReport {
    if !also.is_empty() {
        output.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            code: DiagnosticCode::StrayText,
            message: format!(
                "the reply also parses as {}; showing '{id}', which fits it best — name a \
                 format to choose",
                also.join(", ")
            ),
            span: Span::new(0, len),
        });
    }
    report(id, true, output)
}

/// Types text values (formats that carry every value as text) from the schema of each
/// request's method, when `schema_of` knows the tool; typed formats are left alone. Each format
/// types text as the reference parser it mirrors does ([`crate::coerce::ValueTyping::of`]):
/// by default a value that does not convert stays text, for validation to report with its
/// path, and without a schema a value that is a JSON literal (`42`, `true`, `null`, `[1]`)
/// becomes that literal; Qwen3-Coder keeps text without a schema (only `null` is null), GLM
/// reads JSON, then Python literals.
pub fn type_arguments(
    report: &mut ParseReport,
    schema_of: impl Fn(&str) -> Option<serde_json::Value>,
) {
    for request in report.requests.iter_mut().filter(|r| r.untyped_args) {
        let schema = schema_of(&request.tool_name);
        if schema.is_none() {
            request.typed_without_schema = !request.args.is_empty();
        }
        crate::coerce::ValueTyping::of(&request.format).apply(&mut request.args, schema.as_ref());
    }
}

/// Strict parsing, as a serving stack that only returns finished calls: drops every call whose
/// block was cut off ([`ParsedToolRequest::incomplete`]) and says so where it was. Without it the
/// calls stay visible with the cut-off warning, which is what a person debugging wants to see.
pub fn drop_incomplete(report: &mut ParseReport) {
    let (kept, dropped): (Vec<_>, Vec<_>) = std::mem::take(&mut report.requests)
        .into_iter()
        .partition(|request| !request.incomplete);
    report.requests = kept;
    for request in dropped {
        report.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            code: DiagnosticCode::UnclosedBlock,
            message: format!(
                "strict: the call to '{}' was cut off before it closed, so it is dropped",
                request.tool_name
            ),
            span: request.span,
        });
    }
}

/// `text` read by `protocol` (a named format, not detected), with the same guard as [`parse`]:
/// a parser that panics costs one internal-error diagnostic, never the caller.
pub fn parse_with(protocol: &dyn Protocol, text: &str) -> ParseReport {
    report(protocol.id(), false, parse_guarded(protocol, text))
}

fn parse_guarded(protocol: &dyn Protocol, text: &str) -> ParseOutput {
    catch_unwind(AssertUnwindSafe(|| protocol.parse_tool_requests(text))).unwrap_or_else(|_| {
        ParseOutput {
            requests: Vec::new(),
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                code: DiagnosticCode::InternalError,
                message: format!(
                    "the {} parser failed internally on this reply; please report it",
                    protocol.id()
                ),
                span: Span::new(0, text.len()),
            }],
            content: text.to_owned(),
        }
    })
}

fn report(format: &str, detected: bool, output: ParseOutput) -> ParseReport {
    ParseReport {
        format: format.to_owned(),
        detected,
        requests: output.requests,
        diagnostics: output.diagnostics,
        content: output.content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ToolExecutionResult;
    use crate::ToolDefinitionInput;

    struct Exploding;
    impl Protocol for Exploding {
        fn id(&self) -> &'static str {
            "exploding"
        }
        fn label(&self) -> &'static str {
            "always panics"
        }
        fn generate_tool_definitions(&self, _: &[ToolDefinitionInput]) -> String {
            String::new()
        }
        fn parse_tool_requests(&self, _: &str) -> ParseOutput {
            panic!("parser bug")
        }
        fn format_tool_results(&self, _: &[ToolExecutionResult]) -> String {
            String::new()
        }
    }

    const REPLY: &str =
        "ok\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_echo「末」\n<<<[END_TOOL_REQUEST]>>>";

    #[test]
    fn named_and_auto_formats() {
        let set = ProtocolSet::standard();
        let named = parse(&set, REPLY, Some("VCP")).expect("vcp is known");
        assert_eq!(named.format, "vcp");
        assert!(!named.detected);
        assert_eq!(named.requests.len(), 1);
        let auto = parse(&set, REPLY, None).expect("auto");
        assert!(auto.detected);
        assert_eq!(
            auto.requests,
            named
                .requests
                .clone()
                .into_iter()
                .map(|mut r| {
                    r.request_id = auto.requests[0].request_id.clone();
                    r
                })
                .collect::<Vec<_>>()
        );
        let Err(ParserError::UnknownFormat { requested, known }) = parse(&set, REPLY, Some("nope"))
        else {
            panic!("an unknown name must be refused");
        };
        assert_eq!(requested, "nope");
        assert!(known.starts_with(&set.ids().join(", ")), "{known}");
        assert!(known.contains("qwen25"), "aliases are listed too: {known}");
    }

    #[test]
    fn a_panicking_protocol_becomes_a_diagnostic() {
        let output = parse_guarded(&Exploding, "anything");
        assert!(output.requests.is_empty());
        assert_eq!(output.diagnostics[0].code, DiagnosticCode::InternalError);
    }

    #[test]
    fn formats_sharing_a_marker_are_told_apart_by_their_results() {
        let set = ProtocolSet::standard();
        let call = r#"{"name": "echo_echo", "arguments": {"message": "hi"}}"#;
        let per_line = parse(
            &set,
            &format!("<tool_calls>\n{call}\n{call}\n</tool_calls>"),
            None,
        )
        .expect("auto");
        assert_eq!(per_line.format, "minimax_m1");
        assert_eq!(per_line.requests.len(), 2);
        // A JSON list in <tool_calls> is Jamba's and Hunyuan's grammar: the first wins, the
        // other is named.
        let list = parse(&set, &format!("<tool_calls>[{call}]</tool_calls>"), None).expect("auto");
        assert_eq!(list.format, "jamba");
        assert!(list
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("hunyuan")));
        let v11 = parse(
            &set,
            r#"[TOOL_CALLS]echo_echo[ARGS]{"message": "hi"}"#,
            None,
        )
        .expect("auto");
        assert_eq!(v11.format, "mistral_v11");
        assert!(!v11.has_errors());
    }

    #[test]
    fn long_replies_are_ranked_on_their_start_or_whole_when_calls_come_late() {
        let set = ProtocolSet::standard();
        let call = "<tool_call>\n{\"name\": \"echo_echo\", \"arguments\": {}}\n</tool_call>\n";
        let prose = "Plain words without any markup at all. ".repeat(5_000);
        let late = format!("{prose}{call}");
        let report = parse(&set, &late, None).expect("auto");
        assert_eq!(
            (report.format.as_str(), report.requests.len()),
            ("hermes", 1)
        );
        let early = format!("{call}{prose}{call}");
        let report = parse(&set, &early, None).expect("auto");
        assert_eq!(
            (report.format.as_str(), report.requests.len()),
            ("hermes", 2)
        );
    }

    #[test]
    fn no_calls_is_an_empty_report() {
        let report = parse(&ProtocolSet::standard(), "just prose", None).expect("auto");
        assert!(report.requests.is_empty());
        assert!(!report.has_errors());
    }
}
