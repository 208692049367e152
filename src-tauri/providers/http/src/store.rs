//! Saving and deleting single definition files, for an editor in the app.
//!
//! A file is checked before it is written (the same parser the loader uses, plus a check that
//! no other file in the directory defines the same tool id) and written atomically: a temp file
//! beside it, flushed, then renamed over the target, so a watcher or a crash never sees half a
//! file. Names are plain file names inside the directory; no path can escape it.

use std::path::{Path, PathBuf};

use crate::definition::{self, DefinitionError, FileFormat};
use crate::toolset::list_definition_files;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("'{name}' is not a usable definition file name: {reason}")]
    InvalidFileName { name: String, reason: &'static str },
    #[error(transparent)]
    Invalid(#[from] DefinitionError),
    #[error("{}: tool id '{id}' is already defined by {}", file.display(), other.display())]
    DuplicateId {
        file: PathBuf,
        id: String,
        other: PathBuf,
    },
    #[error("{}: no such definition file", path.display())]
    NotFound { path: PathBuf },
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

fn io_error(path: &Path, error: &std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_owned(),
        message: error.to_string(),
    }
}

/// The path of `file_name` inside `directory`, and its format.
fn checked_path(directory: &Path, file_name: &str) -> Result<(PathBuf, FileFormat), StoreError> {
    let invalid = |reason| StoreError::InvalidFileName {
        name: file_name.to_owned(),
        reason,
    };
    if file_name.is_empty() {
        return Err(invalid("it is empty"));
    }
    if file_name.contains(['/', '\\']) || file_name.chars().any(char::is_control) {
        return Err(invalid("use a plain file name, without directories"));
    }
    if file_name.starts_with('.') {
        return Err(invalid("names starting with '.' are hidden and not loaded"));
    }
    let path = directory.join(file_name);
    let format =
        FileFormat::from_path(&path).ok_or_else(|| invalid("it must end in .json or .toml"))?;
    Ok((path, format))
}

/// Validates `text` as a definition for `file_name` (`.json` or `.toml`) and writes it to
/// `directory` (created if missing), replacing the file atomically. Returns the file's path.
pub fn save_definition(
    directory: &Path,
    file_name: &str,
    text: &str,
) -> Result<PathBuf, StoreError> {
    let (path, format) = checked_path(directory, file_name)?;
    let spec = definition::parse(&path, format, text)?;
    if let Ok(others) = list_definition_files(directory) {
        for other in others.into_iter().filter(|other| *other != path) {
            if let Ok(other_spec) = definition::load_file(&other) {
                if other_spec.id() == spec.id() {
                    return Err(StoreError::DuplicateId {
                        file: path,
                        id: spec.id().to_owned(),
                        other,
                    });
                }
            }
        }
    }
    std::fs::create_dir_all(directory).map_err(|e| io_error(directory, &e))?;
    write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// Reads one definition file's text (for the editor).
pub fn read_definition(directory: &Path, file_name: &str) -> Result<String, StoreError> {
    let (path, _) = checked_path(directory, file_name)?;
    std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StoreError::NotFound { path: path.clone() },
        _ => io_error(&path, &e),
    })
}

/// Deletes one definition file. Returns its path.
pub fn delete_definition(directory: &Path, file_name: &str) -> Result<PathBuf, StoreError> {
    let (path, _) = checked_path(directory, file_name)?;
    std::fs::remove_file(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StoreError::NotFound { path: path.clone() },
        _ => io_error(&path, &e),
    })?;
    Ok(path)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    toolscope_engine::files::write_atomically(path, bytes).map_err(|e| io_error(path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOL: &str =
        r#"{"id": "t", "methods": [{"name": "get", "endpoint": {"url": "https://h.test/"}}]}"#;

    #[test]
    fn refuses_names_that_leave_the_directory_or_are_not_definitions() {
        let dir = Path::new("/tmp/unused");
        for name in ["", "../x.json", "a/b.json", ".hidden.json", "x.yaml", "x"] {
            assert!(
                matches!(
                    save_definition(dir, name, TOOL),
                    Err(StoreError::InvalidFileName { .. })
                ),
                "{name}"
            );
        }
    }

    #[test]
    fn validates_before_writing_and_refuses_duplicate_ids() {
        let dir = tempfile::tempdir().expect("temp dir");
        let bad = save_definition(dir.path(), "bad.json", r#"{"id": "t", "methods": []}"#);
        assert!(matches!(bad, Err(StoreError::Invalid(_))), "{bad:?}");
        assert!(!dir.path().join("bad.json").exists());
        let path = save_definition(dir.path(), "t.json", TOOL).expect("saves");
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some(TOOL));
        let again = save_definition(dir.path(), "t.json", TOOL);
        assert!(
            again.is_ok(),
            "overwriting the same file is fine: {again:?}"
        );
        let clash = save_definition(dir.path(), "other.json", TOOL);
        assert!(
            matches!(clash, Err(StoreError::DuplicateId { .. })),
            "{clash:?}"
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .expect("lists")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, ["t.json"], "no temp files left behind");
        assert_eq!(
            read_definition(dir.path(), "t.json").ok().as_deref(),
            Some(TOOL)
        );
        delete_definition(dir.path(), "t.json").expect("deletes");
        assert!(matches!(
            delete_definition(dir.path(), "t.json"),
            Err(StoreError::NotFound { .. })
        ));
    }
}
