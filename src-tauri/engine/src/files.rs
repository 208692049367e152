//! Keeping the files the user cares about intact: written whole or not at all, and moved out
//! of the way, not overwritten, when they cannot be read.
//!
//! Why it exists: the app keeps files the user cares about (the MCP server list and approvals,
//! the settings store, HTTP tool definitions, imported tool sets). A save interrupted half-way
//! must leave the previous version, so [`write_atomically`] writes a temporary file beside the
//! target and renames it over. When a file cannot be read, starting from defaults is fine, but
//! the next save would overwrite the original and the user's data would be gone without a word:
//! [`set_aside`] renames it to `<name>.<label>-<unix ms>` first, and the caller reports where it
//! went. (The run history keeps its own scheme: it copies only a torn tail aside, see
//! [`crate::history`].)

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a synced temporary file in the same directory and a
/// rename, so readers see the old content or the new, never a torn mix. Creates the directory.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let directory = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = directory.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(error);
    }
    // Make the rename itself durable where the platform allows opening a directory.
    if let Ok(dir) = std::fs::File::open(directory) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Renames `path` to `<path>.<label>-<unix ms>` (with `-2`, `-3`, ... appended if that name is
/// taken, so an earlier side file is never replaced) and returns the new path.
pub fn set_aside(path: &Path, label: &str) -> io::Result<PathBuf> {
    let stamp = chrono::Utc::now().timestamp_millis();
    let base = format!("{}.{label}-{stamp}", path.display());
    let mut target = PathBuf::from(&base);
    let mut n = 1;
    while target.exists() || target.is_symlink() {
        n += 1;
        target = PathBuf::from(format!("{base}-{n}"));
    }
    std::fs::rename(path, &target)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_the_file_next_to_itself_and_never_replaces_an_earlier_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        let mut asides = Vec::new();
        for content in ["first", "second", "third"] {
            std::fs::write(&path, content).expect("write");
            let aside = set_aside(&path, "corrupt").expect("set aside");
            assert!(!path.exists());
            assert_eq!(aside.parent(), Some(dir.path()));
            let name = aside.file_name().and_then(|n| n.to_str()).expect("name");
            assert!(name.starts_with("settings.json.corrupt-"), "{name}");
            asides.push((aside, content));
        }
        for (aside, content) in asides {
            assert_eq!(std::fs::read_to_string(aside).expect("read"), content);
        }
    }

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested").join("set.json");
        write_atomically(&path, b"a long first version").expect("first write");
        write_atomically(&path, b"short").expect("second write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "short");
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("parent"))
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let error = set_aside(&dir.path().join("nope"), "corrupt").expect_err("nothing to move");
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
