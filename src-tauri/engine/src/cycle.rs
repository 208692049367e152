//! The tool-call cycle (seed 000 §4.6): parse a reply → execute its requests → format the
//! results for the same protocol → record every run under one parent id (seed 001 §5).

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::executor::suggest::call_limit;
use crate::executor::Executor;
use crate::history::{History, HistoryEntry, RecordedRequest};
use crate::request_tools::RequestTools;
use toolscope_protocol::parser::{self, ParseReport, ParserError};
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ExecutionError, ExecutionStatus, ToolExecutionResult};
use toolscope_protocol::ProtocolSet;

/// How one cycle runs.
#[derive(Debug, Clone)]
pub struct CycleOptions<'a> {
    /// A protocol id, or `None` / `"auto"` to detect it.
    pub format: Option<&'a str>,
    /// Requests beyond this many are not executed (seed 002's `max_total_tool_calls`).
    pub max_calls: usize,
    /// Written into every history entry (`cli`, `app`, ...).
    pub origin: &'a str,
    /// Requests naming no registered method become parse errors instead of failed runs.
    pub strict_unknown_tool: bool,
    /// The tools of the request the reply answered: they type and check its calls, and a call
    /// runs as the method its tool stands for (an imported set's); a call they cannot route
    /// fails with the reason, and results keep the names the model used (the history records
    /// the routing names). They replace `strict_unknown_tool`: a call outside them is a warning
    /// and a failed result.
    pub request_tools: Option<&'a RequestTools>,
}

impl Default for CycleOptions<'_> {
    fn default() -> Self {
        Self {
            format: None,
            max_calls: 32,
            origin: "cycle",
            strict_unknown_tool: false,
            request_tools: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CycleOutcome {
    /// Parent id of every history entry of this cycle.
    pub cycle_id: String,
    pub has_tool_requests: bool,
    pub parse: ParseReport,
    pub results: Vec<ToolExecutionResult>,
    /// The results rendered by the reply's protocol, ready to feed back to the model.
    pub formatted_results: String,
    /// Runs that could not be recorded (the cycle itself still succeeded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history_errors: Vec<String>,
}

impl CycleOutcome {
    pub fn all_succeeded(&self) -> bool {
        self.results.iter().all(ToolExecutionResult::is_success)
    }
}

/// Runs one cycle over `reply`. Fails only when a named format is unknown.
pub async fn run_cycle(
    reply: &str,
    options: &CycleOptions<'_>,
    protocols: &ProtocolSet,
    executor: &Executor,
    history: Option<&History>,
    cancel: &CancellationToken,
) -> Result<CycleOutcome, ParserError> {
    run_cycle_observed(
        reply,
        options,
        protocols,
        executor,
        history,
        cancel,
        &|_, _| {},
    )
    .await
}

/// [`run_cycle`], calling `observe(index, result)` as each executed request ends.
pub async fn run_cycle_observed(
    reply: &str,
    options: &CycleOptions<'_>,
    protocols: &ProtocolSet,
    executor: &Executor,
    history: Option<&History>,
    cancel: &CancellationToken,
    observe: &(dyn Fn(usize, &ToolExecutionResult) + Sync),
) -> Result<CycleOutcome, ParserError> {
    let mut parse = parser::parse(protocols, reply, options.format)?;
    let cycle_id = uuid::Uuid::new_v4().to_string();
    // What the model gets back, and, for routed calls, what ran (the history's record: a routed
    // call under its routing name, so a re-run from the history reaches the same method).
    let (mut results, mut routed) = match options.request_tools {
        Some(tools) => {
            let allowed = parse.requests.len().min(options.max_calls);
            let (results, as_run) =
                run_routed(tools, &mut parse, allowed, executor, cancel, observe).await;
            (results, Some(as_run))
        }
        None => {
            if options.strict_unknown_tool {
                let registry = executor.registry();
                crate::strict::drop_unknown(&mut parse, |name| {
                    crate::strict::resolves(registry, name)
                });
            }
            let allowed = parse.requests.len().min(options.max_calls);
            let results = executor
                .execute_all_observed(&parse.requests[..allowed], cancel, observe)
                .await;
            (results, None)
        }
    };
    let allowed = results.len();
    for request in &parse.requests[allowed..] {
        let result = over_limit(request, options.max_calls);
        if let Some(as_run) = &mut routed {
            as_run.push((request.clone(), result.clone()));
        }
        results.push(result);
    }
    let formatted_results = if results.is_empty() {
        String::new()
    } else {
        protocols
            .get(&parse.format)
            .map(|p| p.format_tool_results(&results))
            .unwrap_or_default()
    };
    let history_errors = history
        .map(|history| match &routed {
            Some(as_run) => record(
                history,
                &cycle_id,
                options.origin,
                as_run.iter().map(|(request, result)| (request, result)),
            ),
            None => record(
                history,
                &cycle_id,
                options.origin,
                parse.requests.iter().zip(&results),
            ),
        })
        .unwrap_or_default();
    Ok(CycleOutcome {
        cycle_id,
        has_tool_requests: !parse.requests.is_empty(),
        parse,
        results,
        formatted_results,
        history_errors,
    })
}

/// Runs the first `allowed` requests of a reply checked against its request's tools: each that
/// routes to a method runs as that method; the others fail with why they cannot run.
async fn run_routed(
    tools: &RequestTools,
    parse: &mut ParseReport,
    allowed: usize,
    executor: &Executor,
    cancel: &CancellationToken,
    observe: &(dyn Fn(usize, &ToolExecutionResult) + Sync),
) -> (Vec<ToolExecutionResult>, Vec<Ran>) {
    let checks = tools.check(parse);
    let mut outcomes: Vec<Option<(ToolExecutionResult, Ran)>> = vec![None; allowed];
    let mut runnable = Vec::new();
    let mut positions = Vec::new();
    for (index, (request, check)) in parse.requests[..allowed].iter().zip(&checks).enumerate() {
        let routed = match &check.error {
            Some(error) if error.kind == ErrorKind::ToolNotFound => Err(error.clone()),
            _ => tools.routed(request).ok_or_else(|| {
                ExecutionError::new(
                    ErrorKind::ToolNotFound,
                    format!(
                        "'{}' is a tool of the request with nothing behind it: import the \
                         definitions as a set and give it a mock to run it",
                        request.tool_name
                    ),
                )
                .with_suggestion(Some(
                    "The call itself is fine; to run it here, import the request's tool \
                     definitions as a set with a mock, then run the reply again."
                        .to_owned(),
                ))
            }),
        };
        match routed {
            Ok(routed) => {
                positions.push(index);
                runnable.push(routed);
            }
            Err(error) => {
                let failed = failed(request, error);
                observe(index, &failed);
                outcomes[index] = Some((failed.clone(), (request.clone(), failed)));
            }
        }
    }
    let ran = executor
        .execute_all_observed(&runnable, cancel, &|k, result| {
            observe(
                positions[k],
                &named_as(result, &parse.requests[positions[k]]),
            );
        })
        .await;
    for ((k, result), routed) in ran.into_iter().enumerate().zip(runnable) {
        let index = positions[k];
        let for_model = named_as(&result, &parse.requests[index]);
        outcomes[index] = Some((for_model, (routed, result)));
    }
    outcomes.into_iter().flatten().unzip()
}

/// A request as it ran, with its result under the name it ran as.
type Ran = (ParsedToolRequest, ToolExecutionResult);

/// A result under the name the model used for the call.
fn named_as(result: &ToolExecutionResult, request: &ParsedToolRequest) -> ToolExecutionResult {
    ToolExecutionResult {
        tool_name: request.tool_name.clone(),
        ..result.clone()
    }
}

fn failed(request: &ParsedToolRequest, error: ExecutionError) -> ToolExecutionResult {
    ToolExecutionResult {
        request_id: request.request_id.clone(),
        tool_name: request.tool_name.clone(),
        status: ExecutionStatus::Error,
        result: error.message.clone(),
        duration_ms: 0.0,
        error: Some(error),
        truncated: None,
    }
}

fn over_limit(request: &ParsedToolRequest, max_calls: usize) -> ToolExecutionResult {
    failed(
        request,
        ExecutionError::new(
            ErrorKind::Denied,
            format!("not executed: a reply may make at most {max_calls} tool calls"),
        )
        .with_suggestion(Some(call_limit(
            u64::try_from(max_calls).unwrap_or(u64::MAX),
            "in one reply",
            "max_total_tool_calls",
        ))),
    )
}

fn record<'a>(
    history: &History,
    cycle_id: &str,
    origin: &str,
    ran: impl Iterator<Item = (&'a ParsedToolRequest, &'a ToolExecutionResult)>,
) -> Vec<String> {
    ran.filter_map(|(request, result)| {
        let entry = HistoryEntry::new(
            Some(cycle_id.to_owned()),
            origin,
            RecordedRequest::from(request),
            result.clone(),
        );
        history.append(&entry).err().map(|e| e.to_string())
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::executor::ExecutorOptions;
    use crate::registry::tests::{fixture, method};
    use crate::registry::Registry;
    use toolscope_protocol::method::Annotations;
    use toolscope_protocol::request::DiagnosticCode;

    fn executor() -> Executor {
        let registry = Arc::new(Registry::new());
        let mut say = method("say", true);
        say.annotations = Annotations {
            read_only: Some(true),
            ..Default::default()
        };
        registry
            .register(fixture("echo", vec![say]))
            .expect("registers");
        Executor::new(registry, ExecutorOptions::default())
    }

    const REPLY: &str = "Sure.\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_say「末」\nrequest_id:「始」a「末」\ntext:「始」hi「末」\n<<<[END_TOOL_REQUEST]>>>\n<<<[TOOL_REQUEST]>>>\ntool_name:「始」echo_nope「末」\nrequest_id:「始」b「末」\n<<<[END_TOOL_REQUEST]>>>";

    #[tokio::test]
    async fn parses_executes_formats_and_records() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (history, _) = History::open(dir.path().join("h.jsonl")).expect("open");
        let outcome = run_cycle(
            REPLY,
            &CycleOptions::default(),
            &ProtocolSet::standard(),
            &executor(),
            Some(&history),
            &CancellationToken::new(),
        )
        .await
        .expect("auto format");
        assert!(outcome.has_tool_requests);
        assert_eq!(outcome.parse.format, "vcp");
        assert_eq!(outcome.results.len(), 2);
        assert!(outcome.results[0].is_success());
        assert_eq!(outcome.results[0].result, r#"{"text":"hi"}"#);
        assert_eq!(
            outcome.results[1].error_kind(),
            Some(ErrorKind::MethodNotFound)
        );
        assert!(outcome
            .formatted_results
            .contains("request_id:「始」a「末」"));
        assert!(outcome
            .formatted_results
            .contains("error_kind:「始」method_not_found「末」"));
        assert!(!outcome.all_succeeded());

        let loaded = History::load(history.path()).expect("load");
        assert_eq!(loaded.entries.len(), 2);
        assert!(loaded
            .entries
            .iter()
            .all(|e| e.parent_id.as_deref() == Some(outcome.cycle_id.as_str())));
        assert_eq!(loaded.entries[0].request.request_id, "a");
        assert_eq!(loaded.entries[1].result.request_id, "b");
    }

    #[tokio::test]
    async fn request_tools_route_calls_and_results_keep_the_model_names() {
        use crate::request_tools::{RequestTool, RequestTools};
        let tool = |name: &str, routing: Option<&str>| RequestTool {
            name: name.to_owned(),
            parameters: serde_json::json!({"type": "object"}),
            routing_name: routing.map(str::to_owned),
        };
        let tools = RequestTools::new([tool("say_it", Some("echo_say")), tool("unrouted", None)]);
        let reply = r#"<tool_call>{"name": "say_it", "arguments": {"text": "hi"}}</tool_call>
<tool_call>{"name": "unrouted", "arguments": {}}</tool_call>
<tool_call>{"name": "ghost", "arguments": {}}</tool_call>"#;
        let seen = std::sync::Mutex::new(Vec::new());
        let dir = tempfile::tempdir().expect("tempdir");
        let (history, _) = History::open(dir.path().join("h.jsonl")).expect("open");
        let outcome = run_cycle_observed(
            reply,
            &CycleOptions {
                request_tools: Some(&tools),
                max_calls: 2,
                ..Default::default()
            },
            &ProtocolSet::standard(),
            &executor(),
            Some(&history),
            &CancellationToken::new(),
            &|index, result| {
                seen.lock()
                    .expect("lock")
                    .push((index, result.tool_name.clone()))
            },
        )
        .await
        .expect("auto");
        let names: Vec<&str> = outcome
            .results
            .iter()
            .map(|r| r.tool_name.as_str())
            .collect();
        assert_eq!(names, vec!["say_it", "unrouted", "ghost"]);
        assert!(outcome.results[0].is_success(), "{:?}", outcome.results[0]);
        assert_eq!(outcome.results[0].result, r#"{"text":"hi"}"#);
        assert!(outcome.results[1].result.contains("nothing behind it"));
        assert_eq!(
            outcome.results[2].error_kind(),
            Some(ErrorKind::Denied),
            "over the limit"
        );
        assert!(outcome.formatted_results.contains("say_it"));
        assert!(outcome
            .parse
            .diagnostics
            .iter()
            .any(|d| d.code == DiagnosticCode::UnknownTool && d.message.contains("ghost")));
        // The history keeps what ran: the routed call under its routing name, so a re-run
        // from the history reaches the same method.
        let recorded: Vec<String> = History::load(history.path())
            .expect("load")
            .entries
            .iter()
            .map(|e| format!("{}={}", e.request.tool_name, e.result.tool_name))
            .collect();
        assert_eq!(
            recorded,
            vec!["echo_say=echo_say", "unrouted=unrouted", "ghost=ghost"]
        );
        let mut seen = seen.into_inner().expect("lock");
        seen.sort();
        assert_eq!(
            seen,
            vec![(0, "say_it".to_owned()), (1, "unrouted".to_owned())]
        );
    }

    #[tokio::test]
    async fn no_requests_means_no_results() {
        let outcome = run_cycle(
            "just talk",
            &CycleOptions::default(),
            &ProtocolSet::standard(),
            &executor(),
            None,
            &CancellationToken::new(),
        )
        .await
        .expect("auto");
        assert!(!outcome.has_tool_requests);
        assert!(outcome.results.is_empty());
        assert!(outcome.formatted_results.is_empty());
    }

    #[tokio::test]
    async fn calls_over_the_limit_are_not_executed() {
        let outcome = run_cycle(
            REPLY,
            &CycleOptions {
                max_calls: 1,
                ..Default::default()
            },
            &ProtocolSet::standard(),
            &executor(),
            None,
            &CancellationToken::new(),
        )
        .await
        .expect("auto");
        assert!(outcome.results[0].is_success());
        assert_eq!(outcome.results[1].error_kind(), Some(ErrorKind::Denied));
        assert!(outcome.results[1].result.contains("at most 1"));
    }

    #[tokio::test]
    async fn strict_unknown_tool_turns_unknown_names_into_diagnostics() {
        let outcome = run_cycle(
            REPLY,
            &CycleOptions {
                strict_unknown_tool: true,
                ..Default::default()
            },
            &ProtocolSet::standard(),
            &executor(),
            None,
            &CancellationToken::new(),
        )
        .await
        .expect("auto");
        assert_eq!(outcome.results.len(), 1);
        assert_eq!(outcome.parse.requests.len(), 1);
        let diag = outcome.parse.diagnostics.last().expect("diagnostic");
        assert_eq!(diag.code, DiagnosticCode::UnknownTool);
        assert!(diag.message.contains("echo_nope"));
        assert!(REPLY[diag.span.start..diag.span.end].contains("echo_nope"));
    }

    #[tokio::test]
    async fn unknown_format_is_an_error() {
        let err = run_cycle(
            REPLY,
            &CycleOptions {
                format: Some("klingon"),
                ..Default::default()
            },
            &ProtocolSet::standard(),
            &executor(),
            None,
            &CancellationToken::new(),
        )
        .await;
        assert!(matches!(err, Err(ParserError::UnknownFormat { .. })));
    }
}
