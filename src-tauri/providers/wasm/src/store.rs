//! The app's saved WASM tool settings: which directories were added and which grant lists a
//! person approved, in one JSON file written atomically.
//!
//! An unreadable file is moved aside with [`toolscope_engine::files::set_aside`] rather than
//! overwritten by the next save, so a person's list is never lost without a word.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toolscope_engine::files::{set_aside, write_atomically};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SavedState {
    #[serde(default)]
    pub directories: Vec<PathBuf>,
    /// Approval keys ([`crate::Grants::approval_key`]).
    #[serde(default)]
    pub approved_grants: Vec<String>,
}

#[derive(Debug)]
pub(crate) struct StateFile {
    path: PathBuf,
}

impl StateFile {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The saved state, or the empty one with a note when the file was unreadable.
    pub(crate) fn load(&self) -> (SavedState, Option<String>) {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Default::default(),
            Err(e) => {
                let note = format!("cannot read {}: {e}", self.path.display());
                return (SavedState::default(), Some(note));
            }
        };
        match serde_json::from_slice(&bytes) {
            Ok(state) => (state, None),
            Err(error) => {
                let note = match set_aside(&self.path, "unreadable") {
                    Ok(aside) => format!(
                        "{} could not be read ({error}); it was moved to {} and the WASM tool \
                         list starts empty",
                        self.path.display(),
                        aside.display()
                    ),
                    Err(e) => format!(
                        "{} could not be read ({error}) nor moved aside ({e})",
                        self.path.display()
                    ),
                };
                (SavedState::default(), Some(note))
            }
        }
    }

    pub(crate) fn save(&self, state: &SavedState) -> Result<(), String> {
        let mut bytes = serde_json::to_vec_pretty(state).map_err(|e| e.to_string())?;
        bytes.push(b'\n');
        write_atomically(&self.path, &bytes).map_err(|e| e.to_string())
    }
}
