//! Toolscope desktop app: the Tauri side.
//!
//! The app is thin by design: [`state::AppState`] owns the engine, [`commands`] are typed
//! (tauri-specta) calls into it, and failures cross IPC as [`error::CommandError`]
//! (`{kind, message, details}`). Commands are declared in `build.rs` so the capabilities in
//! `src-tauri/capabilities/` apply to them. The app opens no network port.

pub mod commands;
pub mod error;
pub mod state;

use tauri::Manager;

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Starts the desktop app; returns when the last window closes.
pub fn run() {
    let specta = commands::builder();
    tauri::Builder::default()
        .plugin(tauri_plugin_store::Builder::default().build())
        .manage(AppState::default())
        .invoke_handler(specta.invoke_handler())
        .setup(|app| {
            let handle = app.handle();
            let state = app.state::<AppState>();
            let data_dir = handle.path().app_data_dir().map_err(|e| {
                CommandError::new(
                    CommandErrorKind::Workspace,
                    format!("cannot resolve the app data directory: {e}"),
                )
            });
            state.start(data_dir.as_deref().map_err(Clone::clone));
            commands::settings::apply_stored(handle, &state);
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("Toolscope could not start its window (see the error above)");
}
