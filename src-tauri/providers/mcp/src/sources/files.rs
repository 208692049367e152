//! The two files behind [`super::McpSources`]: the server list (`mcp-servers.json`, in the
//! `mcpServers` shape) and the approved command lines (`mcp-approved-commands.json`).
//!
//! Both are written to a temporary file and renamed into place, so a crash never leaves half a
//! file. A file that cannot be read as expected is moved aside (`*.corrupt-<unix ms>`) and
//! reported, never silently overwritten: the user's server list is theirs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::config::{export, import, McpServerConfig};

/// Where the server list and the approvals are kept.
#[derive(Debug, Clone)]
pub struct SourceFiles {
    pub servers: PathBuf,
    pub approvals: PathBuf,
}

/// Command lines the user allowed to start, exactly as shown to them.
pub type Approvals = BTreeSet<String>;

impl SourceFiles {
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            servers: dir.join("mcp-servers.json"),
            approvals: dir.join("mcp-approved-commands.json"),
        }
    }

    /// The saved servers and approvals, with a warning for each problem found.
    pub fn load(&self) -> (Vec<McpServerConfig>, Approvals, Vec<String>) {
        let mut warnings = Vec::new();
        let servers = match read_optional(&self.servers) {
            Ok(None) => Vec::new(),
            Ok(Some(text)) => match import(&text) {
                Ok(report) => {
                    warnings.extend(report.warnings);
                    report.servers
                }
                Err(e) => {
                    warnings.push(set_aside(&self.servers, &e.to_string()));
                    Vec::new()
                }
            },
            Err(e) => {
                warnings.push(format!("{} could not be read: {e}", self.servers.display()));
                Vec::new()
            }
        };
        let approvals = match read_optional(&self.approvals) {
            Ok(None) => Approvals::new(),
            Ok(Some(text)) => match serde_json::from_str::<Approvals>(&text) {
                Ok(approvals) => approvals,
                Err(e) => {
                    warnings.push(set_aside(&self.approvals, &e.to_string()));
                    Approvals::new()
                }
            },
            Err(e) => {
                warnings.push(format!(
                    "{} could not be read: {e}",
                    self.approvals.display()
                ));
                Approvals::new()
            }
        };
        (servers, approvals, warnings)
    }

    pub fn save_servers(&self, servers: &[McpServerConfig]) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(&export(servers)).map_err(std::io::Error::other)?;
        toolscope_engine::files::write_atomically(&self.servers, text.as_bytes())
    }

    pub fn save_approvals(&self, approvals: &Approvals) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(approvals).map_err(std::io::Error::other)?;
        toolscope_engine::files::write_atomically(&self.approvals, text.as_bytes())
    }
}

fn read_optional(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn set_aside(path: &Path, why: &str) -> String {
    match toolscope_engine::files::set_aside(path, "corrupt") {
        Ok(aside) => format!(
            "{} was not usable ({why}); it was moved to {} and an empty list used",
            path.display(),
            aside.display()
        ),
        Err(e) => format!(
            "{} was not usable ({why}) and could not be moved aside: {e}",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::McpTransport;

    #[test]
    fn saves_and_loads_servers_and_approvals() {
        let dir = tempfile::tempdir().expect("temp dir");
        let files = SourceFiles::in_dir(dir.path());
        let server = McpServerConfig {
            name: "s".into(),
            transport: McpTransport::Http {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: Default::default(),
                oauth: None,
            },
            enabled: true,
        };
        files
            .save_servers(std::slice::from_ref(&server))
            .expect("saves");
        files
            .save_approvals(&Approvals::from(["npx x".to_owned()]))
            .expect("saves");
        let (servers, approvals, warnings) = files.load();
        assert_eq!(servers, vec![server]);
        assert!(approvals.contains("npx x"));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_reported() {
        let dir = tempfile::tempdir().expect("temp dir");
        let files = SourceFiles::in_dir(dir.path());
        std::fs::write(&files.servers, "{ not json").expect("writes");
        let (servers, _, warnings) = files.load();
        assert!(servers.is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("moved to"), "{warnings:?}");
        assert!(!files.servers.exists());
        let aside = std::fs::read_dir(dir.path())
            .expect("lists")
            .filter_map(Result::ok)
            .find(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
            .expect("the corrupt file is kept");
        assert_eq!(
            std::fs::read_to_string(aside.path()).expect("reads"),
            "{ not json"
        );
    }
}
