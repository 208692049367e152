//! Toolscope desktop shell: the Tauri side of the app.
//!
//! The app is thin by design: it owns one engine [`Registry`] in Tauri's managed state,
//! registers the built-in tools at startup (their workspace is `<app data dir>/workspace`)
//! and exposes the engine to the UI through commands. A command body is a call into the
//! engine plus a mapping to IPC types; failures cross IPC as [`CommandError`]
//! (`{"kind": ..., "message": ...}`), never as bare strings.
//!
//! Commands (each declared in `src-tauri/build.rs` and allowed in `src-tauri/capabilities/`):
//! - [`builtin_overview`]: the built-in tools and their methods, for the Discovery pane.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;
use tauri::Manager;
use toolscope_engine::builtin::{self, BuiltinOptions};
use toolscope_engine::{Registry, ToolSource};

/// A failure reported to the UI. Serialised as `{"kind": "<snake_case>", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum CommandError {
    /// Startup has not finished registering the built-in tools yet.
    NotReady(String),
    /// The built-in tools' workspace directory could not be resolved or created.
    Workspace(String),
    /// The engine refused to register a built-in tool.
    Registry(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotReady(message) | Self::Workspace(message) | Self::Registry(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for CommandError {}

/// What the app keeps in Tauri's managed state.
#[derive(Debug, Default)]
pub struct AppState {
    registry: Registry,
    /// Outcome of registering the built-in tools; set once, during setup.
    builtins: OnceLock<Result<(), CommandError>>,
}

impl AppState {
    /// Registers the built-in tools with `workspace_root` as their workspace, creating it.
    /// Records the outcome so commands can report a failed startup instead of an empty list.
    pub fn init_builtins(&self, workspace_root: Result<PathBuf, CommandError>) {
        let outcome = workspace_root.and_then(|root| register_builtins(&self.registry, &root));
        if let Err(error) = &outcome {
            eprintln!("toolscope: built-in tools unavailable: {error}");
        }
        // Only the first outcome counts; setup runs once.
        let _ = self.builtins.set(outcome);
    }

    /// The built-in tools and their methods, ordered by tool id.
    pub fn builtin_overview(&self) -> Result<Vec<ToolOverview>, CommandError> {
        match self.builtins.get() {
            None => Err(CommandError::NotReady(
                "the built-in tools are still being registered".into(),
            )),
            Some(Err(error)) => Err(error.clone()),
            Some(Ok(())) => Ok(overview(&self.registry, ToolSource::Builtin)),
        }
    }
}

/// One tool as the Discovery pane lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolOverview {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: ToolSource,
    pub methods: Vec<MethodOverview>,
}

/// One method of a listed tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodOverview {
    pub name: String,
    pub description: String,
    /// Whether a model may discover and call the method.
    pub agent_callable: bool,
}

/// The tools of `source` in `registry`, ordered by id, methods in registration order.
pub fn overview(registry: &Registry, source: ToolSource) -> Vec<ToolOverview> {
    registry
        .tools()
        .iter()
        .filter(|tool| tool.source == source)
        .map(|tool| ToolOverview {
            id: tool.id.clone(),
            name: tool.name.clone(),
            description: tool.description.clone(),
            source: tool.source,
            methods: tool
                .methods
                .iter()
                .map(|method| MethodOverview {
                    name: method.meta.name.clone(),
                    description: method.meta.description.clone(),
                    agent_callable: method.meta.agent_callable,
                })
                .collect(),
        })
        .collect()
}

fn register_builtins(registry: &Registry, workspace_root: &Path) -> Result<(), CommandError> {
    std::fs::create_dir_all(workspace_root).map_err(|e| {
        CommandError::Workspace(format!(
            "cannot create the workspace directory {}: {e}",
            workspace_root.display()
        ))
    })?;
    let options = BuiltinOptions {
        workspace_root: workspace_root.to_path_buf(),
    };
    builtin::register_all(registry, &options).map_err(|e| CommandError::Registry(e.to_string()))
}

fn workspace_root<R: tauri::Runtime>(app: &tauri::AppHandle<R>) -> Result<PathBuf, CommandError> {
    app.path()
        .app_data_dir()
        .map(|dir| dir.join("workspace"))
        .map_err(|e| CommandError::Workspace(format!("cannot resolve the app data directory: {e}")))
}

/// Lists the built-in tools and their methods.
#[tauri::command]
fn builtin_overview(state: tauri::State<'_, AppState>) -> Result<Vec<ToolOverview>, CommandError> {
    state.builtin_overview()
}

/// Starts the desktop app; returns when the last window closes.
pub fn run() {
    tauri::Builder::default()
        .manage(AppState::default())
        .invoke_handler(tauri::generate_handler![builtin_overview])
        .setup(|app| {
            let root = workspace_root(app.handle());
            app.state::<AppState>().init_builtins(root);
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("Toolscope could not start its window (see the error above)");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};
    use std::sync::Arc;
    use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
    use toolscope_engine::types::{Annotations, MethodMetadata, ToolInfo};

    struct Fixture(ToolInfo);

    impl Tool for Fixture {
        fn info(&self) -> ToolInfo {
            self.0.clone()
        }
        fn call<'a>(
            &'a self,
            _method: &'a str,
            args: Map<String, Value>,
            _ctx: CallContext,
        ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
            Box::pin(async move { Ok(Value::Object(args)) })
        }
    }

    fn method(name: &str, agent_callable: bool) -> MethodMetadata {
        MethodMetadata {
            name: name.into(),
            description: format!("does {name}"),
            parameters: json!({"type": "object"}),
            agent_callable,
            protocol_config: None,
            annotations: Annotations::default(),
            output_schema: None,
        }
    }

    fn tool(id: &str, source: ToolSource, methods: Vec<MethodMetadata>) -> Arc<dyn Tool> {
        Arc::new(Fixture(ToolInfo {
            id: id.into(),
            name: id.to_uppercase(),
            description: format!("the {id} tool"),
            source,
            methods,
        }))
    }

    #[test]
    fn overview_lists_builtin_tools_with_their_methods() {
        let registry = Registry::new();
        for t in [
            tool(
                "zeta",
                ToolSource::Builtin,
                vec![method("b", true), method("a", false)],
            ),
            tool("alpha", ToolSource::Builtin, vec![]),
            tool("remote", ToolSource::Http, vec![method("get", true)]),
        ] {
            registry.register(t).expect("fixture registers");
        }
        let listed =
            serde_json::to_value(overview(&registry, ToolSource::Builtin)).expect("serialises");
        assert_eq!(
            listed,
            json!([
                {"id": "alpha", "name": "ALPHA", "description": "the alpha tool",
                 "source": "builtin", "methods": []},
                {"id": "zeta", "name": "ZETA", "description": "the zeta tool",
                 "source": "builtin", "methods": [
                    {"name": "b", "description": "does b", "agent_callable": true},
                    {"name": "a", "description": "does a", "agent_callable": false}
                 ]}
            ])
        );
    }

    #[test]
    fn errors_cross_ipc_as_kind_and_message() {
        let error = CommandError::Workspace("no disk".into());
        assert_eq!(
            serde_json::to_value(&error).expect("serialises"),
            json!({"kind": "workspace", "message": "no disk"})
        );
        assert_eq!(error.to_string(), "no disk");
    }

    #[test]
    fn overview_reports_startup_state() {
        let state = AppState::default();
        assert!(matches!(
            state.builtin_overview(),
            Err(CommandError::NotReady(_))
        ));

        let failed = AppState::default();
        failed.init_builtins(Err(CommandError::Workspace("no data dir".into())));
        assert_eq!(
            failed.builtin_overview(),
            Err(CommandError::Workspace("no data dir".into()))
        );

        let dir = tempfile_dir();
        let ready = AppState::default();
        let root = dir.join("nested").join("workspace");
        ready.init_builtins(Ok(root.clone()));
        assert!(root.is_dir(), "the workspace root is created");
        let tools = ready.builtin_overview().expect("ready");
        assert!(tools.iter().all(|t| t.source == ToolSource::Builtin));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A fresh directory under the system temp dir (the app crate has no tempfile dependency).
    fn tempfile_dir() -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        std::env::temp_dir().join(format!("toolscope-app-test-{}-{nanos}", std::process::id()))
    }
}
