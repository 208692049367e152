//! Watching the definition directory: the engine's polling [`DirectoryWatch`] over an
//! [`HttpToolSet`], whose fingerprint is its definition files' modification times and sizes.
//!
//! The polling loop is shared with other file-based providers and lives in
//! [`toolscope_engine::file_tools::watch`]; this module only says which files count.

use std::sync::Arc;
use std::time::Duration;

use toolscope_engine::file_tools::watch::{fingerprint_of, Fingerprint, WatchedSource};

pub use toolscope_engine::file_tools::watch::{DirectoryWatch, MIN_POLL_INTERVAL};

use crate::toolset::{list_definition_files, HttpToolSet, ReloadReport};

impl WatchedSource for HttpToolSet {
    fn fingerprint(&self) -> Fingerprint {
        fingerprint_of(list_definition_files(self.directory()))
    }

    fn reload(&self) -> ReloadReport {
        HttpToolSet::reload(self)
    }
}

impl HttpToolSet {
    /// Polls the directory every `interval` on a tokio task and reloads when a definition
    /// file is added, removed, or changes size or modification time. The first poll reloads
    /// at once. Must be called inside a tokio runtime.
    pub fn watch(self: &Arc<Self>, interval: Duration) -> DirectoryWatch {
        DirectoryWatch::start(Arc::clone(self) as Arc<dyn WatchedSource>, interval)
    }
}
