//! `--tools FILE` / `--tool-set NAME`: the tools of the request a reply answered, read from any
//! definitions shape `toolscope import` reads, or taken from an imported set.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;
use toolscope_engine::request_tools::RequestTools;
use toolscope_imported::{read_definitions, read_request_tools, Finding, RequestToolsError};

use crate::setup::{self, SetupError};
use crate::GlobalArgs;

#[derive(Debug, Args)]
pub struct RequestToolsArgs {
    /// The request's tools: an OpenAI / Anthropic / Gemini tools array or request body, an MCP
    /// tools/list result, BFCL JSON Lines. They type text values, validate the arguments and
    /// flag calls to tools the request does not define.
    #[arg(long, value_name = "FILE", conflicts_with = "tool_set")]
    pub tools: Option<PathBuf>,
    /// Like --tools, with an imported set's definitions (see `toolscope imported list`).
    #[arg(long, value_name = "NAME")]
    pub tool_set: Option<String>,
}

impl RequestToolsArgs {
    /// The request's tools, if any were named; bad entries of a file are reported on stderr and
    /// the good ones kept.
    pub fn load(&self, global: &GlobalArgs) -> Result<Option<RequestTools>, SetupError> {
        if let Some(name) = &self.tool_set {
            let sets = setup::imported_sets(global)?;
            let set = sets.get(name).ok_or_else(|| {
                let known: Vec<String> = sets.list().into_iter().map(|s| s.name).collect();
                SetupError::usage(format!(
                    "no imported set '{name}' (imported: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
            return Ok(Some(set.request_tools()));
        }
        let Some(path) = &self.tools else {
            return Ok(None);
        };
        let text = setup::read_input(Some(path))?;
        let (tools, findings) = match read_request_tools(&text) {
            Ok(read) => read,
            Err(error) => {
                if let RequestToolsError::NoneUsable(findings) = &error {
                    report_findings(findings, path);
                }
                return Err(SetupError::usage(format!(
                    "--tools {}: {error}",
                    path.display()
                )));
            }
        };
        report_findings(&findings, path);
        Ok(Some(tools))
    }
}

/// The tools a case carries itself (any import shape), when it does.
pub fn from_value(value: &Value) -> Result<RequestTools, String> {
    let import = read_definitions(&value.to_string()).map_err(|e| e.to_string())?;
    Ok(toolscope_imported::request_tools(&import.definitions))
}

fn report_findings(findings: &[Finding], path: &std::path::Path) {
    for finding in findings {
        eprintln!(
            "warning: --tools {}: {}: {}",
            path.display(),
            finding.path,
            finding.message
        );
    }
}
