//! `toolscope proxy fault`: sets, clears or lists the faults a proxied server's calls meet
//! (`<data dir>/proxy/<name>/faults.json`, read again by the running proxy when it changes).

use clap::Args;
use serde_json::Value;
use toolscope_proxy::faults::{Fault, FaultPlan, ImportedMock, InjectedError, InjectedErrorKind};
use toolscope_proxy::recorder::{check_name, sessions_root};

use crate::exit;
use crate::output::outln;
use crate::setup::{self, data_dir};
use crate::GlobalArgs;

#[derive(Debug, Args)]
pub struct FaultArgs {
    /// The proxied server's name (as given to `proxy mcp --name`).
    #[arg(long)]
    name: String,
    /// The tool whose calls the fault applies to (its MCP name).
    #[arg(long, required_unless_present_any = ["list", "clear_all"])]
    tool: Option<String>,
    /// Forward its calls after this many milliseconds.
    #[arg(long, value_name = "MS", group = "what")]
    delay_ms: Option<u64>,
    /// Answer its calls with an error: timeout, server_error, invalid_params or tool_error.
    #[arg(long, value_name = "KIND", group = "what")]
    error: Option<String>,
    /// The error's message (with --error).
    #[arg(long, requires = "error")]
    message: Option<String>,
    /// Answer its calls with this result (a CallToolResult as JSON).
    #[arg(long, value_name = "JSON", group = "what")]
    mock: Option<String>,
    /// Answer its calls as the imported set SET's mock of the definition of the same name
    /// answers (its value, template or error, after its latency), copied into the plan now.
    #[arg(long, value_name = "SET", group = "what")]
    mock_from: Option<String>,
    /// With --mock-from: the definition whose mock to use, when its name is not the tool's.
    #[arg(long, requires = "mock_from")]
    definition: Option<String>,
    /// Remove the tool's fault.
    #[arg(long, group = "what")]
    clear: bool,
    /// Remove every fault of the server.
    #[arg(long, conflicts_with_all = ["tool", "what"])]
    clear_all: bool,
    /// Print the plan without changing it.
    #[arg(long, conflicts_with_all = ["tool", "what", "clear_all"])]
    list: bool,
}

pub fn fault(global: &GlobalArgs, args: &FaultArgs) -> u8 {
    if let Err(message) = check_name(&args.name) {
        eprintln!("error: {message}");
        return exit::USAGE;
    }
    let path = FaultPlan::path(&sessions_root(&data_dir()).join(&args.name));
    let mut plan = match FaultPlan::load(&path) {
        Ok(plan) => plan,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    };
    if !args.list {
        match change(global, args) {
            Ok(Change::ClearAll) => plan.tools.clear(),
            Ok(Change::Clear(tool)) => {
                plan.tools.remove(&tool);
            }
            Ok(Change::Set(tool, fault)) => {
                plan.tools.insert(tool, fault);
            }
            Err(message) => {
                eprintln!("error: {message}");
                return exit::USAGE;
            }
        }
        if let Err(error) = plan.save(&path) {
            eprintln!("error: {error}");
            return exit::ENVIRONMENT;
        }
    }
    if plan.tools.is_empty() {
        outln!("no faults for {}", args.name);
    }
    for (tool, fault) in &plan.tools {
        let what = match fault {
            Fault::DelayMs(ms) => format!("delayed {ms} ms"),
            Fault::Error(error) => format!(
                "answered with {}{}",
                serde_json::to_value(error.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                error
                    .message
                    .as_ref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ),
            Fault::Mock(result) => format!("answered with the mock {result}"),
            Fault::Imported(imported) => format!(
                "answered as {}'s mock of {} answers{}",
                imported.set,
                imported.definition,
                match imported.mock.latency_ms {
                    0 => String::new(),
                    ms => format!(", after {ms} ms"),
                }
            ),
        };
        outln!("{tool}: {what}");
    }
    exit::OK
}

enum Change {
    ClearAll,
    Clear(String),
    Set(String, Fault),
}

fn change(global: &GlobalArgs, args: &FaultArgs) -> Result<Change, String> {
    if args.clear_all {
        return Ok(Change::ClearAll);
    }
    let tool = args.tool.clone().ok_or("--tool is required")?;
    if args.clear {
        return Ok(Change::Clear(tool));
    }
    let fault = if let Some(ms) = args.delay_ms {
        Fault::DelayMs(ms)
    } else if let Some(kind) = &args.error {
        let kind = InjectedErrorKind::parse(kind).ok_or_else(|| {
            format!(
                "--error '{kind}' is not one of {}",
                InjectedErrorKind::ALL.join(", ")
            )
        })?;
        Fault::Error(InjectedError {
            kind,
            message: args.message.clone(),
        })
    } else if let Some(mock) = &args.mock {
        let result: Value =
            serde_json::from_str(mock).map_err(|e| format!("--mock is not JSON: {e}"))?;
        if !result.is_object() {
            return Err("--mock must be a JSON object (a CallToolResult)".to_owned());
        }
        Fault::Mock(result)
    } else if let Some(set) = &args.mock_from {
        Fault::Imported(imported_mock(
            global,
            set,
            args.definition.as_deref().unwrap_or(&tool),
        )?)
    } else {
        return Err(
            "say what to do: --delay-ms, --error, --mock, --mock-from or --clear".to_owned(),
        );
    };
    Ok(Change::Set(tool, fault))
}

/// The mock imported set `set` gives `definition`, as it is now.
fn imported_mock(global: &GlobalArgs, set: &str, definition: &str) -> Result<ImportedMock, String> {
    let sets = setup::imported_sets(global).map_err(|e| e.message)?;
    let Some(found) = sets.get(set) else {
        let names: Vec<String> = sets.list().into_iter().map(|s| s.name).collect();
        return Err(if names.is_empty() {
            format!("no imported set '{set}' (there are none; see `toolscope import`)")
        } else {
            format!("no imported set '{set}'; the sets: {}", names.join(", "))
        });
    };
    let Some(mock) = found.mocks.get(definition) else {
        let defined = found.definitions.iter().any(|d| d.name == definition);
        return Err(if defined {
            format!(
                "'{definition}' of '{set}' has no mock; give it one with `toolscope imported mock \
                 {set} {definition} ...`"
            )
        } else {
            format!(
                "'{set}' defines no '{definition}' (name it with --definition); it defines: {}",
                found
                    .definitions
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
    };
    Ok(ImportedMock {
        set: found.name.clone(),
        definition: definition.to_owned(),
        mock: mock.clone(),
    })
}
