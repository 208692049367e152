//! Declared formats on disk: every `*.toml` of a directory read as a
//! [`toolscope_protocol::declared::DeclaredFormat`], with each file's problems reported by line
//! instead of stopping the others. The app watches the directory and the CLI reads it once; both
//! list the formats after the built-in ones.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use serde::Serialize;
use toolscope_protocol::declared::DeclaredFormat;
use toolscope_protocol::{Protocol, ProtocolSet};

/// A format file that could not be used, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FormatProblem {
    pub file: String,
    /// 1-based; 0 when the problem is the whole file (unreadable).
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for FormatProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            line => write!(f, "{}:{line}:{}: {}", self.file, self.column, self.message),
        }
    }
}

/// What a directory of format files gave.
#[derive(Clone, Default)]
pub struct DeclaredFormats {
    pub formats: Vec<Arc<dyn Protocol>>,
    pub problems: Vec<FormatProblem>,
}

/// A formats directory that follows its files: [`FormatsDir::current`] re-reads the directory
/// only when a `*.toml` file was added, removed or changed since the last look (a few `stat`
/// calls), so callers can ask on every parse and a person's edit shows up on the next one with
/// no watcher thread.
pub struct FormatsDir {
    dir: PathBuf,
    builtin: ProtocolSet,
    loaded: Mutex<Option<Loaded>>,
}

struct Loaded {
    fingerprint: Vec<(PathBuf, Option<SystemTime>, u64)>,
    protocols: ProtocolSet,
    problems: Vec<FormatProblem>,
}

/// The formats in effect, and whether they changed since the previous look.
pub struct CurrentFormats {
    pub protocols: ProtocolSet,
    pub problems: Vec<FormatProblem>,
    pub changed: bool,
}

impl FormatsDir {
    pub fn new(dir: PathBuf, builtin: ProtocolSet) -> Self {
        Self {
            dir,
            builtin,
            loaded: Mutex::new(None),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn current(&self) -> CurrentFormats {
        let fingerprint = fingerprint(&self.dir);
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = loaded.as_ref().filter(|l| l.fingerprint == fingerprint) {
            return CurrentFormats {
                protocols: known.protocols.clone(),
                problems: known.problems.clone(),
                changed: false,
            };
        }
        let declared = load_dir(&self.dir, &self.builtin);
        let fresh = Loaded {
            fingerprint,
            protocols: self.builtin.extended(declared.formats),
            problems: declared.problems,
        };
        let current = CurrentFormats {
            protocols: fresh.protocols.clone(),
            problems: fresh.problems.clone(),
            changed: loaded.is_some(),
        };
        *loaded = Some(fresh);
        current
    }
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
        .collect();
    files.sort();
    files
}

fn fingerprint(dir: &Path) -> Vec<(PathBuf, Option<SystemTime>, u64)> {
    toml_files(dir)
        .into_iter()
        .map(|file| {
            let meta = std::fs::metadata(&file).ok();
            let modified = meta.as_ref().and_then(|m| m.modified().ok());
            let len = meta.map_or(0, |m| m.len());
            (file, modified, len)
        })
        .collect()
}

/// Files bigger than this are not format descriptions.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Reads `dir`'s `*.toml` files in name order. A missing directory holds no formats. An id that
/// a built-in format (or an earlier file) already has is a problem of the later file.
pub fn load_dir(dir: &Path, builtin: &ProtocolSet) -> DeclaredFormats {
    let mut loaded = DeclaredFormats::default();
    for file in toml_files(dir) {
        let name = file.display().to_string();
        let whole = |message: String| FormatProblem {
            file: name.clone(),
            line: 0,
            column: 0,
            message,
        };
        match std::fs::metadata(&file) {
            Ok(meta) if meta.len() > MAX_FILE_BYTES => {
                loaded.problems.push(whole(format!(
                    "{} bytes is too large for a format description (at most {MAX_FILE_BYTES})",
                    meta.len()
                )));
                continue;
            }
            Err(e) => {
                loaded.problems.push(whole(format!("cannot read: {e}")));
                continue;
            }
            Ok(_) => {}
        }
        let source = match std::fs::read_to_string(&file) {
            Ok(source) => source,
            Err(e) => {
                loaded.problems.push(whole(format!("cannot read: {e}")));
                continue;
            }
        };
        match DeclaredFormat::from_toml(&source) {
            Err(e) => loaded.problems.push(FormatProblem {
                file: name,
                line: to_u32(e.line),
                column: to_u32(e.column),
                message: e.message,
            }),
            Ok(format) => {
                let id = format.id();
                let taken = builtin.get(id).is_some()
                    || loaded
                        .formats
                        .iter()
                        .any(|f| f.id().eq_ignore_ascii_case(id));
                if taken {
                    loaded.problems.push(FormatProblem {
                        file: name,
                        line: to_u32(id_line(&source)),
                        column: 1,
                        message: format!("format id '{id}' is already taken; rename it"),
                    });
                } else {
                    loaded.formats.push(Arc::new(format));
                }
            }
        }
    }
    loaded
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The line of the `id` key (the file parsed, so it has one).
fn id_line(source: &str) -> usize {
    source
        .lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix("id")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_gives_a_format_or_its_problem_by_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).expect("write");
        };
        write(
            "a_good.toml",
            "id = \"acme\"\nstart = \"<call>\"\nend = \"</call>\"\n",
        );
        write(
            "b_clash.toml",
            "# hermes again\nid = \"hermes\"\nstart = \"<x>\"\n",
        );
        write("c_again.toml", "id = \"acme\"\nstart = \"<y>\"\n");
        write(
            "d_broken.toml",
            "id = \"broken\"\nstart = \"<z>\"\narguments = \"yaml\"\n",
        );
        write("notes.txt", "not a format");
        let loaded = load_dir(dir.path(), &ProtocolSet::standard());
        let ids: Vec<_> = loaded.formats.iter().map(|f| f.id()).collect();
        assert_eq!(ids, ["acme"]);
        let lines: Vec<_> = loaded
            .problems
            .iter()
            .map(|p| {
                (
                    p.file.rsplit('/').next().unwrap_or_default().to_owned(),
                    p.line,
                )
            })
            .collect();
        assert_eq!(
            lines,
            [
                ("b_clash.toml".to_owned(), 2),
                ("c_again.toml".to_owned(), 1),
                ("d_broken.toml".to_owned(), 3)
            ]
        );
        assert!(loaded.problems[2].message.contains("yaml"));
        assert!(
            load_dir(&dir.path().join("missing"), &ProtocolSet::standard())
                .formats
                .is_empty()
        );
    }

    #[test]
    fn a_formats_dir_follows_its_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let formats = FormatsDir::new(dir.path().to_owned(), ProtocolSet::standard());
        let first = formats.current();
        assert!(first.protocols.get("acme").is_none());
        assert!(!first.changed);
        let file = dir.path().join("acme.toml");
        std::fs::write(&file, "id = \"acme\"\nstart = \"<call>\"\n").expect("write");
        let added = formats.current();
        assert!(added.changed);
        assert!(added.protocols.get("acme").is_some());
        assert!(!formats.current().changed, "nothing changed since");
        std::fs::write(&file, "id = \"acme\"\nstart = \"\"\n").expect("write");
        let broken = formats.current();
        assert!(broken.changed);
        assert!(broken.protocols.get("acme").is_none());
        assert_eq!(broken.problems.len(), 1);
        assert_eq!(broken.problems[0].line, 2);
    }
}
