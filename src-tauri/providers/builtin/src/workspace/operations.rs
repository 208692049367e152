//! The workspace operations themselves: blocking file-system work, run off the async threads
//! by the tool, always through the [`Sandbox`].

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};
use toolscope_engine::tool::ToolFailure;

use super::args::{DeleteOptions, ListOptions, ReadOptions, WriteMode, WriteOptions};
use super::sandbox::{Intent, Sandbox, SandboxError};

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

pub(super) fn list(sandbox: &Sandbox, options: &ListOptions) -> Result<Value, ToolFailure> {
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

pub(super) fn read(sandbox: &Sandbox, options: &ReadOptions) -> Result<Value, ToolFailure> {
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

pub(super) fn write(sandbox: &Sandbox, options: &WriteOptions) -> Result<Value, ToolFailure> {
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

pub(super) fn delete(sandbox: &Sandbox, options: &DeleteOptions) -> Result<Value, ToolFailure> {
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
