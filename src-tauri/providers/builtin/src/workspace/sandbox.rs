//! Confines user-supplied paths to the workspace root.
//!
//! A path coming from a model is untrusted text. [`Sandbox::resolve`] turns it into an absolute
//! path that is guaranteed (at the time of the check) to lie inside the canonical root:
//!
//! * lexical checks first: no empty path (unless the intent allows it), no absolute path on any
//!   platform (`/etc/passwd`, `\\server\share`, `C:\`), no `..` component anywhere, no NUL byte;
//! * then the path is walked one component at a time from the root. Every component that exists
//!   and is a symbolic link is canonicalised and must stay inside the root; a dangling link is
//!   refused because writing through it would create its target wherever it points. Components
//!   that do not exist yet (a write target, directories `createDirs` will make) are re-appended
//!   to the deepest existing, already-verified ancestor.
//!
//! Both `/` and `\` are accepted as separators so a path written for Windows cannot smuggle a
//! `..` past the check on Unix. The check is not atomic with the file operation that follows: a
//! process racing to swap a directory for a symlink could still win. The workspace tool protects
//! against what a model can ask for, not against a hostile local process.

use std::io;
use std::path::{Path, PathBuf};

/// What the resolved path is going to be used for; it decides which paths are acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// List a directory: the path must exist; an empty path means the root.
    List,
    /// Read a file: the path must exist.
    Read,
    /// Create or modify a file: the target (and its parent directories) may not exist yet.
    Write,
    /// Delete an entry: it must exist, it may not be the root, and a final symbolic link is not
    /// followed (the link itself is deleted, never its target).
    Delete,
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("path is empty: give a path relative to the workspace root")]
    Empty,
    #[error("path '{0}' is absolute: give a path relative to the workspace root")]
    Absolute(String),
    #[error("path '{0}' leaves the workspace: '..' is not allowed")]
    ParentComponent(String),
    #[error("path '{0}' contains a NUL byte")]
    NulByte(String),
    #[error("path '{0}' leaves the workspace through a symbolic link")]
    SymlinkEscape(String),
    #[error("path '{0}' goes through a symbolic link whose target does not exist")]
    BrokenSymlink(String),
    #[error("'{0}' does not exist in the workspace")]
    NotFound(String),
    #[error("path '{0}' goes through '{1}', which is not a directory")]
    NotADirectory(String, String),
    #[error("refusing to delete the workspace root")]
    RootNotAllowed,
    #[error("cannot access '{path}': {message}")]
    Io { path: String, message: String },
}

/// A path that passed the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute path to operate on; inside the canonical root.
    pub path: PathBuf,
    /// The path as the user named it, normalised: `/` separators, no `.` components, `.` for
    /// the root. This is what results show, so a model can reuse it verbatim.
    pub relative: String,
}

/// A canonical directory every resolved path must stay inside.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    /// Creates `root` if it is missing and canonicalises it.
    pub fn new(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        std::fs::create_dir_all(&root)?;
        let root = std::fs::canonicalize(&root)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("workspace root '{}' is not a directory", root.display()),
            ));
        }
        Ok(Self { root })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks `user_path` and maps it to an absolute path inside the root.
    pub fn resolve(&self, user_path: &str, intent: Intent) -> Result<Resolved, SandboxError> {
        let components = normalize(user_path, intent == Intent::List)?;
        let relative = if components.is_empty() {
            ".".to_owned()
        } else {
            components.join("/")
        };
        let (follow, last) = match intent {
            Intent::Delete => match components.split_last() {
                Some((last, parents)) => (parents, Some(*last)),
                None => return Err(SandboxError::RootNotAllowed),
            },
            _ => (components.as_slice(), None),
        };

        let must_exist = intent != Intent::Write;
        let mut current = self.root.clone();
        for (index, name) in follow.iter().enumerate() {
            let candidate = current.join(name);
            match std::fs::symlink_metadata(&candidate) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    current = self.follow_link(&candidate, user_path)?;
                }
                Ok(_) => current = candidate,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if must_exist {
                        return Err(SandboxError::NotFound(relative));
                    }
                    for rest in &follow[index..] {
                        current.push(rest);
                    }
                    return Ok(Resolved {
                        path: current,
                        relative,
                    });
                }
                Err(e) => return Err(self.io_error(&candidate, user_path, &e)),
            }
        }

        if let Some(last) = last {
            let target = current.join(last);
            match std::fs::symlink_metadata(&target) {
                Ok(_) => current = target,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(SandboxError::NotFound(relative))
                }
                Err(e) => return Err(self.io_error(&target, user_path, &e)),
            }
        }
        Ok(Resolved {
            path: current,
            relative,
        })
    }

    /// Canonicalises a symbolic link and checks that it stays inside the root.
    fn follow_link(&self, link: &Path, user_path: &str) -> Result<PathBuf, SandboxError> {
        match std::fs::canonicalize(link) {
            Ok(target) if target.starts_with(&self.root) => Ok(target),
            Ok(_) => Err(SandboxError::SymlinkEscape(user_path.to_owned())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(SandboxError::BrokenSymlink(user_path.to_owned()))
            }
            Err(e) => Err(self.io_error(link, user_path, &e)),
        }
    }

    fn io_error(&self, at: &Path, user_path: &str, error: &io::Error) -> SandboxError {
        if error.kind() == io::ErrorKind::NotADirectory {
            // Some ancestor of `at` is a file; name it relative to the root.
            let blocker = at
                .ancestors()
                .skip(1)
                .find(|p| p.is_file())
                .map_or_else(|| user_path.to_owned(), |p| self.display(p));
            return SandboxError::NotADirectory(user_path.to_owned(), blocker);
        }
        SandboxError::Io {
            path: user_path.to_owned(),
            message: error.to_string(),
        }
    }

    /// `path` relative to the root with `/` separators (`.` for the root itself). Paths outside
    /// the root are shown as they are.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Splits `user_path` into plain names after the lexical checks. `.` and empty segments are
/// dropped; an empty result means the root.
pub fn normalize(user_path: &str, allow_empty: bool) -> Result<Vec<&str>, SandboxError> {
    if user_path.contains('\0') {
        return Err(SandboxError::NulByte(user_path.replace('\0', "\\0")));
    }
    if user_path.is_empty() {
        return if allow_empty {
            Ok(Vec::new())
        } else {
            Err(SandboxError::Empty)
        };
    }
    if is_absolute_anywhere(user_path) {
        return Err(SandboxError::Absolute(user_path.to_owned()));
    }
    let mut names = Vec::new();
    for segment in user_path.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => return Err(SandboxError::ParentComponent(user_path.to_owned())),
            name => names.push(name),
        }
    }
    Ok(names)
}

/// Absolute on Unix or on Windows: a leading separator, a drive prefix (`C:`, `c:foo`), or a
/// verbatim/UNC prefix (covered by the leading separator).
fn is_absolute_anywhere(path: &str) -> bool {
    if path.starts_with(['/', '\\']) || Path::new(path).is_absolute() {
        return true;
    }
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().expect("tempdir");
        let sandbox = Sandbox::new(dir.path().join("ws")).expect("sandbox");
        (dir, sandbox)
    }

    #[test]
    fn new_creates_and_canonicalises_the_root() {
        let (dir, sandbox) = sandbox();
        assert!(sandbox.root().is_dir());
        assert!(sandbox.root().is_absolute());
        let again = Sandbox::new(dir.path().join("ws/./")).expect("existing root");
        assert_eq!(again.root(), sandbox.root());
    }

    #[test]
    fn new_refuses_a_file_as_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f");
        std::fs::write(&file, "x").expect("write");
        assert!(Sandbox::new(file).is_err());
    }

    #[test]
    fn lexical_checks() {
        let (_dir, sb) = sandbox();
        let err = |p: &str, intent| sb.resolve(p, intent).expect_err(p);
        assert_eq!(err("", Intent::Read), SandboxError::Empty);
        assert_eq!(err("", Intent::Write), SandboxError::Empty);
        assert!(matches!(
            err("/etc/passwd", Intent::Read),
            SandboxError::Absolute(_)
        ));
        assert!(matches!(
            err("C:\\Windows", Intent::Read),
            SandboxError::Absolute(_)
        ));
        assert!(matches!(
            err("c:foo", Intent::Write),
            SandboxError::Absolute(_)
        ));
        assert!(matches!(
            err("\\\\server\\share", Intent::Read),
            SandboxError::Absolute(_)
        ));
        assert!(matches!(
            err("\\x", Intent::Write),
            SandboxError::Absolute(_)
        ));
        for p in ["..", "../x", "a/../b", "a/../../x", "a\\..\\..\\x", "./.."] {
            assert!(
                matches!(err(p, Intent::Write), SandboxError::ParentComponent(_)),
                "{p}"
            );
        }
        assert!(matches!(
            err("a\0b", Intent::Write),
            SandboxError::NulByte(_)
        ));
        assert_eq!(
            err("../x", Intent::Read).to_string(),
            "path '../x' leaves the workspace: '..' is not allowed"
        );
        assert_eq!(
            err("a\0b", Intent::Read).to_string(),
            "path 'a\\0b' contains a NUL byte"
        );
    }

    #[test]
    fn dotted_names_are_not_parent_components() {
        assert_eq!(
            normalize("..a/b../...", false).expect("plain names"),
            vec!["..a", "b..", "..."]
        );
        assert_eq!(normalize("./a//b/.", false).expect("dots"), vec!["a", "b"]);
        assert!(normalize(".", true).expect("root").is_empty());
    }

    #[test]
    fn resolves_inside_the_root() {
        let (_dir, sb) = sandbox();
        std::fs::create_dir(sb.root().join("a")).expect("mkdir");
        std::fs::write(sb.root().join("a/f.txt"), "x").expect("write");
        let r = sb.resolve("./a//f.txt", Intent::Read).expect("read");
        assert_eq!(r.path, sb.root().join("a/f.txt"));
        assert_eq!(r.relative, "a/f.txt");
        let r = sb.resolve("", Intent::List).expect("list root");
        assert_eq!(r.path, sb.root());
        assert_eq!(r.relative, ".");
        let r = sb
            .resolve("a/new/deeper.txt", Intent::Write)
            .expect("write");
        assert_eq!(r.path, sb.root().join("a/new/deeper.txt"));
        assert!(matches!(
            sb.resolve("missing", Intent::Read),
            Err(SandboxError::NotFound(_))
        ));
        assert!(matches!(
            sb.resolve("a/f.txt/x", Intent::Write),
            Err(SandboxError::NotADirectory(_, _))
        ));
    }

    #[test]
    fn delete_refuses_the_root() {
        let (_dir, sb) = sandbox();
        for p in [".", "./", "./."] {
            assert_eq!(
                sb.resolve(p, Intent::Delete),
                Err(SandboxError::RootNotAllowed),
                "{p}"
            );
        }
        assert_eq!(sb.resolve("", Intent::Delete), Err(SandboxError::Empty));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks() {
        use std::os::unix::fs::symlink;
        let (dir, sb) = sandbox();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).expect("mkdir");
        std::fs::write(outside.join("secret"), "s").expect("write");
        std::fs::create_dir(sb.root().join("inner")).expect("mkdir");
        std::fs::write(sb.root().join("inner/f"), "x").expect("write");
        symlink(&outside, sb.root().join("out")).expect("symlink");
        symlink(outside.join("secret"), sb.root().join("secret")).expect("symlink");
        symlink(sb.root().join("inner"), sb.root().join("in")).expect("symlink");
        symlink("inner/f", sb.root().join("rel")).expect("symlink");
        symlink(dir.path().join("nowhere"), sb.root().join("dangling")).expect("symlink");

        for (p, intent) in [
            ("out", Intent::List),
            ("out/secret", Intent::Read),
            ("secret", Intent::Read),
            ("secret", Intent::Write),
            ("out/new.txt", Intent::Write),
            ("out/sub/dir/new.txt", Intent::Write),
            ("out/secret", Intent::Delete),
        ] {
            assert!(
                matches!(sb.resolve(p, intent), Err(SandboxError::SymlinkEscape(_))),
                "{p} {intent:?}"
            );
        }
        assert!(matches!(
            sb.resolve("dangling", Intent::Write),
            Err(SandboxError::BrokenSymlink(_))
        ));

        let r = sb.resolve("in/f", Intent::Read).expect("inside link");
        assert_eq!(r.path, sb.root().join("inner/f"));
        assert_eq!(r.relative, "in/f");
        let r = sb.resolve("rel", Intent::Write).expect("relative link");
        assert_eq!(r.path, sb.root().join("inner/f"));
        let r = sb
            .resolve("in/new/x", Intent::Write)
            .expect("write under inside link");
        assert_eq!(r.path, sb.root().join("inner/new/x"));

        // Delete does not follow the final link: the link itself is the target.
        let r = sb.resolve("out", Intent::Delete).expect("delete link");
        assert_eq!(r.path, sb.root().join("out"));
        let r = sb
            .resolve("dangling", Intent::Delete)
            .expect("delete dangling");
        assert_eq!(r.path, sb.root().join("dangling"));
    }
}
