//! Build script: generates Tauri's context and checks the capabilities against the commands
//! the app declares, so each command is callable only where a capability allows it.

// Every `#[tauri::command]` the app registers. Each gets an `allow-<command>` /
// `deny-<command>` permission (underscores become dashes) for `src-tauri/capabilities/`.
include!("commands/names.rs");

fn main() {
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMAND_NAMES));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri-build failed: {error:#}");
    }
}
