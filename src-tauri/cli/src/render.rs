//! Text and JSON output. Text is for people (aligned, short); JSON is the engine's own types.

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
        Ok(text) => println!("{text}"),
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
        println!("no methods match");
        return;
    }
    let width = tools
        .iter()
        .flat_map(|t| t.methods.iter().map(|m| m.routing_name.len()))
        .max()
        .unwrap_or(0);
    for tool in tools {
        println!(
            "{} ({}) — {}",
            tool.tool_name, tool.tool_id, tool.description
        );
        for method in &tool.methods {
            println!(
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

/// 1-based line and column of a byte offset, for pointing at diagnostics.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
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
    println!(
        "format: {} ({how}); {} request(s), {} diagnostic(s)",
        report.format,
        report.requests.len(),
        report.diagnostics.len()
    );
    for (i, request) in report.requests.iter().enumerate() {
        let (line, col) = line_col(text, request.span.start);
        println!(
            "{}. {}  id={}  at {line}:{col} (bytes {}..{})",
            i + 1,
            request.tool_name,
            request.request_id,
            request.span.start,
            request.span.end
        );
        let args = serde_json::to_string_pretty(&request.args).unwrap_or_default();
        for arg_line in args.lines() {
            println!("   {arg_line}");
        }
        let check = checks.and_then(|c| c.iter().find(|c| c.request_id == request.request_id));
        match check.map(|c| &c.error) {
            Some(None) => println!("   valid against the request's tools"),
            Some(Some(error)) => {
                println!(
                    "   {}: {}",
                    error.kind,
                    error.message.replace('\n', "\n   ")
                );
            }
            None => {}
        }
        if request.typed_without_schema {
            println!(
                "   (values are the model's text: no schema types them, so a JSON literal is read \
                 as one and the rest stays text; --tools gives the request's schemas)"
            );
        }
        if request.incomplete {
            println!("   (cut off before the call closed: its arguments may be partial)");
        }
    }
    for diag in &report.diagnostics {
        let (line, col) = line_col(text, diag.span.start);
        let level = match diag.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        println!(
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
    println!(
        "{} {} in {:.2} ms",
        result.tool_name, status, result.duration_ms
    );
    if let Some(truncated) = result.truncated {
        println!(
            "(output truncated: {} of {} bytes)",
            truncated.kept_bytes, truncated.original_bytes
        );
    }
    let pretty = serde_json::from_str::<Value>(&result.result)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
        .and_then(|v| serde_json::to_string_pretty(&v).ok());
    println!("{}", pretty.as_deref().unwrap_or(&result.result));
}

pub fn cycle(outcome: &CycleOutcome, text: &str) {
    parse_report(&outcome.parse, text, None);
    if !outcome.has_tool_requests {
        return;
    }
    println!();
    for item in &outcome.results {
        result(item);
    }
    println!("\n--- results for the model ({}) ---", outcome.parse.format);
    print!("{}", outcome.formatted_results);
}

fn agreement(a: Agreement) -> String {
    format!("{}/{} ({:.1}%)", a.agreed, a.cases, a.rate() * 100.0)
}

pub fn eval_report(report: &EvalReport) {
    for outcome in &report.mismatches {
        println!("✗ {} [{}]", outcome.label, outcome.format);
        for reason in &outcome.reasons {
            println!("    {reason}");
        }
    }
    if !report.mismatches.is_empty() {
        println!();
    }
    let width = report.by_format.keys().map(String::len).max().unwrap_or(0);
    for (format, counts) in &report.by_format {
        println!("{format:<width$}  {}", agreement(*counts));
    }
    println!("overall {}", agreement(report.overall));
}
