//! `toolscope import` and `toolscope imported ...`: a person's own tool definitions as sets,
//! with their mocks. The sets live in `--imported-dir` (default `<data dir>/imported`), and every
//! other command sees them like any other tool.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::Value;
use toolscope_imported::{FindingLevel, Mock, MockErrorKind, MockReply, SetError};

use crate::output::outln;
use crate::setup::{self, SetupError};
use crate::{exit, render, GlobalArgs};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The definitions: an OpenAI / Anthropic / Gemini tools array or request body, an MCP
    /// tools/list result, BFCL JSON Lines (`-` or nothing: stdin).
    pub file: Option<PathBuf>,
    /// The set's name (its tool id is derived from it). Importing under an existing name
    /// replaces its definitions and keeps the mocks of names still defined.
    #[arg(long)]
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum ImportedCommand {
    /// List the imported sets.
    List,
    /// Delete a set.
    Remove { name: String },
    /// Set how one definition of a set answers when called (its mock).
    Mock(MockArgs),
}

#[derive(Debug, Args)]
pub struct ImportedArgs {
    #[command(subcommand)]
    pub command: ImportedCommand,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ErrorKindArg {
    ToolError,
    Transport,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("reply").required(true))]
pub struct MockArgs {
    /// The set.
    pub set: String,
    /// The definition's own name (as in the imported file).
    pub definition: String,
    /// Answer with this JSON.
    #[arg(long, group = "reply", value_name = "JSON")]
    pub fixed: Option<String>,
    /// Answer with this JSON, `{{arg}}` placeholders filled from the arguments.
    #[arg(long, group = "reply", value_name = "JSON")]
    pub template: Option<String>,
    /// Answer with the arguments.
    #[arg(long, group = "reply")]
    pub echo: bool,
    /// Fail with this message (see --error-kind).
    #[arg(long, group = "reply", value_name = "MESSAGE")]
    pub error: Option<String>,
    #[arg(long, value_enum, default_value = "tool-error", requires = "error")]
    pub error_kind: ErrorKindArg,
    /// Remove the mock: calls fail with "no implementation" again.
    #[arg(long, group = "reply")]
    pub clear: bool,
    /// Wait this long before answering.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub latency_ms: u32,
}

pub fn import(global: &GlobalArgs, args: ImportArgs) -> Result<u8, SetupError> {
    let text = setup::read_input(args.file.as_deref())?;
    let origin = args
        .file
        .as_ref()
        .filter(|p| p.as_os_str() != "-")
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "stdin".to_owned());
    let sets = setup::imported_sets(global)?;
    let report = sets.import(&args.name, &text, &origin).map_err(set_error)?;
    if global.json {
        render::json(&report);
        return Ok(exit::OK);
    }
    outln!(
        "{} '{}' (tool id {}): {} definitions{}",
        if report.replaced {
            "replaced"
        } else {
            "imported"
        },
        report.set.name,
        report.set.id,
        report.set.definitions,
        if report.repeats_merged > 0 {
            format!(", {} identical repeats merged", report.repeats_merged)
        } else {
            String::new()
        }
    );
    for finding in &report.findings {
        let level = match finding.level {
            FindingLevel::Error => "refused",
            FindingLevel::Warning => "warning",
            FindingLevel::Info => "note",
        };
        outln!("  {level}: {}: {}", finding.path, finding.message);
    }
    if !report.mocks_dropped.is_empty() {
        outln!(
            "  mocks dropped (definitions gone): {}",
            report.mocks_dropped.join(", ")
        );
    }
    Ok(exit::OK)
}

pub fn imported(global: &GlobalArgs, args: ImportedArgs) -> Result<u8, SetupError> {
    let sets = setup::imported_sets(global)?;
    match args.command {
        ImportedCommand::List => {
            let list = sets.list();
            if global.json {
                render::json(&list);
            } else if list.is_empty() {
                outln!("no imported sets (toolscope import FILE --name NAME)");
            } else {
                for set in list {
                    outln!(
                        "{}  ({} definitions, {} mocked; tool id {}; from {}, {})",
                        set.name,
                        set.definitions,
                        set.mocked,
                        set.id,
                        set.origin,
                        set.imported_at
                    );
                }
            }
        }
        ImportedCommand::Remove { name } => {
            sets.remove(&name).map_err(set_error)?;
            outln!("removed '{name}'");
        }
        ImportedCommand::Mock(args) => {
            let mock = mock(&args)?;
            sets.set_mock(&args.set, &args.definition, mock)
                .map_err(set_error)?;
            outln!(
                "{} the mock of '{}' in '{}'",
                if args.clear { "removed" } else { "saved" },
                args.definition,
                args.set
            );
        }
    }
    Ok(exit::OK)
}

fn json_arg(flag: &str, text: &str) -> Result<Value, SetupError> {
    serde_json::from_str(text).map_err(|e| SetupError::usage(format!("--{flag} is not JSON: {e}")))
}

fn mock(args: &MockArgs) -> Result<Option<Mock>, SetupError> {
    let reply = if let Some(text) = &args.fixed {
        MockReply::Fixed {
            value: json_arg("fixed", text)?,
        }
    } else if let Some(text) = &args.template {
        MockReply::Template {
            template: json_arg("template", text)?,
        }
    } else if args.echo {
        MockReply::Echo
    } else if let Some(message) = &args.error {
        MockReply::Error {
            kind: match args.error_kind {
                ErrorKindArg::ToolError => MockErrorKind::ToolError,
                ErrorKindArg::Transport => MockErrorKind::Transport,
            },
            message: message.clone(),
        }
    } else {
        return Ok(None);
    };
    Ok(Some(Mock {
        reply,
        latency_ms: args.latency_ms,
    }))
}

/// A failed change to the sets: the disk is an environment problem, the rest is the input.
fn set_error(error: SetError) -> SetupError {
    match error {
        SetError::Io { .. } => SetupError::environment(error.to_string()),
        other => SetupError::usage(other.to_string()),
    }
}
