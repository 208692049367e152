//! [`ImportedSets`]: the imported tool sets, kept in a directory and in the registry together.
//!
//! Each set is one JSON file (`<tool id>.json`) written atomically, so a crash mid-save keeps
//! the previous version. A file that cannot be read is left where it is and reported, never
//! overwritten: the person's definitions and mocks are theirs. Re-importing under a set's name
//! replaces its definitions and keeps the mocks of every name still defined.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolscope_engine::Registry;

use crate::mock::{Mock, MockError};
use crate::read::{read_definitions, Finding, FindingLevel, Import, ReadError};
use crate::set::{tool_id, NameError, ToolSet};

/// A set as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SetSummary {
    pub name: String,
    pub id: String,
    pub origin: String,
    pub imported_at: String,
    pub definitions: u32,
    pub mocked: u32,
}

impl From<&ToolSet> for SetSummary {
    fn from(set: &ToolSet) -> Self {
        Self {
            name: set.name.clone(),
            id: set.id.clone(),
            origin: set.origin.clone(),
            imported_at: set.imported_at.clone(),
            definitions: u32::try_from(set.definitions.len()).unwrap_or(u32::MAX),
            mocked: u32::try_from(set.mocks.len()).unwrap_or(u32::MAX),
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SetImportReport {
    pub set: SetSummary,
    /// Every finding of the read, with the paths into the input.
    pub findings: Vec<Finding>,
    pub repeats_merged: u32,
    /// Whether a set of that name was replaced.
    pub replaced: bool,
    /// Mocks of the replaced set whose definitions are gone.
    pub mocks_dropped: Vec<String>,
}

/// Why a change to the sets did not happen. Nothing is saved or registered when it fails.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetError {
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("no definition could be imported: {}", summarise(.0))]
    NothingImported(Vec<Finding>),
    #[error("the tool id '{id}' that the name gives is taken by {by}; choose another name")]
    IdTaken { id: String, by: String },
    #[error("no imported set is named '{0}'")]
    NotFound(String),
    #[error("the set '{set}' has no definition named '{name}'")]
    UnknownDefinition { set: String, name: String },
    #[error("the edited definition must hold exactly one tool definition; it holds {0}")]
    NotOneDefinition(usize),
    #[error("'{0}' is already defined in this set")]
    DuplicateDefinition(String),
    #[error(transparent)]
    Mock(#[from] MockError),
    #[error("the registry refused the set: {0}")]
    Registry(String),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

fn summarise(findings: &[Finding]) -> String {
    let errors: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.level == FindingLevel::Error)
        .collect();
    match errors.first() {
        Some(first) if errors.len() == 1 => format!("{}: {}", first.path, first.message),
        Some(first) => format!(
            "{} entries refused; the first, {}: {}",
            errors.len(),
            first.path,
            first.message
        ),
        None => "every entry was skipped (vendor-run tools only)".to_owned(),
    }
}

/// The imported sets of one data directory, mirrored in a registry.
pub struct ImportedSets {
    dir: PathBuf,
    registry: Arc<Registry>,
    sets: Mutex<BTreeMap<String, ToolSet>>,
}

impl ImportedSets {
    /// Loads every set in `dir` into `registry`. Files that cannot be used are reported and
    /// left untouched.
    pub fn open(dir: &Path, registry: Arc<Registry>) -> (Self, Vec<String>) {
        let mut problems = Vec::new();
        let mut sets = BTreeMap::new();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                problems.push(format!("{}: cannot list imported sets: {e}", dir.display()));
                Vec::new()
            }
        };
        files.sort();
        for path in files {
            let loaded = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| serde_json::from_str::<ToolSet>(&text).map_err(|e| e.to_string()));
            match loaded {
                Ok(set) => match registry.register(Arc::new(set.tool())) {
                    Ok(_) => {
                        sets.insert(set.id.clone(), set);
                    }
                    Err(e) => problems.push(format!("{}: not loaded: {e}", path.display())),
                },
                Err(e) => problems.push(format!(
                    "{}: not loaded (left as it is): {e}",
                    path.display()
                )),
            }
        }
        let store = Self {
            dir: dir.to_owned(),
            registry,
            sets: Mutex::new(sets),
        };
        (store, problems)
    }

    pub fn list(&self) -> Vec<SetSummary> {
        self.lock().values().map(SetSummary::from).collect()
    }

    pub fn get(&self, name: &str) -> Option<ToolSet> {
        let id = tool_id(name).ok()?;
        self.lock().get(&id).cloned()
    }

    /// Reads `text` and saves its definitions as the set `name`, replacing a set of that name.
    pub fn import(
        &self,
        name: &str,
        text: &str,
        origin: &str,
    ) -> Result<SetImportReport, SetError> {
        let id = tool_id(name)?;
        let Import {
            definitions,
            findings,
            repeats_merged,
        } = read_definitions(text)?;
        if definitions.is_empty() {
            return Err(SetError::NothingImported(findings));
        }
        let mut sets = self.lock();
        let previous = sets.get(&id).cloned();
        let mut mocks = previous
            .as_ref()
            .map(|p| p.mocks.clone())
            .unwrap_or_default();
        let mut mocks_dropped = Vec::new();
        mocks.retain(|mock_name, _| {
            let kept = definitions.iter().any(|d| &d.name == mock_name);
            if !kept {
                mocks_dropped.push(mock_name.clone());
            }
            kept
        });
        let set = ToolSet {
            name: name.trim().to_owned(),
            id: id.clone(),
            imported_at: chrono::Utc::now().to_rfc3339(),
            origin: origin.to_owned(),
            definitions,
            mocks,
        };
        self.commit(&mut sets, set.clone(), previous.is_none())?;
        Ok(SetImportReport {
            set: SetSummary::from(&set),
            findings,
            repeats_merged,
            replaced: previous.is_some(),
            mocks_dropped,
        })
    }

    /// Deletes a set and its file.
    pub fn remove(&self, name: &str) -> Result<(), SetError> {
        let mut sets = self.lock();
        let id = self.existing(&sets, name)?;
        let path = self.path(&id);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(SetError::Io {
                    path,
                    message: e.to_string(),
                })
            }
        }
        sets.remove(&id);
        self.registry.unregister(&id);
        Ok(())
    }

    /// Sets (or with `None` removes) the mock of one definition.
    pub fn set_mock(
        &self,
        name: &str,
        definition: &str,
        mock: Option<Mock>,
    ) -> Result<(), SetError> {
        if let Some(mock) = &mock {
            mock.check()?;
        }
        self.edit(name, |set| {
            if !set.definitions.iter().any(|d| d.name == definition) {
                return Err(SetError::UnknownDefinition {
                    set: set.name.clone(),
                    name: definition.to_owned(),
                });
            }
            match mock {
                Some(mock) => set.mocks.insert(definition.to_owned(), mock),
                None => set.mocks.remove(definition),
            };
            Ok(())
        })
    }

    /// Replaces one definition with `replacement` (a definition in any importable shape); its
    /// mock follows it if the name changes.
    pub fn replace_definition(
        &self,
        name: &str,
        definition: &str,
        replacement: &Value,
    ) -> Result<Vec<Finding>, SetError> {
        let Import {
            mut definitions,
            findings,
            ..
        } = read_definitions(&replacement.to_string())?;
        if definitions.len() != 1 {
            if definitions.is_empty() && !findings.is_empty() {
                return Err(SetError::NothingImported(findings));
            }
            return Err(SetError::NotOneDefinition(definitions.len()));
        }
        let new = definitions.remove(0);
        self.edit(name, |set| {
            let Some(index) = set.definitions.iter().position(|d| d.name == definition) else {
                return Err(SetError::UnknownDefinition {
                    set: set.name.clone(),
                    name: definition.to_owned(),
                });
            };
            if new.name != definition && set.definitions.iter().any(|d| d.name == new.name) {
                return Err(SetError::DuplicateDefinition(new.name.clone()));
            }
            if let Some(mock) = set.mocks.remove(definition) {
                set.mocks.insert(new.name.clone(), mock);
            }
            set.definitions[index] = new;
            Ok(())
        })?;
        Ok(findings)
    }

    /// Removes one definition (and its mock) from a set.
    pub fn remove_definition(&self, name: &str, definition: &str) -> Result<(), SetError> {
        self.edit(name, |set| {
            let before = set.definitions.len();
            set.definitions.retain(|d| d.name != definition);
            if set.definitions.len() == before {
                return Err(SetError::UnknownDefinition {
                    set: set.name.clone(),
                    name: definition.to_owned(),
                });
            }
            set.mocks.remove(definition);
            Ok(())
        })
    }

    fn edit(
        &self,
        name: &str,
        change: impl FnOnce(&mut ToolSet) -> Result<(), SetError>,
    ) -> Result<(), SetError> {
        let mut sets = self.lock();
        let id = self.existing(&sets, name)?;
        let mut set = sets[&id].clone();
        change(&mut set)?;
        self.commit(&mut sets, set, false)
    }

    /// Saves, then registers, then keeps `set`; on any failure nothing changed.
    fn commit(
        &self,
        sets: &mut BTreeMap<String, ToolSet>,
        set: ToolSet,
        new: bool,
    ) -> Result<(), SetError> {
        let tool = Arc::new(set.tool());
        if new {
            if let Some(other) = self.registry.get(&set.id) {
                return Err(SetError::IdTaken {
                    id: set.id.clone(),
                    by: format!("the {} tool '{}'", other.source.label(), other.name),
                });
            }
        }
        let path = self.path(&set.id);
        let text = serde_json::to_vec_pretty(&set).map_err(|e| SetError::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        toolscope_engine::files::write_atomically(&path, &text).map_err(|e| SetError::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let registered = if new {
            self.registry.register(tool)
        } else {
            self.registry.upsert(tool)
        };
        if let Err(e) = registered {
            // Keep the disk and the registry in step: a new set that cannot be registered is
            // not kept; a replaced one keeps its previous file.
            if new {
                let _ = std::fs::remove_file(&path);
            } else if let Some(previous) = sets.get(&set.id) {
                if let Ok(text) = serde_json::to_vec_pretty(previous) {
                    let _ = toolscope_engine::files::write_atomically(&path, &text);
                }
            }
            return Err(SetError::Registry(e.to_string()));
        }
        sets.insert(set.id.clone(), set);
        Ok(())
    }

    fn existing(&self, sets: &BTreeMap<String, ToolSet>, name: &str) -> Result<String, SetError> {
        tool_id(name)
            .ok()
            .filter(|id| sets.contains_key(id))
            .ok_or_else(|| SetError::NotFound(name.to_owned()))
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, ToolSet>> {
        // A panic mid-edit leaves the map as it was before the edit: edits clone, then insert.
        self.sets.lock().unwrap_or_else(|e| e.into_inner())
    }
}
