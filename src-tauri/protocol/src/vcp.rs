//! VCP (Variable & Command Protocol, seed 000 §4.2): text markers that models learn easily.
//!
//! A request is `<<<[TOOL_REQUEST]>>>` … `<<<[END_TOOL_REQUEST]>>>` holding `key:「始」value「末」`
//! pairs. Pairs are read exactly like the seed's regex `([a-zA-Z0-9_-]+):「始」([\s\S]*?)「末」`
//! (leftmost key run, value up to the first `「末」`), but by a hand-written scanner so every
//! request and diagnostic carries byte spans and a 1 MB reply parses in linear time.
//! Values are text; the executor types them from the method's schema.

use serde_json::{Map, Value};

use crate::framing::{self, Block, Close, Framing, Rule};
use crate::request::{
    new_request_id, Diagnostic, DiagnosticCode, ParseOutput, ParsedToolRequest, Severity, Span,
};
use crate::result::{ExecutionStatus, ToolExecutionResult};
use crate::{example_args, parameter_summary, Protocol, ToolDefinitionInput};

pub const REQUEST_START: &str = "<<<[TOOL_REQUEST]>>>";
pub const REQUEST_END: &str = "<<<[END_TOOL_REQUEST]>>>";
pub const DEFINITION_START: &str = "<<<[TOOL_DEFINITION]>>>";
pub const DEFINITION_END: &str = "<<<[END_TOOL_DEFINITION]>>>";
pub const RESULT_START: &str = "<<<[TOOL_RESULT]>>>";
pub const RESULT_END: &str = "<<<[END_TOOL_RESULT]>>>";
pub const VALUE_OPEN: &str = "「始」";
pub const VALUE_CLOSE: &str = "「末」";

/// Keys with a meaning of their own; every other key is an argument.
const TOOL_NAME_KEY: &str = "tool_name";
const REQUEST_ID_KEY: &str = "request_id";

/// VCP has no reasoning convention of its own; `<think>` is still never parsed.
const FRAMING: Framing = Framing {
    rules: &[
        framing::THINK,
        Rule::call(REQUEST_START, Close::Marker(REQUEST_END)),
    ],
};

#[derive(Debug, Clone, Copy, Default)]
pub struct VcpProtocol;

impl Protocol for VcpProtocol {
    fn id(&self) -> &'static str {
        "vcp"
    }

    fn label(&self) -> &'static str {
        "VCP (Variable & Command Protocol)"
    }

    fn generate_tool_definitions(&self, tools: &[ToolDefinitionInput]) -> String {
        let mut out = String::from(PREAMBLE);
        for tool in tools {
            for method in &tool.methods {
                let routing = tool.routing_name(method);
                let command = method
                    .protocol_config
                    .as_ref()
                    .and_then(|c| c.vcp_command.as_deref())
                    .unwrap_or(&method.name);
                let parameters = serde_json::to_string(&parameter_summary(&method.parameters))
                    .unwrap_or_else(|_| "[]".to_owned());
                out.push('\n');
                out.push_str(DEFINITION_START);
                out.push('\n');
                push_pair(&mut out, TOOL_NAME_KEY, &routing);
                push_pair(&mut out, "tool", &tool.tool_name);
                push_pair(&mut out, "command", command);
                push_pair(&mut out, "description", &method.description);
                push_pair(&mut out, "parameters", &parameters);
                out.push_str("example:\n");
                out.push_str(&request_block(&routing, &example_args(&method.parameters)));
                out.push_str(DEFINITION_END);
                out.push('\n');
            }
        }
        out
    }

    fn parse_tool_requests(&self, text: &str) -> ParseOutput {
        parse(text)
    }

    fn framing(&self) -> Option<Framing> {
        Some(FRAMING)
    }

    fn decode_block(&self, text: &str, block: &Block, out: &mut ParseOutput) {
        parse_block(text, block.span, block.body.start, block.body.end, out);
    }

    fn format_tool_results(&self, results: &[ToolExecutionResult]) -> String {
        let mut out = String::new();
        for result in results {
            out.push_str(RESULT_START);
            out.push('\n');
            push_pair(&mut out, REQUEST_ID_KEY, &result.request_id);
            push_pair(&mut out, TOOL_NAME_KEY, &result.tool_name);
            let status = match result.status {
                ExecutionStatus::Success => "success",
                ExecutionStatus::Error => "error",
            };
            push_pair(&mut out, "status", status);
            if let Some(error) = &result.error {
                push_pair(&mut out, "error_kind", error.kind.as_str());
            }
            push_pair(&mut out, "result", &result.result);
            if let Some(suggestion) = result.suggestion() {
                push_pair(&mut out, "suggestion", suggestion);
            }
            out.push_str(RESULT_END);
            out.push('\n');
        }
        out
    }
}

const PREAMBLE: &str = "You can call tools. To call one, write a request block exactly like this \
(one block per call, several blocks allowed):\n\
<<<[TOOL_REQUEST]>>>\n\
tool_name:「始」toolId_methodName「末」\n\
argumentName:「始」value「末」\n\
<<<[END_TOOL_REQUEST]>>>\n\
Every value goes between 「始」 and 「末」 and may span several lines. Objects and arrays are \
written as JSON. Results come back in <<<[TOOL_RESULT]>>> blocks.\n\
\n\
Available tools:\n";

fn push_pair(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push(':');
    out.push_str(VALUE_OPEN);
    out.push_str(value);
    out.push_str(VALUE_CLOSE);
    out.push('\n');
}

/// A request block calling `routing_name` with `args` (strings verbatim, others as JSON).
pub fn request_block(routing_name: &str, args: &Map<String, Value>) -> String {
    let mut out = String::from(REQUEST_START);
    out.push('\n');
    push_pair(&mut out, TOOL_NAME_KEY, routing_name);
    for (key, value) in args {
        match value {
            Value::String(s) => push_pair(&mut out, key, s),
            other => push_pair(&mut out, key, &other.to_string()),
        }
    }
    out.push_str(REQUEST_END);
    out.push('\n');
    out
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn find_from(text: &str, from: usize, needle: &str) -> Option<usize> {
    text.get(from..)?.find(needle).map(|i| i + from)
}

fn diagnostic(severity: Severity, code: DiagnosticCode, message: String, span: Span) -> Diagnostic {
    Diagnostic {
        severity,
        code,
        message,
        span,
    }
}

/// Parses every request block in `text`.
pub fn parse(text: &str) -> ParseOutput {
    framing::parse(&VcpProtocol, text)
}

/// Strips one leading and one trailing line break: values written on their own lines
/// (`「始」\n…\n「末」`) mean the lines, not the breaks around them.
fn trim_value(value: &str) -> &str {
    let value = value
        .strip_prefix("\r\n")
        .or_else(|| value.strip_prefix('\n'))
        .unwrap_or(value);
    value
        .strip_suffix("\r\n")
        .or_else(|| value.strip_suffix('\n'))
        .unwrap_or(value)
}

fn parse_block(text: &str, block: Span, body_start: usize, body_end: usize, out: &mut ParseOutput) {
    let mut args = Map::new();
    let mut tool_name: Option<String> = None;
    let mut request_id: Option<String> = None;
    let mut broken = false;
    let mut cursor = body_start;
    let body_bytes = text.as_bytes();

    while cursor < body_end {
        let Some(open) = find_from(&text[..body_end], cursor, VALUE_OPEN) else {
            check_stray(text, cursor, body_end, out);
            break;
        };
        // The key is the run of key characters right before ':' (regex leftmost semantics).
        let colon = open.checked_sub(1).filter(|&c| body_bytes[c] == b':');
        let key_start = colon.map(|c| {
            let mut k = c;
            while k > cursor && is_key_byte(body_bytes[k - 1]) {
                k -= 1;
            }
            k
        });
        let value_start = open + VALUE_OPEN.len();
        let Some((colon, key_start)) = colon.zip(key_start).filter(|(c, k)| k < c) else {
            let marker_start = colon.unwrap_or(open);
            check_stray(text, cursor, marker_start, out);
            match find_from(&text[..body_end], value_start, VALUE_CLOSE) {
                Some(close) => {
                    let end = close + VALUE_CLOSE.len();
                    out.diagnostics.push(diagnostic(
                        Severity::Warning,
                        DiagnosticCode::StrayText,
                        format!("value without a key is ignored (expected key:{VALUE_OPEN}value{VALUE_CLOSE})"),
                        Span::new(marker_start, end),
                    ));
                    cursor = end;
                }
                None => {
                    out.diagnostics.push(diagnostic(
                        Severity::Error,
                        DiagnosticCode::UnclosedValue,
                        format!("{VALUE_OPEN} without a key never closes with {VALUE_CLOSE}; the request is skipped"),
                        Span::new(marker_start, body_end),
                    ));
                    broken = true;
                    cursor = body_end;
                }
            }
            continue;
        };
        check_stray(text, cursor, key_start, out);
        let key = &text[key_start..colon];
        let Some(close) = find_from(&text[..body_end], value_start, VALUE_CLOSE) else {
            out.diagnostics.push(diagnostic(
                Severity::Error,
                DiagnosticCode::UnclosedValue,
                format!("value of '{key}' opens with {VALUE_OPEN} but never closes with {VALUE_CLOSE}; the request is skipped"),
                Span::new(key_start, body_end),
            ));
            broken = true;
            break;
        };
        let raw_value = &text[value_start..close];
        if let Some(inner) = raw_value.find(VALUE_OPEN) {
            out.diagnostics.push(diagnostic(
                Severity::Warning,
                DiagnosticCode::UnclosedValue,
                format!("value of '{key}' contains {VALUE_OPEN}: an earlier value may be missing its {VALUE_CLOSE}"),
                Span::new(value_start + inner, value_start + inner + VALUE_OPEN.len()),
            ));
        }
        let pair_span = Span::new(key_start, close + VALUE_CLOSE.len());
        let value = trim_value(raw_value);
        let previous = match key {
            TOOL_NAME_KEY => tool_name
                .replace(value.trim().to_owned())
                .map(Value::String),
            REQUEST_ID_KEY => request_id
                .replace(value.trim().to_owned())
                .map(Value::String),
            _ => args.insert(key.to_owned(), Value::String(value.to_owned())),
        };
        if previous.is_some() {
            out.diagnostics.push(diagnostic(
                Severity::Warning,
                DiagnosticCode::DuplicateKey,
                format!("key '{key}' appears more than once; the last value wins"),
                pair_span,
            ));
        }
        cursor = pair_span.end;
    }

    if broken {
        return;
    }
    let Some(tool_name) = tool_name.filter(|n| !n.is_empty()) else {
        out.diagnostics.push(diagnostic(
            Severity::Error,
            DiagnosticCode::MissingToolName,
            format!(
                "request block has no tool_name:{VALUE_OPEN}…{VALUE_CLOSE}; the block is skipped"
            ),
            block,
        ));
        return;
    };
    out.requests.push(ParsedToolRequest {
        request_id: request_id
            .filter(|id| !id.is_empty())
            .unwrap_or_else(new_request_id),
        tool_name,
        args,
        raw_block: text[block.start..block.end].to_owned(),
        span: block,
        format: "vcp".to_owned(),
        untyped_args: true,
        incomplete: false,
        typed_without_schema: false,
    });
}

/// Text between pairs is ignored by the format; say so when it is more than whitespace.
fn check_stray(text: &str, from: usize, to: usize, out: &mut ParseOutput) {
    if from >= to {
        return;
    }
    let gap = &text[from..to];
    let trimmed_start = gap.len() - gap.trim_start().len();
    let trimmed = gap.trim();
    if trimmed.is_empty() {
        return;
    }
    let start = from + trimmed_start;
    out.diagnostics.push(diagnostic(
        Severity::Warning,
        DiagnosticCode::StrayText,
        format!(
            "text inside the request block is not a key:{VALUE_OPEN}value{VALUE_CLOSE} pair and is ignored"
        ),
        Span::new(start, start + trimmed.len()),
    ));
}

#[cfg(test)]
mod tests;
