//! A parse's requests beyond the first screen. `parse_reply` answers with every request's place
//! in a few numbers (its outline) and the whole of only the first [`FIRST_REQUESTS`]: a 5 MB
//! reply holds thousands of calls, and sending each one's arguments, id and check up front was
//! most of the answer (1.3 MB), decoded before the pane could show anything. The rest stays
//! here, for the latest parse only, and comes page by page as the list shows more.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use tauri::State;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::text_position::TextRange;

use super::parser::ReplyCheck;
use crate::error::{CommandError, CommandErrorKind};
use crate::state::{lock, AppState};

/// Requests `parse_reply` sends whole: more than a screen of the list shows (a page of it).
pub const FIRST_REQUESTS: usize = 100;

/// Numbers per request in [`RequestOutline::places`].
pub const PLACE_FIELDS: usize = 7;

/// Every request of a parse, in order, in a few numbers each: enough to count them, mark their
/// spans, label them and tell which would not run, without their arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, specta::Type)]
pub struct RequestOutline {
    /// How many requests the parse found.
    pub count: u32,
    /// The distinct tool names, in order of first call.
    pub names: Vec<String>,
    /// [`PLACE_FIELDS`] numbers per request: its name's index in `names`, its span's start and
    /// end (UTF-8 bytes, as `span`), then its range as the pane indexes the text (`from`, `to`,
    /// `line`, `column`, as [`TextRange`]).
    pub places: Vec<u32>,
    /// The indexes of the requests that would not run (their check has an error), ascending.
    pub invalid: Vec<u32>,
}

impl RequestOutline {
    /// The outline of `requests`, whose ranges and checks are in the same order.
    pub fn of(requests: &[ParsedToolRequest], ranges: &[TextRange], checks: &[ReplyCheck]) -> Self {
        let mut names: Vec<String> = Vec::new();
        let mut numbers: HashMap<&str, u32> = HashMap::new();
        let mut places = Vec::with_capacity(requests.len() * PLACE_FIELDS);
        for (index, request) in requests.iter().enumerate() {
            let name = *numbers.entry(&request.tool_name).or_insert_with(|| {
                names.push(request.tool_name.clone());
                narrow(names.len() - 1)
            });
            let range = ranges.get(index).copied().unwrap_or(TextRange {
                from: 0,
                to: 0,
                line: 1,
                column: 1,
            });
            places.extend([
                name,
                narrow(request.span.start),
                narrow(request.span.end),
                range.from,
                range.to,
                range.line,
                range.column,
            ]);
        }
        let invalid = checks
            .iter()
            .enumerate()
            .filter(|(_, check)| check.error.is_some())
            .map(|(index, _)| narrow(index))
            .collect();
        Self {
            count: narrow(requests.len()),
            names,
            places,
            invalid,
        }
    }
}

/// Offsets and counts of a reply the IPC body could carry (under 4 GiB) fit in a `u32`.
fn narrow(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Requests `from..` of a parse, with their checks.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RequestPage {
    /// Index of the first request of the page.
    pub from: u32,
    pub requests: Vec<ParsedToolRequest>,
    /// One per request, in the same order.
    pub checks: Vec<ReplyCheck>,
}

/// The requests of the latest parse that its answer left out.
#[derive(Debug, Default)]
pub struct KeptRequests {
    next_id: AtomicU32,
    latest: Mutex<Option<Kept>>,
}

#[derive(Debug)]
struct Kept {
    parse_id: u32,
    /// How many requests the parse found.
    found: usize,
    /// Requests from [`FIRST_REQUESTS`] on, and their checks.
    requests: Vec<ParsedToolRequest>,
    checks: Vec<ReplyCheck>,
}

impl KeptRequests {
    /// Splits off everything after the first [`FIRST_REQUESTS`] of `requests` (and `checks`),
    /// keeps it in place of the previous parse's, and gives the new parse's id.
    pub fn keep_rest(
        &self,
        requests: &mut Vec<ParsedToolRequest>,
        checks: &mut Vec<ReplyCheck>,
    ) -> u32 {
        let parse_id = self.next_id.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        let found = requests.len();
        let rest = requests.split_off(requests.len().min(FIRST_REQUESTS));
        let rest_checks = checks.split_off(checks.len().min(FIRST_REQUESTS));
        *lock(&self.latest) = Some(Kept {
            parse_id,
            found,
            requests: rest,
            checks: rest_checks,
        });
        parse_id
    }

    /// Requests `from..to` of parse `parse_id` (clamped to what it found).
    pub fn page(&self, parse_id: u32, from: u32, to: u32) -> Result<RequestPage, CommandError> {
        let latest = lock(&self.latest);
        let kept = latest
            .as_ref()
            .filter(|kept| kept.parse_id == parse_id)
            .ok_or_else(|| {
                CommandError::new(
                    CommandErrorKind::InvalidInput,
                    format!("parse {parse_id} is no longer kept: the reply was parsed again since"),
                )
            })?;
        let first = FIRST_REQUESTS;
        let found = kept.found;
        let widen = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        let (start, end) = (widen(from), widen(to).min(found));
        if start < first || start > end {
            return Err(CommandError::new(
                CommandErrorKind::InvalidInput,
                format!(
                    "requests {from}..{to} of parse {parse_id}: its answer held the first {first}, and it found {found}"
                ),
            ));
        }
        let range = start - first..end - first;
        Ok(RequestPage {
            from,
            requests: kept.requests[range.clone()].to_vec(),
            checks: kept.checks[range].to_vec(),
        })
    }
}

/// Requests `from..to` of parse `parse_id` (`ParsedReply::parse_id`), with their checks: the
/// ones its answer left out. Only the latest parse is kept; an older one is an input error.
#[tauri::command]
#[specta::specta]
pub async fn parsed_requests(
    state: State<'_, AppState>,
    parse_id: u32,
    from: u32,
    to: u32,
) -> Result<RequestPage, CommandError> {
    state.kept_requests.page(parse_id, from, to)
}

#[cfg(test)]
#[path = "parsed_requests_tests.rs"]
mod tests;
