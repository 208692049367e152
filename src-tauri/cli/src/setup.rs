//! Builds the engine the way every command needs it: registry with built-ins, protocols,
//! executor options from a config file and flags, and the history file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolscope_engine::builtin::{self, BuiltinOptions};
use toolscope_engine::history::History;
use toolscope_engine::{Registry, ToolCallConfig};

use crate::exit;
use crate::GlobalArgs;

/// A failure before any tool ran, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct SetupError {
    pub code: u8,
    pub message: String,
}

impl SetupError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: exit::USAGE,
            message: message.into(),
        }
    }

    pub fn environment(message: impl Into<String>) -> Self {
        Self {
            code: exit::ENVIRONMENT,
            message: message.into(),
        }
    }
}

/// `$TOOLSCOPE_HOME`, else `$XDG_DATA_HOME/toolscope`, else `~/.local/share/toolscope`.
pub fn data_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("TOOLSCOPE_HOME") {
        return PathBuf::from(home);
    }
    if let Some(xdg) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(xdg).join("toolscope");
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".local/share/toolscope"))
        .unwrap_or_else(|| PathBuf::from(".toolscope"))
}

pub fn registry(global: &GlobalArgs) -> Result<Arc<Registry>, SetupError> {
    let registry = Arc::new(Registry::new());
    let workspace_root = global
        .workspace
        .clone()
        .unwrap_or_else(|| data_dir().join("workspace"));
    builtin::register_all(&registry, &BuiltinOptions { workspace_root })
        .map_err(|e| SetupError::environment(e.to_string()))?;
    Ok(registry)
}

/// Reads a ToolCallConfig JSON file; missing fields take their defaults.
pub fn config(path: Option<&Path>) -> Result<ToolCallConfig, SetupError> {
    let Some(path) = path else {
        return Ok(ToolCallConfig::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| SetupError::usage(format!("cannot read config '{}': {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        SetupError::usage(format!(
            "config '{}' is not a valid ToolCallConfig: {e}",
            path.display()
        ))
    })
}

/// The history to record into, or `None` with `--no-history`. A torn tail left by an earlier
/// crash is reported on stderr, not hidden.
pub fn history(global: &GlobalArgs) -> Result<Option<History>, SetupError> {
    if global.no_history {
        return Ok(None);
    }
    let path = global
        .history
        .clone()
        .unwrap_or_else(|| data_dir().join("history.jsonl"));
    let (history, report) =
        History::open(&path).map_err(|e| SetupError::environment(e.to_string()))?;
    if let Some(torn) = report.torn_tail {
        eprintln!(
            "warning: history '{}' ended in an incomplete entry ({} bytes, from an interrupted write); it was moved to '{}'",
            path.display(),
            torn.bytes,
            torn.set_aside_to.display()
        );
    }
    Ok(Some(history))
}

/// Reads a file, or stdin for `-` / no path.
pub fn read_input(path: Option<&Path>) -> Result<String, SetupError> {
    match path {
        Some(path) if path != Path::new("-") => std::fs::read_to_string(path)
            .map_err(|e| SetupError::usage(format!("cannot read '{}': {e}", path.display()))),
        _ => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| SetupError::usage(format!("cannot read stdin: {e}")))?;
            Ok(text)
        }
    }
}
