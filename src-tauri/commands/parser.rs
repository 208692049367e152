//! Parser command: a reply's requests, diagnostics and each request's validation state, against
//! the registry or against the tools of the request the reply answered.

use serde::{Deserialize, Serialize};
use tauri::ipc::{CommandArg, CommandItem, InvokeBody, InvokeError};
use tauri::State;
use toolscope_engine::executor::{Executor, ExecutorOptions};
use toolscope_engine::request_tools::{RequestCheck, RequestTools};
use toolscope_engine::strict;
use toolscope_imported::{read_request_tools, Finding};
use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::request::Span;
use toolscope_protocol::result::ExecutionError;
use toolscope_protocol::stream::{self, StreamReplay};
use toolscope_protocol::text_position::{text_ranges, TextRange};

use super::parsed_requests::{KeptRequests, RequestOutline};
use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Where the tools of the request a reply answered come from.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RequestToolsChoice {
    /// Definitions pasted as JSON, in any shape an import reads; nothing runs behind them.
    Pasted { text: String },
    /// An imported set: its calls run against the set's mocks.
    ImportedSet { name: String },
}

/// What the request's tools were, for the pane to say what the checks were made against.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RequestToolsInfo {
    pub count: u32,
    /// Entries of pasted definitions that were refused or rewritten.
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ParsedReply {
    /// Its `requests` are the first ones only (`FIRST_REQUESTS`; the rest come through
    /// `parsed_requests`, see [`crate::commands::parsed_requests`]); its `content` (the reply's
    /// prose) and each request's `raw_block` are left empty: the pane shows the reply itself and
    /// finds a block by its span, and those copies of the text were most of the answer's bytes,
    /// sent and decoded for nothing.
    pub report: ParseReport,
    /// One per request of `report`, in its order.
    pub checks: Vec<ReplyCheck>,
    /// Every request's name, span, place in the text (computed here, beside the text, so the
    /// pane does not walk a multi-megabyte string after every parse) and validity.
    pub outline: RequestOutline,
    /// What to ask `parsed_requests` for the requests after the first ones.
    pub parse_id: u32,
    /// Set when the checks were made against the request's tools instead of the registry.
    pub request_tools: Option<RequestToolsInfo>,
    /// Where each diagnostic's span sits in the reply as the pane indexes it, in the report's
    /// order.
    pub diagnostic_ranges: Vec<TextRange>,
    /// The reply's length in UTF-8 bytes.
    pub byte_length: u32,
}

/// Whether a request would run. Both fields are left out when empty, and the request is known
/// by its place in the list: most calls of a long reply are valid, and repeating each one's id
/// with two nulls was a quarter of the answer's bytes.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ReplyCheck {
    /// Why it would not run; absent when its tool is known and its arguments are valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ExecutionError>,
    /// The registry method a call to a request tool runs as (an imported set's), when it is
    /// not the call's own name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing_name: Option<String>,
}

impl From<RequestCheck> for ReplyCheck {
    fn from(check: RequestCheck) -> Self {
        Self {
            error: check.error,
            routing_name: check.routing_name,
        }
    }
}

/// How `parse_reply` reads a reply, sent as the first line of its body.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct ParseOptions {
    /// A protocol id, or none (or "auto") to detect the format.
    pub format: Option<String>,
    /// The request's tools to check against instead of the registry.
    pub request_tools: Option<RequestToolsChoice>,
    /// Drop what a serving stack would not return (cut-off calls, calls to tools not defined).
    pub strict: bool,
}

/// `parse_reply`'s raw request body: [`ParseOptions`] as one line of JSON (JSON never holds a
/// raw line break), a line break, then the reply's text in UTF-8. Sent as a JSON string
/// argument, a 5 MB reply was escaped in the page, parsed into a JSON value here and copied
/// again into the argument; as bytes it is read in place.
pub struct ReplyBody<'a>(&'a InvokeBody);

impl<'a, R: tauri::Runtime> CommandArg<'a, R> for ReplyBody<'a> {
    fn from_command(command: CommandItem<'a, R>) -> Result<Self, InvokeError> {
        Ok(Self(command.message.payload()))
    }
}

// Not an argument of the generated binding: `ui/src/lib/ipc.ts` sends the body itself.
impl specta::function::FunctionArg for ReplyBody<'_> {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}

impl ReplyBody<'_> {
    fn options_and_text(&self) -> Result<(ParseOptions, &str), CommandError> {
        match self.0 {
            InvokeBody::Raw(bytes) => split_body(bytes),
            InvokeBody::Json(_) => Err(CommandError::new(
                CommandErrorKind::InvalidInput,
                "parse_reply takes its options and the reply as raw bytes (see ui/src/lib/ipc.ts)",
            )),
        }
    }
}

/// The options line and the text of a [`ReplyBody`].
fn split_body(bytes: &[u8]) -> Result<(ParseOptions, &str), CommandError> {
    let invalid = |message: String| CommandError::new(CommandErrorKind::InvalidInput, message);
    let line = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| invalid("the parse options line is missing".to_owned()))?;
    let options = serde_json::from_slice(&bytes[..line])
        .map_err(|e| invalid(format!("the parse options: {e}")))?;
    let text = std::str::from_utf8(&bytes[line + 1..])
        .map_err(|e| invalid(format!("the reply is not UTF-8: {e}")))?;
    Ok((options, text))
}

/// The request's tools of a choice; pasted definitions that give none are an input error.
pub(crate) fn load_request_tools(
    state: &AppState,
    choice: &RequestToolsChoice,
) -> Result<(RequestTools, RequestToolsInfo), CommandError> {
    let invalid = |message: String| CommandError::new(CommandErrorKind::InvalidInput, message);
    let (tools, findings) = match choice {
        RequestToolsChoice::Pasted { text } if text.trim().is_empty() => {
            return Err(invalid(
                "paste the request's tools first (its tools array or the whole request body)"
                    .to_owned(),
            ));
        }
        RequestToolsChoice::Pasted { text } => {
            read_request_tools(text).map_err(|e| invalid(format!("the request's tools: {e}")))?
        }
        RequestToolsChoice::ImportedSet { name } => {
            let set = state
                .sources()?
                .imported
                .get(name)
                .ok_or_else(|| invalid(format!("no imported set '{name}'")))?;
            (set.request_tools(), Vec::new())
        }
    };
    let count = u32::try_from(tools.len()).unwrap_or(u32::MAX);
    Ok((tools, RequestToolsInfo { count, findings }))
}

/// The request's tools of a run or an export, when it names any.
pub(crate) fn optional_request_tools(
    state: &AppState,
    choice: Option<&RequestToolsChoice>,
) -> Result<Option<RequestTools>, CommandError> {
    choice
        .map(|choice| load_request_tools(state, choice).map(|(tools, _)| tools))
        .transpose()
}

/// Parses the reply of `body` (see [`ReplyBody`]; `format` = a protocol id, or none / "auto"
/// to detect), checked against the request's tools when given, else against the registry.
/// `strict` drops what a serving stack would not return (cut-off calls, calls to tools not
/// defined), each with a diagnostic. Called through `ipc.parseReply` (ui/src/lib/ipc.ts), which
/// sends the body: this generated binding sends none and is refused.
#[tauri::command]
#[specta::specta]
pub async fn parse_reply(
    state: State<'_, AppState>,
    body: ReplyBody<'_>,
) -> Result<ParsedReply, CommandError> {
    let (options, text) = body.options_and_text()?;
    let mut report = parser::parse(&state.protocols(), text, options.format.as_deref())
        .map_err(|e| CommandError::new(CommandErrorKind::UnknownFormat, e.to_string()))?;
    if let Some(choice) = &options.request_tools {
        let (tools, info) = load_request_tools(&state, choice)?;
        let checks = if options.strict {
            tools.check_strict(&mut report)
        } else {
            tools.check(&mut report)
        };
        let checks = checks.into_iter().map(ReplyCheck::from).collect();
        return Ok(answer(
            &state.kept_requests,
            report,
            checks,
            Some(info),
            text,
        ));
    }
    if options.strict {
        strict::against_registry(&mut report, &state.registry);
    }
    // Show text-format values as the method will receive them (typed from its schema).
    parser::type_arguments(&mut report, |name| state.registry.parameters_of(name));
    let executor = Executor::new(
        state.registry.clone(),
        ExecutorOptions::from(&state.config()),
    );
    let checks = executor
        .check_all(&report.requests)
        .into_iter()
        .map(|error| ReplyCheck {
            error,
            routing_name: None,
        })
        .collect();
    Ok(answer(&state.kept_requests, report, checks, None, text))
}

/// The answer for `report` of `text`: the outline of every request, the first ones whole and
/// without the copies of the text (see [`ParsedReply::report`]); the rest kept in `kept`.
fn answer(
    kept: &KeptRequests,
    report: ParseReport,
    mut checks: Vec<ReplyCheck>,
    request_tools: Option<RequestToolsInfo>,
    text: &str,
) -> ParsedReply {
    let spans: Vec<Span> = report
        .requests
        .iter()
        .map(|r| r.span)
        .chain(report.diagnostics.iter().map(|d| d.span))
        .collect();
    let mut request_ranges = text_ranges(text, &spans);
    let diagnostic_ranges = request_ranges.split_off(report.requests.len());
    let outline = RequestOutline::of(&report.requests, &request_ranges, &checks);
    let mut report = without_copies(report);
    let parse_id = kept.keep_rest(&mut report.requests, &mut checks);
    ParsedReply {
        report,
        checks,
        outline,
        parse_id,
        request_tools,
        diagnostic_ranges,
        byte_length: u32::try_from(text.len()).unwrap_or(u32::MAX),
    }
}

/// The report without the text it copies from the reply (see [`ParsedReply::report`]).
fn without_copies(mut report: ParseReport) -> ParseReport {
    report.content = String::new();
    for request in &mut report.requests {
        request.raw_block = String::new();
    }
    report
}

/// Streams `text` through the parser in deltas of `delta_bytes` and returns when each call and
/// diagnostic appeared, for the Parser pane's "replay as stream" view. With no format (or
/// "auto") the format auto-detect picks is replayed.
#[tauri::command]
#[specta::specta]
pub async fn replay_stream(
    state: State<'_, AppState>,
    text: String,
    format: Option<String>,
    delta_bytes: u32,
) -> Result<StreamReplay, CommandError> {
    let unknown = |e: String| CommandError::new(CommandErrorKind::UnknownFormat, e);
    let protocols = state.protocols();
    let id = match format
        .as_deref()
        .filter(|f| !f.eq_ignore_ascii_case("auto"))
    {
        Some(id) => id.to_owned(),
        None => {
            let detected =
                parser::parse(&protocols, &text, None).map_err(|e| unknown(e.to_string()))?;
            if detected.format == "none" {
                return Err(unknown(
                    "no tool-call format detected in this reply; choose a format to replay it"
                        .to_owned(),
                ));
            }
            detected.format
        }
    };
    let protocol = parser::named(&protocols, &id).map_err(|error| unknown(error.to_string()))?;
    let delta = usize::try_from(delta_bytes).unwrap_or(usize::MAX);
    tokio::task::spawn_blocking(move || stream::replay(protocol, &text, delta))
        .await
        .map_err(|e| CommandError::new(CommandErrorKind::Internal, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_its_options_line_then_the_reply() {
        let body = "{\"format\":\"hermes\",\"request_tools\":{\"kind\":\"imported_set\",\"name\":\"Shop\"},\"strict\":true}\nfirst line\n日本 <tool_call>\n";
        let (options, text) = split_body(body.as_bytes()).expect("a valid body");
        assert_eq!(options.format.as_deref(), Some("hermes"));
        assert!(matches!(
            options.request_tools,
            Some(RequestToolsChoice::ImportedSet { ref name }) if name == "Shop"
        ));
        assert!(options.strict);
        assert_eq!(text, "first line\n日本 <tool_call>\n");

        let (options, text) =
            split_body(b"{\"format\":null,\"request_tools\":null,\"strict\":false}\n")
                .expect("empty");
        assert!(options.format.is_none() && options.request_tools.is_none());
        assert_eq!(text, "");
    }

    #[test]
    fn a_malformed_body_is_an_input_error() {
        for body in [
            &b"no options line"[..],
            &b"{\"format\":null}\ntext"[..],
            &b"{\"format\":null,\"request_tools\":null,\"strict\":false}\n\xff\xfe"[..],
        ] {
            let error = split_body(body).expect_err("refused");
            assert_eq!(
                error.kind,
                CommandErrorKind::InvalidInput,
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn valid_checks_carry_no_fields() {
        let check = ReplyCheck {
            error: None,
            routing_name: None,
        };
        assert_eq!(serde_json::to_string(&check).expect("serialises"), "{}");
    }
}
