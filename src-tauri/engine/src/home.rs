//! Where the CLI keeps its data (`$TOOLSCOPE_HOME`, else `$XDG_DATA_HOME/toolscope`, else
//! `~/.local/share/toolscope`), in one place: the CLI uses it for everything it writes, and the
//! app reads what the CLI's proxies recorded there (its own data lives in Tauri's per-app
//! directory, which a proxy started from an agent's configuration does not know).

use std::path::PathBuf;

/// The CLI's data directory.
pub fn cli_data_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("TOOLSCOPE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home);
    }
    if let Some(xdg) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(xdg).join("toolscope");
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".local/share/toolscope"))
        .unwrap_or_else(|| PathBuf::from(".toolscope"))
}
