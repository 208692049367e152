//! The platform's floor for the app bench (`bash tests/e2e/run.sh --bench`): an empty Tauri 2
//! window with one static paragraph, started and measured exactly like the app. Startup time
//! and memory of Toolscope then read as a ratio to what any Tauri 2 window costs on the same
//! machine in the same sitting, instead of as bare figures that move with the host.

fn main() {
    let context = tauri::generate_context!("tests/e2e/empty-window/tauri.conf.json");
    if let Err(error) = tauri::Builder::default().run(context) {
        eprintln!("the empty window could not run: {error}");
        std::process::exit(1);
    }
}
