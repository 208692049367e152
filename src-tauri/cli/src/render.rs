//! Text and JSON output. Text is for people (aligned, short); JSON is the engine's own types.

use crate::output::{out, outln};
use serde::Serialize;
use serde_json::Value;
use toolscope_engine::cycle::CycleOutcome;
use toolscope_engine::discovery::DiscoveredTool;
use toolscope_engine::eval::{Agreement, EvalReport};
use toolscope_engine::request_tools::RequestCheck;
use toolscope_protocol::method::Annotations;
use toolscope_protocol::parser::ParseReport;
use toolscope_protocol::request::Severity;
use toolscope_protocol::result::ToolExecutionResult;

pub fn json<T: Serialize + ?Sized>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => outln!("{text}"),
        Err(e) => eprintln!("error: cannot render JSON: {e}"),
    }
}

fn badges(annotations: &Annotations, callable: bool) -> String {
    let mut badges = Vec::new();
    if !callable {
        badges.push("not agent-callable");
    }
    if annotations.is_read_only() {
        badges.push("read-only");
    } else if annotations.is_destructive() {
        badges.push("destructive");
    }
    if annotations.idempotent == Some(true) {
        badges.push("idempotent");
    }
    if badges.is_empty() {
        String::new()
    } else {
        format!("[{}]", badges.join(", "))
    }
}

pub fn tool_list(tools: &[DiscoveredTool]) {
    if tools.is_empty() {
        outln!("no methods match");
        return;
    }
    let width = tools
        .iter()
        .flat_map(|t| t.methods.iter().map(|m| m.routing_name.len()))
        .max()
        .unwrap_or(0);
    for tool in tools {
        outln!(
            "{} ({}) — {}",
            tool.tool_name,
            tool.tool_id,
            tool.description
        );
        for method in &tool.methods {
            outln!(
                "  {:<width$}  {} {}",
                method.routing_name,
                first_line(&method.meta.description),
                badges(&method.meta.annotations, method.meta.agent_callable)
            );
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// 1-based line and column of byte offsets, for pointing at requests and diagnostics.
///
/// A reply can be megabytes with thousands of calls: counting from the start for each one made
/// `parse` quadratic (a 53 MB reply took 86 s). Line starts are found once; a column is counted
/// from the previous query when it is on the same line and further on (queries come in order),
/// else from its line's start, so a whole report costs one pass over the text.
struct Positions<'a> {
    text: &'a str,
    /// Byte offset where each line starts.
    line_starts: Vec<usize>,
    /// The last answer: offset, 0-based line, 1-based column.
    last: (usize, usize, usize),
}

impl<'a> Positions<'a> {
    fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self {
            text,
            line_starts,
            last: (0, 0, 1),
        }
    }

    fn at(&mut self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let (last_offset, last_line, last_column) = self.last;
        let (from, column) = if line == last_line && offset >= last_offset {
            (last_offset, last_column)
        } else {
            (self.line_starts[line], 1)
        };
        let column = column + self.text[from..offset].chars().count();
        self.last = (offset, line, column);
        (line + 1, column)
    }
}

/// A parse report with each request checked against the request's tools.
#[derive(Serialize)]
pub struct CheckedReport<'a> {
    #[serde(flatten)]
    pub report: &'a ParseReport,
    pub checks: &'a [RequestCheck],
}

/// `checks`: each request against the request's tools.
pub fn parse_report(report: &ParseReport, text: &str, checks: Option<&[RequestCheck]>) {
    let how = if report.detected { "detected" } else { "named" };
    outln!(
        "format: {} ({how}); {} request(s), {} diagnostic(s)",
        report.format,
        report.requests.len(),
        report.diagnostics.len()
    );
    let mut positions = Positions::new(text);
    for (i, request) in report.requests.iter().enumerate() {
        let (line, col) = positions.at(request.span.start);
        outln!(
            "{}. {}  id={}  at {line}:{col} (bytes {}..{})",
            i + 1,
            request.tool_name,
            request.request_id,
            request.span.start,
            request.span.end
        );
        let args = serde_json::to_string_pretty(&request.args).unwrap_or_default();
        for arg_line in args.lines() {
            outln!("   {arg_line}");
        }
        let check = checks.and_then(|c| c.iter().find(|c| c.request_id == request.request_id));
        match check.map(|c| &c.error) {
            Some(None) => outln!("   valid against the request's tools"),
            Some(Some(error)) => {
                outln!(
                    "   {}: {}",
                    error.kind,
                    error.message.replace('\n', "\n   ")
                );
                if let Some(suggestion) = &error.suggestion {
                    suggestion_lines("   ", suggestion);
                }
            }
            None => {}
        }
        if request.typed_without_schema {
            outln!(
                "   (values are the model's text: no schema types them, so they are read as the \
                 format's reference parser reads untyped text; --tools gives the request's schemas)"
            );
        }
        if request.incomplete {
            outln!("   (cut off before the call closed: its arguments may be partial)");
        }
    }
    for diag in &report.diagnostics {
        let (line, col) = positions.at(diag.span.start);
        let level = match diag.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        outln!(
            "{level}[{}] at {line}:{col}: {}",
            serde_json::to_value(diag.code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            diag.message
        );
    }
}

pub fn result(result: &ToolExecutionResult) {
    let status = match &result.error {
        None => "ok".to_owned(),
        Some(error) => format!("error ({})", error.kind),
    };
    outln!(
        "{} {} in {:.2} ms",
        result.tool_name,
        status,
        result.duration_ms
    );
    if let Some(truncated) = result.truncated {
        outln!(
            "(output truncated: {} of {} bytes)",
            truncated.kept_bytes,
            truncated.original_bytes
        );
    }
    let pretty = serde_json::from_str::<Value>(&result.result)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
        .and_then(|v| serde_json::to_string_pretty(&v).ok());
    outln!("{}", pretty.as_deref().unwrap_or(&result.result));
    if let Some(suggestion) = result.suggestion() {
        suggestion_lines("", suggestion);
    }
}

/// A failure's suggestion (seed 001), after the error: what a person or a model can do next.
fn suggestion_lines(indent: &str, suggestion: &str) {
    let continued = format!("\n{indent}  ");
    outln!(
        "{indent}suggestion: {}",
        suggestion.replace('\n', &continued)
    );
}

pub fn cycle(outcome: &CycleOutcome, text: &str) {
    parse_report(&outcome.parse, text, None);
    if !outcome.has_tool_requests {
        return;
    }
    outln!();
    for item in &outcome.results {
        result(item);
    }
    outln!("\n--- results for the model ({}) ---", outcome.parse.format);
    out!("{}", outcome.formatted_results);
}

fn agreement(a: Agreement) -> String {
    format!("{}/{} ({:.1}%)", a.agreed, a.cases, a.rate() * 100.0)
}

pub fn eval_report(report: &EvalReport) {
    for outcome in &report.mismatches {
        outln!("✗ {} [{}]", outcome.label, outcome.format);
        for reason in &outcome.reasons {
            outln!("    {reason}");
        }
    }
    if !report.mismatches.is_empty() {
        outln!();
    }
    let width = report.by_format.keys().map(String::len).max().unwrap_or(0);
    for (format, counts) in &report.by_format {
        outln!("{format:<width$}  {}", agreement(*counts));
    }
    outln!("overall {}", agreement(report.overall));
}

#[cfg(test)]
mod tests {
    use super::Positions;

    /// The straightforward count from the start, to compare with.
    fn counted(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    #[test]
    fn positions_match_a_count_from_the_start_in_any_query_order() {
        let text = "ab\nçé日本\n\nlast line 😀 end";
        let offsets: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let mut positions = Positions::new(text);
        for &offset in offsets
            .iter()
            .chain(offsets.iter().rev())
            .chain(offsets.iter())
        {
            assert_eq!(
                positions.at(offset),
                counted(text, offset),
                "offset {offset}"
            );
        }
        // Inside a character: the character's start; past the end: the end.
        assert_eq!(positions.at(4), counted(text, 3));
        assert_eq!(positions.at(10_000), counted(text, text.len()));
    }
}
