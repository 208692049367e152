//! Reading a reply the way Cline's and Roo Code's message parsers do, in one pass.
//!
//! Outside a tool, a `<` opens a tool only when the tag is exactly `<known_tool>`. Inside a
//! tool, `<known_param>` opens a parameter whose value runs to the first `</known_param>`
//! (nothing inside a value is a tag), and `</tool>` closes the tool; any other text in a tool's
//! body is ignored. Each search moves forward, so the whole reply is read in linear time.

use serde_json::{Map, Value};

use crate::calls::{error, push_request, warning, Call};
use crate::request::{DiagnosticCode, ParseOutput, Span};

/// How one agent's parser reads a reply: its vocabulary and how it cleans values.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub id: &'static str,
    pub agent: &'static str,
    pub tools: &'static [&'static str],
    pub params: &'static [&'static str],
    pub content: ContentValue,
}

/// What the parser does to the text of a `content` parameter (every other value is trimmed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentValue {
    /// Trimmed like any value (Cline).
    Trimmed,
    /// One leading and one trailing line feed removed, other whitespace kept (Roo Code), so a
    /// file's indentation and blank lines survive.
    OneNewlineStripped,
}

/// Reasoning tags: a tool tag inside them is a draft, not a call.
const REASONING: &[(&str, &str)] = &[("<thinking>", "</thinking>"), ("<think>", "</think>")];

/// The tool whose `content` may quote its own closing tag: the value runs to the last
/// `</content>` in the tool's body, as both parsers special-case it.
const WRITE_TO_FILE: &str = "write_to_file";

/// The tool that calls an MCP server's tool: read as a call of that tool.
pub const USE_MCP_TOOL: &str = "use_mcp_tool";

/// One parameter as written: its name and where its value sits.
struct Param<'a> {
    name: &'a str,
    value: Span,
}

/// A tool block found in the reply.
struct ToolBlock<'a> {
    name: &'a str,
    span: Span,
    body: Span,
    params: Vec<Param<'a>>,
    /// Tags in the body that look like parameters this agent does not know: it ignores them.
    unknown: Vec<Param<'a>>,
    /// The reply ended before `</tool>` (and perhaps inside a parameter).
    cut_off: bool,
}

pub fn parse(dialect: &Dialect, text: &str) -> ParseOutput {
    let bytes = text.as_bytes();
    let mut out = ParseOutput::default();
    let mut content: Vec<&str> = Vec::new();
    let mut prose_from = 0;
    let mut at = 0;
    // Tools whose tag, from some point on, is never followed by a parameter or its closing tag:
    // a later tag of the same tool cannot be either, so it is prose without a second scan.
    let mut without_evidence: Vec<&str> = Vec::new();
    while let Some(found) = memchr::memchr(b'<', bytes.get(at..).unwrap_or_default()) {
        let lt = at + found;
        if let Some(end) = reasoning_end(text, lt) {
            content.push(&text[prose_from..lt]);
            prose_from = end;
            at = end;
            continue;
        }
        let Some((name, body_start)) = tag_at(text, lt, dialect.tools) else {
            at = lt + 1;
            continue;
        };
        // A tag right after a backtick is quoted in inline code: prose about the tool.
        if (lt > 0 && bytes[lt - 1] == b'`') || without_evidence.contains(&name) {
            at = lt + 1;
            continue;
        }
        match read_tool(dialect, text, name, lt, body_start) {
            Some(block) => {
                content.push(&text[prose_from..lt]);
                prose_from = block.span.end;
                at = block.span.end;
                emit(dialect, text, &block, &mut out);
            }
            None => {
                without_evidence.push(name);
                at = lt + 1;
            }
        }
    }
    content.push(&text[prose_from..]);
    out.content = content
        .iter()
        .map(|piece| piece.trim())
        .filter(|piece| !piece.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    out
}

/// Where a reasoning block opening at `lt` ends (the reply's end when it never closes).
fn reasoning_end(text: &str, lt: usize) -> Option<usize> {
    let rest = &text[lt..];
    let (open, close) = REASONING.iter().find(|(open, _)| rest.starts_with(open))?;
    let body = lt + open.len();
    Some(find_from(text, body, close).map_or(text.len(), |at| at + close.len()))
}

/// The name of the tag `<name>` at `lt` when `names` has it, and where the tag ends.
fn tag_at<'a>(text: &'a str, lt: usize, names: &[&str]) -> Option<(&'a str, usize)> {
    any_tag_at(text, lt).filter(|(name, _)| names.contains(name))
}

/// The name of a tag `<name>` (letters, digits, `_`) at `lt`, and where the tag ends.
fn any_tag_at(text: &str, lt: usize) -> Option<(&str, usize)> {
    let rest = text.get(lt + 1..)?;
    let length = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if length == 0 || rest.as_bytes().get(length) != Some(&b'>') {
        return None;
    }
    Some((&rest[..length], lt + 1 + length + 1))
}

/// The first `needle` at or after `from`.
fn find_from(text: &str, from: usize, needle: &str) -> Option<usize> {
    memchr::memmem::find(text.as_bytes().get(from..)?, needle.as_bytes()).map(|at| from + at)
}

/// The tool block whose tag `<name>` ends at `body_start`: parameters until `</name>` or the
/// reply's end. `None` when neither a parameter nor the closing tag follows, so the tag was
/// prose that names the tool (the reference would open a tool there and swallow the reply).
fn read_tool<'a>(
    dialect: &Dialect,
    text: &'a str,
    name: &'a str,
    lt: usize,
    body_start: usize,
) -> Option<ToolBlock<'a>> {
    let bytes = text.as_bytes();
    let close = format!("</{name}>");
    let mut params = Vec::new();
    let mut unknown = Vec::new();
    let mut at = body_start;
    while let Some(found) = memchr::memchr(b'<', bytes.get(at..).unwrap_or_default()) {
        let tag = at + found;
        if text[tag..].starts_with(&close) {
            return Some(ToolBlock {
                name,
                span: Span::new(lt, tag + close.len()),
                body: Span::new(body_start, tag),
                params,
                unknown,
                cut_off: false,
            });
        }
        let Some((param, value_start)) = tag_at(text, tag, dialect.params) else {
            if let Some((name, end)) = any_tag_at(text, tag) {
                unknown.push(Param {
                    name,
                    value: Span::new(tag, end),
                });
            }
            at = tag + 1;
            continue;
        };
        let param_close = format!("</{param}>");
        match find_from(text, value_start, &param_close) {
            Some(value_end) => {
                params.push(Param {
                    name: param,
                    value: Span::new(value_start, value_end),
                });
                at = value_end + param_close.len();
            }
            None => {
                params.push(Param {
                    name: param,
                    value: Span::new(value_start, text.len()),
                });
                break;
            }
        }
    }
    (!params.is_empty()).then(|| ToolBlock {
        name,
        span: Span::new(lt, text.len()),
        body: Span::new(body_start, text.len()),
        params,
        unknown,
        cut_off: true,
    })
}

/// A parameter's value as the agent's parser hands it to the tool.
fn cleaned(dialect: &Dialect, param: &str, raw: &str) -> String {
    if param == "content" && dialect.content == ContentValue::OneNewlineStripped {
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        raw.strip_suffix('\n').unwrap_or(raw).to_owned()
    } else {
        raw.trim().to_owned()
    }
}

/// `write_to_file`'s content from the first `<content>` to the last `</content>` of the body,
/// so a file that quotes `</content>` is written whole.
fn whole_file_content(text: &str, body: Span) -> Option<Span> {
    let inside = text.get(body.start..body.end)?;
    let start = inside.find("<content>")? + "<content>".len();
    let end = inside.rfind("</content>")?;
    (end >= start).then(|| Span::new(body.start + start, body.start + end))
}

fn emit(dialect: &Dialect, text: &str, block: &ToolBlock, out: &mut ParseOutput) {
    let mut args = Map::new();
    for param in &block.params {
        let raw = text
            .get(param.value.start..param.value.end)
            .unwrap_or_default();
        let value = cleaned(dialect, param.name, raw);
        if args
            .insert(param.name.to_owned(), Value::String(value))
            .is_some()
        {
            warning(
                out,
                DiagnosticCode::DuplicateKey,
                format!(
                    "<{}> is given twice in <{}>; the last value counts, as in {}",
                    param.name, block.name, dialect.agent
                ),
                Span::new(param.value.start, param.value.end),
            );
        }
    }
    let whole_content = (block.name == WRITE_TO_FILE && !block.cut_off)
        .then(|| whole_file_content(text, block.body))
        .flatten();
    if let Some(content) = whole_content {
        let raw = text.get(content.start..content.end).unwrap_or_default();
        args.insert(
            "content".to_owned(),
            Value::String(cleaned(dialect, "content", raw)),
        );
    }
    // Tags inside a file's content (past a `</content>` the file quotes) are the file's text.
    let in_content = |at: usize| whole_content.is_some_and(|c| (c.start..c.end).contains(&at));
    for tag in block
        .unknown
        .iter()
        .filter(|tag| !in_content(tag.value.start))
    {
        error(
            out,
            DiagnosticCode::UnknownKey,
            format!(
                "<{}> is not a parameter {} knows: it ignores the tag, so <{}> runs without it",
                tag.name, dialect.agent, block.name
            ),
            tag.value,
        );
    }
    if block.cut_off {
        warning(
            out,
            DiagnosticCode::UnclosedBlock,
            format!(
                "the reply ends before </{}>: {} shows this as a partial tool use",
                block.name, dialect.agent
            ),
            block.span,
        );
    }
    let first = out.requests.len();
    if block.name == USE_MCP_TOOL {
        push_mcp_call(dialect, text, block, args, out);
    } else {
        let call = Call {
            name: block.name.to_owned(),
            args,
            id: None,
        };
        push_request(out, text, block.span, dialect.id, call, true);
    }
    if block.cut_off {
        for request in out.requests.iter_mut().skip(first) {
            request.incomplete = true;
        }
    }
}

/// `use_mcp_tool` as a call of the MCP tool it names: `SERVER_TOOL` (the routing name of the
/// method the tool definitions list under that server) with its `arguments` JSON object. A
/// cut-off block that does not name both yet stays a `use_mcp_tool` call with its text.
fn push_mcp_call(
    dialect: &Dialect,
    text: &str,
    block: &ToolBlock,
    args: Map<String, Value>,
    out: &mut ParseOutput,
) {
    let named = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let (Some(server), Some(tool)) = (named("server_name"), named("tool_name")) else {
        if block.cut_off {
            let call = Call {
                name: USE_MCP_TOOL.to_owned(),
                args,
                id: None,
            };
            push_request(out, text, block.span, dialect.id, call, true);
        } else {
            error(
                out,
                DiagnosticCode::MissingToolName,
                "use_mcp_tool needs both <server_name> and <tool_name>; the call is skipped"
                    .to_owned(),
                block.span,
            );
        }
        return;
    };
    let arguments = args.get("arguments").and_then(Value::as_str).unwrap_or("");
    let arguments = if arguments.is_empty() {
        Some(Map::new())
    } else {
        match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(object)) => Some(object),
            _ => None,
        }
    };
    let arguments = match arguments {
        Some(arguments) => arguments,
        // Cut off inside the JSON: the call is visible (and incomplete), its arguments not yet.
        None if block.cut_off => Map::new(),
        None => {
            error(
                out,
                DiagnosticCode::InvalidJson,
                format!(
                    "the <arguments> of use_mcp_tool ({server} / {tool}) are not a JSON object; \
                     {} would answer with an error, so the call is skipped",
                    dialect.agent
                ),
                block.span,
            );
            return;
        }
    };
    let call = Call {
        name: format!("{server}_{tool}"),
        args: arguments,
        id: None,
    };
    push_request(out, text, block.span, dialect.id, call, false);
}
