//! Toolscope desktop app: the Tauri side.
//!
//! The app is thin by design: [`state::AppState`] owns the engine, [`commands`] are typed
//! (tauri-specta) calls into it, and failures cross IPC as [`error::CommandError`]
//! (`{kind, message, details}`). Commands are declared in `build.rs` so the capabilities in
//! `src-tauri/capabilities/` apply to them. The app opens no network port.

pub mod commands;
pub mod elicitations;
pub mod error;
pub mod sources;
pub mod state;

#[cfg(test)]
mod privilege;

use tauri::{Emitter, Manager};

use crate::error::{CommandError, CommandErrorKind};
use crate::state::AppState;

/// Starts the desktop app; returns when the last window closes.
pub fn run() {
    paint_without_gpu_compositing();
    let specta = commands::builder();
    tauri::Builder::default()
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
            state.set_cli_data_dir(toolscope_engine::home::cli_data_dir());
            state.start(data_dir.as_deref().map_err(Clone::clone));
            commands::settings::apply_stored(&state);
            forward_source_changes(handle.clone(), &state);
            let announcer = handle.clone();
            state.elicitations.set_announcer(move || {
                let _ = announcer.emit(elicitations::CHANGED, ());
            });
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("Toolscope could not start its window (see the error above)");
}

/// Tells the UI (event `sources-changed`) when an MCP server's status or the tool list of a
/// source changed, so the panes re-read instead of polling.
fn forward_source_changes(handle: tauri::AppHandle, state: &AppState) {
    let Ok(sources) = state.sources() else { return };
    let mut changes = sources.changes.subscribe();
    tauri::async_runtime::spawn(async move {
        while changes.changed().await.is_ok() {
            let generation = *changes.borrow_and_update();
            let _ = handle.emit("sources-changed", generation);
        }
    });
}

/// WebKitGTK composites pages through OpenGL by default. Where there is no GPU (VMs, remote
/// desktops, CI under Xvfb) that GL is Mesa's software rasterizer, and its layer buffers cost
/// this app's web process about 125 MiB right after start and 250 MiB after some use (measured
/// under Xvfb with `tests/e2e/bench.mjs` and `tests/e2e/probe-memory.mjs`: web process 320 ->
/// 191 MiB at start, 508 -> 260 MiB after 300 Executor runs). What the app draws (forms, lists,
/// text; no canvas, video or 3D) paints fine without compositing, and non-composited mode also
/// avoids the blank windows some GPU drivers give WebKitGTK. So the app turns compositing off for
/// itself, before GTK and WebKit start, unless the user set `WEBKIT_DISABLE_COMPOSITING_MODE`
/// (`=0` turns it back on).
fn paint_without_gpu_compositing() {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if cfg!(target_os = "linux") && std::env::var_os(VAR).is_none() {
        // Runs first thing in `run()`, before Tauri, GTK or WebKit start a thread.
        std::env::set_var(VAR, "1");
    }
}
