//! Workspace file tool: list, read, write and delete files inside one directory.
//!
//! Tool calling is only worth debugging against tools that do something real, and file access is
//! what agents ask for first. This tool gives every Toolscope install a working, zero-config set
//! of methods with realistic schemas (defaults, enums, nested objects) that drive the generated
//! forms, plus `delete`: the one built-in destructive method, which exercises the executor's
//! confirmation path. Everything stays inside the workspace root; [`sandbox`] enforces that
//! against `..`, absolute paths and symbolic links that point outside.

pub mod sandbox;

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Map, Value};
use toolscope_protocol::request::json_kind;

use crate::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use crate::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::{Annotations, MethodMetadata};

pub use sandbox::{Intent, Resolved, Sandbox, SandboxError};

/// Default and bounds of `list.maxEntries`.
const DEFAULT_MAX_ENTRIES: u64 = 500;
const MAX_ENTRIES_LIMIT: u64 = 10_000;
/// Default and bounds of `read.maxBytes`.
const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
const MAX_BYTES_LIMIT: u64 = 16 * 1024 * 1024;

/// The built-in `workspace` tool, confined to one root directory.
#[derive(Debug, Clone)]
pub struct WorkspaceTool {
    sandbox: Sandbox,
}

impl WorkspaceTool {
    /// Creates the root if it is missing and canonicalises it.
    pub fn new(root: impl Into<PathBuf>) -> io::Result<Self> {
        Ok(Self {
            sandbox: Sandbox::new(root)?,
        })
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        self.sandbox.root()
    }

    /// Checks a user-supplied path and maps it into the root (see [`Sandbox::resolve`]).
    pub fn resolve(&self, user_path: &str, intent: Intent) -> Result<Resolved, SandboxError> {
        self.sandbox.resolve(user_path, intent)
    }
}

impl From<SandboxError> for ToolFailure {
    fn from(error: SandboxError) -> Self {
        ToolFailure::Failed(error.to_string())
    }
}

impl Tool for WorkspaceTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "workspace".to_owned(),
            name: "Workspace files".to_owned(),
            description: "List, read, write and delete files in the workspace directory. Paths \
                          are relative to the workspace root; nothing outside it can be reached, \
                          not even through symbolic links."
                .to_owned(),
            source: ToolSource::Builtin,
            methods: vec![list_meta(), read_meta(), write_meta(), delete_meta()],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            if ctx.cancel.is_cancelled() {
                return Err(ToolFailure::failed(
                    "the call was cancelled before it started",
                ));
            }
            let sandbox = self.sandbox.clone();
            match method {
                "list" => {
                    let options = ListOptions::parse(&args)?;
                    blocking(move || list(&sandbox, &options)).await
                }
                "read" => {
                    let options = ReadOptions::parse(&args)?;
                    blocking(move || read(&sandbox, &options)).await
                }
                "write" => {
                    let options = WriteOptions::parse(&args)?;
                    blocking(move || write(&sandbox, &options)).await
                }
                "delete" => {
                    let options = DeleteOptions::parse(&args)?;
                    blocking(move || delete(&sandbox, &options)).await
                }
                other => Err(ToolFailure::UnknownMethod(other.to_owned())),
            }
        })
    }
}

/// Runs file-system work off the async threads.
async fn blocking<F>(work: F) -> Result<Value, ToolFailure>
where
    F: FnOnce() -> Result<Value, ToolFailure> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolFailure::failed(format!("the workspace operation did not finish: {e}")))?
}

// ---------------------------------------------------------------------------------------------
// Metadata

fn method(
    name: &str,
    description: &str,
    parameters: Value,
    annotations: Annotations,
    output_schema: Value,
) -> MethodMetadata {
    MethodMetadata {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
        agent_callable: true,
        protocol_config: None,
        annotations,
        output_schema: Some(output_schema),
    }
}

fn read_only() -> Annotations {
    Annotations {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    }
}

fn list_meta() -> MethodMetadata {
    method(
        "list",
        "List the entries of a directory in the workspace, optionally recursively. Entries are \
         sorted by path; symbolic links are listed but never entered.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory to list, relative to the workspace root.",
                    "default": "."
                },
                "recursive": {
                    "type": "boolean",
                    "description": "Also list everything inside subdirectories.",
                    "default": false
                },
                "maxEntries": {
                    "type": "integer",
                    "description": "Stop after this many entries; the result then says truncated.",
                    "minimum": 1,
                    "maximum": MAX_ENTRIES_LIMIT,
                    "default": DEFAULT_MAX_ENTRIES
                },
                "include": {
                    "type": "object",
                    "description": "Which entries to include.",
                    "properties": {
                        "hidden": {
                            "type": "boolean",
                            "description": "Include entries whose name starts with '.'.",
                            "default": false
                        },
                        "extensions": {
                            "type": "array",
                            "description": "Only list files with one of these extensions, \
                                            without the dot (\"rs\", \"tar.gz\"). Directories \
                                            are always listed. Empty or absent: every file.",
                            "items": { "type": "string", "minLength": 1 },
                            "uniqueItems": true,
                            "default": []
                        }
                    },
                    "additionalProperties": false
                }
            },
            "additionalProperties": false
        }),
        read_only(),
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": { "type": "string", "description": "Relative to the workspace root, '/' separated." },
                            "kind": { "type": "string", "enum": ["file", "dir", "symlink"] },
                            "size": { "type": ["integer", "null"], "description": "Bytes, for files." }
                        },
                        "required": ["path", "kind", "size"]
                    }
                },
                "truncated": { "type": "boolean" }
            },
            "required": ["path", "entries", "truncated"]
        }),
    )
}

fn read_meta() -> MethodMetadata {
    method(
        "read",
        "Read a UTF-8 text file from the workspace, whole or a range of lines.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to read, relative to the workspace root.",
                    "minLength": 1
                },
                "range": {
                    "type": "object",
                    "description": "Only return these lines (1-based, inclusive).",
                    "properties": {
                        "startLine": {
                            "type": "integer",
                            "description": "First line to return.",
                            "minimum": 1,
                            "default": 1
                        },
                        "endLine": {
                            "type": "integer",
                            "description": "Last line to return. Absent: to the end of the file.",
                            "minimum": 1
                        }
                    },
                    "additionalProperties": false
                },
                "maxBytes": {
                    "type": "integer",
                    "description": "Return at most this many bytes of content; the result then \
                                    says truncated.",
                    "minimum": 1,
                    "maximum": MAX_BYTES_LIMIT,
                    "default": DEFAULT_MAX_BYTES
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        read_only(),
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "content": { "type": "string" },
                "lines": { "type": "integer", "description": "Number of lines in content." },
                "truncated": { "type": "boolean" }
            },
            "required": ["path", "content", "lines", "truncated"]
        }),
    )
}

fn write_meta() -> MethodMetadata {
    method(
        "write",
        "Write a text file in the workspace: create a new file, replace one, or append to one.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File to write, relative to the workspace root.",
                    "minLength": 1
                },
                "content": {
                    "type": "string",
                    "description": "Text to write."
                },
                "mode": {
                    "type": "string",
                    "description": "create: fail if the file exists. overwrite: replace the \
                                    file atomically (or create it). append: add to the end (or \
                                    create it).",
                    "enum": ["create", "overwrite", "append"],
                    "default": "create"
                },
                "createDirs": {
                    "type": "boolean",
                    "description": "Create missing parent directories.",
                    "default": false
                }
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        Annotations {
            read_only: Some(false),
            destructive: Some(false),
            idempotent: Some(false),
            open_world: Some(false),
        },
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "bytesWritten": { "type": "integer" },
                "created": { "type": "boolean", "description": "True if the file did not exist before." }
            },
            "required": ["path", "bytesWritten", "created"]
        }),
    )
}

fn delete_meta() -> MethodMetadata {
    method(
        "delete",
        "Delete a file, a symbolic link (never its target) or a directory in the workspace. \
         Cannot be undone.",
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Entry to delete, relative to the workspace root.",
                    "minLength": 1
                },
                "recursive": {
                    "type": "boolean",
                    "description": "Required to delete a directory that is not empty, with \
                                    everything in it.",
                    "default": false
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        Annotations {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(true),
            open_world: Some(false),
        },
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "kind": { "type": "string", "enum": ["file", "dir", "symlink"] },
                "deleted": { "type": "boolean" }
            },
            "required": ["path", "kind", "deleted"]
        }),
    )
}

// ---------------------------------------------------------------------------------------------
// Arguments. The executor validates them against the schemas first, but a tool may be called
// directly, so every type is checked again and every default applied here.

fn wrong_type(name: &str, expected: &str, found: &Value) -> ToolFailure {
    ToolFailure::failed(format!(
        "argument '{name}' must be {expected}, got {}",
        json_kind(found)
    ))
}

/// A present, non-null argument.
fn present<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).filter(|v| !v.is_null())
}

fn opt_str<'a>(
    args: &'a Map<String, Value>,
    key: &str,
    label: &str,
) -> Result<Option<&'a str>, ToolFailure> {
    match present(args, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong_type(label, "a string", other)),
    }
}

fn req_str<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolFailure> {
    opt_str(args, key, key)?
        .ok_or_else(|| ToolFailure::failed(format!("missing required argument '{key}'")))
}

fn opt_bool(
    args: &Map<String, Value>,
    key: &str,
    label: &str,
    default: bool,
) -> Result<bool, ToolFailure> {
    match present(args, key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(wrong_type(label, "a boolean", other)),
    }
}

fn opt_int(
    args: &Map<String, Value>,
    key: &str,
    label: &str,
    bounds: (u64, u64),
) -> Result<Option<u64>, ToolFailure> {
    let Some(value) = present(args, key) else {
        return Ok(None);
    };
    let Value::Number(number) = value else {
        return Err(wrong_type(label, "an integer", value));
    };
    let (min, max) = bounds;
    let out_of_range = || {
        ToolFailure::failed(format!(
            "argument '{label}' must be between {min} and {max}, got {number}"
        ))
    };
    let int = if let Some(u) = number.as_u64() {
        u
    } else if number.as_i64().is_some() {
        return Err(out_of_range()); // negative
    } else {
        match number.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= 0.0 && f <= max as f64 => f as u64,
            Some(f) if f.fract() == 0.0 => return Err(out_of_range()),
            _ => {
                return Err(ToolFailure::failed(format!(
                    "argument '{label}' must be an integer, got {number}"
                )))
            }
        }
    };
    if int < min || int > max {
        return Err(out_of_range());
    }
    Ok(Some(int))
}

fn opt_object<'a>(
    args: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, ToolFailure> {
    match present(args, key) {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(wrong_type(key, "an object", other)),
    }
}

/// `usize` from a bounded `u64`; the bounds used here all fit, saturate otherwise.
fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

#[derive(Debug)]
struct ListOptions {
    path: String,
    recursive: bool,
    max_entries: usize,
    hidden: bool,
    /// Lower-case, without a leading dot; empty means every file.
    extensions: Vec<String>,
}

impl ListOptions {
    fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
        let path = opt_str(args, "path", "path")?.unwrap_or(".").to_owned();
        let recursive = opt_bool(args, "recursive", "recursive", false)?;
        let max_entries = opt_int(args, "maxEntries", "maxEntries", (1, MAX_ENTRIES_LIMIT))?
            .unwrap_or(DEFAULT_MAX_ENTRIES);
        let mut hidden = false;
        let mut extensions = Vec::new();
        if let Some(include) = opt_object(args, "include")? {
            hidden = opt_bool(include, "hidden", "include.hidden", false)?;
            match present(include, "extensions") {
                None => {}
                Some(Value::Array(items)) => {
                    for item in items {
                        let Value::String(ext) = item else {
                            return Err(wrong_type(
                                "include.extensions",
                                "an array of strings",
                                item,
                            ));
                        };
                        let ext = ext.trim().trim_start_matches('.').to_lowercase();
                        if !ext.is_empty() {
                            extensions.push(ext);
                        }
                    }
                }
                Some(other) => {
                    return Err(wrong_type(
                        "include.extensions",
                        "an array of strings",
                        other,
                    ))
                }
            }
        }
        Ok(Self {
            path,
            recursive,
            max_entries: to_usize(max_entries),
            hidden,
            extensions,
        })
    }

    fn wants_file(&self, name: &str) -> bool {
        if self.extensions.is_empty() {
            return true;
        }
        let name = name.to_lowercase();
        self.extensions.iter().any(|ext| {
            name.len() > ext.len()
                && name.ends_with(ext.as_str())
                && name[..name.len() - ext.len()].ends_with('.')
        })
    }
}

#[derive(Debug)]
struct ReadOptions {
    path: String,
    start_line: u64,
    end_line: Option<u64>,
    max_bytes: usize,
}

impl ReadOptions {
    fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
        let path = req_str(args, "path")?.to_owned();
        let (mut start_line, mut end_line) = (1, None);
        if let Some(range) = opt_object(args, "range")? {
            start_line =
                opt_int(range, "startLine", "range.startLine", (1, u64::MAX))?.unwrap_or(1);
            end_line = opt_int(range, "endLine", "range.endLine", (1, u64::MAX))?;
        }
        if let Some(end) = end_line {
            if end < start_line {
                return Err(ToolFailure::failed(format!(
                    "range.endLine ({end}) is before range.startLine ({start_line})"
                )));
            }
        }
        let max_bytes = opt_int(args, "maxBytes", "maxBytes", (1, MAX_BYTES_LIMIT))?
            .unwrap_or(DEFAULT_MAX_BYTES);
        Ok(Self {
            path,
            start_line,
            end_line,
            max_bytes: to_usize(max_bytes),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriteMode {
    Create,
    Overwrite,
    Append,
}

#[derive(Debug)]
struct WriteOptions {
    path: String,
    content: String,
    mode: WriteMode,
    create_dirs: bool,
}

impl WriteOptions {
    fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
        let path = req_str(args, "path")?.to_owned();
        let content = req_str(args, "content")?.to_owned();
        let mode = match opt_str(args, "mode", "mode")?.unwrap_or("create") {
            "create" => WriteMode::Create,
            "overwrite" => WriteMode::Overwrite,
            "append" => WriteMode::Append,
            other => {
                return Err(ToolFailure::failed(format!(
                    "argument 'mode' must be one of 'create', 'overwrite', 'append', got '{other}'"
                )))
            }
        };
        let create_dirs = opt_bool(args, "createDirs", "createDirs", false)?;
        Ok(Self {
            path,
            content,
            mode,
            create_dirs,
        })
    }
}

#[derive(Debug)]
struct DeleteOptions {
    path: String,
    recursive: bool,
}

impl DeleteOptions {
    fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
        Ok(Self {
            path: req_str(args, "path")?.to_owned(),
            recursive: opt_bool(args, "recursive", "recursive", false)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Operations (blocking; run through `blocking`).

/// A failed file-system operation, named by the user's path.
fn io_failure(action: &str, relative: &str, error: &io::Error) -> ToolFailure {
    let message = match error.kind() {
        io::ErrorKind::NotFound => format!("cannot {action} '{relative}': it does not exist"),
        io::ErrorKind::PermissionDenied => {
            format!("cannot {action} '{relative}': permission denied")
        }
        _ => format!("cannot {action} '{relative}': {error}"),
    };
    ToolFailure::Failed(message)
}

fn kind_name(file_type: fs::FileType) -> &'static str {
    if file_type.is_symlink() {
        "symlink"
    } else if file_type.is_dir() {
        "dir"
    } else {
        "file"
    }
}

/// One directory entry waiting to be emitted.
struct Pending {
    absolute: PathBuf,
    relative: String,
    file_type: fs::FileType,
    size: Option<u64>,
}

/// The children of `dir` that pass the filters, sorted by name.
fn children(dir: &Path, prefix: &str, options: &ListOptions) -> Result<Vec<Pending>, ToolFailure> {
    let shown = if prefix.is_empty() { "." } else { prefix };
    let read_dir = fs::read_dir(dir).map_err(|e| io_failure("list", shown, &e))?;
    let mut out = Vec::new();
    for entry in read_dir {
        let entry = entry.map_err(|e| io_failure("list", shown, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && !options.hidden {
            continue;
        }
        // `DirEntry::file_type` does not follow symbolic links.
        let file_type = entry
            .file_type()
            .map_err(|e| io_failure("list", shown, &e))?;
        if !file_type.is_dir() && !options.wants_file(&name) {
            continue;
        }
        let size = if file_type.is_file() {
            entry.metadata().ok().map(|m| m.len())
        } else {
            None
        };
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        out.push(Pending {
            absolute: entry.path(),
            relative,
            file_type,
            size,
        });
    }
    out.sort_by(|a, b| a.relative.cmp(&b.relative));
    Ok(out)
}

fn list(sandbox: &Sandbox, options: &ListOptions) -> Result<Value, ToolFailure> {
    let resolved = sandbox.resolve(&options.path, Intent::List)?;
    let meta =
        fs::metadata(&resolved.path).map_err(|e| io_failure("list", &resolved.relative, &e))?;
    if !meta.is_dir() {
        return Err(ToolFailure::failed(format!(
            "'{}' is a file, not a directory: use read to see its content",
            resolved.relative
        )));
    }
    let prefix = if resolved.relative == "." {
        ""
    } else {
        resolved.relative.as_str()
    };

    // Depth-first, children sorted by name: the output is sorted by path components.
    let mut entries = Vec::new();
    let mut truncated = false;
    let mut stack = vec![children(&resolved.path, prefix, options)?.into_iter()];
    while let Some(level) = stack.last_mut() {
        let Some(next) = level.next() else {
            stack.pop();
            continue;
        };
        if entries.len() >= options.max_entries {
            truncated = true;
            break;
        }
        entries.push(json!({
            "path": next.relative,
            "kind": kind_name(next.file_type),
            "size": next.size,
        }));
        if options.recursive && next.file_type.is_dir() {
            stack.push(children(&next.absolute, &next.relative, options)?.into_iter());
        }
    }
    Ok(json!({
        "path": resolved.relative,
        "entries": entries,
        "truncated": truncated,
    }))
}

/// Skips one line without keeping it. Returns false at end of file.
fn skip_line(reader: &mut impl BufRead) -> io::Result<bool> {
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            reader.consume(i + 1);
            return Ok(true);
        }
        let n = buf.len();
        reader.consume(n);
    }
}

/// The longest prefix of `s` no longer than `max` bytes that ends on a char boundary.
fn prefix_within(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn read(sandbox: &Sandbox, options: &ReadOptions) -> Result<Value, ToolFailure> {
    let resolved = sandbox.resolve(&options.path, Intent::Read)?;
    let relative = resolved.relative.as_str();
    let meta = fs::metadata(&resolved.path).map_err(|e| io_failure("read", relative, &e))?;
    if meta.is_dir() {
        return Err(ToolFailure::failed(format!(
            "'{relative}' is a directory, not a file: use list to see what it contains"
        )));
    }
    if !meta.is_file() {
        return Err(ToolFailure::failed(format!(
            "'{relative}' is not a regular file"
        )));
    }
    let file = fs::File::open(&resolved.path).map_err(|e| io_failure("read", relative, &e))?;
    let mut reader = BufReader::new(file);
    let io_err = |e: io::Error| io_failure("read", relative, &e);
    let not_utf8 = |line: u64| {
        ToolFailure::failed(format!(
            "file '{relative}' is not valid UTF-8 text (first invalid byte on line {line}); \
             it cannot be read as text"
        ))
    };

    let mut line_no: u64 = 1;
    while line_no < options.start_line {
        if !skip_line(&mut reader).map_err(io_err)? {
            break;
        }
        line_no += 1;
    }

    let mut content = String::new();
    let mut lines: u64 = 0;
    let mut truncated = false;
    let mut buf = Vec::new();
    while line_no >= options.start_line && options.end_line.is_none_or(|end| line_no <= end) {
        let remaining = options.max_bytes.saturating_sub(content.len());
        if remaining == 0 {
            truncated = !reader.fill_buf().map_err(io_err)?.is_empty();
            break;
        }
        // Read at most what can be kept plus room to finish a multi-byte character, so one
        // enormous line never has to fit in memory.
        let limit = remaining as u64 + 4;
        buf.clear();
        let n = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .map_err(io_err)?;
        if n == 0 {
            break;
        }
        let cut_short = n as u64 == limit && buf.last() != Some(&b'\n');
        let text = match std::str::from_utf8(&buf) {
            Ok(text) => text,
            // Only the character the limit cut in half is incomplete: keep what is before it.
            Err(e) if cut_short && e.error_len().is_none() => {
                std::str::from_utf8(&buf[..e.valid_up_to()]).map_err(|_| not_utf8(line_no))?
            }
            Err(_) => return Err(not_utf8(line_no)),
        };
        lines += 1;
        if text.len() > remaining {
            content.push_str(prefix_within(text, remaining));
            truncated = true;
            break;
        }
        content.push_str(text);
        line_no += 1;
    }

    Ok(json!({
        "path": relative,
        "content": content,
        "lines": lines,
        "truncated": truncated,
    }))
}

/// Writes `bytes` to a temporary file next to `target`, then renames it over `target`, so a
/// crash leaves either the old file or the new one, never half of one.
fn replace_atomically(target: &Path, bytes: &[u8], relative: &str) -> Result<(), ToolFailure> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io_err = |e: io::Error| io_failure("write", relative, &e);
    let dir = target
        .parent()
        .ok_or_else(|| ToolFailure::failed(format!("cannot write '{relative}': no parent")))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = fs::metadata(target).ok().map(|m| m.permissions());

    let mut attempt = 0;
    let (tmp, file) = loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(io_err(e)),
        }
    };
    if let Err(e) = fill_and_rename(file, bytes, permissions, &tmp, target) {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(e));
    }
    Ok(())
}

fn fill_and_rename(
    mut file: fs::File,
    bytes: &[u8],
    permissions: Option<fs::Permissions>,
    tmp: &Path,
    target: &Path,
) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    if let Some(permissions) = permissions {
        fs::set_permissions(tmp, permissions)?;
    }
    fs::rename(tmp, target)
}

fn write(sandbox: &Sandbox, options: &WriteOptions) -> Result<Value, ToolFailure> {
    let resolved = sandbox.resolve(&options.path, Intent::Write)?;
    let relative = resolved.relative.as_str();
    let io_err = |e: io::Error| io_failure("write", relative, &e);

    let existed = match fs::metadata(&resolved.path) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolFailure::failed(format!(
                "'{relative}' is a directory: give the path of a file"
            )))
        }
        Ok(meta) if !meta.is_file() => {
            return Err(ToolFailure::failed(format!(
                "'{relative}' is not a regular file"
            )))
        }
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(io_err(e)),
    };
    if existed && options.mode == WriteMode::Create {
        return Err(ToolFailure::failed(format!(
            "'{relative}' already exists: use mode 'overwrite' to replace it or 'append' to add \
             to it"
        )));
    }

    if !existed {
        let parent = resolved
            .path
            .parent()
            .ok_or_else(|| ToolFailure::failed(format!("cannot write '{relative}': no parent")))?;
        if !parent.is_dir() {
            if options.create_dirs {
                fs::create_dir_all(parent).map_err(io_err)?;
            } else {
                let parent_relative = relative.rsplit_once('/').map_or(".", |(dir, _)| dir);
                return Err(ToolFailure::failed(format!(
                    "directory '{parent_relative}' does not exist: set createDirs to true to \
                     create it"
                )));
            }
        }
    }

    let bytes = options.content.as_bytes();
    match options.mode {
        WriteMode::Create => {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&resolved.path)
                .map_err(|e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        ToolFailure::failed(format!("'{relative}' already exists"))
                    } else {
                        io_err(e)
                    }
                })?;
            if let Err(e) = file.write_all(bytes).and_then(|()| file.sync_all()) {
                drop(file);
                let _ = fs::remove_file(&resolved.path);
                return Err(io_err(e));
            }
        }
        WriteMode::Overwrite => replace_atomically(&resolved.path, bytes, relative)?,
        WriteMode::Append => {
            let mut file = fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&resolved.path)
                .map_err(io_err)?;
            file.write_all(bytes).map_err(io_err)?;
        }
    }
    Ok(json!({
        "path": relative,
        "bytesWritten": bytes.len(),
        "created": !existed,
    }))
}

fn delete(sandbox: &Sandbox, options: &DeleteOptions) -> Result<Value, ToolFailure> {
    let resolved = sandbox.resolve(&options.path, Intent::Delete)?;
    let relative = resolved.relative.as_str();
    if resolved.path == sandbox.root() {
        return Err(SandboxError::RootNotAllowed.into());
    }
    let io_err = |e: io::Error| io_failure("delete", relative, &e);
    let file_type = fs::symlink_metadata(&resolved.path)
        .map_err(io_err)?
        .file_type();
    if file_type.is_symlink() {
        // The link itself, never what it points to. Windows removes directory links as dirs.
        fs::remove_file(&resolved.path)
            .or_else(|e| {
                if cfg!(windows) {
                    fs::remove_dir(&resolved.path)
                } else {
                    Err(e)
                }
            })
            .map_err(io_err)?;
    } else if file_type.is_dir() {
        if options.recursive {
            // Does not follow symbolic links inside the tree.
            fs::remove_dir_all(&resolved.path).map_err(io_err)?;
        } else {
            let non_empty = fs::read_dir(&resolved.path)
                .map_err(io_err)?
                .next()
                .is_some();
            if non_empty {
                return Err(ToolFailure::failed(format!(
                    "directory '{relative}' is not empty: set recursive to true to delete it \
                     and everything in it"
                )));
            }
            fs::remove_dir(&resolved.path).map_err(io_err)?;
        }
    } else {
        fs::remove_file(&resolved.path).map_err(io_err)?;
    }
    Ok(json!({
        "path": relative,
        "kind": kind_name(file_type),
        "deleted": true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        dir: tempfile::TempDir,
        tool: WorkspaceTool,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("tempdir");
            let tool = WorkspaceTool::new(dir.path().join("ws")).expect("workspace");
            Self { dir, tool }
        }

        fn root(&self) -> &Path {
            self.tool.root()
        }

        /// A directory next to the root, outside the workspace.
        fn outside(&self) -> PathBuf {
            let outside = self.dir.path().join("outside");
            fs::create_dir_all(&outside).expect("mkdir outside");
            fs::write(outside.join("secret.txt"), "top secret\n").expect("write secret");
            outside
        }

        fn put(&self, rel: &str, content: &str) {
            let path = self.root().join(rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).expect("mkdir");
            }
            fs::write(path, content).expect("write");
        }

        async fn call(&self, method: &str, args: Value) -> Result<Value, ToolFailure> {
            let args = args.as_object().cloned().expect("args object");
            self.tool.call(method, args, CallContext::default()).await
        }

        async fn ok(&self, method: &str, args: Value) -> Value {
            match self.call(method, args.clone()).await {
                Ok(value) => value,
                Err(e) => panic!("{method} {args} failed: {e}"),
            }
        }

        async fn fail(&self, method: &str, args: Value) -> String {
            match self.call(method, args.clone()).await {
                Ok(value) => panic!("{method} {args} succeeded: {value}"),
                Err(ToolFailure::Failed(message)) => message,
                Err(other) => panic!("{method} {args}: unexpected failure {other:?}"),
            }
        }
    }

    fn paths(listing: &Value) -> Vec<String> {
        listing["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["path"].as_str().expect("path").to_owned())
            .collect()
    }

    #[test]
    fn info_is_registrable_and_schemas_compile() {
        let fx = Fixture::new();
        let info = fx.tool.info();
        assert_eq!(info.id, "workspace");
        assert_eq!(info.name, "Workspace files");
        assert_eq!(info.source, ToolSource::Builtin);
        let names: Vec<&str> = info.methods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["list", "read", "write", "delete"]);
        for m in &info.methods {
            jsonschema::validator_for(&m.parameters).expect("parameters compile");
            jsonschema::validator_for(m.output_schema.as_ref().expect("output"))
                .expect("output schema compiles");
            assert!(m.agent_callable);
        }
        let by_name = |n: &str| {
            info.methods
                .iter()
                .find(|m| m.name == n)
                .expect("method")
                .annotations
                .clone()
        };
        assert!(by_name("list").is_read_only());
        assert!(by_name("read").is_read_only());
        assert!(!by_name("write").is_destructive());
        assert_eq!(by_name("write").idempotent, Some(false));
        assert!(by_name("delete").is_destructive());
        assert_eq!(by_name("delete").idempotent, Some(true));

        let registry = crate::registry::Registry::new();
        registry
            .register(std::sync::Arc::new(fx.tool.clone()))
            .expect("registers");
        assert!(registry.resolve("workspace_delete").is_ok());
    }

    #[tokio::test]
    async fn unknown_method() {
        let fx = Fixture::new();
        assert_eq!(
            fx.call("rename", json!({})).await,
            Err(ToolFailure::UnknownMethod("rename".to_owned()))
        );
    }

    #[tokio::test]
    async fn write_read_list_delete_happy_path() {
        let fx = Fixture::new();
        let out = fx
            .ok(
                "write",
                json!({ "path": "notes/todo.md", "content": "one\ntwo\n", "createDirs": true }),
            )
            .await;
        assert_eq!(
            out,
            json!({ "path": "notes/todo.md", "bytesWritten": 8, "created": true })
        );
        let out = fx.ok("read", json!({ "path": "./notes//todo.md" })).await;
        assert_eq!(
            out,
            json!({ "path": "notes/todo.md", "content": "one\ntwo\n", "lines": 2, "truncated": false })
        );
        let out = fx.ok("list", json!({})).await;
        assert_eq!(
            out,
            json!({
                "path": ".",
                "entries": [{ "path": "notes", "kind": "dir", "size": null }],
                "truncated": false
            })
        );
        let out = fx.ok("list", json!({ "path": "notes" })).await;
        assert_eq!(
            out["entries"],
            json!([{ "path": "notes/todo.md", "kind": "file", "size": 8 }])
        );
        let out = fx.ok("delete", json!({ "path": "notes/todo.md" })).await;
        assert_eq!(
            out,
            json!({ "path": "notes/todo.md", "kind": "file", "deleted": true })
        );
        assert!(!fx.root().join("notes/todo.md").exists());
        let out = fx.ok("delete", json!({ "path": "notes" })).await;
        assert_eq!(out["kind"], "dir");
        assert!(fx.root().is_dir());
        assert!(!fx.root().join("notes").exists());
    }

    #[tokio::test]
    async fn write_modes() {
        let fx = Fixture::new();
        // create (the default) fails when the file exists.
        fx.ok("write", json!({ "path": "a.txt", "content": "first" }))
            .await;
        let msg = fx
            .fail("write", json!({ "path": "a.txt", "content": "x" }))
            .await;
        assert!(msg.contains("already exists"), "{msg}");
        let msg = fx
            .fail(
                "write",
                json!({ "path": "a.txt", "content": "x", "mode": "create" }),
            )
            .await;
        assert!(msg.contains("already exists"), "{msg}");
        assert_eq!(
            fs::read_to_string(fx.root().join("a.txt")).expect("read"),
            "first"
        );

        // overwrite replaces, and creates when missing.
        let out = fx
            .ok(
                "write",
                json!({ "path": "a.txt", "content": "second", "mode": "overwrite" }),
            )
            .await;
        assert_eq!(out["created"], false);
        assert_eq!(out["bytesWritten"], 6);
        assert_eq!(
            fs::read_to_string(fx.root().join("a.txt")).expect("read"),
            "second"
        );
        let out = fx
            .ok(
                "write",
                json!({ "path": "b.txt", "content": "new", "mode": "overwrite" }),
            )
            .await;
        assert_eq!(out["created"], true);

        // append adds, and creates when missing.
        let out = fx
            .ok(
                "write",
                json!({ "path": "a.txt", "content": "+more", "mode": "append" }),
            )
            .await;
        assert_eq!(out["created"], false);
        assert_eq!(
            fs::read_to_string(fx.root().join("a.txt")).expect("read"),
            "second+more"
        );
        let out = fx
            .ok(
                "write",
                json!({ "path": "c.txt", "content": "c", "mode": "append" }),
            )
            .await;
        assert_eq!(out["created"], true);

        // No temporary files are left behind.
        let listing = fx
            .ok("list", json!({ "include": { "hidden": true } }))
            .await;
        assert_eq!(paths(&listing), ["a.txt", "b.txt", "c.txt"]);

        let msg = fx
            .fail(
                "write",
                json!({ "path": "a.txt", "content": "x", "mode": "truncate" }),
            )
            .await;
        assert!(
            msg.contains("must be one of 'create', 'overwrite', 'append'"),
            "{msg}"
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn overwrite_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let fx = Fixture::new();
        fx.put("run.sh", "#!/bin/sh\n");
        let path = fx.root().join("run.sh");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).expect("chmod");
        fx.ok(
            "write",
            json!({ "path": "run.sh", "content": "#!/bin/sh\necho\n", "mode": "overwrite" }),
        )
        .await;
        let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
    }

    #[tokio::test]
    async fn write_parent_directories() {
        let fx = Fixture::new();
        let msg = fx
            .fail("write", json!({ "path": "x/y/z.txt", "content": "z" }))
            .await;
        assert_eq!(
            msg,
            "directory 'x/y' does not exist: set createDirs to true to create it"
        );
        assert!(!fx.root().join("x").exists());
        fx.ok(
            "write",
            json!({ "path": "x/y/z.txt", "content": "z", "createDirs": true }),
        )
        .await;
        assert_eq!(
            fs::read_to_string(fx.root().join("x/y/z.txt")).expect("read"),
            "z"
        );

        let msg = fx
            .fail(
                "write",
                json!({ "path": "x", "content": "z", "mode": "overwrite" }),
            )
            .await;
        assert!(msg.contains("is a directory"), "{msg}");
        let msg = fx
            .fail(
                "write",
                json!({ "path": "x/y/z.txt/w", "content": "z", "createDirs": true }),
            )
            .await;
        assert!(msg.contains("not a directory"), "{msg}");
    }

    #[tokio::test]
    async fn delete_rules() {
        let fx = Fixture::new();
        fx.put("d/sub/f.txt", "f");
        let msg = fx.fail("delete", json!({ "path": "d" })).await;
        assert_eq!(
            msg,
            "directory 'd' is not empty: set recursive to true to delete it and everything in it"
        );
        let out = fx
            .ok("delete", json!({ "path": "d", "recursive": true }))
            .await;
        assert_eq!(out["kind"], "dir");
        assert!(!fx.root().join("d").exists());

        for root in [".", "./", "./."] {
            let msg = fx
                .fail("delete", json!({ "path": root, "recursive": true }))
                .await;
            assert_eq!(msg, "refusing to delete the workspace root");
        }
        let msg = fx.fail("delete", json!({ "path": "" })).await;
        assert!(msg.contains("path is empty"), "{msg}");
        let msg = fx.fail("delete", json!({ "path": "d" })).await;
        assert_eq!(msg, "'d' does not exist in the workspace");
        assert!(fx.root().is_dir());
    }

    #[tokio::test]
    async fn traversal_is_refused_everywhere() {
        let fx = Fixture::new();
        let outside = fx.outside();
        fx.put("a/f.txt", "f");
        let cases = [
            ("..", "leaves the workspace: '..' is not allowed"),
            (
                "../outside/secret.txt",
                "leaves the workspace: '..' is not allowed",
            ),
            (
                "a/../../outside/secret.txt",
                "leaves the workspace: '..' is not allowed",
            ),
            ("a/../f.txt", "leaves the workspace: '..' is not allowed"),
            ("a\\..\\..\\x", "leaves the workspace: '..' is not allowed"),
            ("/etc/passwd", "is absolute"),
            ("C:\\Windows\\win.ini", "is absolute"),
            ("a/f.txt\0.png", "contains a NUL byte"),
        ];
        for (path, expected) in cases {
            for (method, args) in [
                ("list", json!({ "path": path })),
                ("read", json!({ "path": path })),
                (
                    "write",
                    json!({ "path": path, "content": "x", "mode": "overwrite", "createDirs": true }),
                ),
                ("delete", json!({ "path": path, "recursive": true })),
            ] {
                let msg = fx.fail(method, args).await;
                assert!(msg.contains(expected), "{method} {path:?}: {msg}");
            }
        }
        let msg = fx.fail("read", json!({ "path": "../x" })).await;
        assert_eq!(msg, "path '../x' leaves the workspace: '..' is not allowed");
        assert_eq!(
            fs::read_to_string(outside.join("secret.txt")).expect("intact"),
            "top secret\n"
        );
        assert!(fx.root().join("a/f.txt").exists());
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn symlinks_pointing_outside_are_refused() {
        use std::os::unix::fs::symlink;
        let fx = Fixture::new();
        let outside = fx.outside();
        symlink(outside.join("secret.txt"), fx.root().join("secret.txt")).expect("file link");
        symlink(&outside, fx.root().join("out")).expect("dir link");
        fx.put("src/main.rs", "fn main() {}\n");

        // Read through a file link and through a directory link.
        let msg = fx.fail("read", json!({ "path": "secret.txt" })).await;
        assert_eq!(
            msg,
            "path 'secret.txt' leaves the workspace through a symbolic link"
        );
        let msg = fx.fail("read", json!({ "path": "out/secret.txt" })).await;
        assert!(msg.contains("through a symbolic link"), "{msg}");

        // Write through them, in every mode; nothing outside changes or appears.
        for mode in ["create", "overwrite", "append"] {
            for path in ["secret.txt", "out/secret.txt", "out/new.txt"] {
                let msg = fx
                    .fail(
                        "write",
                        json!({ "path": path, "content": "pwned", "mode": mode }),
                    )
                    .await;
                assert!(
                    msg.contains("through a symbolic link"),
                    "{mode} {path}: {msg}"
                );
            }
        }
        // A directory that does not exist yet under the outside link.
        let msg = fx
            .fail(
                "write",
                json!({ "path": "out/new/deeper/x.txt", "content": "pwned", "createDirs": true }),
            )
            .await;
        assert!(msg.contains("through a symbolic link"), "{msg}");
        assert!(!outside.join("new").exists());
        assert!(!outside.join("new.txt").exists());
        assert_eq!(
            fs::read_to_string(outside.join("secret.txt")).expect("intact"),
            "top secret\n"
        );

        // List: the link is shown, never entered; listing it directly is refused.
        let listing = fx.ok("list", json!({ "recursive": true })).await;
        assert_eq!(paths(&listing), ["out", "secret.txt", "src", "src/main.rs"]);
        assert_eq!(listing["entries"][0]["kind"], "symlink");
        assert_eq!(listing["entries"][1]["kind"], "symlink");
        let msg = fx.fail("list", json!({ "path": "out" })).await;
        assert!(msg.contains("through a symbolic link"), "{msg}");

        // Deleting a link removes the link, never the target.
        fx.ok("delete", json!({ "path": "out", "recursive": true }))
            .await;
        fx.ok("delete", json!({ "path": "secret.txt" })).await;
        assert!(outside.join("secret.txt").exists());
        let msg = fx.fail("delete", json!({ "path": "out/secret.txt" })).await;
        assert!(msg.contains("does not exist"), "{msg}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn symlinks_inside_the_root_are_allowed() {
        use std::os::unix::fs::symlink;
        let fx = Fixture::new();
        fx.put("real/data.txt", "data\n");
        symlink(fx.root().join("real"), fx.root().join("alias")).expect("dir link");
        symlink("real/data.txt", fx.root().join("data-link.txt")).expect("file link");

        let out = fx.ok("read", json!({ "path": "alias/data.txt" })).await;
        assert_eq!(out["content"], "data\n");
        assert_eq!(out["path"], "alias/data.txt");
        let out = fx.ok("read", json!({ "path": "data-link.txt" })).await;
        assert_eq!(out["content"], "data\n");

        fx.ok("write", json!({ "path": "alias/new.txt", "content": "n" }))
            .await;
        assert!(fx.root().join("real/new.txt").is_file());
        fx.ok(
            "write",
            json!({ "path": "data-link.txt", "content": "more\n", "mode": "append" }),
        )
        .await;
        fx.ok(
            "write",
            json!({ "path": "data-link.txt", "content": "replaced\n", "mode": "overwrite" }),
        )
        .await;
        assert_eq!(
            fs::read_to_string(fx.root().join("real/data.txt")).expect("read"),
            "replaced\n"
        );
        // The link survives an overwrite through it.
        assert!(fs::symlink_metadata(fx.root().join("data-link.txt"))
            .expect("meta")
            .file_type()
            .is_symlink());

        let listing = fx.ok("list", json!({ "path": "alias" })).await;
        assert_eq!(paths(&listing), ["alias/data.txt", "alias/new.txt"]);
        let listing = fx.ok("list", json!({ "recursive": true })).await;
        assert_eq!(
            paths(&listing),
            [
                "alias",
                "data-link.txt",
                "real",
                "real/data.txt",
                "real/new.txt"
            ]
        );
    }

    #[tokio::test]
    async fn list_options() {
        let fx = Fixture::new();
        fx.put("b.rs", "b");
        fx.put("a.txt", "aa");
        fx.put(".hidden", "h");
        fx.put(".git/config", "c");
        fx.put("dir/x.RS", "x");
        fx.put("dir/y.tar.gz", "y");
        fx.put("dir/sub/z.md", "z");
        fx.put("dir-2/w.rs", "w");

        let listing = fx.ok("list", json!({ "path": "." })).await;
        assert_eq!(paths(&listing), ["a.txt", "b.rs", "dir", "dir-2"]);
        assert_eq!(listing["entries"][0]["size"], 2);

        let listing = fx.ok("list", json!({ "recursive": true })).await;
        assert_eq!(
            paths(&listing),
            [
                "a.txt",
                "b.rs",
                "dir",
                "dir/sub",
                "dir/sub/z.md",
                "dir/x.RS",
                "dir/y.tar.gz",
                "dir-2",
                "dir-2/w.rs"
            ]
        );

        let listing = fx
            .ok(
                "list",
                json!({ "recursive": true, "include": { "hidden": true } }),
            )
            .await;
        assert!(paths(&listing).contains(&".git/config".to_owned()));
        assert!(paths(&listing).contains(&".hidden".to_owned()));

        let listing = fx
            .ok(
                "list",
                json!({ "recursive": true, "include": { "extensions": ["rs", ".tar.gz"] } }),
            )
            .await;
        assert_eq!(
            paths(&listing),
            [
                "b.rs",
                "dir",
                "dir/sub",
                "dir/x.RS",
                "dir/y.tar.gz",
                "dir-2",
                "dir-2/w.rs"
            ]
        );

        let listing = fx
            .ok("list", json!({ "recursive": true, "maxEntries": 3 }))
            .await;
        assert_eq!(paths(&listing), ["a.txt", "b.rs", "dir"]);
        assert_eq!(listing["truncated"], true);
        let listing = fx.ok("list", json!({ "maxEntries": 4 })).await;
        assert_eq!(listing["truncated"], false);

        let msg = fx.fail("list", json!({ "path": "a.txt" })).await;
        assert!(msg.contains("is a file, not a directory"), "{msg}");
        let msg = fx.fail("list", json!({ "path": "nope" })).await;
        assert_eq!(msg, "'nope' does not exist in the workspace");
    }

    #[tokio::test]
    async fn read_range_and_truncation() {
        let fx = Fixture::new();
        fx.put("lines.txt", "l1\nl2\nl3\nl4\nl5");

        let out = fx
            .ok(
                "read",
                json!({ "path": "lines.txt", "range": { "startLine": 2, "endLine": 4 } }),
            )
            .await;
        assert_eq!(out["content"], "l2\nl3\nl4\n");
        assert_eq!(out["lines"], 3);
        assert_eq!(out["truncated"], false);

        let out = fx
            .ok(
                "read",
                json!({ "path": "lines.txt", "range": { "startLine": 4 } }),
            )
            .await;
        assert_eq!(out["content"], "l4\nl5");
        assert_eq!(out["lines"], 2);

        let out = fx
            .ok(
                "read",
                json!({ "path": "lines.txt", "range": { "startLine": 9 } }),
            )
            .await;
        assert_eq!(out["content"], "");
        assert_eq!(out["lines"], 0);

        let out = fx
            .ok("read", json!({ "path": "lines.txt", "maxBytes": 7 }))
            .await;
        assert_eq!(out["content"], "l1\nl2\nl");
        assert_eq!(out["lines"], 3);
        assert_eq!(out["truncated"], true);

        // Exactly at a line end with more to come: truncated; with nothing more: not.
        let out = fx
            .ok("read", json!({ "path": "lines.txt", "maxBytes": 6 }))
            .await;
        assert_eq!(out["content"], "l1\nl2\n");
        assert_eq!(out["truncated"], true);
        let out = fx
            .ok(
                "read",
                json!({ "path": "lines.txt", "maxBytes": 6, "range": { "endLine": 2 } }),
            )
            .await;
        assert_eq!(out["truncated"], false);

        // Truncation never splits a character.
        fx.put("utf8.txt", "héllo wörld");
        let out = fx
            .ok("read", json!({ "path": "utf8.txt", "maxBytes": 2 }))
            .await;
        assert_eq!(out["content"], "h");
        assert_eq!(out["truncated"], true);
        let out = fx
            .ok("read", json!({ "path": "utf8.txt", "maxBytes": 3 }))
            .await;
        assert_eq!(out["content"], "hé");

        let msg = fx
            .fail(
                "read",
                json!({ "path": "lines.txt", "range": { "startLine": 3, "endLine": 2 } }),
            )
            .await;
        assert_eq!(msg, "range.endLine (2) is before range.startLine (3)");
    }

    #[tokio::test]
    async fn read_failures() {
        let fx = Fixture::new();
        fs::write(
            fx.root().join("bin.dat"),
            [b'o', b'k', b'\n', 0xff, 0xfe, b'\n'],
        )
        .expect("write");
        fx.put("dir/x", "x");
        let msg = fx.fail("read", json!({ "path": "bin.dat" })).await;
        assert!(
            msg.contains("file 'bin.dat' is not valid UTF-8 text"),
            "{msg}"
        );
        assert!(msg.contains("line 2"), "{msg}");
        // The valid part can still be read by range.
        let out = fx
            .ok(
                "read",
                json!({ "path": "bin.dat", "range": { "endLine": 1 } }),
            )
            .await;
        assert_eq!(out["content"], "ok\n");

        let msg = fx.fail("read", json!({ "path": "dir" })).await;
        assert_eq!(
            msg,
            "'dir' is a directory, not a file: use list to see what it contains"
        );
        let msg = fx.fail("read", json!({ "path": "." })).await;
        assert!(msg.contains("is a directory"), "{msg}");
        let msg = fx.fail("read", json!({ "path": "missing.txt" })).await;
        assert_eq!(msg, "'missing.txt' does not exist in the workspace");
    }

    #[tokio::test]
    async fn wrong_argument_types_fail_clearly() {
        let fx = Fixture::new();
        fx.put("f.txt", "f");
        let cases = [
            ("read", json!({}), "missing required argument 'path'"),
            (
                "read",
                json!({ "path": 5 }),
                "argument 'path' must be a string, got a number",
            ),
            (
                "read",
                json!({ "path": "f.txt", "maxBytes": "10" }),
                "argument 'maxBytes' must be an integer, got a string",
            ),
            (
                "read",
                json!({ "path": "f.txt", "maxBytes": 0 }),
                "argument 'maxBytes' must be between 1 and",
            ),
            (
                "read",
                json!({ "path": "f.txt", "maxBytes": 1.5 }),
                "argument 'maxBytes' must be an integer, got 1.5",
            ),
            (
                "read",
                json!({ "path": "f.txt", "range": [1, 2] }),
                "argument 'range' must be an object, got an array",
            ),
            (
                "read",
                json!({ "path": "f.txt", "range": { "startLine": 0 } }),
                "argument 'range.startLine' must be between 1",
            ),
            (
                "read",
                json!({ "path": "f.txt", "range": { "startLine": -3 } }),
                "argument 'range.startLine' must be between 1",
            ),
            (
                "list",
                json!({ "recursive": "yes" }),
                "argument 'recursive' must be a boolean, got a string",
            ),
            (
                "list",
                json!({ "maxEntries": 10001 }),
                "argument 'maxEntries' must be between 1 and 10000, got 10001",
            ),
            (
                "list",
                json!({ "include": { "extensions": "rs" } }),
                "argument 'include.extensions' must be an array of strings",
            ),
            (
                "list",
                json!({ "include": { "extensions": [1] } }),
                "argument 'include.extensions' must be an array of strings",
            ),
            (
                "list",
                json!({ "include": { "hidden": 1 } }),
                "argument 'include.hidden' must be a boolean",
            ),
            (
                "write",
                json!({ "path": "g.txt" }),
                "missing required argument 'content'",
            ),
            (
                "write",
                json!({ "path": "g.txt", "content": ["x"] }),
                "argument 'content' must be a string, got an array",
            ),
            (
                "write",
                json!({ "path": "g.txt", "content": "x", "mode": 1 }),
                "argument 'mode' must be a string",
            ),
            (
                "write",
                json!({ "path": "g.txt", "content": "x", "createDirs": "no" }),
                "argument 'createDirs' must be a boolean",
            ),
            (
                "delete",
                json!({ "path": null }),
                "missing required argument 'path'",
            ),
            (
                "delete",
                json!({ "path": "f.txt", "recursive": 0 }),
                "argument 'recursive' must be a boolean",
            ),
        ];
        for (method, args, expected) in cases {
            let msg = fx.fail(method, args.clone()).await;
            assert!(msg.contains(expected), "{method} {args}: {msg}");
        }
        // Integral floats and nulls (= absent, defaults apply) are accepted.
        let out = fx
            .ok(
                "list",
                json!({ "path": null, "maxEntries": 2.0, "include": null }),
            )
            .await;
        assert_eq!(paths(&out), ["f.txt"]);
        assert!(!fx.root().join("g.txt").exists());
    }
}
