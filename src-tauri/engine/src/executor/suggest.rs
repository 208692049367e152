//! What to do about a failed call (seed 001's `Suggestion:`), written once for every face.
//!
//! A bare "invalid arguments" teaches a model nothing and leaves a person guessing; the runs
//! that recover are the ones where the error says what to do next: the names that were
//! probably meant, the failing paths with the part of the schema they break and a value it
//! accepts, the limit a call ran into and where to raise it, why a call was not allowed. The
//! executor puts the text into the classified error itself
//! ([`toolscope_protocol::result::ExecutionError::suggestion`]), so the agent loop, the CLI,
//! the app and the result blocks a model reads all show the same words. Each suggestion is
//! one short paragraph.

use std::time::Duration;

use serde_json::Value;

use super::schema_hint::{compact, example_text, fragment_at, node_at};
use super::ConfirmReason;
use crate::naming::closest_names;
use toolscope_protocol::result::{ArgumentIssue, ErrorKind, ToolExecutionResult};

/// How many near names an unknown-name suggestion offers.
const NEAR_NAMES: usize = 3;
/// With no near name, the whole list of names is offered when it is this short.
const LISTED_NAMES: usize = 12;

/// Where a person raises the per-call timeout, in each face.
const RAISE_TIMEOUT: &str =
    "the `timeout_ms` setting, `--timeout-ms` on the command line, or the Executor's Timeout field";

/// The suggestion for an unknown routing name: the nearest `names` by edit distance, else the
/// whole list when it is short.
pub fn unknown_name<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    let all: Vec<&str> = names.into_iter().collect();
    let near = closest_names(name, all.iter().copied(), NEAR_NAMES);
    if !near.is_empty() {
        return format!(
            "There is no tool named '{name}'. Did you mean: {}?",
            near.join(", ")
        );
    }
    if all.is_empty() {
        return format!("There is no tool named '{name}', and no tools are available.");
    }
    if all.len() <= LISTED_NAMES {
        return format!(
            "There is no tool named '{name}'. The tools are: {}.",
            all.join(", ")
        );
    }
    format!(
        "There is no tool named '{name}', and no name is close to it. Use a tool exactly as listed ({{toolId}}_{{methodName}})."
    )
}

/// The suggestion for arguments that failed validation: per failing path the schema fragment
/// there and an example of a valid value. With no issues the arguments could not be read at
/// all, and what to send is the object's outline.
pub fn invalid_args(issues: &[ArgumentIssue], schema: Option<&Value>) -> String {
    if issues.is_empty() {
        let mut text =
            "Send the call again with its arguments as one complete JSON object".to_owned();
        if let Some(outline) = schema.and_then(|s| fragment_at(s, "/")) {
            text.push_str(&format!(" ({outline}"));
            if let Some(example) = schema.and_then(example_text) {
                text.push_str(&format!("; e.g. {example}"));
            }
            text.push(')');
        }
        text.push('.');
        return text;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for issue in issues {
        let path = issue.path.as_str();
        if seen.contains(&path) {
            continue;
        }
        seen.push(path);
        let Some(schema) = schema else { continue };
        let Some(fragment) = fragment_at(schema, path) else {
            continue;
        };
        let example = node_at(schema, path).and_then(example_text);
        lines.push(match example {
            Some(example) => format!("{}: {fragment}; e.g. {example}", display_path(path)),
            None => format!("{}: {fragment}", display_path(path)),
        });
    }
    let mut text = String::from("Call it again with arguments that match its schema");
    match (lines.is_empty(), schema) {
        (false, _) => {
            text.push_str(". Where it failed, the schema says:\n");
            text.push_str(&lines.join("\n"));
        }
        (true, Some(schema)) => {
            text.push_str(": ");
            text.push_str(&compact(schema));
        }
        (true, None) => {}
    }
    text.push('.');
    text
}

/// The suggestion for a call stopped at the per-call timeout.
pub fn timeout(limit: Duration) -> String {
    format!(
        "It was stopped after {} ms, the per-call timeout. Retry once with a smaller or simpler request, or continue without this result; if the tool needs longer, raise the timeout ({RAISE_TIMEOUT}).",
        limit.as_millis()
    )
}

/// Why a call that needs confirmation did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial<'a> {
    /// It needs confirmation and nothing was there to ask.
    Unconfirmed(ConfirmReason),
    /// A person was asked and said no (with their reason, if they gave one).
    Declined {
        reason: Option<ConfirmReason>,
        said: Option<&'a str>,
    },
}

/// The suggestion for a denied call: why it needed confirmation and who did not give it.
pub fn denied(denial: Denial<'_>) -> String {
    match denial {
        Denial::Unconfirmed(reason) => format!(
            "It needs confirmation because {}, and no one was there to confirm it. Run it where a person can confirm it (the app asks; the CLI asks on a terminal, or `--yes` approves); a model should continue without it.",
            why(reason)
        ),
        Denial::Declined { reason, said } => {
            let mut text = String::from("The user did not allow this call");
            if let Some(reason) = reason {
                text.push_str(&format!(" (asked because {})", why(reason)));
            }
            if let Some(said) = said.map(str::trim).filter(|s| !s.is_empty()) {
                text.push_str(&format!(", saying: {said}"));
            }
            text.push_str(". Do not repeat it; continue without it or ask the user.");
            text
        }
    }
}

fn why(reason: ConfirmReason) -> &'static str {
    match reason {
        ConfirmReason::Destructive => "the method is destructive or not annotated as read-only",
        ConfirmReason::Configured => {
            "the configuration asks to confirm every call (`require_confirmation`, or manual mode)"
        }
    }
}

/// The suggestion for a call not run because a call limit was reached; `setting` names where
/// the limit is raised.
pub fn call_limit(limit: u64, scope: &str, setting: &str) -> String {
    format!(
        "At most {limit} tool calls are allowed {scope}. Make fewer calls (combine them, or ask for more at once); the limit is `{setting}`."
    )
}

/// The suggestion for an output larger than the cap of `limit` bytes.
pub fn output_too_large(limit: Option<usize>) -> String {
    let limit = limit.map_or_else(String::new, |l| format!(" of {l} bytes"));
    format!(
        "The result was larger than the output limit{limit}. Ask for less (a narrower query, fewer items), or raise the limit (`max_tool_output_bytes`)."
    )
}

/// The suggestion for a call refused by its tool's rate limit; `retry_after` is when a slot
/// frees up, when the tool said.
pub fn rate_limited(retry_after: Option<Duration>) -> String {
    let when = match retry_after {
        Some(wait) => format!("Wait {} s, then retry", whole_seconds_up(wait)),
        None => "Wait, then retry".to_owned(),
    };
    format!(
        "The tool allows only so many calls per time window and that limit is reached. {when} (not sooner: an early call is refused the same way), or continue without this result; a person can raise the tool's `rate_limit` or the per-call timeout ({RAISE_TIMEOUT})."
    )
}

/// Seconds rounded up, at least 1: "retry in 0 s" would invite the same refusal.
pub fn whole_seconds_up(wait: Duration) -> u64 {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    seconds.max(1)
}

/// The suggestion for a kind whose text needs nothing beyond the error itself; the tool's own
/// message picks a more precise hint where it names a familiar cause (seed 001's
/// `getSuggestion`: a missing file, a permission, a time-out inside the tool).
pub fn for_kind(kind: ErrorKind, message: &str) -> Option<String> {
    let text = match kind {
        ErrorKind::InvalidName | ErrorKind::ToolNotFound | ErrorKind::MethodNotFound => {
            "Call one of the tools that are listed, by its exact routing name ({toolId}_{methodName})."
        }
        ErrorKind::InvalidArgs => "Call it again with arguments that match its schema.",
        ErrorKind::NotAgentCallable => {
            "This method is not for models to call; use another tool or answer without it."
        }
        ErrorKind::Denied => {
            "The call was not allowed. Do not repeat it; continue without it or ask the user."
        }
        ErrorKind::Timeout => {
            "It ran out of time and was stopped. Retry once with a smaller or simpler request, or continue without this result."
        }
        ErrorKind::Cancelled => {
            "It was cancelled before it finished; run it again if the result is still needed."
        }
        ErrorKind::OutputTooLarge => return Some(output_too_large(None)),
        ErrorKind::MemoryLimit => {
            "The tool ran out of the memory it is allowed. Retry with a smaller input, or continue without this result; a person can raise `max_memory_mib` in the tool's manifest."
        }
        ErrorKind::Transport => {
            "The tool's server could not be reached. Check that it is running and reachable, then retry; a model should continue without it."
        }
        ErrorKind::RateLimited => return Some(rate_limited(None)),
        ErrorKind::ToolError => return Some(tool_error(message)),
    };
    Some(text.to_owned())
}

fn tool_error(message: &str) -> String {
    let lower = message.to_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| lower.contains(n));
    let text = if has(&["enoent", "no such file", "not found", "does not exist"]) {
        "Something it needed was not found. Check the path or name in the arguments and try again."
    } else if has(&["eacces", "permission denied", "forbidden", "unauthorized"]) {
        "Permission was denied. Check the path or the credentials; it may be outside what the tool may reach."
    } else if has(&["timed out", "timeout"]) {
        "The tool timed out inside. Try a shorter operation, or continue without this result."
    } else {
        "The tool reported an error. Check the arguments against its description before retrying."
    };
    text.to_owned()
}

/// The suggestion for a failed result as a conversation tells it: an unknown name against the
/// names the model was `offered` (which may be fewer than the registry holds), anything else
/// the error's own suggestion, else one from its kind (`schema` for argument errors).
pub fn for_result(
    result: &ToolExecutionResult,
    offered: &[String],
    schema: Option<&Value>,
) -> Option<String> {
    let error = result.error.as_ref()?;
    match error.kind {
        ErrorKind::InvalidName | ErrorKind::ToolNotFound | ErrorKind::MethodNotFound => Some(
            unknown_name(&result.tool_name, offered.iter().map(String::as_str)),
        ),
        _ if error.suggestion.is_some() => error.suggestion.clone(),
        ErrorKind::InvalidArgs => Some(invalid_args(&error.issues, schema)),
        kind => for_kind(kind, &error.message),
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() || path == "/" {
        "the arguments"
    } else {
        path
    }
}

#[cfg(test)]
#[path = "suggest_tests.rs"]
mod tests;
