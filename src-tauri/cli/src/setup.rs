//! Builds the engine the way every command needs it: registry with built-ins and imported sets,
//! executor options from a config file and flags, and the history file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolscope_builtin::{self as builtin, BuiltinOptions};
use toolscope_engine::declared_formats;
use toolscope_engine::history::History;
use toolscope_engine::{Registry, ToolCallConfig};
use toolscope_http::HttpToolSet;
use toolscope_imported::ImportedSets;
use toolscope_mcp::sources::SourceOptions;
use toolscope_mcp::{ClientHooks, McpSources, SourceStatus};
use toolscope_protocol::ProtocolSet;
use toolscope_wasm::{WasmRuntime, WasmToolSet};

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
    toolscope_engine::home::cli_data_dir()
}

/// The built-in formats and the declared ones of `--formats-dir` (else `<data dir>/formats`);
/// a format file with a problem is reported on stderr and left out, the rest still load.
pub fn protocols(global: &GlobalArgs) -> ProtocolSet {
    let dir = global
        .formats_dir
        .clone()
        .unwrap_or_else(|| data_dir().join("formats"));
    let standard = ProtocolSet::standard();
    let declared = declared_formats::load_dir(&dir, &standard);
    for problem in &declared.problems {
        eprintln!("warning: format {problem}");
    }
    standard.extended(declared.formats)
}

pub fn registry(global: &GlobalArgs) -> Result<Arc<Registry>, SetupError> {
    Ok(base(global)?.registry)
}

/// The imported sets, registered in the registry every command uses.
pub fn imported_sets(global: &GlobalArgs) -> Result<Arc<ImportedSets>, SetupError> {
    Ok(base(global)?.imported)
}

/// `--imported-dir`, else `<data dir>/imported`.
pub fn imported_dir(global: &GlobalArgs) -> PathBuf {
    global
        .imported_dir
        .clone()
        .unwrap_or_else(|| data_dir().join("imported"))
}

fn base(global: &GlobalArgs) -> Result<PreparedSources, SetupError> {
    if let Some(prepared) = &global.prepared {
        return Ok(prepared.clone());
    }
    base_sources(global)
}

/// Built-in tools and the imported sets; a set file that cannot be read is reported on
/// stderr and left as it is.
fn base_sources(global: &GlobalArgs) -> Result<PreparedSources, SetupError> {
    let registry = Arc::new(Registry::new());
    let workspace_root = global
        .workspace
        .clone()
        .unwrap_or_else(|| data_dir().join("workspace"));
    builtin::register_all(&registry, &BuiltinOptions { workspace_root })
        .map_err(|e| SetupError::environment(e.to_string()))?;
    let (imported, problems) = ImportedSets::open(&imported_dir(global), Arc::clone(&registry));
    for problem in problems {
        eprintln!("warning: imported set {problem}");
    }
    Ok(PreparedSources {
        registry,
        imported: Arc::new(imported),
        _mcp: None,
    })
}

/// The registry with MCP servers and HTTP tools added; keeps the MCP connections alive.
#[derive(Clone)]
pub struct PreparedSources {
    pub registry: Arc<Registry>,
    pub imported: Arc<ImportedSets>,
    _mcp: Option<Arc<McpSources>>,
}

impl std::fmt::Debug for PreparedSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSources").finish_non_exhaustive()
    }
}

/// Connects `--mcp-config` servers and loads `--http-tools` definitions and `--wasm-tools`. Giving the config
/// file on the command line is the consent to start its command lines, which are printed
/// first. A server or file that fails is reported on stderr; the others still load. What the
/// servers ask during calls goes to `hooks`.
pub async fn prepare_sources(
    global: &GlobalArgs,
    hooks: ClientHooks,
) -> Result<PreparedSources, SetupError> {
    let PreparedSources {
        registry, imported, ..
    } = base_sources(global)?;
    let mut mcp = None;
    if let Some(path) = &global.mcp_config {
        let text = read_mcp_config(path)?;
        let options = SourceOptions {
            hooks,
            sign_ins: Some(toolscope_mcp::SignInFiles::in_data_dir(&data_dir())),
            ..SourceOptions::default()
        };
        let sources = McpSources::new(Arc::clone(&registry), options);
        let report = sources
            .import(&text)
            .map_err(|e| SetupError::usage(format!("MCP config '{}': {e}", path.display())))?;
        for warning in &report.warnings {
            eprintln!("warning: {warning}");
        }
        for server in &report.servers {
            if let Some(line) = server.transport.command_line() {
                eprintln!("starting MCP server '{}': {line}", server.name);
            }
        }
        let names: Vec<String> = report.servers.iter().map(|s| s.name.clone()).collect();
        for state in futures_util::future::join_all(names.iter().map(|n| sources.approve(n))).await
        {
            match state {
                Ok(state) => {
                    let why = match state.status {
                        SourceStatus::Ready { .. } | SourceStatus::Disabled => continue,
                        SourceStatus::Failed { reason }
                        | SourceStatus::SignInRequired { reason } => reason,
                        SourceStatus::Connecting => "still connecting".to_owned(),
                        SourceStatus::SigningIn { page } => {
                            format!("still waiting for the sign-in at {page}")
                        }
                        SourceStatus::AwaitingApproval { command_line } => {
                            format!("its command line was not approved: {command_line}")
                        }
                    };
                    eprintln!(
                        "warning: MCP server '{}' is not available: {why}",
                        state.config.name
                    );
                }
                Err(e) => eprintln!("warning: {e}"),
            }
        }
        mcp = Some(Arc::new(sources));
    }
    if let Some(dir) = &global.http_tools {
        let set = HttpToolSet::new(dir.clone(), Arc::clone(&registry))
            .map_err(|e| SetupError::environment(e.to_string()))?;
        let report = tokio::task::spawn_blocking(move || set.reload())
            .await
            .map_err(|e| SetupError::environment(e.to_string()))?;
        for problem in &report.problems {
            eprintln!("warning: HTTP tool {problem}");
        }
    }
    if !global.wasm_tools.is_empty() {
        load_wasm_tools(global, &registry).await?;
    }
    Ok(PreparedSources {
        registry,
        imported,
        _mcp: mcp,
    })
}

/// Loads `--wasm-tools` directories. Grants are approved only with `--approve-wasm-grants`;
/// otherwise each waiting tool's requests are printed so the person can decide.
async fn load_wasm_tools(global: &GlobalArgs, registry: &Arc<Registry>) -> Result<(), SetupError> {
    let runtime = WasmRuntime::new().map_err(|e| SetupError::environment(e.to_string()))?;
    let set = WasmToolSet::new(Arc::clone(registry), runtime);
    let directories = global.wasm_tools.clone();
    let approve = global.approve_wasm_grants;
    let (report, pending) = tokio::task::spawn_blocking(move || {
        for directory in &directories {
            set.add_directory(directory)
                .map_err(|e| SetupError::usage(format!("--wasm-tools: {e}")))?;
        }
        let report = if approve {
            set.approve_all_pending()
        } else {
            set.reload()
        };
        Ok::<_, SetupError>((report, set.pending()))
    })
    .await
    .map_err(|e| SetupError::environment(e.to_string()))??;
    for problem in &report.problems {
        eprintln!("warning: WASM tool {problem}");
    }
    for waiting in &pending {
        eprintln!(
            "WASM tool '{}' asks to {}; run with --approve-wasm-grants to allow it",
            waiting.tool_id,
            waiting.grants.join(", ")
        );
    }
    Ok(())
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
    let path = history_path(global);
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

/// `--history`, else `<data dir>/history.jsonl`.
pub fn history_path(global: &GlobalArgs) -> PathBuf {
    global
        .history
        .clone()
        .unwrap_or_else(|| data_dir().join("history.jsonl"))
}

/// Reads a file, or stdin for `-` / no path. A UTF-8 byte order mark (Windows editors save
/// one) is dropped: it is the file's encoding, not its text, and a reply or JSON document that
/// starts with it would not read as one.
pub fn read_input(path: Option<&Path>) -> Result<String, SetupError> {
    let text = match path {
        Some(path) if path != Path::new("-") => std::fs::read_to_string(path)
            .map_err(|e| SetupError::usage(format!("cannot read '{}': {e}", path.display())))?,
        _ => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| SetupError::usage(format!("cannot read stdin: {e}")))?;
            text
        }
    };
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// The text of the `--mcp-config` file.
pub fn read_mcp_config(path: &Path) -> Result<String, SetupError> {
    std::fs::read_to_string(path)
        .map_err(|e| SetupError::usage(format!("cannot read MCP config '{}': {e}", path.display())))
}
