//! Arguments of the workspace methods. The executor validates them against the schemas first,
//! but a tool may be called directly, so every type is checked again and every default applied
//! here.

use serde_json::{Map, Value};
use toolscope_engine::tool::ToolFailure;
use toolscope_protocol::request::json_kind;

use super::{DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, MAX_BYTES_LIMIT, MAX_ENTRIES_LIMIT};

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
pub(super) struct ListOptions {
    pub(super) path: String,
    pub(super) recursive: bool,
    pub(super) max_entries: usize,
    pub(super) hidden: bool,
    /// Lower-case, without a leading dot; empty means every file.
    pub(super) extensions: Vec<String>,
}

impl ListOptions {
    pub(super) fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
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

    pub(super) fn wants_file(&self, name: &str) -> bool {
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
pub(super) struct ReadOptions {
    pub(super) path: String,
    pub(super) start_line: u64,
    pub(super) end_line: Option<u64>,
    pub(super) max_bytes: usize,
}

impl ReadOptions {
    pub(super) fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
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
pub(super) enum WriteMode {
    Create,
    Overwrite,
    Append,
}

#[derive(Debug)]
pub(super) struct WriteOptions {
    pub(super) path: String,
    pub(super) content: String,
    pub(super) mode: WriteMode,
    pub(super) create_dirs: bool,
}

impl WriteOptions {
    pub(super) fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
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
pub(super) struct DeleteOptions {
    pub(super) path: String,
    pub(super) recursive: bool,
}

impl DeleteOptions {
    pub(super) fn parse(args: &Map<String, Value>) -> Result<Self, ToolFailure> {
        Ok(Self {
            path: req_str(args, "path")?.to_owned(),
            recursive: opt_bool(args, "recursive", "recursive", false)?,
        })
    }
}
