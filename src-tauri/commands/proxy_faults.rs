//! Faults from the Live pane: the fault plan of a proxied server (`faults.json` beside its
//! sessions, `toolscope_proxy::faults`), read and changed per tool while the proxy runs, as
//! `toolscope proxy fault` changes it. The running proxy reads the file again within 200 ms;
//! the app starts nothing. A mock may be one of the app's imported tools' own mocks, copied in.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;
use tauri::State;
use toolscope_proxy::faults::{Fault, FaultPlan, ImportedMock};
use toolscope_proxy::recorder::check_name;

use super::proxy_sessions::session_roots;
use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// The longest delay a fault may ask for (as long as an imported mock's latency may be).
const MAX_DELAY_MS: u64 = toolscope_imported::mock::MAX_LATENCY_MS;

/// A server's plan and where it is kept.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProxyFaults {
    pub path: String,
    pub plan: FaultPlan,
}

/// What to do to one tool's fault.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FaultChange {
    Set {
        fault: Fault,
    },
    /// The mock the app's imported set `set` gives `definition`, as it is now.
    MockFrom {
        set: String,
        definition: String,
    },
    Clear,
}

fn invalid(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, message.into())
}

/// The directory of server `name`'s sessions: the CLI's first (a proxy started from an agent's
/// configuration records there), else the app's (replays from the pane).
pub fn server_dir(roots: &[PathBuf], name: &str) -> Result<PathBuf, CommandError> {
    check_name(name).map_err(invalid)?;
    let mut ordered: Vec<&PathBuf> = roots.iter().collect();
    ordered.reverse();
    ordered
        .into_iter()
        .map(|root| root.join(name))
        .find(|dir| dir.is_dir())
        .ok_or_else(|| invalid(format!("no proxy sessions of '{name}' to set faults for")))
}

fn read(dir: &Path) -> Result<ProxyFaults, CommandError> {
    let path = FaultPlan::path(dir);
    let plan = FaultPlan::load(&path).map_err(invalid)?;
    Ok(ProxyFaults {
        path: path.display().to_string(),
        plan,
    })
}

/// Checks a fault a person typed: what the proxy would refuse to apply, or apply wrongly.
fn check(fault: &Fault) -> Result<(), CommandError> {
    match fault {
        Fault::DelayMs(ms) if *ms > MAX_DELAY_MS => Err(invalid(format!(
            "a delay of {ms} ms is longer than the {MAX_DELAY_MS} ms (10 minutes) allowed"
        ))),
        Fault::Mock(result) if !result.is_object() => Err(invalid(
            "a mock is a CallToolResult: a JSON object such as {\"content\": [...]}",
        )),
        Fault::Imported(imported) => imported.mock.check().map_err(|e| invalid(e.to_string())),
        _ => Ok(()),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn proxy_faults_read(
    state: State<'_, AppState>,
    name: String,
) -> Result<ProxyFaults, CommandError> {
    let roots = session_roots(state.data_dir()?, state.cli_data_dir());
    read(&server_dir(&roots, &name)?)
}

/// Sets or clears the fault of `tool` of server `name`, and gives the plan as it now is.
#[tauri::command]
#[specta::specta]
pub async fn proxy_fault_set(
    state: State<'_, AppState>,
    name: String,
    tool: String,
    change: FaultChange,
) -> Result<ProxyFaults, CommandError> {
    let roots = session_roots(state.data_dir()?, state.cli_data_dir());
    let dir = server_dir(&roots, &name)?;
    if tool.trim().is_empty() {
        return Err(invalid("name the tool the fault is for"));
    }
    let fault = match change {
        FaultChange::Clear => None,
        FaultChange::Set { fault } => Some(fault),
        FaultChange::MockFrom { set, definition } => {
            let sets = &state.sources()?.imported;
            let found = sets
                .get(&set)
                .ok_or_else(|| invalid(format!("no imported set '{set}'")))?;
            let mock = found.mocks.get(&definition).ok_or_else(|| {
                invalid(format!(
                    "'{definition}' of '{set}' has no mock: give it one in Sources first"
                ))
            })?;
            Some(Fault::Imported(ImportedMock {
                set: found.name.clone(),
                definition,
                mock: mock.clone(),
            }))
        }
    };
    change_plan(&dir, &tool, fault)
}

pub(crate) fn change_plan(
    dir: &Path,
    tool: &str,
    fault: Option<Fault>,
) -> Result<ProxyFaults, CommandError> {
    if let Some(fault) = &fault {
        check(fault)?;
    }
    let path = FaultPlan::path(dir);
    let mut plan = FaultPlan::load(&path).map_err(invalid)?;
    match fault {
        Some(fault) => plan.tools.insert(tool.to_owned(), fault),
        None => plan.tools.remove(tool),
    };
    plan.save(&path).map_err(|e| {
        CommandError::new(CommandErrorKind::History, e).with_details(json!({"tool": tool}))
    })?;
    read(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_proxy::faults::{InjectedError, InjectedErrorKind};

    #[test]
    fn the_plan_is_kept_beside_the_server_sessions_preferring_the_clis() {
        let app = tempfile::tempdir().expect("tempdir");
        let cli = tempfile::tempdir().expect("tempdir");
        let roots = session_roots(app.path(), Some(cli.path()));
        assert!(server_dir(&roots, "files").is_err(), "no sessions yet");
        assert!(server_dir(&roots, "../etc").is_err());
        std::fs::create_dir_all(roots[0].join("files")).expect("app dir");
        assert_eq!(
            server_dir(&roots, "files").expect("dir"),
            roots[0].join("files")
        );
        std::fs::create_dir_all(roots[1].join("files")).expect("cli dir");
        let dir = server_dir(&roots, "files").expect("dir");
        assert_eq!(dir, roots[1].join("files"));

        let timeout = Fault::Error(InjectedError {
            kind: InjectedErrorKind::Timeout,
            message: None,
        });
        let changed = change_plan(&dir, "search", Some(timeout.clone())).expect("set");
        assert_eq!(changed.plan.tools.get("search"), Some(&timeout));
        // What the running proxy reads.
        let on_disk = FaultPlan::load(&FaultPlan::path(&dir)).expect("load");
        assert_eq!(on_disk, changed.plan);

        assert!(change_plan(&dir, "search", Some(Fault::DelayMs(MAX_DELAY_MS + 1))).is_err());
        assert!(change_plan(&dir, "search", Some(Fault::Mock(json!("text")))).is_err());
        let cleared = change_plan(&dir, "search", None).expect("cleared");
        assert!(cleared.plan.tools.is_empty());
    }
}
