//! Moving a file that cannot be used out of the way, next to where it was.
//!
//! Why it exists: the app keeps files the user cares about (the MCP server list and approvals,
//! the settings store). When one cannot be read, starting from defaults is fine, but the next
//! save would overwrite the original and the user's data would be gone without a word. So the
//! file is renamed to `<name>.<label>-<unix ms>` first, and the caller reports where it went.
//! (The run history keeps its own scheme: it copies only a torn tail aside, see
//! [`crate::history`].)

use std::io;
use std::path::{Path, PathBuf};

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
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let error = set_aside(&dir.path().join("nope"), "corrupt").expect_err("nothing to move");
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
